package runtime

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
)

// A Journal is the spine of one state: it knows the state's tables (in the
// order they were created with [NewTable]) and keeps their undo log.
//
// Between [Journal.Begin] and [Journal.Commit] or [Journal.Rollback] every
// table write records how to undo it, so a rollback restores the state
// exactly as it was at Begin. The cost of a transaction is proportional to
// its writes, never to the size of the state.
//
// The state-wide operations are here too, non-generic so that they cost
// nothing per record type: [Journal.Freeze], [Journal.HashTo] and
// [Journal.Snapshot].
//
// Transactions nest: an inner Rollback undoes only the writes since the
// matching Begin; an inner Commit keeps them for the outer transaction to
// commit or roll back. Writes made outside any transaction (building a seed)
// are not journaled.
//
// The zero Journal is not usable; create one with [NewJournal]. A Journal
// is not safe for concurrent use.
type Journal struct {
	// gen identifies the current ownership epoch. A table row copied into an
	// overlay is stamped with gen and may be modified in place while gen is
	// unchanged. Begin and the end of the outermost transaction advance gen,
	// so a row is never modified in place across a transaction boundary
	// (its pre-transaction value must survive for Rollback). Never 0: a
	// stamp of 0 means "shared".
	gen    uint64
	marks  []int
	undo   []undoRec
	tables []*tableCore
	// steps is the work of the tool call running (see [Journal.Tick]).
	steps int64

	// track makes the outermost Commit keep the rows its transaction
	// wrote in changes (see TrackChanges); seen de-duplicates them.
	track   bool
	changes []RowChange
	seen    map[changeKey]struct{}
}

// A RowChange is one row that the last committed transaction of a journal
// wrote (inserted, modified, replaced or deleted): the table's position
// among the state's tables (the order they were created in), the row's
// id, and the row as it was before the transaction, nil when it did not
// exist. The row after it is the table's current row with that id (none
// when it was deleted). Old is shared: do not modify it.
type RowChange struct {
	Table int
	ID    string
	Old   any
}

type changeKey struct {
	c  *tableCore
	id string
}

// undoRec restores one table write. All fields are the values before the
// write.
type undoRec struct {
	c        *tableCore
	id       string
	seqOnly  bool // a sequence-only change: id is meaningless
	prev     slot
	had      bool // prev is meaningful: id had an overlay slot
	addedLen int
	n        int
	seq      int
}

// NewJournal returns an empty journal.
func NewJournal() *Journal { return &Journal{gen: 1} }

// Begin starts a (possibly nested) transaction.
func (j *Journal) Begin() {
	if len(j.marks) == 0 && len(j.changes) > 0 {
		clear(j.changes) // drop references to old rows
		j.changes = j.changes[:0]
	}
	j.marks = append(j.marks, len(j.undo))
	j.gen++
}

// TrackChanges makes the journal remember, from now on, the rows each
// committed outermost transaction wrote, for [Journal.Changes]. It costs a
// little per write, and nothing until it is called: an episode that checks
// invariants after every tool call turns it on.
func (j *Journal) TrackChanges() { j.track = true }

// Changes returns the rows the last outermost transaction wrote, if it was
// committed and the journal tracks changes (see [Journal.TrackChanges]):
// one [RowChange] per table and id, in the order of their first write.
// It is empty after a rollback, and once the next transaction begins. The
// slice is the journal's: read it before the next transaction.
func (j *Journal) Changes() []RowChange { return j.changes }

// Active reports whether a transaction is open.
func (j *Journal) Active() bool { return len(j.marks) > 0 }

// Pending is the number of undo records of the open transactions: the writes
// a Rollback would undo.
func (j *Journal) Pending() int { return len(j.undo) }

// Commit ends the innermost transaction and keeps its writes. It panics if
// no transaction is open.
func (j *Journal) Commit() {
	if len(j.marks) == 0 {
		panic("runtime: Journal.Commit without Begin")
	}
	j.marks = j.marks[:len(j.marks)-1]
	if len(j.marks) == 0 {
		if j.track {
			j.collectChanges()
		}
		clear(j.undo) // drop references to old rows
		j.undo = j.undo[:0]
		j.gen++
	}
}

