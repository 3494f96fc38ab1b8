package eval_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// cowWorld has an entity with a key and one without, and tools that
// insert, set and delete, some of them failing after they wrote (their
// writes are undone), and one that deletes a record and inserts another
// under the same key.
const cowWorld = `world cow {
  title "Copy on write"
  today 2026-03-14
}

service shop "Shop" {
  entity Item key code {
    code  string
    label string
    qty   int >= 0
  }
  entity Note {
    item ref Item?
    text string
  }
  tool add_item(code: string, label: string) "Add an item" {
    insert Item { code: code, label: label, qty: 0 }
  }
  tool set_qty(item: ref Item, qty: int, undo: bool) "Set the quantity" {
    set item.qty = qty
    require not undo else "undone"
    return item
  }
  tool remove_item(item: ref Item, undo: bool) "Remove an item" {
    delete item
    require not undo else "undone"
  }
  tool replace_item(item: ref Item, label: string, undo: bool) "Replace an item" {
    let code = item.code
    delete item
    insert Item { code: code, label: label, qty: 1 }
    require not undo else "undone"
  }
  tool add_note(item: ref Item?, text: string, undo: bool) "Add a note" {
    insert Note { item: item, text: text }
    require not undo else "undone"
  }
  tool drop_note(note: ref Note) "Drop a note" {
    delete note
  }
}

seed {
  shop.Item i0 { code: "i0", label: "zero", qty: 0 }
  shop.Item i1 { code: "i1", label: "one", qty: 1 }
  shop.Item i2 { code: "i2", label: "two", qty: 2 }
  shop.Item i3 { code: "i3", label: "three", qty: 3 }
  shop.Item i4 { code: "i4", label: "four", qty: 4 }
  shop.Item i5 { code: "i5", label: "five", qty: 5 }
  shop.Note n0 { text: "seed note" }
}
`

// TestCopyOnWriteAgreesWithFullTables replays random tool calls on a
// state that is cloned every few calls (so that its tables are partial
// copies of partial copies, each over the seed's rows), and on one that
// never is (full tables throughout): after every call both hold the same,
// the clones left behind keep what they held, and comparing two states
// (Equal, EqualExcept) and listing the records one adds (NewIDs) answer
// as they do on full copies of the same states.
func TestCopyOnWriteAgreesWithFullTables(t *testing.T) {
	w, ds := compiler.CheckSource("cow.world", []byte(cowWorld), compiler.WithoutReachability())
	if w == nil {
		t.Fatal(ds.Text())
	}
	var item, note *ir.Entity
	for _, e := range w.Entities {
		switch e.Name {
		case "Item":
			item = e
		case "Note":
			note = e
		}
	}
	full, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	cow, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	type snapshot struct {
		s    *eval.State
		hash string
	}
	var snaps []snapshot
	rng := rand.New(rand.NewPCG(20, 2))
	pick := func(ids []string) string {
		if len(ids) == 0 || rng.IntN(8) == 0 {
			return fmt.Sprintf("i%d", rng.IntN(12)) // perhaps no such record
		}
		return ids[rng.IntN(len(ids))]
	}
	calls, failed := 0, 0
	for step := range 600 {
		if rng.IntN(4) == 0 {
			snaps = append(snaps, snapshot{cow, cow.Hash()})
			cow = cow.Clone()
		}
		if rng.IntN(50) == 0 && len(snaps) > 0 {
			// Go on from an earlier state, on both sides.
			back := snaps[rng.IntN(len(snaps))].s
			cow, full = back.Clone(), eval.Flat(back)
		}
		items, notes := cow.IDs(item), cow.IDs(note)
		undo := rng.IntN(3) == 0
		var tool, args string
		switch rng.IntN(7) {
		case 0, 1:
			tool, args = "add_item", fmt.Sprintf(`{"code":"i%d","label":"l%d"}`, rng.IntN(14), step)
		case 2:
			tool, args = "set_qty", fmt.Sprintf(`{"item":%q,"qty":%d,"undo":%t}`, pick(items), rng.IntN(5)-1, undo)
		case 3:
			tool, args = "remove_item", fmt.Sprintf(`{"item":%q,"undo":%t}`, pick(items), undo)
		case 4:
			tool, args = "replace_item", fmt.Sprintf(`{"item":%q,"label":"r%d","undo":%t}`, pick(items), step, undo)
		case 5:
			ref := "null"
			if rng.IntN(2) == 0 {
				ref = fmt.Sprintf("%q", pick(items))
			}
			tool, args = "add_note", fmt.Sprintf(`{"item":%s,"text":"t%d","undo":%t}`, ref, step, undo)
		case 6:
			n := "note_1"
			if len(notes) > 0 {
				n = notes[rng.IntN(len(notes))]
			}
			tool, args = "drop_note", fmt.Sprintf(`{"note":%q}`, n)
		}
		before := cow
		snaps = append(snaps, snapshot{before, before.Hash()})
		cow = cow.Clone()
		got, gerr := cow.CallJSON(tool, []byte(args))
		want, werr := full.CallJSON(tool, []byte(args))
		calls++
		if gerr != nil {
			failed++
		}
		if g, w := string(eval.ObservationJSON(got, gerr)), string(eval.ObservationJSON(want, werr)); g != w {
			t.Fatalf("step %d: %s %s: %s on the copy-on-write state, %s on full tables", step, tool, args, g, w)
		}
		if g, w := string(cow.JSON()), string(full.JSON()); g != w || cow.Hash() != full.Hash() {
			t.Fatalf("step %d: %s %s: the states differ:\n%s\n%s", step, tool, args, g, w)
		}
		// Comparisons with the state before the call and with an earlier
		// one, and what the call added.
		for _, o := range []*eval.State{before, snaps[rng.IntN(len(snaps))].s} {
			if g, w := cow.Equal(o), eval.Flat(cow).Equal(eval.Flat(o)); g != w || g != (cow.Hash() == o.Hash()) {
				t.Fatalf("step %d: %s %s: Equal = %v, on full copies %v (hashes equal: %v)", step, tool, args, g, w, cow.Hash() == o.Hash())
			}
			// Leave out a record, often one the two states hold differently.
			out := pick(items)
			for _, id := range cow.IDs(item) {
				a, _ := cow.RecordJSON(item, id)
				b, _ := o.RecordJSON(item, id)
				if string(a) != string(b) && rng.IntN(2) == 0 {
					out = id
					break
				}
			}
			except := map[*ir.Entity]map[string]bool{item: {out: true}}
			if rng.IntN(2) == 0 {
				except[note] = map[string]bool{pick(notes): true}
			}
			if g, w := cow.EqualExcept(o, except), eval.Flat(cow).EqualExcept(eval.Flat(o), except); g != w {
				t.Fatalf("step %d: %s %s: EqualExcept(%v) = %v, on full copies %v", step, tool, args, except, g, w)
			}
			for _, e := range []*ir.Entity{item, note} {
				var want []string
				for _, id := range cow.IDs(e) {
					if !slices.Contains(o.IDs(e), id) {
						want = append(want, id)
					}
				}
				if got := cow.NewIDs(o, e); !slices.Equal(got, want) {
					t.Fatalf("step %d: %s %s: NewIDs(%s) = %v, want %v", step, tool, args, e.Name, got, want)
				}
			}
		}
	}
	for i, sn := range snaps {
		if sn.s.Hash() != sn.hash {
			t.Fatalf("state %d changed after it was cloned", i)
		}
	}
	// The replay must have exercised what it is about.
	if failed < calls/10 || failed > calls*9/10 || !strings.Contains(string(cow.JSON()), `"code":"i`) {
		t.Errorf("%d calls, %d failed: not a useful mix", calls, failed)
	}
}

