package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
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
	today  date             // the clock: the world's, or its task's own (ir.Task.Today)
	now    dateTime         // the clock's date-time (ir.Task.Now, ir.World.Now)
	cal    runtime.Calendar // the world's working days (World.Holidays)
	tables []*table
	index  map[*ir.Entity]int // entity → position in tables
	log    []undo             // the running call's writes, for rollback
	wrote  bool               // the last call succeeded and wrote (see Trace.After)
	budget *Budget            // nil: no bound beyond Limits
	// checked holds the violations of the invariants checked on s since
	// it last changed, under the limits checked was made with (see
	// InvariantViolations). Clones share it until they call a tool: the
	// map is only added to by states holding what it was made on.
	checked *checked
}

type checked struct {
	limits Limits
	of     map[*ir.Invariant][]Violation
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
//
// A budget also counts, without bounding them, the rows that the states
// sharing it visit to copy, index and compare their tables (Rows): what
// copy on write costs beyond evaluation, for tests of how a check grows.
type Budget struct {
	total, left int64
	rows        int64
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

// Rows is the number of rows the states sharing b visited to copy, index
// or compare their tables (each row of a table copied whole, of an index
// built, of a comparison or a list of ids made), evaluation aside.
func (b *Budget) Rows() int64 { return b.rows }

func (b *Budget) count(n int) {
	if b != nil {
		b.rows += int64(n)
	}
}

func (b *Budget) exceeded() *evalError {
	return &evalError{code: CodeInternal, msg: fmt.Sprintf("evaluation exceeded the budget of %d steps for checking the world", b.total), limit: true}
}

// SetBudget makes every later evaluation on s and on its clones charge b.
func (s *State) SetBudget(b *Budget) {
	s.budget = b
	for _, t := range s.tables {
		t.meter = b
	}
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
	s.today, s.now = d, runtime.Clock{Today: d}.Now()
	if w.Now != "" {
		if s.now, err = parseDateTime(w.Now); err != nil {
			return nil, fmt.Errorf("eval: world %s: now: %v", w.Name, err)
		}
	}
	if err := s.setClock(task); err != nil {
		return nil, err
	}
	var hol []date
	for _, h := range w.Holidays {
		d, err := parseDate(h)
		if err != nil {
			return nil, fmt.Errorf("eval: world %s: holiday: %v", w.Name, err)
		}
		hol = append(hol, d)
	}
	s.cal = runtime.NewCalendar(hol...)
	for i, e := range w.Entities {
		if e == nil {
			return nil, fmt.Errorf("eval: world %s: nil entity", w.Name)
		}
		s.index[e] = i
		s.tables = append(s.tables, newTable(e))
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
		x, err := fromIR(v, f.Type, !s.w.FloatNumbers)
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
	c := &State{Limits: s.Limits, w: s.w, today: s.today, now: s.now, cal: s.cal, index: s.index, tables: slices.Clone(s.tables), budget: s.budget, checked: s.checked}
	for _, t := range s.tables {
		t.share()
	}
	return c
}

// IDs are the ids of e's records, in insertion order.
func (s *State) IDs(e *ir.Entity) []string {
	t := s.table(e)
	if t == nil {
		return nil
	}
	t.meter.count(t.size())
	out := make([]string, 0, t.size())
	for r := range t.all() {
		out = append(out, r.id)
	}
	return out
}

// NewIDs are the ids of e's records in s that before does not hold, in
// insertion order: for s a state built from before (its clone, written
// since), in time proportional to what s changed or added, not to the
// records they share.
func (s *State) NewIDs(before *State, e *ir.Entity) []string {
	t, u := s.table(e), before.table(e)
	if t == nil {
		return nil
	}
	if u == nil {
		return s.IDs(e)
	}
	return t.added(u)
}

// own makes the table of e one s may write (a no-op when it is): a partial
// copy of the shared table, in time proportional to what that table
// changed of its base (neither its rows nor its index are copied).
func (s *State) own(e *ir.Entity) *table {
	i, ok := s.index[e]
	if !ok {
		return nil
	}
	t := s.tables[i]
	if !t.shared {
		return t
	}
	nt := t.copy()
	nt.meter = s.budget
	s.tables[i] = nt
	s.checked = nil // s is about to change
	return nt
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
// task) builds it, in time proportional to the task's records.
func (s *State) WithTask(task *ir.Task) (*State, error) {
	c := s.Clone()
	if task == nil {
		return c, nil
	}
	c.checked = nil
	if err := c.setClock(task); err != nil {
		return nil, err
	}
	added := map[*table]int{} // table → its records before the task's
	for _, r := range task.Seed {
		if r == nil {
			return nil, fmt.Errorf("eval: nil seed record (task %s)", task.Name)
		}
		if t := c.table(r.Entity); t != nil && t.shared {
			t = c.own(r.Entity)
			added[t] = len(t.tail)
		}
		if err := c.addRecord(r); err != nil {
			return nil, fmt.Errorf("%v (task %s)", err, task.Name)
		}
	}
	// The sequence NewState starts from is the largest suffix among all
	// the records: the seed's (the table's sequence so far) or the task's.
	for t, n := range added {
		t.seq = max(t.seq, maxSuffix(t.tail[n:]))
	}
	return c, nil
}

// setClock sets the clock of the start state of task to the task's own,
// when it sets one (ir.Task.Today and Now).
func (s *State) setClock(task *ir.Task) error {
	if task == nil || task.Today == "" {
		return nil
	}
	d, err := parseDate(task.Today)
	if err != nil {
		return fmt.Errorf("eval: task %s: today: %v", task.Name, err)
	}
	t, err := parseDateTime(task.Now)
	if err != nil {
		return fmt.Errorf("eval: task %s: now: %v", task.Name, err)
	}
	s.today, s.now = d, t
	return nil
}

// Len is the number of records of entity e (0 for an entity not in the world).
func (s *State) Len(e *ir.Entity) int {
	if t := s.table(e); t != nil {
		return t.size()
	}
	return 0
}

// SameRecord reports whether s and o hold the same record of e with the
// given id, not only an equal one: a state and its clone share a record
// until either writes it, so that a caller may keep what it derived from
// the record in one state for the other (in constant time).
func (s *State) SameRecord(o *State, e *ir.Entity, id string) bool {
	t, u := s.table(e), o.table(e)
	if t == nil || u == nil {
		return false
	}
	r := t.get(id)
	return r != nil && r == u.get(id)
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
		j := 0
		for r := range t.all() {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, r)
			j++
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

func sameRow(r, q *row) bool {
	if r == q {
		return true
	}
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
