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

// TestTraceReportChecked: records that broke the invariant in the start
// state (s1, s2) are not reported while they go on breaking it, a record
// not re-checked keeps its standing, and one that was seen keeping the
// rule (s1 at step 2) counts when it breaks it again; other records count
// at once (n at step 1). A check of every record (checked nil) repairs
// every start-broken record it does not find broken.
func TestTraceReportChecked(t *testing.T) {
	v := func(id string) Violation { return Violation{Invariant: "inv", Entity: "E", ID: id} }
	broken := []string{"s2", "s1"}
	steps := func(tr *Trace) []string {
		var out []string
		for _, x := range tr.Violations() {
			out = append(out, fmt.Sprintf("%s %d", x.ID, x.Step))
		}
		return out
	}
	var tr Trace
	tr.ReportChecked("inv", []Violation{v("n"), v("s1"), v("s2")}, []string{"n", "s1", "s2"}, broken, 1, "t")
	tr.ReportChecked("inv", []Violation{v("s2")}, []string{"s1", "s2"}, broken, 2, "t") // s1 repaired
	tr.ReportChecked("inv", nil, []string{"x"}, broken, 3, "t")                         // s2 not checked: still the task's
	tr.ReportChecked("inv", []Violation{v("s1"), v("s2")}, []string{"s1", "s2"}, broken, 4, "t")
	if got, want := steps(&tr), []string{"n 1", "s1 4"}; !slices.Equal(got, want) {
		t.Errorf("violations %v, want %v", got, want)
	}
	var all Trace
	all.ReportChecked("inv", nil, nil, broken, 1, "t")
	all.ReportChecked("inv", []Violation{v("s2"), v("s1")}, nil, broken, 2, "t")
	if got, want := steps(&all), []string{"s1 2", "s2 2"}; !slices.Equal(got, want) {
		t.Errorf("after a check of every record: %v, want %v", got, want)
	}
	var none Trace
	none.ReportChecked("inv", []Violation{v("s1")}, nil, nil, 1, "t")
	if got, want := steps(&none), []string{"s1 1"}; !slices.Equal(got, want) {
		t.Errorf("without start-broken records: %v, want %v", got, want)
	}
}

func TestIDIndex(t *testing.T) {
	var x IDIndex
	if x.HasBase() || x.IDs("k") == nil || len(x.IDs("k")) != 0 {
		t.Fatal("zero index")
	}
	// Writes before the base is set count as well.
	x.Move("r5", "k", true)
	b := NewIndexBase()
	b.Add("k", "r1")
	b.Add("k", "r2")
	b.Add("j", "r3")
	x.SetBase(b)
	x.Move("r1", "j", true) // moved
	x.Move("r2", "k", true) // written, the same key
	x.Move("r4", "k", true) // inserted
	x.Move("r3", "", false) // deleted
	x.Move("r5", "j", true) // moved again
	x.Move("r4", "k", true) // written again
	if got := x.IDs("k"); !slices.Equal(got, []string{"r2", "r4"}) {
		t.Errorf("k: %v", got)
	}
	if got := x.IDs("j"); !slices.Equal(got, []string{"r1", "r5"}) {
		t.Errorf("j: %v", got)
	}
	x.Move("r1", "", false)
	x.Move("r5", "", false)
	if got := x.IDs("j"); len(got) != 0 {
		t.Errorf("j after its records left: %v", got)
	}
	// The base is shared: an episode's moves never change it.
	var y IDIndex
	y.SetBase(b)
	if got := y.IDs("k"); !slices.Equal(got, []string{"r1", "r2"}) {
		t.Errorf("another episode's k: %v", got)
	}
}

func TestInInsertionOrder(t *testing.T) {
	j := NewJournal()
	tb := newT(j)
	for _, id := range []string{"a", "b", "c", "d"} {
		tb.Insert(&trow{ID: id})
	}
	j.Freeze()
	j.Begin()
	tb.Insert(&trow{ID: "e"})
	tb.Delete("b")
	tb.Insert(&trow{ID: "b"}) // after e now
	r, _ := tb.Mut("a")
	r.V = 1
	j.Commit()
	some := []string{"b", "zz", "e", "d", "a"}
	j.InInsertionOrder(0, some)
	if all := ids(tb); !slices.Equal(some[:4], []string{"a", "d", "e", "b"}) || some[4] != "zz" || !slices.Equal(all, []string{"a", "c", "d", "e", "b"}) {
		t.Errorf("InInsertionOrder: %v (the table iterates %v)", some, all)
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
