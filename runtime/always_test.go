package runtime

import (
	"fmt"
	"slices"
	"testing"
)

func TestTrace(t *testing.T) {
	var tr Trace
	if got := tr.Pending("inv", []string{"b", "a"}, nil, []string{"a", "c"}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("Pending = %v", got)
	}
	v := func(inv, id string) Violation { return Violation{Invariant: inv, Entity: "E", ID: id, Message: "m"} }
	tr.Report([]Violation{v("inv", "c"), v("inv", "a")}, 2, "t2")
	tr.Report([]Violation{v("other", "a")}, 2, "t2")
	// A record already reported keeps its first step.
	tr.Report([]Violation{v("inv", "a"), v("inv", "b")}, 5, "t5")
	want := []string{"inv a 2 t2", "inv c 2 t2", "other a 2 t2", "inv b 5 t5"}
	var got []string
	for _, x := range tr.Violations() {
		got = append(got, fmt.Sprintf("%s %s %d %s", x.Invariant, x.ID, x.Step, x.Tool))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("Violations = %v, want %v", got, want)
	}
	if got := tr.Pending("inv", []string{"a", "b", "c", "d"}); !slices.Equal(got, []string{"d"}) {
		t.Errorf("Pending after reports = %v, want [d]", got)
	}
	if got := tr.Pending("other", []string{"a", "b"}); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Pending of another invariant = %v, want [b]", got)
	}
	if b := tr.Broken("other"); len(b) != 1 || b[0].ID != "a" {
		t.Errorf("Broken = %v", b)
	}
	vs := tr.Violations()
	vs[0].ID = "changed"
	if tr.Violations()[0].ID != "a" {
		t.Error("Violations shares its slice")
	}
}

func TestIDIndex(t *testing.T) {
	var x IDIndex
	if x.Built() || x.IDs("k") != nil {
		t.Fatal("zero index")
	}
	x.Add("k", "r1")
	x.Add("k", "r2")
	x.Add("j", "r3")
	x.SetBuilt()
	x.Move("r1", "k", true, "j", true) // moved
	x.Move("r2", "k", true, "k", true) // unchanged
	x.Move("r4", "", false, "k", true) // inserted
	x.Move("r3", "j", true, "", false) // deleted
	if got := x.IDs("k"); !slices.Equal(got, []string{"r2", "r4"}) {
		t.Errorf("k: %v", got)
	}
	if got := x.IDs("j"); !slices.Equal(got, []string{"r1"}) {
		t.Errorf("j: %v", got)
	}
	x.Move("r1", "j", true, "", false)
	if got := x.IDs("j"); got != nil {
		t.Errorf("j after its last record left: %v", got)
	}
}

func TestRowsOfAndIDsOf(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	for _, id := range []string{"a", "b", "c"} {
		tb.Insert(&trow{ID: id})
	}
	var got []string
	for r := range RowsOf(tb, []string{"c", "zz", "a"}) {
		got = append(got, r.ID)
	}
	if !slices.Equal(got, []string{"c", "a"}) {
		t.Errorf("RowsOf = %v", got)
	}
	for range RowsOf(tb, []string{"a", "b"}) {
		break // stopping early must not panic
	}
	if IDsOf(nil) != nil {
		t.Error("IDsOf(nil)")
	}
	if got := IDsOf([]RowChange{{ID: "x"}, {ID: "y"}}); !slices.Equal(got, []string{"x", "y"}) {
		t.Errorf("IDsOf = %v", got)
	}
}
