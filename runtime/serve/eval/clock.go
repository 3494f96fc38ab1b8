package eval

import (
	"fmt"
	"strings"

	"github.com/worldc/worldc/runtime"
)

// Clock is the date and time an episode of a task runs on — the task's
// own clock (`today`/`now` in the task), else the world's — as an agent
// and a trainer are told it. Every protocol of the bundle's server gives
// it with the task under the same two JSON members: "today"
// ("2026-05-22") and "now" (RFC 3339 in UTC, "2026-05-22T09:00:00Z").
type Clock struct {
	Today runtime.Date     `json:"today"`
	Now   runtime.DateTime `json:"now"`
}

// TaskClock is the clock of t's episodes in the world info describes (a
// zero TaskInfo: the world seed's, the world's clock). A world whose
// Info leaves Now unset (or sets it on another day than Today) runs at
// Today's 00:00 UTC, as the language says.
func TaskClock(info runtime.WorldInfo, t runtime.TaskInfo) Clock {
	if t.Now != nil {
		return Clock{Today: t.Now.Date(), Now: *t.Now}
	}
	now := info.Now
	if now.Date() != info.Today {
		now = runtime.Clock{Today: info.Today}.Now()
	}
	return Clock{Today: info.Today, Now: now}
}

// Sentence is the clock in words, as the agent reads it: "Today is
// Friday, 2026-05-22; the time is 09:00 UTC (2026-05-22T09:00:00Z)."
// (seconds only when there are some).
func (c Clock) Sentence() string {
	h, m, s := c.Now.Clock()
	at := fmt.Sprintf("%02d:%02d", h, m)
	if s != 0 {
		at += fmt.Sprintf(":%02d", s)
	}
	return fmt.Sprintf("Today is %s, %s; the time is %s UTC (%s).", c.Today.Weekday(), c.Today, at, c.Now)
}

// policyDateLine is the start of the line of templates/policy.md.tmpl
// that gives the world's date, followed by that date.
const policyDateLine = "- Today's date: "

// TaskPolicy is a world's policy document as the agent of a task with
// clock c is shown it: the line that gives the world's date (`- Today's
// date: <info.Today> …`, as worldc's policy template writes it) replaced
// by "- " and c's Sentence; a document without that line (a spec's own
// policy file) with the Sentence as its first paragraph. So the agent is
// told the task's date and time, and never the world's beside it.
func TaskPolicy(policy string, info runtime.WorldInfo, c Clock) string {
	line := policyDateLine + info.Today.String()
	for at := 0; at < len(policy); {
		i := strings.Index(policy[at:], line)
		if i < 0 {
			break
		}
		i += at
		if i == 0 || policy[i-1] == '\n' {
			end := strings.IndexByte(policy[i:], '\n')
			if end < 0 {
				end = len(policy) - i
			}
			return policy[:i] + "- " + c.Sentence() + policy[i+end:]
		}
		at = i + len(line)
	}
	return c.Sentence() + "\n\n" + policy
}