// collectChanges sets changes to the rows the undo log of the committed
// outermost transaction wrote: for each table and id, its first undo
// record holds the row as it was before the transaction. A short log
// (most calls write a row or two) is de-duplicated by scanning what was
// kept, a long one with a map.
func (j *Journal) collectChanges() {
	long := len(j.undo) > 16
	if long && j.seen == nil {
		j.seen = make(map[changeKey]struct{})
	}
	for i := range j.undo {
		u := &j.undo[i]
		if u.seqOnly {
			continue
		}
		k := changeKey{u.c, u.id}
		if long {
			if _, dup := j.seen[k]; dup {
				continue
			}
			j.seen[k] = struct{}{}
		} else if slices.ContainsFunc(j.changes, func(c RowChange) bool { return c.Table == u.c.at && c.ID == u.id }) {
			continue
		}
		var old any
		switch {
		case u.had && !u.prev.deleted:
			old = u.prev.row
		case !u.had:
			if p, ok := u.c.base.index[u.id]; ok {
				old = u.c.base.rows[p]
			}
		}
		j.changes = append(j.changes, RowChange{Table: u.c.at, ID: u.id, Old: old})
	}
	if long {
		clear(j.seen)
	}
}

// InInsertionOrder sorts ids, ids of rows of the state's table at the
// given position (see [RowChange]), in the order the table iterates its
// rows; ids of no row come last.
func (j *Journal) InInsertionOrder(table int, ids []string) {
	if len(ids) < 2 {
		return
	}
	c := j.tables[table]
	slices.SortStableFunc(ids, func(a, b string) int { return cmp.Compare(c.position(a), c.position(b)) })
}

// Rollback ends the innermost transaction and undoes its writes, newest
// first. It panics if no transaction is open.
func (j *Journal) Rollback() {
	if len(j.marks) == 0 {
		panic("runtime: Journal.Rollback without Begin")
	}
	mark := j.marks[len(j.marks)-1]
	j.marks = j.marks[:len(j.marks)-1]
	for i := len(j.undo) - 1; i >= mark; i-- {
		j.undo[i].apply()
	}
	clear(j.undo[mark:])
	j.undo = j.undo[:mark]
	if len(j.marks) == 0 {
		j.gen++
	}
}

// attach puts the table c at position i among the journal's tables and
// returns i.
func (j *Journal) attach(c *tableCore, i int) int {
	for len(j.tables) <= i {
		j.tables = append(j.tables, nil)
	}
	if j.tables[i] != nil {
		panic("runtime: table " + c.schema.name + " added twice to one state (or over " + j.tables[i].schema.name + ")")
	}
	j.tables[i] = c
	return i
}

func (j *Journal) eachTable(f func(c *tableCore)) {
	for i, c := range j.tables {
		if c == nil {
			panic(fmt.Sprintf("runtime: table %d of the state was not cloned into it", i))
		}
		f(c)
	}
}

// Freeze folds every table's overlay into a new immutable base, so that
// clones of the state cost O(1) per table. It costs O(rows). Call it once,
// when a seed (the world's, or a task's start state) has been built. It
// panics inside a transaction.
func (j *Journal) Freeze() {
	if j.Active() {
		panic("runtime: Journal.Freeze inside a transaction")
	}
	j.eachTable((*tableCore).freeze)
	j.gen++
}

// HashTo feeds every table to h, in creation order: for each, its name, row
// count and ID sequence, then every row's ID and canonical encoding in
// insertion order (see [Hasher]). A state hashes the same whether its rows
// live in a frozen base or in an overlay.
func (j *Journal) HashTo(h *Hasher) { j.eachTable(func(c *tableCore) { c.hashTo(h) }) }

// Snapshot returns the state's tables as one JSON object, keyed by table
// name in creation order, each an array of rows in insertion order:
// {"Customer":[{…},…],"Invoice":[…]}.
func (j *Journal) Snapshot() json.RawMessage {
	var b bytes.Buffer
	var e rowEncoder
	size := 2
	j.eachTable(func(c *tableCore) {
		if len(c.base.rows) > 0 {
			size += c.base.encSize() * (c.n + 1) / (len(c.base.rows) + 1)
		}
	})
	b.Grow(size + size/8)
	b.WriteByte('{')
	first := true
	j.eachTable(func(c *tableCore) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.Write(e.encodeCompact(c.schema.name))
		b.WriteString(":[")
		var cur cursor
		for k := 0; ; k++ {
			_, r, pos, ok := c.next(&cur)
			if !ok {
				break
			}
			if k > 0 {
				b.WriteByte(',')
			}
			if pos >= 0 {
				b.Write(c.base.compactEncoding(pos))
			} else {
				b.Write(e.encodeCompact(r))
			}
		}
		b.WriteByte(']')
	})
	b.WriteByte('}')
	return b.Bytes()
}

