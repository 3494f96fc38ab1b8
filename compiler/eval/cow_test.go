package eval

import (
	"testing"
)

// TestWithTaskSharesTheSeed is issue 10's fourth reproducer in small: a
// task's start state built on the world seed state is the state NewState
// builds for the task (records, order, id sequences), shares every table
// the task adds nothing to, and is independent of the seed state: writes
// on either side stay there.
func TestWithTaskSharesTheSeed(t *testing.T) {
	x := newFixture(t)
	seed, err := NewState(x.w, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := NewState(x.w, x.onboard)
	if err != nil {
		t.Fatal(err)
	}
	hash := seed.Hash()
	start, err := seed.WithTask(x.onboard)
	if err != nil {
		t.Fatal(err)
	}
	if start.Hash() != want.Hash() || !start.Equal(want) {
		t.Fatalf("WithTask:\n%s\nNewState:\n%s", start.JSON(), want.JSON())
	}
	for i, tb := range start.tables {
		shared := tb == seed.tables[i]
		if added := tb.ent == x.Customer; shared == added {
			t.Errorf("table %s: shared with the seed = %v", tb.ent.Name, shared)
		}
	}
	// The table the task adds to shares the seed's records themselves.
	ci := seed.index[x.Customer]
	if st, tt := seed.tables[ci], start.tables[ci]; tt.size() != st.size()+1 || tt.list()[0] != st.list()[0] || tt.get("acme") != st.list()[0] || tt.get("zed") == nil {
		t.Errorf("the task's Customer table does not extend the seed's")
	}
	// A solution runs on a clone: it makes its own the tables of the
	// services whose tools it calls, and nothing else...
	res := CheckSolution(x.settle, start)
	if !res.OK() {
		t.Fatalf("solution: %s", res.Problem())
	}
	for i, tb := range res.Final.tables {
		if shared := tb == start.tables[i]; shared != (tb.ent == x.Customer) {
			t.Errorf("after the solution, table %s: shared with the start state = %v", tb.ent.Name, shared)
		}
	}
	// ... and of those, copies only the records it touches: mark_paid(inv1)
	// leaves inv2 shared.
	ii := start.index[x.Invoice]
	if ft, stt := res.Final.tables[ii], start.tables[ii]; ft.get("inv2") != stt.get("inv2") || ft.get("inv1") == stt.get("inv1") {
		t.Errorf("the solution's Invoice table: inv2 shared = %v, inv1 shared = %v; want true, false", ft.get("inv2") == stt.get("inv2"), ft.get("inv1") == stt.get("inv1"))
	}
	if seed.Hash() != hash || start.Hash() != want.Hash() {
		t.Fatal("the solution changed the states it started from")
	}
	// Writes to the seed state after the fact do not show in its clones.
	mustCall(t, seed, "set_tier", `{"customer":"acme","tier":"gold"}`)
	if start.Hash() != want.Hash() {
		t.Error("a write to the seed state changed the task's start state")
	}
	mustCall(t, start, "set_tier", `{"customer":"acme","tier":"bronze"}`)
	if got := seed.tables[seed.index[x.Customer]].get("acme").vals[2]; got != "gold" {
		t.Errorf("acme's tier in the seed state: %v", got)
	}
	if got := start.tables[start.index[x.Customer]].get("acme").vals[2]; got != "bronze" {
		t.Errorf("acme's tier in the start state: %v", got)
	}
}
