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
type Trace struct {
	reported map[traceKey]struct{}
	found    []Violation
}

type traceKey struct{ invariant, id string }

// Pending returns the ids of ids (several lists) that have not broken the
// invariant yet, sorted, each once: those a step must re-check. An id
// already reported need not be: its first violation is known.
func (t *Trace) Pending(invariant string, ids ...[]string) []string {
	var out []string
	for _, l := range ids {
		for _, id := range l {
			if _, done := t.reported[traceKey{invariant, id}]; !done {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
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

// An IDIndex maps keys (the values of one field of an entity's records)
// to the ids of the records holding them. A generated episode keeps one for
// an always-invariant whose check reads another record through a field of
// the record it checks (`x.customer`, or an aggregate over records whose
// field equals `x.customer`): when that other record changes, the index
// names the records to re-check. It is built on first need, by Add for
// every record, and kept up to date with Move for every record a call
// writes. The zero IDIndex is empty and ready to use.
type IDIndex struct {
	ids   map[string][]string
	built bool
}

// Built reports whether the index has been built (see SetBuilt).
func (x *IDIndex) Built() bool { return x.built }

// SetBuilt marks the index as built: from now on it must be kept up to
// date.
func (x *IDIndex) SetBuilt() { x.built = true }

// Add records that the record id holds key.
func (x *IDIndex) Add(key, id string) {
	if x.ids == nil {
		x.ids = make(map[string][]string)
	}
	x.ids[key] = append(x.ids[key], id)
}

// Move records that the record id no longer holds old (when hadOld) but
// holds key (when has): a record written, inserted (hadOld false) or
// deleted (has false).
func (x *IDIndex) Move(id string, old string, hadOld bool, key string, has bool) {
	if hadOld && has && old == key {
		return
	}
	if hadOld {
		l := x.ids[old]
		if i := slices.Index(l, id); i >= 0 {
			l = slices.Delete(l, i, i+1)
			if len(l) == 0 {
				delete(x.ids, old)
			} else {
				x.ids[old] = l
			}
		}
	}
	if has {
		x.Add(key, id)
	}
}

// IDs returns the ids of the records holding key. The slice is the
// index's: do not modify it.
func (x *IDIndex) IDs(key string) []string { return x.ids[key] }
