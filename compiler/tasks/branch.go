package tasks

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A program with a branch: for every record of a group, a condition over
// one of its fields — a number or a date compared with a threshold the
// words state, or an enum or bool value — decides which write it gets:
// one write on the records that meet it, another (or none) on the
// others. The agent lists the group and must read each record to know
// what to do; the golden solution is the unrolled loop, executed in the
// group's order, and the rubric comes from its state diff.

// loopWrite is a write a program makes on records of one entity: the
// tool, the parameter that takes the record, the other arguments.
type loopWrite struct {
	f      *toolFacts
	p      *ir.Param
	others []arg
}

// args are the write's arguments on the record id.
func (lw *loopWrite) args(id string) []arg {
	args := append([]arg{{p: lw.p, v: id}}, lw.others...)
	sortArgs(lw.f.tool, args)
	return args
}

// condition is what a program's branch tests on each record.
type condition struct {
	field *ir.Field
	// op is ">" (a number above the threshold, a date after it) or "=="
	// (an enum or bool value).
	op string
	v  any
}

// holds reports whether record m meets the condition.
func (c *condition) holds(m map[string]any) bool {
	if c.op == "==" {
		return sameAtom(m[c.field.Name], c.v)
	}
	return compareValues(m[c.field.Name], c.v, c.field) > 0
}

// conditionText is the condition in words, on "its" record: "it is
// marked as active", "its status is open", "it was received after
// 2026-03-10", "it ends after 2026-04-30", "its amount is above 500 EUR".
func (x *synth) conditionText(c *condition, wd *wording) string {
	name := humanize(c.field.Name)
	verb, _, finite, isVerb := verbOf(c.field.Name)
	switch {
	case c.op == "==" && c.field.Type.Kind == ir.KindBool:
		v, _ := c.v.(bool)
		return "it is " + wd.give(flagPhrase(c.field.Name, v))
	case c.op == "==":
		return "its " + name + " is " + wd.give(x.valueText(c.v, c.field.Type))
	case c.field.Type.Kind == ir.KindDate && isVerb && finite:
		return "it " + verb + " after " + wd.give(x.valueText(c.v, c.field.Type))
	case c.field.Type.Kind == ir.KindDate && isVerb:
		return "it was " + verb + " after " + wd.give(x.valueText(c.v, c.field.Type))
	case c.field.Type.Kind == ir.KindDate:
		return "its " + name + " is after " + wd.give(x.valueText(c.v, c.field.Type))
	}
	return "its " + name + " is above " + wd.give(x.valueText(c.v, c.field.Type))
}

// relativeText is the condition after a plural noun: "of those marked as
// active", "of those whose status is open", "of those received after
// 2026-03-10", "of those that end after …".
func (x *synth) relativeText(c *condition, wd *wording) string {
	s := x.conditionText(c, wd)
	switch {
	case strings.HasPrefix(s, "its ") && endsInPreposition(c.field.Name):
		// its loyalty until is after …: with loyalty until after …
		return "with " + strings.Replace(strings.TrimPrefix(s, "its "), " is ", " ", 1)
	case strings.HasPrefix(s, "its "):
		return "whose " + strings.TrimPrefix(s, "its ")
	case strings.HasPrefix(s, "it is "):
		return strings.TrimPrefix(s, "it is ")
	case strings.HasPrefix(s, "it was "):
		return strings.TrimPrefix(s, "it was ")
	}
	// it ends after …: that end after …
	verb, _, _, _ := verbOf(c.field.Name)
	ws := strings.Fields(verb)
	ws[len(ws)-1] = strings.TrimSuffix(ws[len(ws)-1], "s")
	return "that " + strings.Join(ws, " ") + strings.TrimPrefix(strings.TrimPrefix(s, "it "), verb)
}

// loopShapes are the writes whose first naming parameter takes one
// record of an entity a search can list by group.
func (x *synth) loopShapes() []*loopWrite {
	var out []*loopWrite
	for _, f := range x.writers {
		if x.ruled[f.tool] {
			continue
		}
		for _, p := range f.tool.Params {
			e := f.names[p]
			if e == nil {
				continue
			}
			if p.Type.Kind != ir.KindList && p.Required() && len(x.groupSearches(e)) > 0 {
				out = append(out, &loopWrite{f: f, p: p})
			}
			break // the first naming parameter is the loop's
		}
	}
	return out
}

// branchTries is how many groups a program with a branch is drawn on
// before the attempt counts as dropped: most groups fail on some member.
const branchTries = 3

// sampleBranch draws a program with a branch and makes it a task.
func (x *synth) sampleBranch() (*task, string) {
	reason := ""
	for try := 0; try < branchTries; try++ {
		var t *task
		if t, reason = x.branchOnce(); t != nil {
			return t, ""
		}
	}
	return nil, reason
}

