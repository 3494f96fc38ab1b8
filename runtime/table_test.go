package runtime

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

type trow struct {
	ID   string   `json:"id"`
	V    int      `json:"v"`
	Tags []string `json:"tags"`
}

func (r *trow) clone() *trow {
	c := *r
	c.Tags = slices.Clone(r.Tags)
	return &c
}

func newT(j *Journal) *Table[*trow] {
	return NewTable("Row", func(r *trow) string { return r.ID }, (*trow).clone, j)
}

func ids(t *Table[*trow]) []string {
	var out []string
	for r := range t.All() {
		out = append(out, r.ID)
	}
	return out
}

func tableHash(t *Table[*trow]) string {
	h := NewHasher()
	t.c.j.HashTo(h)
	return h.Sum()
}

func TestTableBasics(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	for _, id := range []string{"a", "b", "c"} {
		if err := tb.Insert(&trow{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Insert(&trow{ID: "b"}); err == nil || AsToolError(err).Code != CodeConstraintViolation {
		t.Fatalf("duplicate insert: got %v, want constraint_violation", err)
	}
	if tb.Len() != 3 || !tb.Has("a") || tb.Has("z") || tb.Has("") {
		t.Fatalf("Len/Has wrong: %d", tb.Len())
	}
	if _, err := tb.Mut("z"); err == nil || err.Error() != `not_found: Row "z" not found` {
		t.Fatalf("Mut missing: %v", err)
	}
	if err := tb.Delete("z"); AsToolError(err).Code != CodeNotFound {
		t.Fatalf("Delete missing: %v", err)
	}
	if err := tb.Update(&trow{ID: "z"}); AsToolError(err).Code != CodeNotFound {
		t.Fatalf("Update missing: %v", err)
	}
	j.Freeze()
	// delete from base, re-insert: goes to the end
	must(t, tb.Delete("a"))
	if tb.Has("a") || tb.Len() != 2 {
		t.Fatal("delete from base")
	}
	must(t, tb.Insert(&trow{ID: "a", V: 9}))
	if got := ids(tb); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Fatalf("order after re-insert: %v", got)
	}
	// update keeps position
	must(t, tb.Update(&trow{ID: "b", V: 5}))
	if got := ids(tb); !slices.Equal(got, []string{"b", "c", "a"}) {
		t.Fatalf("order after update: %v", got)
	}
	if r, _ := tb.Get("b"); r.V != 5 {
		t.Fatal("update lost")
	}
	// added row: delete then re-insert goes to the end again
	must(t, tb.Insert(&trow{ID: "d"}))
	must(t, tb.Delete("a"))
	must(t, tb.Insert(&trow{ID: "a", V: 10}))
	if got := ids(tb); !slices.Equal(got, []string{"b", "c", "d", "a"}) {
		t.Fatalf("order: %v", got)
	}
	j.Freeze()
	if got := ids(tb); !slices.Equal(got, []string{"b", "c", "d", "a"}) {
		t.Fatalf("order after freeze: %v", got)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestNextID(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	must(t, tb.Insert(&trow{ID: "row_2"}))
	if id := tb.NextID("row"); id != "row_1" {
		t.Fatalf("got %s", id)
	}
	if id := tb.NextID("row"); id != "row_3" { // skips the existing row_2
		t.Fatalf("got %s", id)
	}
	// a rolled-back NextID gives its number back
	j.Begin()
	if id := tb.NextID("row"); id != "row_4" {
		t.Fatalf("got %s", id)
	}
	j.Rollback()
	if id := tb.NextID("row"); id != "row_4" {
		t.Fatalf("after rollback got %s", id)
	}
	// Freeze continues after the largest suffix, without probing
	j2 := NewJournal()
	big := newT(j2)
	for i := 1; i <= 1000; i++ {
		must(t, big.Insert(&trow{ID: fmt.Sprintf("row_%d", i)}))
	}
	big.Insert(&trow{ID: "odd_+5"})
	big.Insert(&trow{ID: "x_99999999999999999999"})
	j2.Freeze()
	if id := big.NextID("row"); id != "row_1001" {
		t.Fatalf("got %s", id)
	}
	// clones continue independently and deterministically
	c1, c2 := big.Clone(NewJournal()), big.Clone(NewJournal())
	if a, b := c1.NextID("row"), c2.NextID("row"); a != "row_1002" || b != "row_1002" {
		t.Fatalf("clones: %s %s", a, b)
	}
}

// TestCloneIsolation: writes to a clone never show in the source or other
// clones, including through rows copied by Mut before the clone was taken.
func TestCloneIsolation(t *testing.T) {
	j := NewJournal()
	src := newT(j)
	for i := range 5 {
		must(t, src.Insert(&trow{ID: fmt.Sprint(i), V: i, Tags: []string{"x"}}))
	}
	j.Freeze()
	// an overlay row owned by the source (written outside a transaction)
	r, err := src.Mut("1")
	must(t, err)
	r.V = 100
	h0 := tableHash(src)

	jc := NewJournal()
	c := src.Clone(jc)
	// the source keeps mutating its row in place: the clone must not see it
	r.V = 200
	r.Tags[0] = "changed"
	if cr, _ := c.Get("1"); cr.V != 100 || cr.Tags[0] != "x" {
		t.Fatalf("clone sees the source's later in-place write: %+v", cr)
	}
	r.V, r.Tags[0] = 100, "x"
	if tableHash(src) != h0 {
		t.Fatal("hash")
	}
	// writes in the clone, in and out of transactions
	jc.Begin()
	cr, _ := c.Mut("1")
	cr.V = 7
	cr.Tags[0] = "clone"
	cr2, _ := c.Mut("2")
	cr2.Tags = append(cr2.Tags, "more")
	must(t, c.Delete("3"))
	must(t, c.Insert(&trow{ID: "new"}))
	c.NextID("row")
	jc.Commit()
	cr, _ = c.Mut("4")
	cr.V = -1
	if tableHash(src) != h0 {
		t.Fatal("writes to the clone changed the source")
	}
	if s1, _ := src.Get("1"); s1.V != 100 || s1.Tags[0] != "x" {
		t.Fatalf("source row changed: %+v", s1)
	}
	if s2, _ := src.Get("2"); len(s2.Tags) != 1 {
		t.Fatalf("source row changed: %+v", s2)
	}
	// a clone of the clone, then write to the middle one
	jd := NewJournal()
	d := c.Clone(jd)
	hd := tableHash(d)
	cr, _ = c.Mut("4")
	cr.V = -2
	cr, _ = c.Mut("1")
	cr.Tags[0] = "again"
	if tableHash(d) != hd {
		t.Fatal("writes to a clone's source changed the clone")
	}
}

func TestJournalRollbackExact(t *testing.T) {
	j := NewJournal()
	a, b := newT(j), NewTable("Other", func(r *trow) string { return r.ID }, (*trow).clone, j)
	for i := range 10 {
		must(t, a.Insert(&trow{ID: fmt.Sprint(i), V: i}))
		must(t, b.Insert(&trow{ID: fmt.Sprint(i), V: i}))
	}
	j.Freeze()
	r, _ := a.Mut("5") // an overlay row from before the transaction
	r.V = 55
	must(t, b.Delete("7"))
	h0 := tableHash(a)
	snap0 := string(j.Snapshot())

	j.Begin()
	r, _ = a.Mut("5")
	r.V = 56
	r, _ = a.Mut("5") // second Mut in the same transaction: same copy
	r.V = 57
	must(t, a.Delete("0"))
	must(t, a.Insert(&trow{ID: "0", V: -1}))
	must(t, a.Update(&trow{ID: "9", V: 99}))
	must(t, b.Insert(&trow{ID: "7", V: 77}))
	must(t, b.Insert(&trow{ID: "x"}))
	must(t, b.Delete("x"))
	a.NextID("n")
	j.Begin() // nested, committed into the outer
	must(t, a.Delete("1"))
	j.Commit()
	j.Begin() // nested, rolled back alone
	must(t, a.Delete("2"))
	j.Rollback()
	if !a.Has("2") || a.Has("1") {
		t.Fatal("nested transactions")
	}
	if j.Pending() == 0 {
		t.Fatal("no undo records")
	}
	j.Rollback()
	if got := tableHash(a); got != h0 {
		t.Fatal("rollback did not restore the hash")
	}
	if got := string(j.Snapshot()); got != snap0 {
		t.Fatalf("rollback did not restore the state:\n%s\n%s", got, snap0)
	}
	if r, _ := a.Get("5"); r.V != 55 {
		t.Fatalf("row 5 = %d, want 55", r.V)
	}
	if j.Pending() != 0 || j.Active() {
		t.Fatal("journal not empty")
	}
	mustPanic(t, "Commit without Begin", j.Commit)
	mustPanic(t, "Rollback without Begin", j.Rollback)
	j.Begin()
	mustPanic(t, "Freeze in a transaction", j.Freeze)
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", what)
		}
	}()
	f()
}

func TestIterateWhileWriting(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	for i := range 6 {
		must(t, tb.Insert(&trow{ID: fmt.Sprint(i), V: i}))
	}
	j.Freeze()
	must(t, tb.Insert(&trow{ID: "6", V: 6}))
	var seen []string
	for r := range tb.All() {
		seen = append(seen, r.ID)
		switch r.ID {
		case "0":
			m, _ := tb.Mut("4") // a later row changes before we reach it
			m.V = 40
			must(t, tb.Delete("2")) // a later row goes
			must(t, tb.Insert(&trow{ID: "late"}))
		case "4":
			if r.V != 40 {
				t.Errorf("row 4 seen as %d, want the modified 40", r.V)
			}
		}
	}
	if want := []string{"0", "1", "3", "4", "5", "6"}; !slices.Equal(seen, want) {
		t.Fatalf("visited %v, want %v", seen, want)
	}
	if !tb.Has("late") {
		t.Fatal("insert lost")
	}
	// early exit
	n := 0
	for range tb.All() {
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatal("break")
	}
}

func TestNewTableMisuse(t *testing.T) {
	mustPanic(t, "nil journal", func() { newT(nil) })
	mustPanic(t, "nil copy", func() {
		NewTable[*trow]("x", func(r *trow) string { return r.ID }, nil, NewJournal())
	})
	j := NewJournal()
	tb := newT(j)
	j2 := NewJournal()
	tb.Clone(j2)
	mustPanic(t, "cloned twice into one state", func() { tb.Clone(j2) })
	mustPanic(t, "nil clone journal", func() { tb.Clone(nil) })
	// a state missing a table cannot be hashed silently
	j3 := NewJournal()
	newT(j3)
	other := NewTable("Other", func(r *trow) string { return r.ID }, (*trow).clone, j3)
	j4 := NewJournal()
	other.Clone(j4)
	mustPanic(t, "incomplete clone", func() { j4.HashTo(NewHasher()) })
}

// model is the reference semantics of a table.
type model struct {
	order []string
	rows  map[string]trow
	seq   int
}

func (m *model) clone() *model {
	c := &model{order: slices.Clone(m.order), rows: map[string]trow{}, seq: m.seq}
	for k, v := range m.rows {
		v.Tags = slices.Clone(v.Tags)
		c.rows[k] = v
	}
	return c
}

func (m *model) remove(id string) {
	m.order = slices.DeleteFunc(m.order, func(s string) bool { return s == id })
	delete(m.rows, id)
}

type world struct {
	j  *Journal
	t  *Table[*trow]
	m  *model
	tx []*model // model at each open Begin
}

// check compares the table with its model, including the hash against a
// table built fresh from the model.
func (w *world) check(t *testing.T, step int, op string) {
	t.Helper()
	var got []string
	for r := range w.t.All() {
		got = append(got, r.ID)
		mr, ok := w.m.rows[r.ID]
		if !ok || mr.V != r.V || !slices.Equal(mr.Tags, r.Tags) {
			t.Fatalf("step %d (%s): row %s = %+v, model %+v (present %v)", step, op, r.ID, *r, mr, ok)
		}
	}
	if !slices.Equal(got, w.m.order) {
		t.Fatalf("step %d (%s): order %v, model %v", step, op, got, w.m.order)
	}
	if w.t.Len() != len(w.m.order) {
		t.Fatalf("step %d (%s): Len %d, model %d", step, op, w.t.Len(), len(w.m.order))
	}
	for id := range w.m.rows {
		if !w.t.Has(id) {
			t.Fatalf("step %d (%s): Has(%s) false", step, op, id)
		}
	}
	fj := NewJournal()
	fresh := newT(fj)
	for _, id := range w.m.order {
		r := w.m.rows[id]
		fresh.Insert(r.clone())
	}
	fresh.c.seq = w.m.seq
	if step%2 == 0 {
		fj.Freeze()
		fresh.c.seq = w.m.seq
	}
	if tableHash(fresh) != tableHash(w.t) {
		t.Fatalf("step %d (%s): hash differs from a fresh table of the same rows", step, op)
	}
}

// TestTableModel runs random operation sequences (writes, transactions,
// clones, freezes) against the reference model.
func TestTableModel(t *testing.T) {
	seeds := uint64(30)
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 7))
		j := NewJournal()
		w := &world{j: j, t: newT(j), m: &model{rows: map[string]trow{}}}
		var others []*world // earlier clones and sources: must never change
		var otherHashes []string
		idOf := func() string { return fmt.Sprint(rng.IntN(25)) }
		for step := range 300 {
			op := rng.IntN(12)
			name := ""
			switch op {
			case 0, 1:
				name = "insert"
				id := idOf()
				err := w.t.Insert(&trow{ID: id, V: rng.IntN(100), Tags: []string{"a"}})
				if _, exists := w.m.rows[id]; exists != (err != nil) {
					t.Fatalf("seed %d step %d: insert %s: err %v, exists %v", seed, step, id, err, exists)
				}
				if err == nil {
					r, _ := w.t.Get(id)
					w.m.rows[id] = *r.clone()
					w.m.order = append(w.m.order, id)
				}
			case 2, 3:
				name = "mut"
				id := idOf()
				r, err := w.t.Mut(id)
				if _, exists := w.m.rows[id]; exists != (err == nil) {
					t.Fatalf("seed %d step %d: mut %s: err %v", seed, step, id, err)
				}
				if err == nil {
					r.V++
					r.Tags = append(r.Tags, "m")
					r.Tags[0] = fmt.Sprint(step)
					w.m.rows[id] = *r.clone()
				}
			case 4:
				name = "update"
				id := idOf()
				err := w.t.Update(&trow{ID: id, V: -step})
				if _, exists := w.m.rows[id]; exists != (err == nil) {
					t.Fatalf("seed %d step %d: update %s: err %v", seed, step, id, err)
				}
				if err == nil {
					w.m.rows[id] = trow{ID: id, V: -step}
				}
			case 5, 6:
				name = "delete"
				id := idOf()
				err := w.t.Delete(id)
				if _, exists := w.m.rows[id]; exists != (err == nil) {
					t.Fatalf("seed %d step %d: delete %s: err %v", seed, step, id, err)
				}
				if err == nil {
					w.m.remove(id)
				}
			case 7:
				name = "nextid"
				got := w.t.NextID("x")
				n := w.m.seq + 1
				for ; ; n++ {
					if _, ok := w.m.rows[fmt.Sprintf("x_%d", n)]; !ok {
						break
					}
				}
				w.m.seq = n
				if got != fmt.Sprintf("x_%d", n) {
					t.Fatalf("seed %d step %d: NextID %s, model x_%d", seed, step, got, n)
				}
			case 8:
				name = "begin"
				w.j.Begin()
				w.tx = append(w.tx, w.m.clone())
			case 9:
				if len(w.tx) == 0 {
					continue
				}
				if rng.IntN(2) == 0 {
					name = "commit"
					w.j.Commit()
				} else {
					name = "rollback"
					w.j.Rollback()
					w.m = w.tx[len(w.tx)-1]
				}
				w.tx = w.tx[:len(w.tx)-1]
			case 10:
				name = "clone"
				// keep the old world aside (it must not change) and continue in
				// the clone, or the other way round
				nj := NewJournal()
				nw := &world{j: nj, t: w.t.Clone(nj), m: w.m.clone()}
				if rng.IntN(2) == 0 {
					others = append(others, w)
					otherHashes = append(otherHashes, tableHash(w.t))
					for len(w.tx) > 0 { // the old world's transactions end
						w.j.Commit()
						w.tx = w.tx[:len(w.tx)-1]
					}
					w = nw
				} else {
					others = append(others, nw)
					otherHashes = append(otherHashes, tableHash(nw.t))
				}
			case 11:
				if len(w.tx) > 0 {
					continue
				}
				name = "freeze"
				w.j.Freeze()
			}
			w.check(t, step, name)
			for i, o := range others {
				if tableHash(o.t) != otherHashes[i] {
					t.Fatalf("seed %d step %d (%s): another state (%d) changed", seed, step, name, i)
				}
			}
		}
		for i, o := range others {
			o.check(t, -i, "other")
		}
	}
}

