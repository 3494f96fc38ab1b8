package eval_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// linkedWorld has n records of E and n of F, the i-th F referring to the
// i-th E, and the invariants given.
func linkedWorld(t *testing.T, n int, invariants string) *ir.World {
	t.Helper()
	var b strings.Builder
	b.WriteString(`world linked {
  title "x"
  today 2026-01-01
}
service s "S" {
  entity E {
    n int
  }
  tool get_e: get E
  tool bump(e: ref E) "bump" {
    set e.n = e.n + 1
    return e
  }
}
service t "T" {
  entity F {
    e ref s.E
    n int
  }
  tool get_f: get F
  tool add_f(e: ref s.E) "add" {
    insert F { e: e, n: 1 }
  }
}
`)
	b.WriteString(invariants)
	b.WriteString("seed {\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  s.E e%d { n: %d }\n  t.F f%d { e: e%d, n: %d }\n", i, i, i, i, i+1)
	}
	b.WriteString("}\n")
	w, ds := compiler.CheckSource("linked.world", []byte(b.String()), compiler.WithoutReachability())
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	return w
}

// TestInvariantReadsIndexes is issue 10's second reproducer, the legitimate
// side: an invariant looking a record up by a field (x.f == v) reads an
// index, as the generated check does, so that it takes time linear in the
// records, not quadratic: 2,000 records each looked up among 2,000 stay
// within a budget a scan of the table would exceed a hundred times over.
func TestInvariantReadsIndexes(t *testing.T) {
	w := linkedWorld(t, 2000, `invariant linked {
  policy "p"
  for x in s.E
  require exists(f in t.F where f.e == x) and count(f in t.F where f.n > x.n and f.e == x) == 1
}
`)
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Limits.MaxSteps = 100_000
	if vs := st.Violations(); len(vs) != 0 {
		t.Fatalf("violations: %v", vs)
	}
	// The same check on a state where one record breaks it.
	if _, terr := st.CallJSON("bump", []byte(`{"e":"e7"}`)); terr != nil {
		t.Fatal(terr)
	}
	vs := st.Violations()
	if len(vs) != 1 || vs[0].ID != "e7" || vs[0].Detail != "" || vs[0].Exceeded {
		t.Fatalf("violations after bump(e7): %v", vs)
	}
}

// TestInvariantBudgetIsPerInvariant: one invariant checked on all its
// records is one operation under Limits.MaxSteps, and the first record
// that exceeds it ends the check with one violation marked Exceeded.
func TestInvariantBudgetIsPerInvariant(t *testing.T) {
	w := linkedWorld(t, 300, `invariant small {
  policy "p"
  for x in s.E
  require x.n >= 0 or exists(f in t.F where f.e == x)
}
`)
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.Limits.MaxSteps = 1000 // a few steps per record, 300 records
	vs := st.Violations()
	if len(vs) != 1 || !vs[0].Exceeded || vs[0].Detail != "evaluation exceeded 1000 steps" {
		t.Fatalf("violations: %v", vs)
	}
	st.Limits.MaxSteps = eval.DefaultLimits.MaxSteps
	if vs := st.Violations(); len(vs) != 0 {
		t.Fatalf("violations within the limit: %v", vs)
	}
}

// TestBudgetSharedByClones: a Budget bounds every evaluation on a state
// and its clones together, and once spent every evaluation fails.
func TestBudgetSharedByClones(t *testing.T) {
	w := linkedWorld(t, 50, `invariant small {
  policy "p"
  for x in s.E
  require x.n >= 0 or exists(f in t.F where f.e == x)
}
`)
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	probe := eval.NewBudget(1 << 40)
	st.SetBudget(probe)
	st.Clone().Violations()
	round := probe.Used()
	b := eval.NewBudget(3*round + round/2)
	st.SetBudget(b)
	for i := 0; i < 3; i++ {
		if vs := st.Clone().Violations(); len(vs) != 0 {
			t.Fatalf("round %d: %v", i, vs)
		}
	}
	if b.Spent() || b.Used() != 3*round {
		t.Fatalf("used %d of %d", b.Used(), b.Total())
	}
	var vs []eval.Violation
	for i := 0; i < 10 && !b.Spent(); i++ {
		vs = st.Clone().Violations()
	}
	if !b.Spent() || len(vs) != 1 || !vs[0].Exceeded || !strings.Contains(vs[0].Detail, fmt.Sprintf("budget of %d steps", b.Total())) {
		t.Fatalf("spent %v, violations %v", b.Spent(), vs)
	}
	if _, terr := st.CallJSON("bump", []byte(`{"e":"e1"}`)); terr == nil || !strings.Contains(terr.Message, "budget") {
		t.Fatalf("a call after the budget is spent: %v", terr)
	}
}

// TestValueWorkIsCharged: building and copying large values costs steps
// with their size, and no string grows beyond MaxStringBytes, so that a
// string doubled in a loop, or a list appended to in one, is stopped like
// any other long evaluation instead of exhausting memory or time.
func TestValueWorkIsCharged(t *testing.T) {
	w := linkedWorld(t, 300, `service u "U" {
  entity G {
    text string
    size int
  }
  tool get_g: get G
  tool double(g: ref G) "doubles a string once per E record" {
    var x = "ab"
    for r in s.E {
      set x = x + x
    }
    set g.text = x
    return g
  }
  tool collect(g: ref G) "appends once per E record" {
    var xs: list<int> = []
    for r in s.E {
      set xs = append(xs, r.n)
    }
    set g.size = len(xs)
    return g
  }
}
`)
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := w.Entities[len(w.Entities)-1]
	st2, err := st.WithTask(&ir.Task{Name: "t", Seed: []*ir.Record{{Entity: g, ID: "g1", Values: []*ir.Value{{Kind: ir.KindString, Str: ""}, {Kind: ir.KindInt}}}}})
	if err != nil {
		t.Fatal(err)
	}
	_, terr := st2.CallJSON("double", []byte(`{"g":"g1"}`))
	if terr == nil || terr.Message != fmt.Sprintf("evaluation built a string of more than %d bytes", eval.MaxStringBytes) {
		t.Fatalf("double: %v", terr)
	}
	// 300 appends copy 45,000 elements: within the default limits, beyond
	// 20,000 steps.
	if _, terr := st2.CallJSON("collect", []byte(`{"g":"g1"}`)); terr != nil {
		t.Fatalf("collect: %v", terr)
	}
	st2.Limits.MaxSteps = 20_000
	if _, terr := st2.CallJSON("collect", []byte(`{"g":"g1"}`)); terr == nil || terr.Message != "evaluation exceeded 20000 steps" {
		t.Fatalf("collect within 20,000 steps: %v", terr)
	}
}
