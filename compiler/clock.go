package compiler

import (
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/runtime"
)

// taskClock checks a task's own clock (`today 2026-03-16`, `now
// 2026-03-16T17:45:00Z`, or both, as in the world header) and sets it on
// t: today a date that exists, now a date-time on that date (today at
// 00:00 UTC when only today is given, the date of now when only now is).
// A task's clock may be before the world's: a task set before a due date
// the seed already holds is legitimate. Each key at most once.
func (c *checker) taskClock(d *dsl.Task, t *ir.Task) {
	var today, now string
	var nowAt *dsl.Clock
	seen := map[string]*dsl.Clock{}
	for _, k := range d.Clock {
		if k == nil || k.Value == nil {
			continue
		}
		if first := seen[k.Key]; first != nil {
			c.errorf(diag.DuplicateName, k.Pos, k.EndPos, "task %s sets its %s twice, first at %s", d.Name, k.Key, short(first.Pos))
			continue
		}
		seen[k.Key] = k
		v := k.Value
		switch k.Key {
		case "today":
			if v.Date == nil {
				c.errorf(diag.TypeMismatch, v.Pos, v.EndPos, "a task's today is a date such as 2026-03-16")
				continue
			}
			dt, err := runtime.ParseDate(*v.Date)
			if err != nil {
				c.errorf(diag.InvalidLiteral, v.Pos, v.EndPos, "date %s: %v", *v.Date, err)
				continue
			}
			today = dt.String()
		case "now":
			if v.DateTime == nil {
				c.errorf(diag.TypeMismatch, v.Pos, v.EndPos, "a task's now is a date-time such as 2026-03-16T17:45:00Z")
				continue
			}
			tm, err := runtime.ParseDateTime(*v.DateTime)
			if err != nil {
				c.errorf(diag.InvalidLiteral, v.Pos, v.EndPos, "date-time %s: %v", *v.DateTime, err)
				continue
			}
			now, nowAt = tm.String(), k
		}
	}
	switch {
	case today != "" && now != "" && !strings.HasPrefix(now, today+"T"):
		c.errorf(diag.InvalidLiteral, nowAt.Pos, nowAt.EndPos, "task %s's now (%s) is not on its today (%s)", d.Name, now, today)
		return
	case today != "" && now == "":
		if seen["now"] != nil {
			return // reported
		}
		now = today + "T00:00:00Z"
	case now != "" && today == "":
		if seen["today"] != nil {
			return // reported
		}
		today = now[:len("2026-03-16")]
	}
	t.Today, t.Now = today, now
}
