package eval

import (
	"iter"
	"maps"
	"slices"
	"sync"

	"github.com/worldc/worldc/compiler/ir"
)

// table holds the records of one entity in insertion order.
//
// Tables are copy on write. A state and its clones share a table (shared
// is set) until one of them is about to write it: that state then makes a
// partial copy (State.own), in time proportional to what the table it
// copies changed, not to its rows. A full table holds its rows (rows) and
// indexes them (byID). A partial table reads through a base, the rows and
// index of a full table that no state writes any more (frozen), and keeps
// beside it what it changed: the base rows it replaced or deleted (over,
// by position), the rows it added after them (tail), and the ids of both
// (extra). Its copies share the base and copy only these. A row is
// written only by its owner; a partial table hands a tool its own copy of
// a row before the tool can write it (table.mine, or table.mineAll before
// a scan, which makes it full). Building a task's start state, or
// replaying a solution, thus costs what it adds and touches, not the
// world seed: the base's index of positions (frozen.pos) is built once, by
// the first copy that needs it, and shared by all.
type table struct {
	ent    *ir.Entity
	shared bool

	// A full table (base == nil).
	rows []*row
	byID map[string]*row
	// frozen is a shared full table's rows and index as the base of its
	// partial copies (set when it is first shared: it never changes after).
	frozen *frozen

	// A partial table (base != nil).
	base  *frozen
	over  []patch         // base rows replaced or deleted, by position
	tail  []*row          // rows after the base's
	extra map[string]slot // the ids of over and tail
	dead  int             // deleted base rows (patches without a row)
	n     int             // live rows

	// seq is the last number handed out for a new id (see newID).
	seq    int64
	prefix string // ir.SnakeName(entity name) + "_"
	// meter, when not nil, counts the rows the table's copies and scans
	// of its structure visit (see Budget.Rows).
	meter *Budget
}

// frozen is the rows and index of a full table that no state writes any
// more, read by its partial copies; pos, their positions, is built on
// first need.
type frozen struct {
	rows []*row
	byID map[string]*row
	once sync.Once
	at   map[string]int
	// memos are the outcomes of invariants on the rows (see invMemo),
	// guarded by mu.
	mu    sync.Mutex
	memos []*invMemo
}

// pristineBase is the frozen base t holds unchanged: its own rows once
// shared (a shared table is never written again), or the base of a partial
// table that replaced, deleted and added no row; nil otherwise.
func (t *table) pristineBase() *frozen {
	switch {
	case t == nil:
		return nil
	case t.base != nil:
		if len(t.over) == 0 && len(t.tail) == 0 {
			return t.base
		}
		return nil
	case t.shared:
		return t.frozen
	}
	return nil
}

// positioned yields the live rows in order, each with its position in
// the base of a partial table (or in a full table's rows): -1 for the rows
// a partial table added after its base's.
func (t *table) positioned() iter.Seq2[int, *row] {
	return func(yield func(int, *row) bool) {
		if t.base == nil {
			for i, r := range t.rows {
				if !yield(i, r) {
					return
				}
			}
			return
		}
		j := 0
		for p, r := range t.base.rows {
			if j < len(t.over) && t.over[j].pos == p {
				r = t.over[j].row
				j++
				if r == nil {
					continue
				}
			}
			if !yield(p, r) {
				return
			}
		}
		for _, r := range t.tail {
			if !yield(-1, r) {
				return
			}
		}
	}
}

// pos is the position of the base row with the given id (which must be
// one); meter is charged the index's rows when this builds it.
func (f *frozen) pos(id string, meter *Budget) int {
	f.once.Do(func() {
		f.at = make(map[string]int, len(f.rows))
		for i, r := range f.rows {
			f.at[r.id] = i
		}
		meter.count(len(f.rows))
	})
	return f.at[id]
}

// patch replaces the base row at pos with row, or deletes it (row nil).
type patch struct {
	pos int
	row *row
}

// slot is where a partial table holds the row of an id it changed: at a
// base position (at < len(base.rows)) or in the tail (at - len(base.rows)).
// A nil row is a deleted base row.
type slot struct {
	row *row
	at  int
}

// newTable is an empty full table of e.
func newTable(e *ir.Entity) *table {
	return &table{ent: e, byID: map[string]*row{}, prefix: ir.SnakeName(e.Name) + "_"}
}

// size is the number of live rows.
func (t *table) size() int {
	if t.base != nil {
		return t.n
	}
	return len(t.rows)
}

// all yields the live rows in order.
func (t *table) all() iter.Seq[*row] {
	return func(yield func(*row) bool) {
		if t.base == nil {
			for _, r := range t.rows {
				if !yield(r) {
					return
				}
			}
			return
		}
		j := 0
		for p, r := range t.base.rows {
			if j < len(t.over) && t.over[j].pos == p {
				r = t.over[j].row
				j++
				if r == nil {
					continue
				}
			}
			if !yield(r) {
				return
			}
		}
		for _, r := range t.tail {
			if !yield(r) {
				return
			}
		}
	}
}

