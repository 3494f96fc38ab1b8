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
// is checked when it writes nothing.
//
// A record that breaks an always-invariant in the start state (Start) is
// the task's job: it is not reported while it goes on breaking the rule,
// only once a call has left it keeping it does a later break count. (The
// final state's verdict says whether it was repaired.) Without Start,
// the start state is taken to break nothing.
type Trace struct {
	calls   int
	checked bool
	seen    map[traceKey]bool
	// broken are the records that break an always-invariant in the start
	// state and have not kept it since (Start).
	broken map[traceKey]bool
	// rules are the violations of rules on actions that the call about to
	// be made breaks (Before), reported if it succeeds (After); ruleSeen
	// keeps the first violation per rule and record.
	rules    []Violation
	ruleSeen map[[2]string]bool
	// Violations are the first violation of each always-invariant by each
	// record: by step, then in invariant declaration order, then by id.
	Violations []Violation
}

type traceKey struct {
	inv *ir.Invariant
	id  string
}

// Start records the records that break an always-invariant in s, the
// episode's start state, before the first call.
func (t *Trace) Start(s *State) {
	for _, inv := range s.w.Invariants {
		if inv == nil || !inv.Always {
			continue
		}
		for _, v := range s.InvariantViolations(inv) {
			if t.broken == nil {
				t.broken = map[traceKey]bool{}
			}
			t.broken[traceKey{inv, v.ID}] = true
		}
	}
}

// Before checks the rules on actions (ir.Rule) of tool on s, the state
// before the call with args about to be made: their violations count if
// the call succeeds (see After). A world without rules needs no Before.
func (t *Trace) Before(s *State, tool *ir.Tool, args map[string]*ir.Value) {
	t.rules = s.RuleViolations(tool, args)
}

// BeforeJSON is Before for a call by name with JSON arguments, as
// State.CallJSON takes them (an unknown tool or arguments that are no JSON
// object break no rule: the call fails).
func (t *Trace) BeforeJSON(s *State, tool string, args []byte) {
	t.rules = nil
	for _, x := range s.w.Tools {
		if x.Name == tool {
			if a, err := ArgsFromJSON(args); err == nil {
				t.Before(s, x, a)
			}
			return
		}
	}
}

// After records a call to the named tool just made on s, the state the
// episode runs in: ok tells whether it succeeded (a failed call changes
// nothing and is counted as a step all the same). The violations of the
// rules on actions that Before found come first, then the
// always-invariants'.
func (t *Trace) After(s *State, tool string, ok bool) {
	t.calls++
	rules := t.rules
	t.rules = nil
	if ok {
		for _, v := range rules {
			k := [2]string{v.Invariant, v.ID}
			if t.ruleSeen[k] {
				continue
			}
			if t.ruleSeen == nil {
				t.ruleSeen = map[[2]string]bool{}
			}
			t.ruleSeen[k] = true
			v.Step, v.Tool = t.calls, tool
			t.Violations = append(t.Violations, v)
		}
	}
	if !ok || (t.checked && !s.wrote) {
		return
	}
	t.checked = true
	for _, inv := range s.w.Invariants {
		if inv == nil || !inv.Always {
			continue
		}
		first := len(t.Violations)
		vs := s.InvariantViolations(inv)
		if len(t.broken) > 0 {
			bad := map[string]bool{}
			for _, v := range vs {
				bad[v.ID] = true
			}
			for k := range t.broken {
				if k.inv == inv && !bad[k.id] {
					delete(t.broken, k) // repaired: a later break counts
				}
			}
		}
		for _, v := range vs {
			k := traceKey{inv, v.ID}
			if t.seen[k] || t.broken[k] {
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

// ofRule returns the violations of the rule r, in order.
func (t *Trace) ofRule(r *ir.Rule) []Violation {
	if t == nil {
		return nil
	}
	var out []Violation
	for _, v := range t.Violations {
		if v.Invariant == r.Name {
			out = append(out, v)
		}
	}
	return out
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
