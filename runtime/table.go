package runtime

import (
	"crypto/sha256"
	"iter"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// A Table holds the rows of one entity keyed by a string ID, in insertion
// order. T is the row type; generated worlds use a pointer to the record
// struct (Table[*Invoice]), so every instantiation shares one compiled copy
// of the methods, which are thin typed wrappers over a non-generic core.
// (Each method still costs a small wrapper per record type and package,
// which is why the method set is kept to the operations that need T; the
// state-wide operations live on [Journal].)
//
// A table is an immutable base shared with its clones plus a private
// overlay of the rows inserted, replaced, modified or deleted since.
// [Table.Clone] costs O(overlay), [Journal.Freeze] O(rows). Rows obtained
// from Get, Lookup and All may be shared with other states and must be
// treated as read-only; [Table.Mut] returns a private copy that may be
// modified in place until the next transaction boundary, Clone or Freeze.
//
// Every write is recorded in the state's [Journal] when a transaction is
// open, so a failed tool call can be rolled back. A Table is not safe for
// concurrent use; distinct states are, even when cloned from one frozen
// seed.
type Table[T any] struct {
	c tableCore
}

// tableSchema is what all clones of a table share.
type tableSchema struct {
	name string
	id   func(any) string
	copy func(any) any
	// rowType is T when it is a pointer type (a record of a generated
	// world), whose rows are told apart by identity; else nil.
	rowType reflect.Type
}

// tableBase is an immutable snapshot of a table's rows.
type tableBase struct {
	ids   []string
	rows  []any
	index map[string]int32

	// the rows' canonical encodings (compact JSON) and their digests,
	// computed on first use and shared by every clone: snapshots and hashes
	// of a state encode only the rows changed since its base.
	encOnce    sync.Once
	encs       [][]byte
	digestOnce sync.Once
	digests    [][32]byte

	// the rows' JSON as their AppendJSON methods write it, filled in as
	// tools return them (see Journal.rowJSON) and shared by every clone
	jsonOnce sync.Once
	jsons    []atomic.Pointer[[]byte]
}

// slot is the overlay's version of one row.
type slot struct {
	row     any
	stamp   uint64 // journal generation that owns row (may modify it in place); 0: shared
	pos     int32  // index in tableCore.added; -1: the row lives at its base position
	deleted bool   // a base row deleted (and not re-inserted)
	// digest is the row's hash digest, kept once the row can no longer be
	// modified in place (stamp is not the journal's generation: a write
	// copies it into a new slot first); nil until a hash computes it.
	digest *[32]byte
}

type tableCore struct {
	schema *tableSchema
	j      *Journal
	at     int // position among the journal's tables
	base   *tableBase
	over   map[string]slot
	// ovPos lists, sorted, the base positions whose ID has (or had: entries
	// are not removed on rollback) an overlay slot.
	ovPos []int32
	// added lists the IDs inserted after the base, in insertion order. An
	// entry is live only if over[id].pos is its index (a deleted or
	// re-inserted ID leaves a dead entry behind).
	added []string
	n     int // live rows
	seq   int // last number handed out by NextID
}

// NewTable returns an empty table of the entity name and adds it to the
// state of the journal j (the tables of a state are hashed, frozen and
// snapshotted in the order they were created). name appears in error
// messages (`Invoice "inv_9" not found`) and keys the table in snapshots.
// id returns a row's ID; copyRow returns a deep copy of a row (slices and
// maps included), used to copy a row into the overlay before it is
// modified.
func NewTable[T any](name string, id func(T) string, copyRow func(T) T, j *Journal) *Table[T] {
	if id == nil || copyRow == nil || j == nil {
		panic("runtime: NewTable " + name + ": id, copyRow and j must not be nil")
	}
	s := &tableSchema{
		name: name,
		id:   func(r any) string { return id(r.(T)) },
		copy: func(r any) any { return copyRow(r.(T)) },
	}
	if rt := reflect.TypeFor[T](); rt.Kind() == reflect.Pointer {
		s.rowType = rt
	}
	t := &Table[T]{c: tableCore{schema: s, j: j, base: &tableBase{}}}
	t.c.at = j.attach(&t.c, len(j.tables))
	return t
}

// Len is the number of rows.
func (t *Table[T]) Len() int { return t.c.n }

// Has reports whether a row with the ID exists.
func (t *Table[T]) Has(id string) bool { _, ok := t.c.get(id); return ok }

// Get returns the row with the ID. The row is shared: do not modify it (use
// Mut).
func (t *Table[T]) Get(id string) (T, bool) {
	r, ok := t.c.get(id)
	if !ok {
		var zero T
		return zero, false
	}
	return r.(T), true
}

// Lookup is Get with a not_found [ToolError] naming the entity and ID
// (`Invoice "inv_9" not found`) when there is no such row.
func (t *Table[T]) Lookup(id string) (T, error) {
	r, ok := t.c.get(id)
	if !ok {
		var zero T
		return zero, NotFound(t.c.schema.name, id)
	}
	return r.(T), nil
}

// Mut returns a private, modifiable copy of the row with the ID, copying it
// into the overlay (and journaling the change) unless this transaction
// already did. It returns a not_found [ToolError] naming the entity and ID
// (`Invoice "inv_9" not found`) if there is no such row.
func (t *Table[T]) Mut(id string) (T, error) {
	r, ok := t.c.mut(id)
	if !ok {
		var zero T
		return zero, NotFound(t.c.schema.name, id)
	}
	return r.(T), nil
}

// Insert adds a row at the end of the insertion order. The table takes
// ownership of row. An existing ID is a constraint_violation [ToolError].
// The empty string is an ID like any other (the key of a record may be
// empty, as compiler/eval allows); NextID never makes it.
func (t *Table[T]) Insert(row T) error { return t.c.insert(row) }

// InsertAll inserts the rows in order, as Insert does each, and stops at
// the first error. Into an empty table outside a transaction (a seed being
// built) it builds the table's rows at once, as if they had been inserted
// and frozen (see [Journal.Freeze]): shared with clones from the start,
// and so never modified in place.
func (t *Table[T]) InsertAll(rows []T) error {
	anys := make([]any, len(rows))
	for i, r := range rows {
		anys[i] = r
	}
	return t.c.insertAll(anys)
}

// Update replaces the row with the same ID, keeping its position. The table
// takes ownership of row. A missing ID is a not_found [ToolError].
func (t *Table[T]) Update(row T) error { return t.c.update(row) }

// Delete removes the row with the ID. A missing ID is a not_found
// [ToolError].
func (t *Table[T]) Delete(id string) error { return t.c.delete(id) }

// NextID returns prefix + "_" + n for the next number n of the table's
// sequence whose ID is not already in the table ("invoice_4"). The sequence
// is part of the state (cloned, journaled, hashed); it never hands out a
// number twice, even after a delete. Freeze advances it past the largest
// numeric "_n" suffix among the IDs, so a seed holding invoice_1…invoice_3
// continues at 4 without probing.
func (t *Table[T]) NextID(prefix string) string { return t.c.nextID(prefix) }

// All iterates over the rows in insertion order. The rows are shared: do
// not modify them. Rows may be modified (through Mut), updated or deleted
// during the iteration; rows inserted during it are not visited.
func (t *Table[T]) All() iter.Seq[T] {
	return func(yield func(T) bool) {
		c := &t.c
		cur := cursor{init: true, nAdded: len(c.added)} // rows inserted during the iteration are not visited
		for {
			var r any
			if i := cur.i; i < len(c.base.rows) && len(c.ovPos) == 0 {
				// a base row while the overlay changes none (a fresh
				// episode's reads): no call; a write that changes one
				// hands the iteration to next, which resynchronises
				r = c.base.rows[i]
				cur.i++
			} else {
				var ok bool
				if _, r, _, ok = c.next(&cur); !ok {
					return
				}
			}
			// one call of yield, so that the loop's body is compiled once
			if !yield(r.(T)) {
				return
			}
		}
	}
}

// Clone returns a copy of the table in the state of the journal j (the new
// state's journal), at the same position among its tables as t has in its
// own state. It costs O(rows changed since the last [Journal.Freeze]) and
// does not modify t, so a frozen state may be cloned concurrently.
func (t *Table[T]) Clone(j *Journal) *Table[T] {
	n := &Table[T]{c: t.c.clone(j)}
	j.attach(&n.c, t.c.at)
	return n
}

// --- the non-generic core ---

func (c *tableCore) get(id string) (any, bool) {
	if c.over != nil {
		if s, ok := c.over[id]; ok {
			if s.deleted {
				return nil, false
			}
			return s.row, true
		}
	}
	if i, ok := c.base.index[id]; ok {
		return c.base.rows[i], true
	}
	return nil, false
}

// record journals the slot of id (and the table's counters) before a write.
func (c *tableCore) record(id string) {
	j := c.j
	if len(j.marks) == 0 {
		return
	}
	u := undoRec{c: c, id: id, addedLen: len(c.added), n: c.n, seq: c.seq}
	u.prev, u.had = c.over[id]
	j.undo = append(j.undo, u)
}

// recordSeq journals the table's counters alone (NextID).
func (c *tableCore) recordSeq() {
	j := c.j
	if len(j.marks) == 0 {
		return
	}
	j.undo = append(j.undo, undoRec{c: c, seqOnly: true, addedLen: len(c.added), n: c.n, seq: c.seq})
}

func (c *tableCore) setSlot(id string, s slot) {
	if c.over == nil {
		c.over = make(map[string]slot)
	}
	c.over[id] = s
}

// markBase notes that base position i now has an overlay slot.
func (c *tableCore) markBase(i int32) {
	k, found := slices.BinarySearch(c.ovPos, i)
	if !found {
		c.ovPos = slices.Insert(c.ovPos, k, i)
	}
}

func (c *tableCore) mut(id string) (any, bool) {
	gen := c.j.gen
	if s, ok := c.over[id]; ok {
		if s.deleted {
			return nil, false
		}
		if s.stamp == gen {
			return s.row, true
		}
		c.record(id)
		s.row = c.schema.copy(s.row)
		s.stamp = gen
		s.digest = nil
		c.over[id] = s
		return s.row, true
	}
	i, ok := c.base.index[id]
	if !ok {
		return nil, false
	}
	c.record(id)
	row := c.schema.copy(c.base.rows[i])
	c.setSlot(id, slot{row: row, stamp: gen, pos: -1})
	c.markBase(i)
	return row, true
}

func (c *tableCore) insert(row any) error {
	id := c.schema.id(row)
	if _, ok := c.get(id); ok {
		return ConstraintViolation("%s %q already exists", c.schema.name, id)
	}
	// A deleted base row's position is already in ovPos: iteration skips it
	// there because the new slot's pos is >= 0.
	c.record(id)
	c.setSlot(id, slot{row: row, stamp: c.j.gen, pos: int32(len(c.added))})
	c.added = append(c.added, id)
	c.n++
	return nil
}

func (c *tableCore) insertAll(rows []any) error {
	if c.n == 0 && len(c.base.rows) == 0 && len(c.over) == 0 && len(c.added) == 0 && len(c.j.marks) == 0 {
		b := &tableBase{ids: make([]string, len(rows)), rows: rows, index: make(map[string]int32, len(rows))}
		unique := true
		for i, r := range rows {
			id := c.schema.id(r)
			if _, dup := b.index[id]; dup {
				unique = false // Insert's error, below
				break
			}
			b.ids[i] = id
			b.index[id] = int32(i)
		}
		if unique {
			c.base, c.over, c.ovPos, c.n = b, nil, nil, len(rows)
			return nil
		}
	}
	for _, r := range rows {
		if err := c.insert(r); err != nil {
			return err
		}
	}
	return nil
}

func (c *tableCore) update(row any) error {
	id := c.schema.id(row)
	if _, ok := c.get(id); !ok {
		return NotFound(c.schema.name, id)
	}
	c.record(id)
	if s, ok := c.over[id]; ok {
		s.row, s.stamp, s.digest = row, c.j.gen, nil
		c.over[id] = s
		return nil
	}
	i := c.base.index[id]
	c.setSlot(id, slot{row: row, stamp: c.j.gen, pos: -1})
	c.markBase(i)
	return nil
}

func (c *tableCore) delete(id string) error {
	if _, ok := c.get(id); !ok {
		return NotFound(c.schema.name, id)
	}
	c.record(id)
	if i, inBase := c.base.index[id]; inBase {
		c.setSlot(id, slot{deleted: true, pos: -1})
		c.markBase(i)
	} else {
		delete(c.over, id)
	}
	c.n--
	return nil
}

func (c *tableCore) nextID(prefix string) string {
	for n := c.seq + 1; ; n++ {
		id := prefix + "_" + strconv.Itoa(n)
		if _, taken := c.get(id); !taken {
			c.recordSeq()
			c.seq = n
			return id
		}
	}
}

// position is where the row id comes when the table iterates its rows:
// its base position, or, for a row inserted after the base (or deleted
// from it and inserted again), the base's length plus its index among
// the inserted rows; math.MaxInt for an id of no row.
func (c *tableCore) position(id string) int {
	if s, ok := c.over[id]; ok {
		switch {
		case s.deleted:
			return math.MaxInt
		case s.pos >= 0:
			return len(c.base.rows) + int(s.pos)
		}
	}
	if i, ok := c.base.index[id]; ok {
		return int(i)
	}
	return math.MaxInt
}

// cursor is an iteration position over a tableCore.
type cursor struct {
	i      int // next base position, then len(base)+index into added
	k      int // index into ovPos of the first entry >= i
	ovLen  int // len(ovPos) when k was computed
	nAdded int // len(added) when the iteration reached the added rows; -1 before
	init   bool
}

// next returns the next live row in insertion order; basePos is its base
// position when the row is the base's own (unchanged) value, else -1.
func (c *tableCore) next(cur *cursor) (id string, row any, basePos int, ok bool) {
	if !cur.init {
		cur.init = true
		cur.nAdded = len(c.added) // rows inserted during the iteration are not visited
	}
	b := c.base
	for cur.i < len(b.rows) {
		i := cur.i
		cur.i++
		if len(c.ovPos) != cur.ovLen { // the overlay changed: resynchronise
			cur.ovLen = len(c.ovPos)
			cur.k, _ = slices.BinarySearch(c.ovPos, int32(i))
		}
		if cur.k < len(c.ovPos) && int(c.ovPos[cur.k]) == i {
			cur.k++
			if s, has := c.over[b.ids[i]]; has {
				if s.deleted || s.pos >= 0 {
					continue
				}
				return b.ids[i], s.row, -1, true
			}
		}
		return b.ids[i], b.rows[i], i, true
	}
	for {
		a := cur.i - len(b.rows)
		if a >= cur.nAdded || a >= len(c.added) {
			return "", nil, -1, false
		}
		cur.i++
		id := c.added[a]
		if s, has := c.over[id]; has && !s.deleted && int(s.pos) == a {
			return id, s.row, -1, true
		}
	}
}

func (c *tableCore) clone(j *Journal) tableCore {
	if j == nil {
		panic("runtime: Table.Clone with a nil journal")
	}
	n := tableCore{schema: c.schema, j: j, at: c.at, base: c.base, n: c.n, seq: c.seq}
	if len(c.over) > 0 {
		n.over = make(map[string]slot, len(c.over))
		gen := c.j.gen
		for id, s := range c.over {
			if s.stamp == gen && !s.deleted {
				// The source may still modify this row in place.
				s.row = c.schema.copy(s.row)
			}
			s.stamp = 0
			n.over[id] = s
		}
		n.ovPos = slices.Clone(c.ovPos)
		n.added = slices.Clone(c.added)
	}
	return n
}

func (c *tableCore) freeze() {
	if len(c.over) > 0 || len(c.added) > 0 {
		nb := &tableBase{
			ids:   make([]string, 0, c.n),
			rows:  make([]any, 0, c.n),
			index: make(map[string]int32, c.n),
		}
		var cur cursor
		for {
			id, r, _, ok := c.next(&cur)
			if !ok {
				break
			}
			nb.index[id] = int32(len(nb.ids))
			nb.ids = append(nb.ids, id)
			nb.rows = append(nb.rows, r)
		}
		c.base = nb
		c.over, c.ovPos, c.added = nil, nil, nil
	}
	c.seq = max(c.seq, maxSuffix(c.base.ids))
	// Every row is now shared with future clones: none may be modified in
	// place (Journal.Freeze advances the ownership generation).
}

// maxSuffix is the largest n among IDs of the form "…_n".
func maxSuffix(ids []string) int {
	m := 0
	for _, id := range ids {
		u := strings.LastIndexByte(id, '_')
		if u < 0 || u == len(id)-1 || len(id)-u > 10 {
			continue
		}
		n, err := strconv.Atoi(id[u+1:])
		if err == nil && n > m && id[u+1] != '+' && id[u+1] != '-' {
			m = n
		}
	}
	return m
}

// rowEncodings are the canonical encodings of the base's rows, as
// rowEncoder.encode makes them (with encoding/json's trailing newline).
func (b *tableBase) rowEncodings() [][]byte {
	b.encOnce.Do(func() {
		var e rowEncoder
		b.encs = make([][]byte, len(b.rows))
		for i, r := range b.rows {
			b.encs[i] = append([]byte(nil), e.encode(r)...)
		}
	})
	return b.encs
}

// encSize is the total size of the base's row encodings.
func (b *tableBase) encSize() int {
	n := 0
	for _, enc := range b.rowEncodings() {
		n += len(enc)
	}
	return n
}

// compactEncoding is encoding i without its trailing newline.
func (b *tableBase) compactEncoding(i int) []byte {
	enc := b.rowEncodings()[i]
	if n := len(enc); n > 0 && enc[n-1] == '\n' {
		return enc[:n-1]
	}
	return enc
}

// rowJSON is the JSON of the base's row i, by its AppendJSON method,
// computed once and shared by every clone of the base; ok is false when
// the row has no such method or no encoding.
func (b *tableBase) rowJSON(i int) ([]byte, bool) {
	a, ok := b.rows[i].(JSONAppender)
	if !ok {
		return nil, false
	}
	b.jsonOnce.Do(func() { b.jsons = make([]atomic.Pointer[[]byte], len(b.rows)) })
	if p := b.jsons[i].Load(); p != nil {
		return *p, true
	}
	enc, err := AppendJSONOf(nil, a)
	if err != nil {
		return nil, false
	}
	enc = slices.Clip(enc)
	b.jsons[i].CompareAndSwap(nil, &enc)
	return *b.jsons[i].Load(), true
}

func (b *tableBase) rowDigests() [][32]byte {
	b.digestOnce.Do(func() {
		var e rowEncoder
		b.digests = make([][32]byte, len(b.rows))
		for i, r := range b.rows {
			if _, ok := r.(Hashable); ok {
				b.digests[i] = e.digest(r)
			} else {
				b.digests[i] = sha256.Sum256(b.rowEncodings()[i]) // as rowEncoder.digest
			}
		}
	})
	return b.digests
}

func (c *tableCore) hashTo(h *Hasher) {
	h.tag('T')
	h.WriteString(c.schema.name)
	h.WriteInt(int64(c.n))
	h.WriteInt(int64(c.seq))
	var digests [][32]byte
	if len(c.base.rows) > 0 {
		digests = c.base.rowDigests()
	}
	var cur cursor
	for {
		id, r, pos, ok := c.next(&cur)
		if !ok {
			return
		}
		h.tag('R')
		h.WriteString(id)
		switch {
		case pos >= 0:
			h.digest(&digests[pos])
		default:
			// A row of the overlay: its digest is kept in its slot once
			// the row can no longer change in place, so that hashing a
			// state after every step costs each changed row once.
			s := c.over[id]
			if s.digest == nil {
				d := h.enc.digest(r)
				if s.stamp == c.j.gen {
					h.digest(&d)
					continue
				}
				s.digest = &d
				c.over[id] = s
			}
			h.digest(s.digest)
		}
	}
}
