package author

import (
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/text"
)

// Summary is what a run did.
type Summary struct {
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	Briefs        int    `json:"briefs"`
	// Skipped were done by an earlier run (their results are in Results,
	// marked skipped, and counted in the verdicts below).
	Skipped int `json:"skipped"`
	Passed  int `json:"passed"`
	// ZeroShot passed on the first draft; AfterRounds counts the others by
	// the repair rounds they needed.
	ZeroShot    int          `json:"zero_shot"`
	AfterRounds []RoundCount `json:"after_rounds"`
	Checked     int          `json:"checked,omitempty"`
	Failed      int          `json:"failed"`
	Errors      int          `json:"errors"`
	Interrupted int          `json:"interrupted"`
	// Tokens, Requests and Retries count this run's work (not the skipped
	// briefs').
	Tokens   Usage    `json:"tokens"`
	Requests int      `json:"requests"`
	Retries  int      `json:"retries"`
	Seconds  float64  `json:"seconds"`
	Results  []Result `json:"results"`
}

// RoundCount is how many briefs passed after a number of repair rounds.
type RoundCount struct {
	Rounds int `json:"rounds"`
	Briefs int `json:"briefs"`
}

func summarize(results []Result) *Summary {
	s := &Summary{Briefs: len(results), AfterRounds: []RoundCount{}}
	after := map[int]int{}
	for _, r := range results {
		if r.Skipped {
			s.Skipped++
		} else {
			s.Tokens.Add(r.Tokens)
			s.Requests += r.Attempts
			s.Retries += r.Retries
		}
		switch r.Verdict {
		case ResultPassed:
			s.Passed++
			if r.Rounds == 0 {
				s.ZeroShot++
			} else {
				after[r.Rounds]++
			}
		case ResultChecked:
			s.Checked++
		case ResultFailed:
			s.Failed++
		case ResultError:
			s.Errors++
		case ResultInterrupted:
			s.Interrupted++
		}
	}
	for n, c := range after {
		s.AfterRounds = append(s.AfterRounds, RoundCount{n, c})
	}
	slices.SortFunc(s.AfterRounds, func(a, b RoundCount) int { return a.Rounds - b.Rounds })
	s.Results = slices.Clone(results)
	slices.SortFunc(s.Results, func(a, b Result) int { return strings.Compare(a.ID, b.ID) })
	return s
}

// OK reports whether every brief passed (or checked, with check only).
func (s *Summary) OK() bool { return s.Failed+s.Errors+s.Interrupted == 0 }

// Text renders the summary for people: a line per brief that did not pass,
// then the totals.
func (s *Summary) Text() string {
	var b strings.Builder
	for _, r := range s.Results {
		switch r.Verdict {
		case ResultFailed, ResultError, ResultInterrupted:
			fmt.Fprintf(&b, "%-11s %s: %s\n", strings.ToUpper(r.Verdict), r.ID, r.Reason)
		}
	}
	parts := []string{fmt.Sprintf("%d passed", s.Passed)}
	if s.Passed > 0 {
		detail := []string{fmt.Sprintf("%d zero-shot", s.ZeroShot)}
		for _, rc := range s.AfterRounds {
			detail = append(detail, fmt.Sprintf("%d after %s", rc.Briefs, text.Plural(rc.Rounds, "round")))
		}
		parts[0] += " (" + strings.Join(detail, ", ") + ")"
	}
	if s.Checked > 0 {
		parts = append(parts, fmt.Sprintf("%d checked (not gated)", s.Checked))
	}
	parts = append(parts, fmt.Sprintf("%d failed", s.Failed))
	if s.Errors > 0 {
		parts = append(parts, text.Plural(s.Errors, "error"))
	}
	if s.Interrupted > 0 {
		parts = append(parts, fmt.Sprintf("%d interrupted", s.Interrupted))
	}
	fmt.Fprintf(&b, "%s: %s", text.Plural(s.Briefs, "brief"), strings.Join(parts, ", "))
	if s.Skipped > 0 {
		fmt.Fprintf(&b, "; %d done before", s.Skipped)
	}
	fmt.Fprintf(&b, "\ntokens %d (prompt %d, completion %d), %s, %s in %.1fs\n",
		s.Tokens.Total(), s.Tokens.Prompt, s.Tokens.Completion, text.Plural(s.Requests, "request"), fmt.Sprintf("%d retries", s.Retries), s.Seconds)
	return b.String()
}