// list is the live rows in order: a full table's own slice (not to be
// written), a new one for a partial table.
func (t *table) list() []*row {
	if t.base == nil {
		return t.rows
	}
	t.meter.count(t.size())
	out := make([]*row, 0, t.size())
	for r := range t.all() {
		out = append(out, r)
	}
	return out
}

// get is the record with the given id, or nil.
func (t *table) get(id string) *row {
	if t.base == nil {
		return t.byID[id]
	}
	if s, ok := t.extra[id]; ok {
		return s.row
	}
	return t.base.byID[id]
}

// at is the row at base position p of a partial table (nil if deleted).
func (t *table) at(p int) *row {
	if i, ok := slices.BinarySearchFunc(t.over, p, func(x patch, p int) int { return x.pos - p }); ok {
		return t.over[i].row
	}
	return t.base.rows[p]
}

// patchAt sets the patch at base position p.
func (t *table) patchAt(p int, r *row) {
	i, ok := slices.BinarySearchFunc(t.over, p, func(x patch, p int) int { return x.pos - p })
	if ok {
		t.over[i].row = r
		return
	}
	t.over = slices.Insert(t.over, i, patch{p, r})
}

// where is the slot of r, a live row of a partial table; ok is false when
// r is none.
func (t *table) where(r *row) (at int, ok bool) {
	if s, found := t.extra[r.id]; found {
		return s.at, s.row == r
	}
	if t.base.byID[r.id] != r {
		return 0, false
	}
	return t.base.pos(r.id, t.meter), true
}

func (t *table) append(r *row) {
	if t.base == nil {
		t.rows = append(t.rows, r)
		t.byID[r.id] = r
		return
	}
	t.extra[r.id] = slot{r, len(t.base.rows) + len(t.tail)}
	t.tail = append(t.tail, r)
	t.n++
}

// remove deletes r from the table and returns its position, for restore
// (-1 when r is not a row of the table).
func (t *table) remove(r *row) int {
	if t.base == nil {
		i := t.position(r)
		if i < 0 {
			return -1
		}
		t.rows = slices.Delete(t.rows, i, i+1)
		delete(t.byID, r.id)
		return i
	}
	at, ok := t.where(r)
	if !ok {
		return -1
	}
	t.n--
	b := len(t.base.rows)
	if at < b {
		t.patchAt(at, nil)
		t.extra[r.id] = slot{nil, at}
		t.dead++
		return at
	}
	i := at - b
	t.tail = slices.Delete(t.tail, i, i+1)
	t.renumber(i)
	if t.base.byID[r.id] != nil {
		// The id was a base row's, deleted before r took it.
		t.extra[r.id] = slot{nil, t.base.pos(r.id, t.meter)}
	} else {
		delete(t.extra, r.id)
	}
	return at
}

// renumber updates the slots of the tail rows from index i on.
func (t *table) renumber(i int) {
	b := len(t.base.rows)
	for ; i < len(t.tail); i++ {
		t.extra[t.tail[i].id] = slot{t.tail[i], b + i}
	}
}

// restore puts r back at position i, as remove returned it (undoing a
// delete).
func (t *table) restore(r *row, i int) {
	if t.base == nil {
		t.rows = slices.Insert(t.rows, i, r)
		t.byID[r.id] = r
		return
	}
	t.n++
	b := len(t.base.rows)
	if i < b {
		t.patchAt(i, r)
		t.extra[r.id] = slot{r, i}
		t.dead--
		return
	}
	t.tail = slices.Insert(t.tail, i-b, r)
	t.renumber(i - b)
}

// position is where r is in a full table's rows, or -1.
func (t *table) position(r *row) int {
	for i := len(t.rows) - 1; i >= 0; i-- {
		if t.rows[i] == r {
			return i
		}
	}
	return -1
}

// mine returns the table's own copy of r, a row of the table, copying it
// into the table first when another table owns it.
func (t *table) mine(r *row) *row {
	if r == nil || r.owner == t {
		return r
	}
	if t.base == nil {
		i := t.position(r)
		if i < 0 {
			return r // not a row of this table: writing it is refused
		}
		nr := r.copyFor(t)
		t.rows[i] = nr
		t.byID[r.id] = nr
		return nr
	}
	at, ok := t.where(r)
	if !ok {
		return r
	}
	nr := r.copyFor(t)
	t.extra[r.id] = slot{nr, at}
	if b := len(t.base.rows); at < b {
		t.patchAt(at, nr)
	} else {
		t.tail[at-b] = nr
	}
	return nr
}

func (r *row) copyFor(t *table) *row {
	return &row{owner: t, ent: r.ent, id: r.id, vals: slices.Clone(r.vals)}
}

// mineAll makes a partial table a full one: every row its own, its own
// index.
func (t *table) mineAll() {
	if t.base == nil {
		return
	}
	t.meter.count(t.size())
	rows := make([]*row, 0, t.size())
	byID := make(map[string]*row, t.size())
	for r := range t.all() {
		if r.owner != t {
			r = r.copyFor(t)
		}
		rows = append(rows, r)
		byID[r.id] = r
	}
	t.rows, t.byID = rows, byID
	t.base, t.over, t.tail, t.extra, t.dead, t.n = nil, nil, nil, nil, 0, 0
}

