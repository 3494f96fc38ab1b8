package eval

import (
	"fmt"
	"slices"

	"github.com/worldc/worldc/compiler/ir"
)

// Violation is a record that breaks an invariant.
type Violation struct {
	Invariant string
	Entity    string
	ID        string
	// Detail is "" when the check evaluated to false, else the evaluation
	// error (e.g. a followed ref whose record is missing).
	Detail string
	// Exceeded marks an evaluation stopped by the state's Limits or
	// Budget: the invariant was not checked on this record nor on the
	// records after it.
	Exceeded bool
	// Step and Tool are, for a violation of an always-invariant seen
	// along an episode (Trace), the 1-based index of the call after which
	// the record first broke it (failed calls counted) and that call's
	// tool; 0 and "" for a violation of a state.
	Step int
	Tool string
	// Rule marks the violation of a rule on actions (ir.Rule): the call
	// at Step broke it; Entity and ID name the record of the tool's first
	// ref parameter.
	Rule bool
}

// String renders the violation for a report: `invariant N violated by E
// "id": detail`, with ` after step 3 (tool)` before the colon for a
// step's violation.
func (v Violation) String() string {
	if v.Rule {
		s := fmt.Sprintf("rule %s broken by the call of %s at step %d", v.Invariant, v.Tool, v.Step)
		if v.ID != "" {
			s += fmt.Sprintf(" on %s %q", v.Entity, v.ID)
		}
		if v.Detail != "" {
			s += ": " + v.Detail
		}
		return s
	}
	s := fmt.Sprintf("invariant %s violated by %s %q", v.Invariant, v.Entity, v.ID)
	if v.Step > 0 {
		s += fmt.Sprintf(" after step %d (%s)", v.Step, v.Tool)
	}
	if v.Detail != "" {
		s += ": " + v.Detail
	}
	return s
}

// Violations checks every invariant of the world, in declaration order, on
// every record of its entity in insertion order: a record whose trigger
// (Where; nil means every record) holds and whose check does not is a
// violation. An evaluation error in the trigger or the check makes the
// record a violation, with the error as Detail.
func (s *State) Violations() []Violation {
	var out []Violation
	for _, inv := range s.w.Invariants {
		out = append(out, s.InvariantViolations(inv)...)
	}
	return out
}

// InvariantViolations checks one invariant; see Violations.
func (s *State) InvariantViolations(inv *ir.Invariant) (out []Violation) {
	if inv == nil {
		return nil
	}
	t := s.table(inv.Entity)
	if t == nil {
		return []Violation{{Invariant: inv.Name, Detail: "the invariant's entity is not in the world"}}
	}
	// An invariant checked on s before, which has not changed since, has
	// the same violations: evaluation is deterministic. (Every task that
	// starts from the world seed grades its start state, on which the
	// checker checked every invariant first.)
	if c := s.checked; c != nil && c.limits == s.Limits {
		if vs, ok := c.of[inv]; ok {
			return slices.Clone(vs)
		}
	}
	defer func() {
		if s.checked == nil || s.checked.limits != s.Limits {
			s.checked = &checked{limits: s.Limits, of: map[*ir.Invariant][]Violation{}}
		}
		s.checked.of[inv] = slices.Clone(out)
	}()
	// One invariant is one operation: Limits.MaxSteps bounds its steps on
	// all the records together, and the first evaluation stopped by a
	// limit ends it. It reads the indexes the generated check builds.
	ev := s.evaluator()
	ev.readIndexes(true, inv.Where, inv.Check)
	// The outcomes on the rows of a frozen base that s has not replaced
	// are those a memo holds, when the tables they read are as they were
	// (see invMemo): only the rows s changed or added are evaluated.
	base := t.pristineBase()
	if t.base != nil {
		base = t.base
	}
	var memo *invMemo
	if base != nil {
		base.mu.Lock()
		defer base.mu.Unlock()
		memo = base.memo(s, inv)
		ev.track = true
	}
	fresh := memo == nil // a new memo, to keep if the reads allow it
	if fresh && base != nil {
		memo = &invMemo{inv: inv, limits: s.Limits, today: s.today, res: make([]memoRow, len(base.rows))}
	}
	stopped := false
	var filled []int // the positions this check added to a memo it read
	for pos, r := range t.positioned() {
		inBase := memo != nil && pos >= 0 && base.rows[pos] == r
		if inBase && memo.res[pos].known && ev.recharge(memo.res[pos].steps) {
			if m := memo.res[pos]; !m.ok {
				out = append(out, Violation{Invariant: inv.Name, Entity: t.ent.Name, ID: r.id, Detail: m.detail})
			}
			continue
		}
		steps := ev.steps
		detail, ok, limit := ev.holds(inv, r)
		if !ok {
			out = append(out, Violation{Invariant: inv.Name, Entity: t.ent.Name, ID: r.id, Detail: detail, Exceeded: limit})
		}
		if limit {
			stopped = true
			break
		}
		if inBase {
			memo.res[pos] = memoRow{known: true, ok: ok, detail: detail, steps: ev.steps - steps}
			filled = append(filled, pos)
		}
	}
	if memo == nil {
		return out
	}
	if stopped {
		for _, pos := range filled {
			memo.res[pos] = memoRow{}
		}
		return out
	}
	// The memo's outcomes hold wherever the tables the evaluations read
	// are the ones they read here: unchanged since their base was frozen.
	if fresh {
		for _, e := range ev.reads {
			b := s.table(e).pristineBase()
			if b == nil {
				return out
			}
			memo.deps = append(memo.deps, memoDep{e, b})
		}
		base.memos = append(base.memos, memo)
		if len(base.memos) > maxMemos {
			base.memos = base.memos[1:]
		}
	} else if !memo.covers(ev.reads) {
		// The new outcomes read a table the memo's do not depend on:
		// forget them (the memo's own still hold).
		for _, pos := range filled {
			memo.res[pos] = memoRow{}
		}
	}
	return out
}

