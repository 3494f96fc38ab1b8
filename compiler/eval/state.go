package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/worldc/worldc/compiler/ir"
)

// State is the content of every table of a world: what tools read and write
// and what invariants and rubrics are evaluated on. A State is not safe for
// concurrent use; Clone gives an independent copy.
type State struct {
	// Limits bounds the work of one operation: a tool call, an invariant
	// checked on one record, a rubric assertion. NewState sets
	// DefaultLimits; Clone copies them.
	Limits Limits

	w      *ir.World
	today  date
	tables []*table
	index  map[*ir.Entity]int // entity → position in tables
	log    []undo             // the running call's writes, for rollback
	wrote  bool               // the last call succeeded and wrote (see Trace.After)
	budget *Budget            // nil: no bound beyond Limits
}

// Limits bounds evaluation. Generated code has no such limits: they exist so
// that the checker answers on pathological specs.
type Limits struct {
	// MaxDepth bounds the nesting of expressions and statements being
	// evaluated.
	MaxDepth int
	// MaxSteps bounds the expression nodes, statements and loop iterations
	// evaluated by one operation.
	MaxSteps int64
}

// DefaultLimits are generous: far beyond any realistic world.
var DefaultLimits = Limits{MaxDepth: 500, MaxSteps: 50_000_000}

// Budget bounds the work of every evaluation on the states that share it,
// together: a state given one with SetBudget and its clones. Steps count
// as for Limits.MaxSteps. The checker gives each spec one, so that however
// many tasks and records it has, checking it ends in bounded time; once it
// is spent, every evaluation fails with "evaluation exceeded the budget".
type Budget struct {
	total, left int64
}

// NewBudget returns a budget of the given number of steps.
func NewBudget(steps int64) *Budget { return &Budget{total: steps, left: steps} }

// Spent reports whether an evaluation ran out of the budget.
func (b *Budget) Spent() bool { return b.left < 0 }

// Total is the number of steps the budget was created with.
func (b *Budget) Total() int64 { return b.total }

// Used is the number of steps charged so far (at most Total, plus one
// once spent).
func (b *Budget) Used() int64 { return b.total - b.left }

func (b *Budget) exceeded() *evalError {
	return &evalError{code: CodeInternal, msg: fmt.Sprintf("evaluation exceeded the budget of %d steps for checking the world", b.total), limit: true}
}

// SetBudget makes every later evaluation on s and on its clones charge b.
func (s *State) SetBudget(b *Budget) { s.budget = b }

// table holds the records of one entity in insertion order.
//
// Tables are copy on write. A state and its clones share a table (shared
// is set) until one of them is about to write it: that state then makes a
// partial copy (State.own), which shares the rows themselves and the index
// of the table it copies (byID, read-only; pos, their positions) and keeps
// in extra what it changed: the rows it copied, the rows it added, and nil
// for the rows it deleted. A row is written only by its owner; a partial
// table hands a tool its own copy of a row before the tool can write it
// (table.mine, or table.mineAll before a scan). Building a task's start
// state, or replaying a solution, thus costs what it adds and touches, not
// the world seed.
type table struct {
	ent    *ir.Entity
	shared bool
	rows   []*row
	byID   map[string]*row
	extra  map[string]*row // a partial table's changes (see above); nil for a full one
	pos    *positions      // a partial table's: where byID's rows are in rows
	// own is a shared full table's positions of its rows, for its partial
	// copies (set when it is first shared: it never changes after).
	own *positions
	// seq is the last number handed out for a new id (see newID).
	seq    int64
	prefix string // ir.SnakeName(entity name) + "_"
}

// positions maps the ids of a full table's rows to their positions, built
// once on first need and then shared, read-only, by its partial copies.
type positions struct {
	once sync.Once
	rows []*row
	at   map[string]int
}

func (p *positions) of(id string) (int, bool) {
	p.once.Do(func() {
		p.at = make(map[string]int, len(p.rows))
		for i, r := range p.rows {
			p.at[r.id] = i
		}
	})
	i, ok := p.at[id]
	return i, ok
}

// row is one record: its id and one value per field, in field order. Only
// its owner table writes it.
type row struct {
	owner   *table
	ent     *ir.Entity
	id      string
	vals    []value
	deleted bool
}