// rowJSON returns the JSON of data when data is a row of the state that
// lives, unchanged, in the frozen base of its table: the row's encoding
// (by its AppendJSON method) is computed once and kept in the base, shared
// by every state cloned from it, so that a tool returning a row of the
// seed (get_order_details) copies its JSON instead of writing it again.
// Base rows are never modified in place (a write copies the row first),
// so their encodings never go stale.
func (j *Journal) rowJSON(data any) ([]byte, bool) {
	t := reflect.TypeOf(data)
	for _, c := range j.tables {
		if c.schema.rowType != t || t == nil {
			continue
		}
		if reflect.ValueOf(data).IsNil() {
			return nil, false // a null record, not a row
		}
		b := c.base
		if i, ok := b.index[c.schema.id(data)]; ok && b.rows[i] == data {
			return b.rowJSON(int(i))
		}
		return nil, false
	}
	return nil, false
}

// rollbackTo rolls back open transactions until depth remain.
func (j *Journal) rollbackTo(depth int) {
	for len(j.marks) > depth {
		j.Rollback()
	}
}

func (u *undoRec) apply() {
	c := u.c
	if !u.seqOnly {
		if u.had {
			c.over[u.id] = u.prev
		} else {
			delete(c.over, u.id)
		}
	}
	c.added = c.added[:u.addedLen]
	c.n = u.n
	c.seq = u.seq
}

// ChangedExcept compares the state of j with the state of start (normally
// the task's start state, which j was cloned from) and returns the names of
// the tables that differ, in creation order, ignoring the rows whose IDs
// are in except[table name]. Rows are compared by ID and canonical
// encoding, in insertion order. A table without exceptions must also have
// the same ID sequence, as [Journal.HashTo] covers it; the sequence of a
// table with exceptions is ignored (inserting an excepted record advances
// it). This is the rubric assertion `unchanged except E[k], …`; it costs
// one comparison per row, and rows both states share from one frozen base
// are not encoded at all.
func (j *Journal) ChangedExcept(start *Journal, except map[string]map[string]bool) []string {
	var changed []string
	if len(j.tables) != len(start.tables) {
		j.eachTable(func(c *tableCore) { changed = append(changed, c.schema.name) })
		return changed
	}
	var e rowEncoder
	for i, c := range j.tables {
		if c == nil || start.tables[i] == nil {
			panic(fmt.Sprintf("runtime: table %d of the state was not cloned into it", i))
		}
		skip := except[c.schema.name]
		if !c.sameRows(start.tables[i], skip, &e) {
			changed = append(changed, c.schema.name)
		}
	}
	return changed
}

// sameRows reports whether c and o hold the same rows in the same order,
// ignoring the IDs in skip (and, when there are any, the ID sequence).
func (c *tableCore) sameRows(o *tableCore, skip map[string]bool, e *rowEncoder) bool {
	if c.schema.name != o.schema.name {
		return false
	}
	if len(skip) == 0 && (c.n != o.n || c.seq != o.seq) {
		return false
	}
	next := func(t *tableCore, cur *cursor) (string, any, int, bool) {
		for {
			id, r, pos, ok := t.next(cur)
			if !ok || !skip[id] {
				return id, r, pos, ok
			}
		}
	}
	var a, b cursor
	for {
		ida, ra, pa, oka := next(c, &a)
		idb, rb, pb, okb := next(o, &b)
		if oka != okb {
			return false
		}
		if !oka {
			return true
		}
		if ida != idb {
			return false
		}
		if pa >= 0 && pb >= 0 && c.base == o.base && pa == pb {
			continue // the same shared row
		}
		var ea, eb []byte
		if pa >= 0 {
			ea = c.base.compactEncoding(pa)
		} else {
			ea = append([]byte(nil), e.encodeCompact(ra)...)
		}
		if pb >= 0 {
			eb = o.base.compactEncoding(pb)
		} else {
			eb = e.encodeCompact(rb)
		}
		if !bytes.Equal(ea, eb) {
			return false
		}
	}
}
