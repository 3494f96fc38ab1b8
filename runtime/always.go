package runtime

import (
	"cmp"
	"iter"
	"slices"
)

// This file holds what generated worlds use to check their always-invariants
// (`always invariant` in the spec) along an episode: after every call that
// succeeds, the rule must hold. The generated Episode re-checks only the
// records the call may have changed the verdict of — the rows it wrote
// ([Journal.Changes]), and the records that read them — and keeps the
// first violation per invariant and record in a [Trace].

// A Trace keeps, for an episode, the first violation of each always-invariant
// by each record, with the step (the 1-based index of the call, failed
// calls counted) and the tool after which it was seen. The zero Trace is
// ready to use; it is not safe for concurrent use.
//
// A record that breaks an always-invariant in the episode's start state
// (a repair task's: the violation is the job) is not reported while it
// goes on breaking it: only once a call has left it keeping the rule
// does a later break count ([Trace.ReportChecked]). Whether it is
// repaired at the end is the final state's verdict.
type Trace struct {
	reported map[traceKey]struct{}
	repaired map[traceKey]struct{} // start-broken records that kept the rule since
	found    []Violation
	pending  []string // Pending's result, reused
}

type traceKey struct{ invariant, id string }

// Pending returns the ids of ids (several lists) that have not broken the
// invariant yet, sorted, each once: those a step must re-check. An id
// already reported need not be: its first violation is known. The slice
// is the Trace's, valid until the next call of Pending.
func (t *Trace) Pending(invariant string, ids ...[]string) []string {
	out := t.pending[:0]
	for _, l := range ids {
		for _, id := range l {
			if _, done := t.reported[traceKey{invariant, id}]; !done {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	t.pending = out
	return out
}

// Report records the violations vs of one invariant, found after the call
// of the given step to tool: those of records that had not broken it yet,
// in the order of their ids, each stamped with the step and the tool.
func (t *Trace) Report(vs []Violation, step int, tool string) {
	if len(vs) == 0 {
		return
	}
	if t.reported == nil {
		t.reported = make(map[traceKey]struct{})
	}
	first := len(t.found)
	for _, v := range vs {
		k := traceKey{v.Invariant, v.ID}
		if _, done := t.reported[k]; done {
			continue
		}
		t.reported[k] = struct{}{}
		v.Step, v.Tool = step, tool
		t.found = append(t.found, v)
	}
	slices.SortFunc(t.found[first:], func(a, b Violation) int { return cmp.Compare(a.ID, b.ID) })
}

// ReportChecked is Report for the violations vs of one always-invariant
// found after a call by re-checking the records checked (sorted, as
// Pending returns them; nil: every record), in an episode whose start
// state's records broken broke the invariant. Those are the task's job:
// one that is checked and keeps the rule is repaired from then on, and
// the violations of one not yet repaired are not reported.
func (t *Trace) ReportChecked(invariant string, vs []Violation, checked, broken []string, step int, tool string) {
	if len(broken) > 0 {
		var bad map[string]bool
		for _, v := range vs {
			if bad == nil {
				bad = make(map[string]bool, len(vs))
			}
			bad[v.ID] = true
		}
		exempt := map[string]bool{}
		for _, id := range broken {
			k := traceKey{invariant, id}
			if _, done := t.repaired[k]; done {
				continue
			}
			if _, seen := slices.BinarySearch(checked, id); checked != nil && !seen || bad[id] {
				exempt[id] = true
				continue
			}
			if t.repaired == nil {
				t.repaired = make(map[traceKey]struct{})
			}
			t.repaired[k] = struct{}{}
		}
		if len(exempt) > 0 {
			kept := make([]Violation, 0, len(vs))
			for _, v := range vs {
				if !exempt[v.ID] {
					kept = append(kept, v)
				}
			}
			vs = kept
		}
	}
	t.Report(vs, step, tool)
}

// Violations returns the violations reported so far, in the order they
// were reported: by step, then in the order of the Report calls of a
// step (the generated code reports invariants in declaration order), then
// by id. The slice is a copy.
func (t *Trace) Violations() []Violation { return slices.Clone(t.found) }

// Broken returns the violations of one invariant reported so far, in the
// order of [Trace.Violations].
func (t *Trace) Broken(invariant string) []Violation {
	var out []Violation
	for _, v := range t.found {
		if v.Invariant == invariant {
			out = append(out, v)
		}
	}
	return out
}

// IDsOf returns the ids of the rows of changes.
func IDsOf(changes []RowChange) []string {
	if len(changes) == 0 {
		return nil
	}
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.ID
	}
	return out
}

// RowsOf yields the rows of the table with the given ids, in the order
// given, skipping ids that have no row: the records a step re-checks.
func RowsOf[T any](t *Table[T], ids []string) iter.Seq[T] {
	return func(yield func(T) bool) {
		for _, id := range ids {
			if r, ok := t.c.get(id); ok && !yield(r.(T)) {
				return
			}
		}
	}
}

// An IndexBase maps keys (the values of one field of an entity's records)
// to the ids of the records holding them, in the table's order, in one
// state: a task's start state, built once on first need and shared,
// read-only, by every episode that starts there (see [IDIndex]). Build
// it with Add, in the table's order, before sharing it.
type IndexBase struct {
	ids map[string][]string
}

// NewIndexBase returns an empty index.
func NewIndexBase() *IndexBase { return &IndexBase{ids: make(map[string][]string)} }

// Add records that the record id holds key.
func (b *IndexBase) Add(key, id string) { b.ids[key] = append(b.ids[key], id) }

// An IDIndex is an episode's index of an entity's records by one of its
// fields: the [IndexBase] of its start state, and the records the episode
// wrote since (Move), so that it follows the episode at the cost of its
// writes. A generated episode keeps one for an always-invariant whose
// check reads records through a field: the records that a written row
// affects (`x.customer` names the written customer: the orders of that
// customer), or the records an aggregate reads (`r.order == x`: the
// receipts of an order). The zero IDIndex has no base: set one before
// reading it. Move may come first.
type IDIndex struct {
	base *IndexBase
	// moved is where each record the episode wrote is now: the key it
	// holds, or absent (deleted, or holding none).
	moved map[string]movedTo
	// added are, by key, the records the episode wrote that hold it now,
	// in the order they came to hold it.
	added map[string][]string
}

type movedTo struct {
	key string
	has bool
}

// HasBase reports whether the index has its base.
func (x *IDIndex) HasBase() bool { return x.base != nil }

// SetBase sets the index of the start state.
func (x *IDIndex) SetBase(b *IndexBase) { x.base = b }

// Move records that the record id, which a call wrote, now holds key (when
// has) or none (deleted, or its field null).
func (x *IDIndex) Move(id, key string, has bool) {
	if x.moved == nil {
		x.moved = make(map[string]movedTo)
		x.added = make(map[string][]string)
	}
	if m, ok := x.moved[id]; ok && m.has {
		if m.key == key && has {
			return
		}
		l := x.added[m.key]
		if i := slices.Index(l, id); i >= 0 {
			l = slices.Delete(l, i, i+1)
		}
		if len(l) == 0 {
			delete(x.added, m.key)
		} else {
			x.added[m.key] = l
		}
	}
	x.moved[id] = movedTo{key, has}
	if has {
		x.added[key] = append(x.added[key], id)
	}
}

// IDs returns the ids of the records holding key: those of the base the
// episode did not write, in the table's order, then those it wrote. The
// slice is new.
func (x *IDIndex) IDs(key string) []string {
	var base []string
	if x.base != nil {
		base = x.base.ids[key]
	}
	added := x.added[key]
	out := make([]string, 0, len(base)+len(added))
	for _, id := range base {
		if _, wrote := x.moved[id]; !wrote {
			out = append(out, id)
		}
	}
	return append(out, added...)
}