// TestInvariantsCheckedOncePerState: an invariant checked on a state that
// has not changed since is not evaluated again (every task that starts
// from the world seed grades it), nor on its clones until they call a
// tool; a call, or other limits, check it again.
func TestInvariantsCheckedOncePerState(t *testing.T) {
	var b strings.Builder
	b.WriteString(`world once {
  title "Once"
  today 2026-03-14
}

service shop "Shop" {
  entity Item {
    qty int
  }
  tool set_qty(item: ref Item, qty: int) "Set the quantity" {
    set item.qty = qty
  }
}

local invariant small_quantities {
  policy "Quantities stay below 10."
  for i in shop.Item
  require i.qty < 10
}

seed {
`)
	for i := range 100 {
		fmt.Fprintf(&b, "  shop.Item i%d { qty: 1 }\n", i)
	}
	b.WriteString("}\n")
	w, ds := compiler.CheckSource("once.world", []byte(b.String()), compiler.WithoutReachability())
	if w == nil {
		t.Fatal(ds.Text())
	}
	s, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	budget := eval.NewBudget(1 << 40)
	s.SetBudget(budget)
	check := func(s *eval.State, want int, evaluated bool) {
		t.Helper()
		used := budget.Used()
		if vs := s.Violations(); len(vs) != want {
			t.Fatalf("%d violations, want %d: %v", len(vs), want, vs)
		}
		if got := budget.Used() > used; got != evaluated {
			t.Fatalf("invariant evaluated: %v, want %v", got, evaluated)
		}
	}
	check(s, 0, true)
	check(s, 0, false)
	c := s.Clone()
	check(c, 0, false)
	if _, terr := c.CallJSON("set_qty", []byte(`{"item":"i5","qty":20}`)); terr != nil {
		t.Fatal(terr)
	}
	check(c, 1, true)
	check(c, 1, false)
	check(s, 0, false)
	start, err := s.WithTask(nil)
	if err != nil {
		t.Fatal(err)
	}
	check(start, 0, false)
	// A failed call changes nothing, but is a call: checked again.
	if _, terr := start.CallJSON("set_qty", []byte(`{"item":"nope","qty":20}`)); terr == nil {
		t.Fatal("set_qty of a missing item succeeded")
	}
	check(start, 0, true)
	// Under other limits, the check is another one.
	s.Limits.MaxSteps = 10
	if vs := s.Violations(); len(vs) != 1 || !vs[0].Exceeded {
		t.Fatalf("with 10 steps: %v", vs)
	}
}