// NewState builds the start state of task: the world seed followed by the
// task's seed records (task may be nil for the world seed alone). Records
// keep their order; values are converted to the fields' types.
func NewState(w *ir.World, task *ir.Task) (*State, error) {
	if w == nil {
		return nil, fmt.Errorf("eval: nil world")
	}
	s := &State{Limits: DefaultLimits, w: w, index: make(map[*ir.Entity]int, len(w.Entities))}
	d, err := parseDate(w.Today)
	if err != nil {
		return nil, fmt.Errorf("eval: world %s: today: %v", w.Name, err)
	}
	s.today = d
	for i, e := range w.Entities {
		if e == nil {
			return nil, fmt.Errorf("eval: world %s: nil entity", w.Name)
		}
		s.index[e] = i
		s.tables = append(s.tables, &table{ent: e, byID: map[string]*row{}, prefix: ir.SnakeName(e.Name) + "_"})
	}
	add := func(recs []*ir.Record) error {
		for _, r := range recs {
			if err := s.addRecord(r); err != nil {
				return err
			}
		}
		return nil
	}
	if err := add(w.Seed); err != nil {
		return nil, err
	}
	if task != nil {
		if err := add(task.Seed); err != nil {
			return nil, fmt.Errorf("%v (task %s)", err, task.Name)
		}
	}
	for _, t := range s.tables {
		t.seq = maxSuffix(t.rows)
	}
	return s, nil
}

// maxSuffix is where a table's id sequence starts: the largest n among the
// ids of the form "<anything>_<n>", n being 1 to 9 ASCII digits (0 when
// there is none) — runtime.Table's rule when a seed is frozen.
func maxSuffix(rows []*row) int64 {
	var m int64
	for _, r := range rows {
		u := strings.LastIndexByte(r.id, '_')
		if u < 0 || u == len(r.id)-1 || len(r.id)-u > 10 {
			continue
		}
		if n, ok := digits(r.id[u+1:]); ok && n > m {
			m = n
		}
	}
	return m
}

func (s *State) addRecord(r *ir.Record) error {
	if r == nil {
		return fmt.Errorf("eval: nil seed record")
	}
	t := s.table(r.Entity)
	if t == nil {
		return fmt.Errorf("eval: seed record %q: entity not in the world", r.ID)
	}
	if t.get(r.ID) != nil {
		return fmt.Errorf("eval: seed record %s %q: duplicate id", t.ent.Name, r.ID)
	}
	if len(r.Values) != len(t.ent.Fields) {
		return fmt.Errorf("eval: seed record %s %q: %d values for %d fields", t.ent.Name, r.ID, len(r.Values), len(t.ent.Fields))
	}
	vals := make([]value, len(r.Values))
	for i, v := range r.Values {
		f := t.ent.Fields[i]
		x, err := fromIR(v, f.Type)
		if err != nil {
			return fmt.Errorf("eval: seed record %s %q: %s: %v", t.ent.Name, r.ID, f.Name, err)
		}
		vals[i] = x
	}
	if k := t.ent.Key; k != nil {
		i := fieldIndex(t.ent, k)
		if i < 0 {
			return fmt.Errorf("eval: entity %s: key %s is not one of its fields", t.ent.Name, k.Name)
		}
		if key, ok := vals[i].(string); !ok || key != r.ID {
			return fmt.Errorf("eval: seed record %s %q: its key %s is %s", t.ent.Name, r.ID, k.Name, text(vals[i]))
		}
	}
	t.append(&row{owner: t, ent: t.ent, id: r.ID, vals: vals})
	return nil
}

// World is the world the state belongs to.
func (s *State) World() *ir.World { return s.w }

func (s *State) table(e *ir.Entity) *table {
	i, ok := s.index[e]
	if !ok {
		return nil
	}
	return s.tables[i]
}

// get is the record with the given id, or nil.
func (t *table) get(id string) *row {
	if t.extra != nil {
		if r, ok := t.extra[id]; ok {
			return r
		}
	}
	return t.byID[id]
}

func (t *table) append(r *row) {
	t.rows = append(t.rows, r)
	if t.extra != nil {
		t.extra[r.id] = r
		return
	}
	t.byID[r.id] = r
}

// remove deletes r from the table and returns its position.
func (t *table) remove(r *row) int {
	i := t.position(r)
	if i < 0 {
		return -1
	}
	t.rows = append(t.rows[:i], t.rows[i+1:]...)
	if t.extra != nil {
		// Only a row the state added (undoing its insert) leaves a partial
		// table: a delete makes it full first (see State.delete).
		delete(t.extra, r.id)
		return i
	}
	delete(t.byID, r.id)
	return i
}

// position is where r is in the table's rows, or -1.
func (t *table) position(r *row) int {
	if t.pos != nil {
		if i, ok := t.pos.of(r.id); ok && i < len(t.rows) && t.rows[i] == r {
			return i
		}
	}
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
	i := t.position(r)
	if i < 0 {
		return r // not a row of this table: writing it is refused
	}
	nr := &row{owner: t, ent: r.ent, id: r.id, vals: slices.Clone(r.vals)}
	t.rows[i] = nr
	t.extra[r.id] = nr
	return nr
}