func TestAsToolError(t *testing.T) {
	if AsToolError(nil) != nil {
		t.Fatal("nil")
	}
	wrapped := fmt.Errorf("ctx: %w", NotFound("Invoice", "x"))
	if te := AsToolError(wrapped); te.Code != CodeNotFound {
		t.Fatal(te)
	}
	if te := AsToolError(errors.New("boom")); te.Code != CodeInternal || te.Message != "boom" {
		t.Fatal(te)
	}
}

// TestEmptyID: the empty string is an id like any other (the key of a
// record may be empty); inserting it is undone by a rollback.
func TestEmptyID(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	must(t, tb.Insert(&trow{ID: "a"}))
	j.Freeze()
	h := tableHash(tb)
	j.Begin()
	must(t, tb.Insert(&trow{ID: "", V: 1}))
	tb.NextID("row")
	if r, ok := tb.Get(""); !ok || r.V != 1 || !slices.Equal(ids(tb), []string{"a", ""}) {
		t.Fatalf("empty id: %v %v", ok, ids(tb))
	}
	if err := tb.Insert(&trow{ID: ""}); err == nil {
		t.Fatal("the empty id inserted twice")
	}
	j.Rollback()
	if tb.Has("") || tableHash(tb) != h {
		t.Fatalf("rollback left %v", ids(tb))
	}
}