// maxMemos bounds the memos a frozen base keeps (the most recent): one per
// invariant and set of tables as its evaluations read them.
var maxMemos = 16

// invMemo is what one invariant gave on the rows of a frozen base: for each
// row position, whether it holds there and, when not, the error of its
// evaluation. The outcome on a row depends on the row, which a frozen base
// never changes, and on the tables the evaluation reads (a followed ref,
// a scan, an index); deps are those tables as they were, frozen bases no
// state has changed. A memo serves a state whose deps tables are those
// same bases unchanged, under the same limits and date: then an
// invariant's violations on a state that changed a few records of a large
// seed cost those records, not the seed (a golden solution's replay, a
// synthesised chain's steps). Evaluation is deterministic, so the outcomes
// are the ones evaluating again would give; an outcome stopped by a limit
// is never kept, and one read from a memo charges the steps it cost
// (evaluator.recharge), so that limits and budgets give what they gave.
type invMemo struct {
	inv    *ir.Invariant
	limits Limits
	today  date
	deps   []memoDep
	res    []memoRow
}

type memoDep struct {
	e    *ir.Entity
	base *frozen
}

type memoRow struct {
	known, ok bool
	detail    string
	steps     int64 // what the evaluation cost (see evaluator.recharge)
}

// recharge accounts for the steps a memo's outcome cost when it was
// evaluated, as if evaluating it again, so that limits and budgets stop
// a check where they did without the memo; false (nothing charged) when
// that would pass a limit: the caller evaluates, to stop where it stops.
func (ev *evaluator) recharge(n int64) bool {
	if ev.steps+n > ev.s.Limits.MaxSteps {
		return false
	}
	if b := ev.budget; b != nil {
		if b.left-n < 0 {
			return false
		}
		b.left -= n
	}
	ev.steps += n
	return true
}

// memo is the memo of inv that serves s, or nil (f.mu held).
func (f *frozen) memo(s *State, inv *ir.Invariant) *invMemo {
	for i := len(f.memos) - 1; i >= 0; i-- {
		m := f.memos[i]
		if m.inv != inv || m.limits != s.Limits || m.today != s.today {
			continue
		}
		ok := true
		for _, d := range m.deps {
			if s.table(d.e).pristineBase() != d.base {
				ok = false
				break
			}
		}
		if ok {
			return m
		}
	}
	return nil
}

// covers reports whether every entity of reads is one of m's deps.
func (m *invMemo) covers(reads []*ir.Entity) bool {
	for _, e := range reads {
		if !slices.ContainsFunc(m.deps, func(d memoDep) bool { return d.e == e }) {
			return false
		}
	}
	return true
}

// holds checks inv on r; when it does not hold, detail is "" or the
// evaluation error, and limit tells whether a limit stopped it.
func (ev *evaluator) holds(inv *ir.Invariant, r *row) (detail string, ok, limit bool) {
	defer func() {
		if p := recover(); p != nil {
			detail, ok, limit = fmt.Sprintf("internal error: %v", p), false, false
		}
	}()
	ev.depth = 0
	ev.vars = append(ev.vars[:0], binding{inv.Var, r})
	if inv.Where != nil {
		trig, err := ev.cond(inv.Where)
		if err != nil {
			return err.msg, false, err.limit
		}
		if !trig {
			return "", true, false
		}
	}
	res, err := ev.cond(inv.Check)
	if err != nil {
		return err.msg, false, err.limit
	}
	return "", res, false
}

// Problem is a record that breaks a field constraint or refers to a
// missing record.
type Problem struct {
	Entity string
	ID     string
	Field  string
	// Kind is one of the Problem* constants.
	Kind    string
	Message string
}

// String renders the problem for a report: `E "id": message`.
func (p Problem) String() string { return fmt.Sprintf("%s %q: %s", p.Entity, p.ID, p.Message) }

// CheckConstraints checks every record (entity order, insertion order, field
// order) against its fields' constraints, as a write would: a value for
// every required field, the field's type and enum values, bounds, the
// content of composite values (elements, map values, the fields of value
// records and their case), unique values (of two records sharing a value,
// the later one is reported), and refs, at any depth, that name an existing
// record. At most one problem per field of a record: the first in the
// order of valueProblem, then the first dangling ref in JSON order.
func (s *State) CheckConstraints() []Problem {
	var out []Problem
	for _, t := range s.tables {
		rows := t.list()
		for j, r := range rows {
			for i, f := range t.ent.Fields {
				v := r.vals[i]
				if kind, msg := fieldProblem(t.ent, slices.Values(rows[:j]), r, i, v); msg != "" {
					out = append(out, Problem{Entity: t.ent.Name, ID: r.id, Field: f.Name, Kind: kind, Message: msg})
					continue
				}
				if msg := s.refProblem(t.ent.Name+"."+f.Name, f.Type, v); msg != "" {
					out = append(out, Problem{Entity: t.ent.Name, ID: r.id, Field: f.Name, Kind: ProblemRef, Message: msg})
				}
			}
		}
	}
	return out
}

func refName(e *ir.Entity, id string) string {
	if e == nil {
		return fmt.Sprintf("%q", id)
	}
	return fmt.Sprintf("%s %q", e.Name, id)
}