func (x *synth) branchOnce() (*task, string) {
	shapes := x.loopShapes()
	if len(shapes) == 0 {
		return nil, "no_program_shape"
	}
	a := *shapes[x.rng.IntN(len(shapes))]
	e := a.f.names[a.p]
	g := newCtx()
	gr, reason := x.drawGroup(e, g, 2)
	if gr == nil {
		return nil, reason
	}
	// A condition drawn at random, whose records the write must succeed
	// on; failing that, one that tells apart the records the write
	// succeeds on (with the arguments it takes on the first) from the
	// others.
	cond := x.drawCondition(gr)
	var yes, no []map[string]any
	split := func() {
		yes, no = nil, nil
		for _, m := range gr.members {
			if cond.holds(m) {
				yes = append(yes, m)
			} else {
				no = append(no, m)
			}
		}
	}
	if cond != nil {
		split()
	}
	if cond == nil || len(yes) == 0 || len(no) == 0 || !x.loopArgs(&a, yes) {
		if cond = x.separating(&a, gr); cond == nil {
			return nil, "program_call_failed"
		}
		split()
	}
	// The other side: another write on the same records that succeeds on
	// each of them, or none.
	var b *loopWrite
	var others []*loopWrite
	for _, s := range shapes {
		if s.f != a.f && s.f.names[s.p] == e {
			others = append(others, s)
		}
	}
	x.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
	for i, s := range others {
		if i >= 4 {
			break
		}
		c := *s
		if x.loopArgs(&c, no) {
			b = &c
			break
		}
	}
	// The unrolled loop.
	st := x.start.Clone()
	var calls []*call
	for _, m := range gr.members {
		w := b
		if cond.holds(m) {
			w = &a
		}
		if w == nil {
			continue
		}
		n := st.Clone()
		c := x.programCall(n, w.f.tool, w.args(recordID(m, e)))
		if c == nil {
			return nil, "program_call_failed"
		}
		calls = append(calls, c)
		st = n
	}
	if len(st.Violations()) > 0 {
		return nil, "invariant_unrepaired"
	}
	// The records the writes take besides the loop's are grounded.
	clauses := []clause{{c: calls[slices.IndexFunc(calls, func(c *call) bool { return c.tool == a.f.tool })], descs: map[*ir.Param][]*desc{}}}
	if b != nil {
		clauses = append(clauses, clause{c: calls[slices.IndexFunc(calls, func(c *call) bool { return c.tool == b.f.tool })], descs: map[*ir.Param][]*desc{}})
	}
	for i := range clauses {
		cl := &clauses[i]
		f := x.byTool[cl.c.tool]
		for _, ar := range cl.c.args {
			if e2 := f.names[ar.p]; e2 != nil && ar.p != a.p && (b == nil || ar.p != b.p) {
				for _, id := range stringsIn(ar.v) {
					d := x.ground(x.start, e2, id, g, false, 0)
					if d == nil {
						return nil, "ungroundable"
					}
					cl.descs[ar.p] = append(cl.descs[ar.p], d)
				}
			}
		}
	}
	var records []string
	for _, c := range calls {
		g.addCall(c)
		for _, ar := range c.args {
			if x.byTool[c.tool].names[ar.p] != nil {
				for _, id := range stringsIn(ar.v) {
					records = append(records, ar.p.Name+":"+id)
				}
			}
		}
	}
	t := &task{origin: OriginProgram, calls: g.calls, records: records, start: x.start, end: st}
	t.persona = x.persona()
	t.instruction, t.facts = x.branchWords(gr, cond, clauses)
	as, reason := x.rubric(x.start, st, t.calls)
	if reason != "" {
		return nil, reason
	}
	t.assertions = as
	t.profile = x.measure(t, nil, g)
	t.profile.Branches = len(gr.members)
	t.profile.LoopIterations = len(calls)
	t.profile.Distractors += len(gr.members) - len(calls)
	t.profile.Level = level(t.profile)
	return t, ""
}

// loopArgs finds the other arguments of lw from the first records it
// succeeds on, such that the write succeeds (and changes the state, and
// keeps every always-invariant and rule) on each of recs from the start
// state; false when none do.
func (x *synth) loopArgs(lw *loopWrite, recs []map[string]any) bool {
	e := lw.f.names[lw.p]
	for k, m := range recs {
		if k >= 3 {
			break
		}
		id := recordID(m, e)
		for _, args := range x.argSets(x.start, lw.f.tool, []recKey{{e, id}}, maxArgSets) {
			if a := argOf(args, lw.p); a == nil || a.v != id {
				continue
			}
			var others []arg
			for _, ar := range args {
				if ar.p != lw.p {
					others = append(others, ar)
				}
			}
			lw.others = others
			ok := true
			for _, r := range recs {
				if x.programCall(x.start.Clone(), lw.f.tool, lw.args(recordID(r, e))) == nil {
					ok = false
					break
				}
			}
			if ok {
				return true
			}
		}
	}
	return false
}