// TestChangedExcept: `unchanged except` compares rows one by one, ignoring
// the excepted ids, and the id sequence only of tables without exceptions.
func TestChangedExcept(t *testing.T) {
	j := NewJournal()
	rows, other := newT(j), NewTable("Other", func(r *trow) string { return r.ID }, (*trow).clone, j)
	for _, id := range []string{"a", "b", "c"} {
		must(t, rows.Insert(&trow{ID: id, Tags: []string{id}}))
	}
	must(t, other.Insert(&trow{ID: "x"}))
	j.Freeze()
	start := j
	state := func() (*Journal, *Table[*trow], *Table[*trow]) {
		nj := NewJournal()
		return nj, rows.Clone(nj), other.Clone(nj)
	}
	none := map[string]map[string]bool{}
	exceptB := map[string]map[string]bool{"Row": {"b": true}}

	s, r, _ := state()
	if got := s.ChangedExcept(start, none); len(got) != 0 {
		t.Errorf("a clone changed %v", got)
	}
	m, _ := r.Mut("b")
	m.Tags[0] = "B"
	if got := s.ChangedExcept(start, none); !slices.Equal(got, []string{"Row"}) {
		t.Errorf("changed b: %v", got)
	}
	if got := s.ChangedExcept(start, exceptB); len(got) != 0 {
		t.Errorf("changed b, excepted: %v", got)
	}
	// The same values written again are no change.
	m.Tags[0] = "b"
	if got := s.ChangedExcept(start, none); len(got) != 0 {
		t.Errorf("b written back: %v", got)
	}
	// Deleting or inserting an excepted record is allowed; another is not.
	s, r, o := state()
	must(t, r.Delete("b"))
	must(t, r.Insert(&trow{ID: "b"})) // re-inserted at the end: the order of the others holds
	if got := s.ChangedExcept(start, exceptB); len(got) != 0 {
		t.Errorf("b moved, excepted: %v", got)
	}
	must(t, r.Delete("a"))
	if got := s.ChangedExcept(start, exceptB); !slices.Equal(got, []string{"Row"}) {
		t.Errorf("a deleted: %v", got)
	}
	// The id sequence counts only in tables without exceptions.
	s, r, o = state()
	r.NextID("row")
	if got := s.ChangedExcept(start, exceptB); len(got) != 0 {
		t.Errorf("sequence of an excepted table: %v", got)
	}
	if got := s.ChangedExcept(start, none); !slices.Equal(got, []string{"Row"}) {
		t.Errorf("sequence: %v", got)
	}
	o.NextID("other")
	if got := s.ChangedExcept(start, exceptB); !slices.Equal(got, []string{"Other"}) {
		t.Errorf("sequence of another table: %v", got)
	}
}