// share marks the table shared: it is never written again.
func (t *table) share() {
	if t.shared {
		return
	}
	t.shared = true
	if t.base == nil {
		t.frozen = &frozen{rows: t.rows, byID: t.byID}
	}
}

// copy is a partial copy of the shared table t, for a state to write: it
// shares t's base (t itself for a full table) and copies what t changed.
func (t *table) copy() *table {
	nt := &table{ent: t.ent, seq: t.seq, prefix: t.prefix, meter: t.meter}
	if t.base == nil {
		nt.base, nt.extra, nt.n = t.frozen, map[string]slot{}, len(t.rows)
		return nt
	}
	t.meter.count(len(t.over) + len(t.tail))
	nt.base, nt.over, nt.tail, nt.extra, nt.dead, nt.n = t.base, slices.Clone(t.over), slices.Clone(t.tail), maps.Clone(t.extra), t.dead, t.n
	return nt
}

// overlay is t as a partial table over base b: its patches and tail (none
// for the full table whose base b is); ok is false when t reads another
// base.
func (t *table) overlay(b *frozen) (over []patch, tail []*row, dead int, ok bool) {
	switch {
	case b == nil:
		return nil, nil, 0, false
	case t.base == b:
		return t.over, t.tail, t.dead, true
	case t.base == nil && t.frozen == b:
		return nil, nil, 0, true
	}
	return nil, nil, 0, false
}

// baseOf is the base t reads, or the one its partial copies read.
func (t *table) baseOf() *frozen {
	if t.base != nil {
		return t.base
	}
	return t.frozen
}

// added are the ids of t's rows that u does not hold, in t's order. When
// both read one base and u deleted none of its rows, only the rows t
// changed or added are looked at.
func (t *table) added(u *table) []string {
	var out []string
	if t == u {
		return nil
	}
	b := t.baseOf()
	over, tail, _, ok := t.overlay(b)
	if _, _, dead, uok := u.overlay(b); ok && uok && dead == 0 {
		t.meter.count(len(over) + len(tail))
		for _, p := range over {
			if p.row != nil && u.get(p.row.id) == nil {
				out = append(out, p.row.id)
			}
		}
		for _, r := range tail {
			if u.get(r.id) == nil {
				out = append(out, r.id)
			}
		}
		return out
	}
	t.meter.count(t.size())
	for r := range t.all() {
		if u.get(r.id) == nil {
			out = append(out, r.id)
		}
	}
	return out
}

func (t *table) entOrNil() *ir.Entity {
	if t == nil {
		return nil
	}
	return t.ent
}

// equalExcept reports whether t and u hold the same rows (but those whose
// id skip holds) in the same order with equal values, and, skipping none,
// the same id sequence. Two tables over one base that deleted none of its
// rows compare only the rows either changed or added.
func (t *table) equalExcept(u *table, skip map[string]bool) bool {
	if t.ent != u.ent {
		return false
	}
	if len(skip) == 0 && (t.size() != u.size() || t.seq != u.seq) {
		return false
	}
	b := t.baseOf()
	tover, ttail, tdead, tok := t.overlay(b)
	uover, utail, udead, uok := u.overlay(b)
	if tok && uok && tdead == 0 && udead == 0 {
		// Both hold every base row, at its position, under its id: the
		// rows neither changed are the same row.
		t.meter.count(len(tover) + len(uover) + len(ttail) + len(utail))
		i, j := 0, 0
		for i < len(tover) || j < len(uover) {
			var p int
			switch {
			case j == len(uover) || i < len(tover) && tover[i].pos < uover[j].pos:
				p = tover[i].pos
				i++
			case i == len(tover) || uover[j].pos < tover[i].pos:
				p = uover[j].pos
				j++
			default:
				p = tover[i].pos
				i++
				j++
			}
			r, q := rowAt(t, b, p), rowAt(u, b, p)
			if !skip[r.id] && !sameRow(r, q) {
				return false
			}
		}
		return equalRows(ttail, utail, skip)
	}
	return equalRows(t.list(), u.list(), skip)
}

// rowAt is the row at position p of base b in t, which reads b without
// deleting any of its rows.
func rowAt(t *table, b *frozen, p int) *row {
	if t.base == b {
		return t.at(p)
	}
	return b.rows[p]
}

// equalRows compares two lists of rows, leaving out those whose id skip
// holds.
func equalRows(xs, ys []*row, skip map[string]bool) bool {
	if len(skip) == 0 {
		if len(xs) != len(ys) {
			return false
		}
		for j, r := range xs {
			if !sameRow(r, ys[j]) {
				return false
			}
		}
		return true
	}
	j := 0
	for _, r := range xs {
		if skip[r.id] {
			continue
		}
		for j < len(ys) && skip[ys[j].id] {
			j++
		}
		if j == len(ys) || !sameRow(r, ys[j]) {
			return false
		}
		j++
	}
	for ; j < len(ys); j++ {
		if !skip[ys[j].id] {
			return false
		}
	}
	return true
}
