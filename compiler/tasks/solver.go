package tasks

import (
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A solver task asks for a choice: one write, whose record for one
// parameter the agent must choose among candidates — the records of a
// group — under the world's rules and the task's own constraint: the one
// with the lowest (or highest) value of a number field among those the
// write succeeds on and keeps every invariant and rule with, and that
// meet the constraint (a value of an enum or bool field, a number or
// date above a threshold); or the only one that does. The candidates are
// tried exhaustively with the evaluator; two optimal ones drop the task
// (solver_tie). The words state the requirement, never the answer.

// objective is how a solver ranks the feasible candidates.
type objective struct {
	field   *ir.Field // nil: the only feasible one
	highest bool
}

// solverShape is a write and the parameter whose record is chosen.
type solverShape struct {
	f *toolFacts
	q *ir.Param
}

// solverShapes are the writes with a parameter taking one record of an
// entity a search lists by group.
func (x *synth) solverShapes() []solverShape {
	var out []solverShape
	for _, f := range x.writers {
		if x.ruled[f.tool] {
			continue
		}
		for _, p := range f.tool.Params {
			if e := f.names[p]; e != nil && p.Type.Kind != ir.KindList && p.Required() && len(x.groupSearches(e)) > 0 {
				out = append(out, solverShape{f, p})
			}
		}
	}
	return out
}

// sampleSolver draws a choice and makes it a task.
func (x *synth) sampleSolver() (*task, string) {
	reason := ""
	for try := 0; try < branchTries; try++ {
		var t *task
		if t, reason = x.solverOnce(); t != nil {
			return t, ""
		}
	}
	return nil, reason
}

func (x *synth) solverOnce() (*task, string) {
	shapes := x.solverShapes()
	if len(shapes) == 0 {
		return nil, "no_solver_shape"
	}
	sh := shapes[x.rng.IntN(len(shapes))]
	c := sh.f.names[sh.q]
	g := newCtx()
	gr, reason := x.drawGroup(c, g, 3)
	if gr == nil {
		return nil, reason
	}
	// The other arguments: from a set the write succeeds with on one of
	// the first candidates.
	var feasible []bool
	var fixed []arg
	for k, m := range gr.members {
		if k >= 3 || fixed != nil {
			break
		}
		id := recordID(m, c)
		for _, args := range x.argSets(x.start, sh.f.tool, []recKey{{c, id}}, maxArgSets) {
			if a := argOf(args, sh.q); a == nil || a.v != id || !x.feasible(sh, args) {
				continue
			}
			for _, ar := range args {
				if ar.p != sh.q {
					fixed = append(fixed, ar)
				}
			}
			if fixed == nil {
				fixed = []arg{}
			}
			break
		}
	}
	if fixed == nil {
		return nil, "solver_infeasible"
	}
	lw := &loopWrite{f: sh.f, p: sh.q, others: fixed}
	n := 0
	for _, m := range gr.members {
		ok := x.feasible(sh, lw.args(recordID(m, c)))
		feasible = append(feasible, ok)
		if ok {
			n++
		}
	}
	// The task's constraint, now and then: it must rule out a feasible
	// candidate and keep one.
	var cons *condition
	if x.rng.IntN(2) == 0 {
		if k := x.drawCondition(gr); k != nil {
			kept, out := 0, 0
			for i, m := range gr.members {
				if feasible[i] && k.holds(m) {
					kept++
				} else if feasible[i] {
					out++
				}
			}
			if kept > 0 && out > 0 {
				cons = k
			}
		}
	}
	var ok []map[string]any
	for i, m := range gr.members {
		if feasible[i] && (cons == nil || cons.holds(m)) {
			ok = append(ok, m)
		}
	}
	obj, answer, reason := x.solve(gr, ok, cons)
	if answer == nil {
		return nil, reason
	}
	id := recordID(answer, c)
	st := x.start.Clone()
	final := x.programCall(st, sh.f.tool, lw.args(id))
	if final == nil || len(st.Violations()) > 0 {
		return nil, "solver_infeasible"
	}
	cl := clause{c: final, descs: map[*ir.Param][]*desc{}}
	for _, ar := range fixed {
		if e2 := sh.f.names[ar.p]; e2 != nil {
			for _, rid := range stringsIn(ar.v) {
				d := x.ground(x.start, e2, rid, g, false, 0)
				if d == nil {
					return nil, "ungroundable"
				}
				cl.descs[ar.p] = append(cl.descs[ar.p], d)
			}
		}
	}
	g.addCall(final)
	t := &task{origin: OriginSolver, calls: g.calls, start: x.start, end: st}
	t.records = []string{sh.f.tool.Name, sh.q.Name + ":" + id}
	for _, ar := range fixed {
		if a, isAtom := atom(ar.v); isAtom {
			t.records = append(t.records, ar.p.Name+":"+a)
		}
	}
	t.persona = x.persona()
	t.instruction, t.facts = x.solverWords(sh, gr, cons, obj, cl)
	as, reason := x.rubric(x.start, st, t.calls)
	if reason != "" {
		return nil, reason
	}
	t.assertions = as
	t.profile = x.measure(t, nil, g)
	t.profile.Branches = len(gr.members)
	t.profile.Distractors += len(gr.members) - 1
	// A naive choice (the best of all candidates, the rules and the
	// constraint ignored) would break a rule or be refused.
	if obj.field != nil {
		if naive := x.extreme(gr.members, obj.field, obj.highest); naive != nil && recordID(naive, c) != id {
			t.profile.InvariantSensitive = true
		}
	}
	t.profile.Level = level(t.profile)
	return t, ""
}

// feasible reports whether the write succeeds from the start state,
// changes it and leaves every invariant and rule kept.
func (x *synth) feasible(sh solverShape, args []arg) bool {
	st := x.start.Clone()
	return x.programCall(st, sh.f.tool, args) != nil && len(st.Violations()) == 0
}

// solve finds the answer among the candidates that are feasible and meet
// the constraint (ok), by exhaustive search: the only one, or the one
// with the lowest or highest value of a number field (one that tells
// them apart); nil and the reason when there is none or two are optimal.
func (x *synth) solve(gr *group, ok []map[string]any, cons *condition) (objective, map[string]any, string) {
	switch {
	case len(ok) == 0:
		return objective{}, nil, "solver_infeasible"
	case len(ok) == 1:
		return objective{}, ok[0], ""
	}
	var fields []*ir.Field
	for _, f := range gr.e.Fields {
		if numeric(f) && f != gr.e.Key && (cons == nil || f != cons.field) {
			if vs, fine := distinctSorted(ok, f); fine && len(vs) >= 2 {
				fields = append(fields, f)
			}
		}
	}
	if len(fields) == 0 {
		// Every number the candidates have ties: no objective tells them
		// apart.
		return objective{}, nil, "solver_tie"
	}
	obj := objective{field: fields[x.rng.IntN(len(fields))], highest: x.rng.IntN(2) == 0}
	best := x.extreme(ok, obj.field, obj.highest)
	if best == nil {
		return obj, nil, "solver_tie"
	}
	return obj, best, ""
}

// solverWords writes a solver's instruction: the write, the records and
// values it takes but the chosen one, then how to choose it.
func (x *synth) solverWords(sh solverShape, gr *group, cons *condition, obj objective, cl clause) (string, []string) {
	wd := newWording()
	var b strings.Builder
	b.WriteString("Please " + x.clauseText(cl, wd) + ". For the " + role(sh.q) + ", look at the " + plural(gr.e) + x.phrase(gr, wd))
	if cons != nil {
		b.WriteString(", then at those " + x.relativeText(cons, wd))
	}
	if obj.field == nil {
		b.WriteString(" and take the only one of them our rules allow")
	} else {
		word := "lowest"
		if obj.highest {
			word = "highest"
		}
		b.WriteString(", keep those our rules allow and take the one with the " + word + " " + humanize(obj.field.Name))
	}
	b.WriteString(". Make no other change.")
	return b.String(), wd.facts
}
