package eval

import (
	"cmp"
	"slices"

	"github.com/worldc/worldc/compiler/ir"
)

// Trace follows the always-invariants (ir.Invariant.Always) of a world
// along an episode: the calls made on one state, from its start. After
// every call that succeeds, each always-invariant must hold; Trace keeps
// the first violation of each invariant by each record, with the call's
// step and tool. The zero Trace is ready to use.
//
// This is the definition the generated code must agree with, so it is
// the simplest one: after a successful call every always-invariant is
// checked on the whole state. (The generated code re-checks only the
// records the call may have changed the verdict of; the differential
// tests hold the two together.) A call that wrote nothing leaves the
// verdicts as they were after the previous successful call, whose
// violations are known, so only the first successful call of an episode
// is checked when it writes nothing: it is the first step at which the
// start state's own violations count.
type Trace struct {
	calls   int
	checked bool
	seen    map[traceKey]bool
	// Violations are the first violation of each always-invariant by each
	// record: by step, then in invariant declaration order, then by id.
	Violations []Violation
}

type traceKey struct {
	inv *ir.Invariant
	id  string
}

// After records a call to the named tool just made on s, the state the
// episode runs in: ok tells whether it succeeded (a failed call changes
// nothing and is counted as a step all the same).
func (t *Trace) After(s *State, tool string, ok bool) {
	t.calls++
	if !ok || (t.checked && !s.wrote) {
		return
	}
	t.checked = true
	for _, inv := range s.w.Invariants {
		if inv == nil || !inv.Always {
			continue
		}
		first := len(t.Violations)
		for _, v := range s.InvariantViolations(inv) {
			k := traceKey{inv, v.ID}
			if t.seen[k] {
				continue
			}
			if t.seen == nil {
				t.seen = map[traceKey]bool{}
			}
			t.seen[k] = true
			v.Step, v.Tool = t.calls, tool
			t.Violations = append(t.Violations, v)
		}
		slices.SortFunc(t.Violations[first:], func(a, b Violation) int { return cmp.Compare(a.ID, b.ID) })
	}
}

// of returns the violations of inv, in order.
func (t *Trace) of(inv *ir.Invariant) []Violation {
	if t == nil {
		return nil
	}
	var out []Violation
	for _, v := range t.Violations {
		if v.Invariant == inv.Name {
			out = append(out, v)
		}
	}
	return out
}