// mineAll makes a partial table a full one: every row its own, its own
// index.
func (t *table) mineAll() {
	if t.extra == nil {
		return
	}
	byID := make(map[string]*row, len(t.rows))
	for i, r := range t.rows {
		if r.owner != t {
			r = &row{owner: t, ent: r.ent, id: r.id, vals: slices.Clone(r.vals)}
			t.rows[i] = r
		}
		byID[r.id] = r
	}
	t.byID, t.extra, t.pos = byID, nil, nil
}

// restore puts r back at position i (undoing a delete, on a full table).
func (t *table) restore(r *row, i int) {
	t.rows = append(t.rows, nil)
	copy(t.rows[i+1:], t.rows[i:])
	t.rows[i] = r
	if t.extra != nil {
		t.extra[r.id] = r
		return
	}
	t.byID[r.id] = r
}

// newID is the table's next id, <entity in lower snake case>_<n>
// (ir.SnakeName): n is the first number after the sequence whose id is not
// in the table, and becomes the sequence. Numbers are never handed out
// twice, even after a delete (as runtime.Table.NextID).
func (t *table) newID() string {
	for n := t.seq + 1; ; n++ {
		id := t.prefix + strconv.FormatInt(n, 10)
		if t.get(id) == nil {
			t.seq = n
			return id
		}
	}
}

// Clone returns an independent copy of the state, in time proportional to
// the number of tables: the copy and s share their tables until either is
// about to write one (copy on write; see own), so that a task's start
// state, or a solution's replay, costs what it writes, not the whole seed.
func (s *State) Clone() *State {
	c := &State{Limits: s.Limits, w: s.w, today: s.today, index: s.index, tables: slices.Clone(s.tables), budget: s.budget}
	for _, t := range s.tables {
		if !t.shared {
			t.shared = true
			if t.extra == nil && t.own == nil {
				t.own = &positions{rows: t.rows}
			}
		}
	}
	return c
}

// IDs are the ids of e's records, in insertion order.
func (s *State) IDs(e *ir.Entity) []string {
	t := s.table(e)
	if t == nil {
		return nil
	}
	out := make([]string, len(t.rows))
	for i, r := range t.rows {
		out[i] = r.id
	}
	return out
}

// own makes the table of e one s may write (a no-op when it is): a partial
// copy of the shared table, in time proportional to its number of rows
// (the slice of pointers is copied, not the rows, nor the index).
func (s *State) own(e *ir.Entity) *table {
	i, ok := s.index[e]
	if !ok {
		return nil
	}
	t := s.tables[i]
	if !t.shared {
		return t
	}
	nt := &table{ent: t.ent, rows: slices.Clone(t.rows), byID: t.byID, extra: maps.Clone(t.extra), pos: t.pos, seq: t.seq, prefix: t.prefix}
	if nt.extra == nil {
		nt.extra = map[string]*row{}
		nt.pos = t.own
	}
	s.tables[i] = nt
	return nt
}

func (t *table) entOrNil() *ir.Entity {
	if t == nil {
		return nil
	}
	return t.ent
}

// writable is the table of e when s may write it: a write to a table s
// shares would show in the other states.
func (s *State) writable(e *ir.Entity) (*table, *evalError) {
	t := s.table(e)
	if t == nil {
		return nil, errorf(CodeInternal, "entity not in the world")
	}
	if t.shared {
		return nil, errorf(CodeInternal, "a tool writes %s, which its service does not own", entityName(e))
	}
	return t, nil
}

// WithTask returns the start state of task built on s, the world seed
// state: a clone of s with the task's seed records added, as NewState(w,
// task) builds it, in time proportional to the task's records (and to the
// number of rows of the tables they go to, whose pointers are copied).
func (s *State) WithTask(task *ir.Task) (*State, error) {
	c := s.Clone()
	if task == nil {
		return c, nil
	}
	added := map[*table]int{} // table → its records before the task's
	for _, r := range task.Seed {
		if r == nil {
			return nil, fmt.Errorf("eval: nil seed record (task %s)", task.Name)
		}
		if t := c.table(r.Entity); t != nil && t.shared {
			t = c.own(r.Entity)
			added[t] = len(t.rows)
		}
		if err := c.addRecord(r); err != nil {
			return nil, fmt.Errorf("%v (task %s)", err, task.Name)
		}
	}
	// The sequence NewState starts from is the largest suffix among all
	// the records: the seed's (the table's sequence so far) or the task's.
	for t, n := range added {
		t.seq = max(t.seq, maxSuffix(t.rows[n:]))
	}
	return c, nil
}

