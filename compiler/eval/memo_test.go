package eval_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// memoWorld has invariants that read only their record (small), that
// follow refs to another entity's records (linked_e, over F) and that
// scan another entity through an index (backed, over E): an outcome on a
// record that the record's own table does not decide.
func memoWorld(t *testing.T, n int) *ir.World {
	t.Helper()
	var b strings.Builder
	b.WriteString(`world memo {
  title "x"
  today 2026-01-01
}
service s "S" {
  entity E {
    n int
  }
  tool set_e(e: ref E, n: int) "set" {
    set e.n = n
    return e
  }
  tool add_e(n: int) "add" {
    insert E { n: n }
  }
}
service t "T" {
  entity F {
    e ref s.E
    n int
  }
  tool set_f(f: ref F, n: int) "set" {
    set f.n = n
    return f
  }
  tool move_f(f: ref F, e: ref s.E) "move" {
    set f.e = e
    return f
  }
  tool add_f(e: ref s.E, n: int) "add" {
    insert F { e: e, n: n }
  }
  tool drop_f: delete F
}
local invariant small {
  policy "p"
  for x in s.E
  require x.n != 7
}
invariant backed {
  policy "p"
  for x in s.E where x.n > 50
  require exists(f in t.F where f.e == x and f.n > 5)
}
invariant linked_e {
  policy "p"
  for f in t.F
  require f.e.n >= f.n - 60
}
seed {
`)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  s.E e%d { n: %d }\n  t.F f%d { e: e%d, n: %d }\n", i, 10+i%40, i, i, i%10)
	}
	b.WriteString("}\n")
	w, ds := compiler.CheckSource("memo.world", []byte(b.String()), compiler.WithoutReachability())
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	return w
}

// TestInvariantMemoAgrees: along random chains of calls, each made on a
// clone of the state before (as a solution's replay and a synthesised
// chain make them), every invariant's violations are those of a copy of
// the state that shares no table (eval.Flat: nothing memoised), whichever
// tables the calls wrote — the invariant's own or the ones it reads.
func TestInvariantMemoAgrees(t *testing.T) {
	w := memoWorld(t, 80)
	rng := rand.New(rand.NewPCG(5, 21))
	calls := 0
	for chain := range 40 {
		st, err := eval.NewState(w, nil)
		if err != nil {
			t.Fatal(err)
		}
		st = st.Clone()
		for step := range 8 {
			next := st.Clone()
			id := func(p string) string { return fmt.Sprintf("%s%d", p, rng.IntN(90)) }
			var tool, args string
			switch rng.IntN(6) {
			case 0:
				tool, args = "set_e", fmt.Sprintf(`{"e":%q,"n":%d}`, id("e"), rng.IntN(200)-100)
			case 1:
				tool, args = "add_e", fmt.Sprintf(`{"n":%d}`, rng.IntN(120))
			case 2:
				tool, args = "set_f", fmt.Sprintf(`{"f":%q,"n":%d}`, id("f"), rng.IntN(120))
			case 3:
				tool, args = "move_f", fmt.Sprintf(`{"f":%q,"e":%q}`, id("f"), id("e"))
			case 4:
				tool, args = "add_f", fmt.Sprintf(`{"e":%q,"n":%d}`, id("e"), rng.IntN(20))
			default:
				tool, args = "drop_f", fmt.Sprintf(`{"id":%q}`, id("f"))
			}
			if _, terr := next.CallJSON(tool, []byte(args)); terr == nil {
				calls++
			}
			for _, inv := range w.Invariants {
				got := next.InvariantViolations(inv)
				want := eval.Flat(next).InvariantViolations(inv)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("chain %d step %d, after %s(%s): %s: memoised %v, flat %v", chain, step, tool, args, inv.Name, got, want)
				}
			}
			st = next
		}
	}
	if calls < 100 {
		t.Errorf("only %d calls succeeded: the chains test little", calls)
	}
}

// TestInvariantMemoServes: once an invariant is checked on a state, a
// clone that changed one record of its entity is served the outcomes on
// the others (only that record is evaluated), while a clone that changed
// a table the invariant reads is not.
func TestInvariantMemoServes(t *testing.T) {
	w := memoWorld(t, 50)
	inv := map[string]*ir.Invariant{}
	for _, v := range w.Invariants {
		inv[v.Name] = v
	}
	seed, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	start := seed.Clone()
	if vs := start.Violations(); len(vs) != 0 {
		t.Fatalf("start violations: %v", vs)
	}
	e := start.Clone()
	if _, terr := e.CallJSON("set_e", []byte(`{"e":"e3","n":7}`)); terr != nil {
		t.Fatal(terr)
	}
	if got := eval.Memoized(e, inv["small"]); got != 50 {
		t.Errorf("small after set_e: a memo of %d rows serves the clone, want 50", got)
	}
	if vs := e.InvariantViolations(inv["small"]); len(vs) != 1 || vs[0].ID != "e3" {
		t.Errorf("small after set_e: %v", vs)
	}
	// linked_e, over F, reads E: a write to E leaves no memo to serve.
	if got := eval.Memoized(e, inv["linked_e"]); got != 0 {
		t.Errorf("linked_e after set_e: a memo of %d rows serves the clone, want none", got)
	}
	f := start.Clone()
	if _, terr := f.CallJSON("set_f", []byte(`{"f":"f60","n":1}`)); terr == nil {
		t.Fatal("set_f of a missing record succeeded")
	}
	if _, terr := f.CallJSON("set_f", []byte(`{"f":"f9","n":99}`)); terr != nil {
		t.Fatal(terr)
	}
	if got := eval.Memoized(f, inv["linked_e"]); got != 50 {
		t.Errorf("linked_e after set_f: a memo of %d rows serves the clone, want 50", got)
	}
	if vs := f.InvariantViolations(inv["linked_e"]); len(vs) != 1 || vs[0].ID != "f9" {
		t.Errorf("linked_e after set_f: %v", vs)
	}
	// backed reads F only on the records its trigger selects: none at the
	// start, so its outcomes there hold whatever F holds.
	if got := eval.Memoized(f, inv["backed"]); got != 50 {
		t.Errorf("backed after set_f: a memo of %d rows serves the clone, want 50 (no outcome read F)", got)
	}
	// e6 triggers it and is backed by f6 (n 6): the memo of a state whose
	// outcomes read F serves no clone that wrote F, which unbacks e6.
	g := start.Clone()
	if _, terr := g.CallJSON("set_e", []byte(`{"e":"e6","n":60}`)); terr != nil {
		t.Fatal(terr)
	}
	if vs := g.Violations(); len(vs) != 0 {
		t.Fatalf("after set_e(e6, 60): %v", vs)
	}
	h := g.Clone()
	if got := eval.Memoized(h, inv["backed"]); got != 50 {
		t.Errorf("backed on a clone of a checked state: a memo of %d rows serves it, want 50", got)
	}
	if _, terr := h.CallJSON("set_f", []byte(`{"f":"f6","n":2}`)); terr != nil {
		t.Fatal(terr)
	}
	if vs := h.InvariantViolations(inv["backed"]); len(vs) != 1 || vs[0].ID != "e6" {
		t.Errorf("backed after set_f(f6, 2): %v, want e6", vs)
	}
}
