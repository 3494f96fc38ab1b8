package runtime

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// changesText renders a journal's changes as "table:id<-old v" (old "-"
// when the row did not exist), in order.
func changesText(j *Journal) []string {
	var out []string
	for _, c := range j.Changes() {
		old := "-"
		if c.Old != nil {
			old = fmt.Sprint(c.Old.(*trow).V)
		}
		out = append(out, fmt.Sprintf("%d:%s<-%s", c.Table, c.ID, old))
	}
	return out
}

func TestJournalChanges(t *testing.T) {
	j := NewJournal()
	a := newT(j)
	b := NewTable("Other", func(r *trow) string { return r.ID }, (*trow).clone, j)
	for _, id := range []string{"a1", "a2", "a3"} {
		a.Insert(&trow{ID: id, V: 1})
	}
	b.Insert(&trow{ID: "b1", V: 7})
	j.Freeze()

	commit := func(f func()) []string {
		t.Helper()
		j.Begin()
		f()
		j.Commit()
		return changesText(j)
	}
	// Not tracking: nothing is kept.
	if got := commit(func() { r, _ := a.Mut("a1"); r.V = 2 }); got != nil {
		t.Fatalf("untracked journal kept %v", got)
	}
	j.TrackChanges()
	got := commit(func() {
		r, _ := a.Mut("a2")
		r.V = 5
		r.V = 6                         // in place: no second record
		a.Insert(&trow{ID: "a4", V: 9}) // new: no old row
		b.Delete("b1")
		a.NextID("row") // a sequence change is no row
		a.Update(&trow{ID: "a2", V: 8})
		a.Insert(&trow{ID: "a5"})
		a.Delete("a5") // inserted and deleted: still a change, old nil
	})
	want := []string{"0:a2<-1", "0:a4<--", "1:b1<-7", "0:a5<--"}
	if !slices.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	// The old row of a row already in the overlay (a2 is 8 now, a1 2).
	if got := commit(func() { r, _ := a.Mut("a2"); r.V = 3; r, _ = a.Mut("a1"); r.V = 4 }); !slices.Equal(got, []string{"0:a2<-8", "0:a1<-2"}) {
		t.Fatalf("changes %v", got)
	}
	// A deleted row re-inserted: it did not exist before.
	if got := commit(func() { b.Insert(&trow{ID: "b1", V: 1}) }); !slices.Equal(got, []string{"1:b1<--"}) {
		t.Fatalf("changes %v", got)
	}
	// A read-only transaction changes nothing; a rollback neither.
	if got := commit(func() { a.Get("a1") }); len(got) != 0 {
		t.Fatalf("read-only: %v", got)
	}
	j.Begin()
	r, _ := a.Mut("a3")
	r.V = 100
	j.Rollback()
	if len(j.Changes()) != 0 {
		t.Fatalf("rollback: %v", changesText(j))
	}
	// Nested transactions: the outermost commit reports the writes of the
	// inner ones it keeps, not those rolled back.
	got = commit(func() {
		j.Begin()
		r, _ := a.Mut("a3")
		r.V = 10
		j.Commit()
		j.Begin()
		r, _ = a.Mut("a1")
		r.V = 11
		j.Rollback()
		if len(j.Changes()) != 0 {
			t.Error("changes visible inside a transaction")
		}
	})
	if !slices.Equal(got, []string{"0:a3<-1"}) {
		t.Fatalf("nested: %v", got)
	}
}

// TestJournalChangesRandom checks, on random transactions, that the
// changes name exactly the rows whose value differs from before the
// transaction (or that were inserted or deleted), with their old values.
func TestJournalChangesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	j := NewJournal()
	tb := newT(j)
	for i := range 20 {
		tb.Insert(&trow{ID: fmt.Sprint("r", i), V: i})
	}
	j.Freeze()
	j.TrackChanges()
	snapshot := func() map[string]int {
		m := map[string]int{}
		for r := range tb.All() {
			m[r.ID] = r.V
		}
		return m
	}
	for round := range 300 {
		before := snapshot()
		j.Begin()
		for range rng.IntN(4) {
			id := fmt.Sprint("r", rng.IntN(25))
			switch rng.IntN(4) {
			case 0:
				tb.Insert(&trow{ID: id, V: rng.IntN(5)})
			case 1:
				tb.Delete(id)
			case 2:
				if r, err := tb.Mut(id); err == nil {
					r.V = rng.IntN(5)
				}
			case 3:
				if tb.Has(id) {
					tb.Update(&trow{ID: id, V: rng.IntN(5)})
				}
			}
		}
		if rng.IntN(5) == 0 {
			j.Rollback()
			if len(j.Changes()) != 0 {
				t.Fatalf("round %d: changes after a rollback", round)
			}
			continue
		}
		j.Commit()
		after := snapshot()
		reported := map[string]bool{}
		for _, c := range j.Changes() {
			if reported[c.ID] {
				t.Fatalf("round %d: %s reported twice", round, c.ID)
			}
			reported[c.ID] = true
			v, had := before[c.ID]
			if (c.Old != nil) != had || (had && c.Old.(*trow).V != v) {
				t.Fatalf("round %d: %s: old %v, want %v (existed %v)", round, c.ID, c.Old, v, had)
			}
		}
		for id := range after {
			if v, had := before[id]; (!had || v != after[id]) && !reported[id] {
				t.Fatalf("round %d: %s changed but is not reported", round, id)
			}
		}
		for id := range before {
			if _, has := after[id]; !has && !reported[id] {
				t.Fatalf("round %d: %s deleted but not reported", round, id)
			}
		}
	}
}