// drawCondition draws what a branch tests: a number or date field of the
// group's records with at least two values among them, above a
// threshold between two of them (a round number where one fits), or an
// enum or bool field (not the group's own filter) equal to one of its
// values; nil when the records have no such field.
func (x *synth) drawCondition(gr *group) *condition {
	var fields []*ir.Field
	for _, f := range gr.e.Fields {
		if f == gr.e.Key || (gr.kind != nil && f.Name == gr.kind.field) {
			continue
		}
		switch {
		case numeric(f) || f.Type.Kind == ir.KindDate:
			if vs, ok := distinctSorted(gr.members, f); ok && len(vs) >= 2 {
				fields = append(fields, f)
			}
		case f.Type.Kind == ir.KindEnum || f.Type.Kind == ir.KindBool:
			if !allSame(gr.members, f.Name) {
				fields = append(fields, f)
			}
		}
	}
	if len(fields) == 0 {
		return nil
	}
	f := fields[x.rng.IntN(len(fields))]
	if f.Type.Kind == ir.KindEnum || f.Type.Kind == ir.KindBool {
		m := gr.members[x.rng.IntN(len(gr.members))]
		if m[f.Name] == nil {
			return nil
		}
		return &condition{field: f, op: "==", v: m[f.Name]}
	}
	vs, _ := distinctSorted(gr.members, f)
	i := 1 + x.rng.IntN(len(vs)-1)
	return &condition{field: f, op: ">", v: x.threshold(vs[i-1], vs[i], f)}
}

// separating is a condition that holds on exactly the group's records
// the write lw succeeds on, with the other arguments it takes on the
// first of them: a number or date field above a threshold, or an enum
// or bool value; nil when none does, or the write succeeds on all or
// none.
func (x *synth) separating(lw *loopWrite, gr *group) *condition {
	e := lw.f.names[lw.p]
	found := false
	for _, m := range gr.members {
		if x.loopArgs(lw, []map[string]any{m}) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	var yes, no []map[string]any
	for _, m := range gr.members {
		if x.programCall(x.start.Clone(), lw.f.tool, lw.args(recordID(m, e))) != nil {
			yes = append(yes, m)
		} else {
			no = append(no, m)
		}
	}
	if len(yes) == 0 || len(no) == 0 {
		return nil
	}
	if c := programCondition(e, gr.members, yes); c != nil && (gr.kind == nil || c.field != gr.kind.field) {
		for _, f := range e.Fields {
			if f.Name == c.field {
				return &condition{field: f, op: "==", v: c.v}
			}
		}
	}
	fields := slices.Clone(e.Fields)
	x.rng.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	for _, f := range fields {
		if !numeric(f) && f.Type.Kind != ir.KindDate || f == e.Key {
			continue
		}
		lo, okLo := distinctSorted(no, f)
		hi, okHi := distinctSorted(yes, f)
		if !okLo || !okHi {
			continue
		}
		top, bottom := lo[len(lo)-1], hi[0]
		if compareValues(top, bottom, f) < 0 {
			return &condition{field: f, op: ">", v: x.threshold(top, bottom, f)}
		}
	}
	return nil
}

// allSame reports whether every record has the same value of field k.
func allSame(recs []map[string]any, k string) bool {
	for _, r := range recs[1:] {
		a, _ := atom(r[k])
		b, _ := atom(recs[0][k])
		if a != b {
			return false
		}
	}
	return true
}

// threshold is a value lo <= t < hi for a condition "above t": the
// roundest number in that range (a multiple of the largest power of ten
// that fits), else lo; for a date, lo.
func (x *synth) threshold(lo, hi any, f *ir.Field) any {
	if !numeric(f) {
		return lo
	}
	a, _ := number(lo)
	b, _ := number(hi)
	for p := math.Pow(10, math.Floor(math.Log10(math.Max(math.Abs(b), 1)))); p >= 1; p /= 10 {
		t := math.Ceil(a/p) * p
		if t >= a && t < b {
			return json.Number(strconv.FormatFloat(t, 'f', -1, 64))
		}
	}
	return lo
}

// branchWords writes the instruction of a program with a branch: the
// group, the condition, the write on the records that meet it and the
// write on the others (or that the others are left as they are).
func (x *synth) branchWords(gr *group, cond *condition, cls []clause) (string, []string) {
	wd := newWording()
	var b strings.Builder
	b.WriteString("Go through every " + humanize(gr.e.Name) + x.phrase(gr, wd) + ": if " + x.conditionText(cond, wd) + ", ")
	b.WriteString(x.clauseText(cls[0], wd))
	if len(cls) > 1 {
		b.WriteString("; otherwise, " + x.clauseText(cls[1], wd) + ".")
	} else {
		b.WriteString("; leave the others as they are.")
	}
	return b.String(), wd.facts
}