// Len is the number of records of entity e (0 for an entity not in the world).
func (s *State) Len(e *ir.Entity) int {
	if t := s.table(e); t != nil {
		return len(t.rows)
	}
	return 0
}

// RecordJSON renders the record of e with the given id like an observation
// does; ok is false when there is none.
func (s *State) RecordJSON(e *ir.Entity, id string) (data []byte, ok bool) {
	t := s.table(e)
	if t == nil || t.get(id) == nil {
		return nil, false
	}
	return appendJSON(nil, t.get(id)), true
}

// JSON is a snapshot of the state: an object keyed by entity name, in the
// world's entity order, each an array of records in insertion order; a
// record is an object with "id" first (none for an entity with a key
// field) and then every field in declaration order (dates "YYYY-MM-DD",
// date-times RFC 3339 UTC, enums by value name, refs by id, null for unset
// optionals, lists as arrays, maps as objects in key order, value records
// as objects of their case's fields). Compact, with encoding/json's number
// and string encoding.
func (s *State) JSON() []byte {
	b := []byte{'{'}
	for i, t := range s.tables {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, t.ent.Name)
		b = append(b, ':', '[')
		for j, r := range t.rows {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, r)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// Hash is the lower-case hex SHA-256 of JSON() followed by one line per
// table, "\n<Entity> <sequence>": equal states have equal hashes, and any
// change to a record, to the set of records, to their order or to an id
// sequence changes it. (It is not the generated package's hash, whose
// encoding differs; both change together.)
func (s *State) Hash() string {
	b := s.JSON()
	for _, t := range s.tables {
		b = append(b, '\n')
		b = append(b, t.ent.Name...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, t.seq, 10)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Equal reports whether two states hold the same records in the same order
// with equal values, and the same id sequences: what `unchanged` asks.
func (s *State) Equal(o *State) bool { return s.EqualExcept(o, nil) }

// EqualExcept is Equal ignoring the records named in except (entity → ids):
// in every table, the records whose id is not excepted must be the same
// in the same order with equal values on both sides, and a table with no
// excepted id must also have the same id sequence. What `unchanged except
// R, …` asks.
func (s *State) EqualExcept(o *State, except map[*ir.Entity]map[string]bool) bool {
	if len(s.tables) != len(o.tables) {
		return false
	}
	for i, t := range s.tables {
		if t == o.tables[i] {
			continue // shared: equal
		}
		if !t.equalExcept(o.tables[i], except[t.ent]) {
			return false
		}
	}
	return true
}

func (t *table) equalExcept(u *table, skip map[string]bool) bool {
	if t.ent != u.ent {
		return false
	}
	if len(skip) == 0 {
		if len(t.rows) != len(u.rows) || t.seq != u.seq {
			return false
		}
		for j, r := range t.rows {
			if !sameRow(r, u.rows[j]) {
				return false
			}
		}
		return true
	}
	j := 0
	for _, r := range t.rows {
		if skip[r.id] {
			continue
		}
		for j < len(u.rows) && skip[u.rows[j].id] {
			j++
		}
		if j == len(u.rows) || !sameRow(r, u.rows[j]) {
			return false
		}
		j++
	}
	for ; j < len(u.rows); j++ {
		if !skip[u.rows[j].id] {
			return false
		}
	}
	return true
}

func sameRow(r, q *row) bool {
	if r.id != q.id || len(r.vals) != len(q.vals) {
		return false
	}
	for k := range r.vals {
		if !sameValue(r.vals[k], q.vals[k]) {
			return false
		}
	}
	return true
}

// sameValue is equality for stored values, where NaN equals NaN (a stored
// value is never NaN, but Equal must stay reflexive), deeply inside
// composite values.
func sameValue(a, b value) bool { return deepEqual(a, b, true) }

// digits parses a non-empty string of ASCII digits.
func digits(s string) (int64, bool) {
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, s != ""
}

// undo is one write of the running call, for rollback.
type undo struct {
	op    byte // 's' set, 'i' insert, 'd' delete, 'q' id sequence
	t     *table
	r     *row
	field int
	old   value
	pos   int
	seq   int64
}

func (s *State) rollback() {
	for i := len(s.log) - 1; i >= 0; i-- {
		u := s.log[i]
		switch u.op {
		case 's':
			u.r.vals[u.field] = u.old
		case 'i':
			u.t.remove(u.r)
			u.r.deleted = true
		case 'd':
			u.t.restore(u.r, u.pos)
			u.r.deleted = false
		case 'q':
			u.t.seq = u.seq
		}
	}
	s.log = s.log[:0]
}
