package tasks

import (
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A question is answered, not done: the rubric is `answer EXPR` and
// `unchanged`, and the agent's final message must state the value EXPR
// has on the final state (runtime.AnswerMatches). EXPR is written over
// the state — the group's filter, a record by its id — so that it stays
// right when the seed changes: how many records a group holds, which
// they are (list(r in E where …), by their ids or names), the total of a
// number field over it, the name of its record with the highest or
// lowest value of a field, or a field of one record. The golden solution
// is the reads that show the values (the group's search, the record's
// lookups); the values the answer needs must be in their observations
// (checkAnswer).

// The kinds of questions.
const (
	questionCount   = "count"
	questionTotal   = "total"
	questionExtreme = "extreme"
	questionField   = "field"
	questionWhich   = "which"
)

// maxWhich is the most records a which-question lists: a user asks
// "which of my claims are open" of a few.
const maxWhich = 8

// sampleQuestion draws a question and makes it a task.
func (x *synth) sampleQuestion() (*task, string) {
	var grouped, known []*ir.Entity
	for _, e := range x.w.Entities {
		if len(x.groupSearches(e)) > 0 {
			grouped = append(grouped, e)
		}
		if len(x.finders[e]) > 0 || x.keyKnown[e] {
			known = append(known, e)
		}
	}
	kind := []string{questionCount, questionTotal, questionExtreme, questionExtreme, questionField, questionWhich}[x.rng.IntN(6)]
	if len(grouped) == 0 {
		kind = questionField
	}
	if kind == questionField {
		if len(known) == 0 {
			return nil, "no_question_shape"
		}
		return x.fieldQuestion(known[x.rng.IntN(len(known))])
	}
	e := grouped[x.rng.IntN(len(grouped))]
	g := newCtx()
	gr, reason := x.drawGroup(e, g, 2)
	if gr == nil {
		return nil, reason
	}
	wd := newWording()
	ref := e.Service.Name + "." + e.Name
	where := x.where(gr, "r")
	t := &task{origin: OriginQuestion, answer: true, start: x.start, end: x.start}
	var expr string
	switch kind {
	case questionCount:
		expr = "count(r in " + ref + " where " + where + ")"
		t.instruction = "How many " + plural(e) + x.phrase(gr, wd) + " are there?"
		for _, m := range gr.members {
			t.needs = append(t.needs, recordID(m, e))
		}
	case questionWhich:
		// Every record of the group, by the name users know it by (its
		// id when it has none): the answer must state each one.
		if len(gr.members) > maxWhich {
			return nil, "question_too_long"
		}
		expr = "list(r in " + ref + " where " + where + ")"
		what := "their ids"
		name := x.nameField(e, gr.members)
		if name == nil {
			// Ids a user does not know are no answer a user asks for:
			// another value that tells the records apart (premises, a
			// due date), else no such question.
			if x.anyInternal(e, gr.members) {
				if name = x.knownField(e, gr.members); name == nil {
					return nil, "no_question_shape"
				}
			}
		} else if name == e.Key {
			what = "their " + fieldPlural(name)
		}
		if name != nil && name != e.Key {
			expr = "list(r." + name.Name + " for r in " + ref + " where " + where + ")"
			what = "their " + fieldPlural(name)
		}
		t.instruction = "Which " + plural(e) + x.phrase(gr, wd) + " are there? Tell me " + what + "."
		for _, m := range gr.members {
			need := recordID(m, e)
			if name != nil && name != e.Key {
				need, _ = atom(m[name.Name])
			}
			t.needs = append(t.needs, need)
		}
	case questionTotal, questionExtreme:
		var fields []*ir.Field
		for _, f := range e.Fields {
			// min and max take numbers, not optional ones (W004).
			if numeric(f) && f != e.Key && (kind == questionTotal || !f.Type.Optional) {
				if _, ok := distinctSorted(gr.members, f); ok {
					fields = append(fields, f)
				}
			}
		}
		if len(fields) == 0 {
			return nil, "no_question_shape"
		}
		f := fields[x.rng.IntN(len(fields))]
		if kind == questionTotal {
			expr = "sum(r." + f.Name + " for r in " + ref + " where " + where + ")"
			total := "the total " + humanize(f.Name)
			if strings.HasPrefix(humanize(f.Name), "total") {
				total = "the sum of the " + humanize(f.Name) // not "the total total"
			}
			t.instruction = "What is " + total + " of the " + plural(e) + x.phrase(gr, wd) + "?"
			for _, m := range gr.members {
				a, _ := atom(m[f.Name])
				t.needs = append(t.needs, a)
			}
			break
		}
		agg, word := "max", "highest"
		if x.rng.IntN(2) == 0 {
			agg, word = "min", "lowest"
		}
		best := x.extreme(gr.members, f, agg == "max")
		if best == nil {
			return nil, "question_tie"
		}
		name := x.nameField(e, gr.members)
		expr = "first(r in " + ref + " where " + where + " and r." + f.Name + " == " + agg + "(q." + f.Name + " for q in " + ref + " where " + x.where(gr, "q") + "))"
		what := "its id"
		need := recordID(best, e)
		if name == nil && x.anyInternal(e, gr.members) {
			if name = x.knownField(e, gr.members); name == nil {
				return nil, "no_question_shape"
			}
		}
		if name != nil {
			expr += "." + name.Name
			what = "its " + fieldNoun(name)
			need, _ = atom(best[name.Name])
		}
		t.instruction = "Which " + humanize(e.Name) + x.phrase(gr, wd) + " has the " + word + " " + humanize(f.Name) + "? Tell me " + what + "."
		t.needs = append(t.needs, need)
		for _, m := range gr.members {
			a, _ := atom(m[f.Name])
			t.needs = append(t.needs, a)
		}
		t.profile.Distractors = len(gr.members) - 1
	}
	t.instruction += " Please only look it up; change nothing."
	t.facts = wd.facts
	t.calls = g.calls
	t.assertions = []string{"answer " + expr, "unchanged"}
	distractors := t.profile.Distractors
	t.profile = x.measure(t, nil, g)
	t.profile.Distractors += distractors
	t.profile.Level = level(t.profile)
	t.records = []string{kind, expr}
	return t, ""
}

// fieldQuestion asks for a field of one record of e: a number, a date, an
// enum value or a name, that the words do not already say.
func (x *synth) fieldQuestion(e *ir.Entity) (*task, string) {
	ids := x.startIDs(e)
	if len(ids) == 0 {
		return nil, "no_question_shape"
	}
	id := ids[x.rng.IntN(len(ids))]
	g := newCtx()
	d := x.ground(x.start, e, id, g, false, 0)
	if d == nil {
		return nil, "ungroundable"
	}
	if !x.observed(g, recKey{e, id}) && !x.observe(x.start, recKey{e, id}, g) {
		return nil, "ungroundable"
	}
	rec := x.record(x.start, e, id)
	wd := newWording()
	desc := x.descText(d, wd)
	var fields []*ir.Field
	for _, f := range e.Fields {
		v := rec[f.Name]
		a, ok := atom(v)
		if !ok || v == nil || f == e.Key || x.internal[a] || x.inner[a] {
			continue
		}
		switch f.Type.Kind {
		case ir.KindInt, ir.KindDecimal, ir.KindMoney, ir.KindDate, ir.KindString:
		case ir.KindEnum:
			if strings.Contains(a, "_") {
				continue // an answer says "water damage", not the name
			}
		default:
			continue
		}
		said := false
		for _, fc := range wd.facts {
			if fc == x.valueText(v, f.Type) {
				said = true
			}
		}
		if !said {
			fields = append(fields, f)
		}
	}
	if len(fields) == 0 {
		return nil, "no_question_shape"
	}
	f := fields[x.rng.IntN(len(fields))]
	a, _ := atom(rec[f.Name])
	t := &task{origin: OriginQuestion, answer: true, start: x.start, end: x.start, calls: g.calls}
	t.instruction = "What is the " + fieldNoun(f) + " of " + desc + "? Please only look it up; change nothing."
	t.facts = wd.facts
	t.needs = []string{a}
	t.assertions = []string{"answer " + e.Service.Name + "." + e.Name + "[" + strconv.Quote(id) + "]." + f.Name, "unchanged"}
	t.profile = x.measure(t, nil, g)
	t.records = []string{questionField, id, f.Name}
	return t, ""
}

// extreme is the record of recs with the highest (or lowest) value of the
// number field f, nil when two share it.
func (x *synth) extreme(recs []map[string]any, f *ir.Field, highest bool) map[string]any {
	var best map[string]any
	tie := false
	for _, m := range recs {
		if best == nil {
			best = m
			continue
		}
		c := compareValues(m[f.Name], best[f.Name], f)
		if !highest {
			c = -c
		}
		switch {
		case c > 0:
			best, tie = m, false
		case c == 0:
			tie = true
		}
	}
	if tie {
		return nil
	}
	return best
}

// nameField is the field a user names e's records by, among recs: its
// key, else a unique string field or one whose name says it names the
// record, with a different value on each of recs; nil when none.
func (x *synth) nameField(e *ir.Entity, recs []map[string]any) *ir.Field {
	if e.Key != nil {
		return e.Key
	}
	for _, f := range e.Fields {
		if f.Type.Kind != ir.KindString || !(f.Unique || nameLike(f.Name)) {
			continue
		}
		seen := map[string]bool{}
		ok := true
		for _, m := range recs {
			a, isAtom := atom(m[f.Name])
			if !isAtom || m[f.Name] == nil || seen[a] || x.internal[a] {
				ok = false
				break
			}
			seen[a] = true
		}
		if ok {
			return f
		}
	}
	return nil
}

// fieldNoun is a field's name as a noun to ask for: due_on → "due
// date", starts_on → "start date", received_by → "received by", premises → "premises".
func fieldNoun(f *ir.Field) string {
	ws := strings.Fields(humanize(f.Name))
	if (f.Type.Kind == ir.KindDate || f.Type.Kind == ir.KindDateTime) && endsInPreposition(f.Name) {
		ws = ws[:len(ws)-1]
		if _, _, finite, ok := verbOf(f.Name); ok && finite {
			ws[len(ws)-1] = strings.TrimSuffix(ws[len(ws)-1], "s") // starts_on → start date
		}
		return strings.Join(ws, " ") + " date"
	}
	return strings.Join(ws, " ")
}

// fieldPlural is fieldNoun in the plural; a noun that is plural already
// (premises, terms) stays.
func fieldPlural(f *ir.Field) string {
	n := fieldNoun(f)
	if strings.HasSuffix(n, "s") && !strings.HasSuffix(n, "ss") && !strings.HasSuffix(n, "us") {
		return n
	}
	if endsInPreposition(f.Name) && f.Type.Kind != ir.KindDate && f.Type.Kind != ir.KindDateTime {
		return "“" + n + "” values"
	}
	return pluralWords(n)
}

// anyInternal reports whether the id of one of recs is one users do not
// know.
func (x *synth) anyInternal(e *ir.Entity, recs []map[string]any) bool {
	for _, m := range recs {
		if x.internal[recordID(m, e)] {
			return true
		}
	}
	return false
}

// knownField is, for records whose ids users do not know and that have no
// name (nameField), a text or date field whose values tell recs apart and
// are not ids: a lease's premises, a report's due date; nil when none
// does. The answer states those values (runtime.AnswerMatches).
func (x *synth) knownField(e *ir.Entity, recs []map[string]any) *ir.Field {
	for _, kind := range []ir.Kind{ir.KindString, ir.KindDate} {
		for _, f := range e.Fields {
			if f == e.Key || f.Type.Kind != kind {
				continue
			}
			seen := map[string]bool{}
			ok := len(recs) > 0
			for _, m := range recs {
				a, isAtom := atom(m[f.Name])
				if !isAtom || m[f.Name] == nil || a == "" || seen[a] || x.internal[a] || x.inner[a] {
					ok = false
					break
				}
				seen[a] = true
			}
			if ok {
				return f
			}
		}
	}
	return nil
}

// checkAnswer is the dataflow check of a question: every value its answer
// needs (the records counted, the amounts totalled, the name answered)
// was shown by an observation of the golden solution.
func (x *synth) checkAnswer(t *task) string {
	seen := map[string]bool{}
	for _, c := range t.calls {
		atoms(c.obs, seen)
	}
	for _, n := range t.needs {
		if !seen[n] {
			return "answer_unobserved"
		}
	}
	return ""
}
