package compiler

import (
	"slices"
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

// MaxHolidays is the most public holidays a world declares, in its header
// or in a data file (W019).
const MaxHolidays = 10_000

// holidays collects a world's holidays (World.Holidays), from the header's
// list or a data file: each a date that exists, none twice, at most
// MaxHolidays.
type holidays struct {
	c     *checker
	first map[string]span
	full  bool
}

// add adds the holiday written text at sp.
func (h *holidays) add(text string, sp span) {
	c := h.c
	if h.full {
		return
	}
	d, err := runtime.ParseDate(strings.TrimSpace(text))
	if err != nil {
		c.errorAt(diag.InvalidLiteral, sp, "holiday %q is not a date YYYY-MM-DD that exists", text)
		return
	}
	key := d.String()
	if first, dup := h.first[key]; dup {
		pos, _ := first.at()
		c.errorAt(diag.DuplicateName, sp, "holiday %s is listed twice, first at %s", key, short(pos))
		return
	}
	if len(h.first) == MaxHolidays {
		c.errorAt(diag.SizeLimit, sp, "more than %d holidays", MaxHolidays)
		h.full = true
		return
	}
	if h.first == nil {
		h.first = map[string]span{}
	}
	h.first[key] = sp
	c.w.Holidays = append(c.w.Holidays, key)
}

// holidayList reads the header's `holidays "2026-04-03, 2026-12-25"`:
// dates separated by commas or white space.
func (c *checker) holidayList(p *dsl.Prop, text string) {
	h := &holidays{c: c}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		h.add(f, specSpan(p.Value.Pos, p.Value.EndPos))
	}
	slices.Sort(c.w.Holidays)
}

// holidaysFrom reads `holidays from "FILE"`, a data file next to the spec
// read as load reads them (through the spec directory's os.Root, regular
// files only, bounded): a CSV file with a header row and a `date` column
// (other columns, such as a name, are ignored), or a JSON array of dates
// or of objects with a "date" member.
func (c *checker) holidaysFrom(p *dsl.Prop) {
	df := c.dataFileAt(*p.From, p.Pos, p.EndPos)
	if df == nil {
		return
	}
	h := &holidays{c: c}
	switch {
	case df.csv != nil:
		col := slices.Index(df.csv.header, "date")
		if col < 0 {
			c.errorAt(diag.DataFile, span{df: df, off: 0, endOff: 0}, "holidays file %s has no date column (its header: %s)", df.display, strings.Join(df.csv.header, ", "))
			return
		}
		for i, row := range df.csv.rows {
			off := df.csv.pos[0][col]
			if col < len(row) {
				off = df.csv.pos[i+1][col]
			}
			if col >= len(row) || strings.TrimSpace(row[col]) == "" {
				c.errorAt(diag.InvalidLiteral, span{df: df, off: off, endOff: off}, "row %d has no date", i+1)
				continue
			}
			h.add(row[col], span{df: df, off: off, endOff: off + len(row[col])})
		}
	case df.json != nil && df.json.kind == jArray:
		for _, e := range df.json.elems {
			n := e
			if e.kind == jObject {
				n = nil
				for _, m := range e.members {
					if m.key == "date" {
						n = m.val
					}
				}
				if n == nil {
					c.errorAt(diag.DataFile, df.span(e), "a holiday object has no \"date\" member")
					continue
				}
			}
			if n.kind != jString {
				c.errorAt(diag.DataFile, df.span(n), "a holiday is a date string such as \"2026-04-03\", not %s", n.kind)
				continue
			}
			h.add(n.str, df.span(n))
		}
	default:
		c.errorAt(diag.DataFile, df.span(df.json), "holidays file %s must hold an array of dates (or of objects with a \"date\"), not %s", df.display, df.json.kind)
		return
	}
	slices.Sort(c.w.Holidays)
}