// TestSnapshotReusesBase: a snapshot is the same whether rows come from the
// base's cached encodings or from the overlay.
func TestSnapshotReusesBase(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	for _, id := range []string{"a", "b"} {
		must(t, tb.Insert(&trow{ID: id, Tags: []string{"<&>"}}))
	}
	before := string(j.Snapshot())
	j.Freeze()
	if got := string(j.Snapshot()); got != before {
		t.Errorf("frozen snapshot %s, want %s", got, before)
	}
	nj := NewJournal()
	c := tb.Clone(nj)
	m, _ := c.Mut("a")
	m.V = 7
	want := `{"Row":[{"id":"a","v":7,"tags":["<&>"]},{"id":"b","v":0,"tags":["<&>"]}]}`
	if got := string(nj.Snapshot()); got != want {
		t.Errorf("snapshot %s, want %s", got, want)
	}
}

// TestInsertAll: InsertAll builds the same table as Insert row by row,
// whether it takes its fast path (an empty table outside a transaction)
// or not, and fails as Insert does on a repeated ID.
func TestInsertAll(t *testing.T) {
	rows := func() []*trow {
		return []*trow{{ID: "a_2", V: 1}, {ID: "b", V: 2, Tags: []string{"x"}}, {ID: "a_7", V: 3}}
	}
	oneByOne := func() (*Journal, *Table[*trow]) {
		j := NewJournal()
		tb := newT(j)
		for _, r := range rows() {
			must(t, tb.Insert(r))
		}
		return j, tb
	}
	jw, want := oneByOne()
	j := NewJournal()
	tb := newT(j)
	must(t, tb.InsertAll(rows()))
	if tableHash(tb) != tableHash(want) || !slices.Equal(ids(tb), ids(want)) || tb.Len() != 3 {
		t.Fatalf("fast path: %v, want %v", ids(tb), ids(want))
	}
	if string(j.Snapshot()) != string(jw.Snapshot()) {
		t.Fatalf("snapshots differ: %s, want %s", j.Snapshot(), jw.Snapshot())
	}
	j.Freeze()
	jw.Freeze()
	if got, w := tb.NextID("a"), want.NextID("a"); got != w || got != "a_8" {
		t.Fatalf("NextID after Freeze: %s, want %s", got, w)
	}
	// a write after the fast path copies the row: the inserted value stays
	c := tb.Clone(NewJournal())
	m, err := c.Mut("b")
	must(t, err)
	m.Tags[0] = "y"
	if r, _ := tb.Get("b"); r.Tags[0] != "x" {
		t.Fatal("a clone's write shows through the rows InsertAll took")
	}
	// not empty: row by row
	must(t, tb.InsertAll([]*trow{{ID: "c"}}))
	if got := ids(tb); !slices.Equal(got, []string{"a_2", "b", "a_7", "c"}) {
		t.Fatalf("second InsertAll: %v", got)
	}
	// inside a transaction: journaled, undone by a rollback
	j2 := NewJournal()
	t2 := newT(j2)
	j2.Begin()
	must(t, t2.InsertAll(rows()))
	j2.Rollback()
	if t2.Len() != 0 || len(ids(t2)) != 0 {
		t.Fatalf("rolled back InsertAll left %v", ids(t2))
	}
	// a repeated ID: Insert's error, the rows before it inserted
	j3 := NewJournal()
	t3 := newT(j3)
	err = t3.InsertAll([]*trow{{ID: "a"}, {ID: "b"}, {ID: "a"}})
	var te *ToolError
	if !errors.As(err, &te) || te.Code != CodeConstraintViolation || err.Error() != `constraint_violation: Row "a" already exists` {
		t.Fatalf("repeated ID: %v", err)
	}
	if got := ids(t3); !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("after the error: %v", got)
	}
}
