package tasks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/specgen"
)

// exampleWorlds are the example worlds, by name.
func exampleWorlds(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(worldsDir, "*.world"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example worlds in %s: %v", worldsDir, err)
	}
	var names []string
	for _, p := range paths {
		names = append(names, strings.TrimSuffix(filepath.Base(p), ".world"))
	}
	return names
}

// synthesize checks the spec at path (data files beside it), synthesises
// n tasks and checks the written spec; it returns the result and the
// written world.
func synthesize(t *testing.T, path string, src []byte, n int, seed uint64) (*Result, *ir.World, *ir.World) {
	t.Helper()
	data := os.DirFS(filepath.Dir(path))
	w, ds := compiler.CheckSource(path, src, compiler.WithData(data))
	if ds.HasErrors() {
		t.Fatalf("%s does not check:\n%s", path, ds.Text())
	}
	r, err := Synthesize(w, src, Options{N: n, Seed: seed, Filename: path, Data: data})
	if err != nil {
		t.Fatalf("Synthesize: %v", err)
	}
	w2, ds := compiler.CheckSource(path, r.Spec, compiler.WithData(data))
	if ds.HasErrors() || w2 == nil {
		t.Fatalf("the written spec does not check:\n%s", ds.Text())
	}
	return r, w, w2
}

// verify holds every synthesised task of r to what a task must be: in
// the written world, its rubric is false at its start (a refusal's is
// `unchanged` alone), its golden solution reaches reward 1 in the
// evaluator with every invariant holding (always-invariants after each
// call), and the world's own tasks are kept as they were.
func verify(t *testing.T, r *Result, w, w2 *ir.World) {
	t.Helper()
	byName := map[string]*ir.Task{}
	for _, task := range w2.Tasks {
		byName[task.Name] = task
	}
	for _, own := range w.Tasks {
		if byName[own.Name] == nil {
			t.Errorf("the world's own task %s is gone", own.Name)
		}
	}
	if got, want := len(w2.Tasks), len(w.Tasks)+len(r.Tasks); got != want {
		t.Errorf("the written world has %d tasks, want %d (%d own, %d synthesised)", got, want, len(w.Tasks), len(r.Tasks))
	}
	seen := map[string]string{}
	for _, m := range r.Tasks {
		task := byName[m.ID]
		if task == nil {
			t.Errorf("task %s of the metadata is not in the spec", m.ID)
			continue
		}
		start, err := eval.NewState(w2, task)
		if err != nil {
			t.Fatal(err)
		}
		g := start.Grade(task, start)
		if m.Origin == OriginRefusal {
			if len(task.Assertions) != 1 || task.Assertions[0].Kind != ir.AssertUnchanged || len(task.Assertions[0].Except) > 0 {
				t.Errorf("%s: a refusal's rubric is `unchanged`, got %d assertions", m.ID, len(task.Assertions))
			}
			if !m.Difficulty.Refusal {
				t.Errorf("%s: a refusal whose profile says it is none", m.ID)
			}
		} else if g.Reward >= 1 {
			t.Errorf("%s: the rubric holds at the start (W014)", m.ID)
		}
		if asks := eval.ExpectsAnswer(task); asks != (m.Origin == OriginQuestion) || m.Answer != asks {
			t.Errorf("%s (%s): expects an answer %v, metadata says %v", m.ID, m.Origin, asks, m.Answer)
		}
		if m.Origin == OriginQuestion {
			last := task.Assertions[len(task.Assertions)-1]
			if len(task.Assertions) != 2 || last.Kind != ir.AssertUnchanged || len(last.Except) > 0 {
				t.Errorf("%s: a question's rubric is `answer …` and `unchanged`", m.ID)
			}
			if start.GoldenAnswer(task) == "" {
				t.Errorf("%s: no golden answer", m.ID)
			}
		}
		if m.Origin == OriginProgram && (m.Difficulty.LoopIterations == 0 || m.Difficulty.Branches == 0 && m.Difficulty.LoopIterations < 2) {
			t.Errorf("%s: a program with %d iterations and %d branches", m.ID, m.Difficulty.LoopIterations, m.Difficulty.Branches)
		}
		if m.Origin == OriginSolver && m.Difficulty.Branches < 3 {
			t.Errorf("%s: a choice among %d candidates", m.ID, m.Difficulty.Branches)
		}
		res, err := eval.RunSolution(w2, task)
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() || res.Grade.Reward != 1 {
			t.Errorf("%s: the golden solution is not golden: %s", m.ID, res.Problem())
		}
		if m.Calls != len(task.Solution) || m.Difficulty.Calls != len(task.Solution) {
			t.Errorf("%s: metadata says %d calls, the solution has %d", m.ID, m.Calls, len(task.Solution))
		}
		if m.InstructionSource != "template" || task.Instruction != m.Instruction {
			t.Errorf("%s: instruction source %q, or instruction differs from the spec's", m.ID, m.InstructionSource)
		}
		if odd := oddities(m.Instruction); len(odd) > 0 {
			t.Errorf("%s: the words read oddly (%s): %s", m.ID, strings.Join(odd, "; "), m.Instruction)
		}
		for _, s := range task.Solution {
			for _, a := range s.Args {
				typ := a.Param.Type
				if a.Value == nil || !(freeText(a.Param, typ) || typ.Kind == ir.KindText) {
					continue
				}
				if recordTexts(t, w)[a.Value.Str] {
					t.Errorf("%s: %s(%s: %q) copies a text of another record", m.ID, s.Tool.Name, a.Param.Name, a.Value.Str)
				}
			}
		}
		key := canonicalOf(task)
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s have the same solution and rubric", other, m.ID)
		}
		seen[key] = m.ID
	}
}

// canonicalOf is a task's solution and rubric as the spec writes them.
func canonicalOf(task *ir.Task) string {
	var b strings.Builder
	for _, s := range task.Solution {
		fmt.Fprintf(&b, "%s(", s.Tool.Name)
		for _, a := range s.Args {
			fmt.Fprintf(&b, "%s=%s/%v,", a.Param.Name, a.Bound, valueJSON(a.Value))
		}
		b.WriteString(")\n")
	}
	for _, a := range task.Assertions {
		b.WriteString(a.Text + "\n")
	}
	return b.String()
}

// TestExampleWorlds: `worldc tasks -n 100` on every example world gives
// 100 distinct verified tasks covering at least 90% of its writing tools.
func TestExampleWorlds(t *testing.T) {
	names := exampleWorlds(t)
	n := 100
	if testing.Short() {
		names, n = []string{"ecommerce_returns", "it_service_desk"}, 30
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(worldsDir, name+".world")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, w, w2 := synthesize(t, path, src, n, 1)
			verify(t, r, w, w2)
			s := r.Summary
			if s.Kept != n || len(r.Tasks) != n {
				t.Errorf("kept %d tasks (%d in the metadata), want %d; %s", s.Kept, len(r.Tasks), n, s.Note)
			}
			if !testing.Short() && s.Coverage() < 0.9 {
				t.Errorf("covered %d of %d writing tools (%.0f%%), want 90%%; not: %v", s.Covered, s.WritingTools, 100*s.Coverage(), s.Uncovered)
			}
			origins := map[string]bool{}
			for _, m := range r.Tasks {
				origins[m.Origin] = true
			}
			if !origins[OriginDAG] || !origins[OriginRefusal] {
				t.Errorf("origins %v: want chains and refusals", s.Origins)
			}
			if testing.Short() {
				return
			}
			// Every origin on the worlds that have its shape; the
			// summary says why a world has few.
			for _, o := range []string{OriginProgram, OriginSolver, OriginQuestion} {
				if 10*s.Origins[o] < s.Kept && s.Few[o] == "" {
					t.Errorf("%d tasks of origin %s and the summary does not say why", s.Origins[o], o)
				}
				if noShape[name][o] {
					if s.Origins[o] > 0 || !strings.Contains(s.Few[o], "no_") {
						t.Errorf("%s: %d tasks of origin %s, few: %q; want none, for want of the shape", name, s.Origins[o], o, s.Few[o])
					}
					continue
				}
				if s.Origins[o] == 0 {
					t.Errorf("no task of origin %s: %s", o, s.Few[o])
				}
			}
			if !noShape[name][OriginProgram] && 10*s.Origins[OriginProgram] < s.Kept/2 {
				t.Errorf("%d programs of %d tasks: want a real share", s.Origins[OriginProgram], s.Kept)
			}
			// Distractors: tasks whose seed adds them, and hard tasks
			// with two or more a real share (15%), where the world's
			// lookups can return more than one record.
			hard2, seeded := 0, 0
			for _, m := range r.Tasks {
				if m.Difficulty.Level == "hard" && m.Difficulty.Distractors >= 2 {
					hard2++
				}
				if m.SeedRecords > 0 {
					seeded++
				}
			}
			switch {
			case noDistractors[name] && seeded > 0:
				t.Errorf("%d tasks with a seed in a world whose lookups find one record", seeded)
			case noDistractors[name]:
			case seeded == 0:
				t.Errorf("no task adds distractors to its seed; dropped: %v", s.Dropped)
			case 100*hard2 < 15*s.Kept:
				t.Errorf("%d hard tasks with 2 or more distractors of %d: want 15%%", hard2, s.Kept)
			}
		})
	}
}

// TestRedteamWorlds: on the worlds written from fresh briefs
// (testdata/redteam), unlike the examples no synthesis was tuned on,
// every task verifies and at least 90% of each world's writing tools are
// covered. -short runs the three whose writes needed repairs or
// arguments the sampler did not find: a loan closed only once the
// payments booked equal its schedule (several payments, each bringing
// the sums closer), a booking invoiced at the price the invariant
// compares the invoice with (an argument only an invariant ties to a
// field), a cancelled booking refunded what was paid less the fee (the
// amount solved for: TestRepairSolved).
func TestRedteamWorlds(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "redteam", "worlds", "*.world"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no red-team worlds: %v", err)
	}
	if testing.Short() {
		paths = slices.DeleteFunc(paths, func(p string) bool {
			switch filepath.Base(p) {
			case "rhein_consumer_loans.world", "maasland_freight.world", "lago_rail_travel.world":
				return false
			}
			return true
		})
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".world")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r, w, w2 := synthesize(t, path, src, 100, 1)
			verify(t, r, w, w2)
			s := r.Summary
			if s.Coverage() < 0.9 {
				t.Errorf("covered %d of %d writing tools (%.0f%%), want 90%%; not: %v %v", s.Covered, s.WritingTools, 100*s.Coverage(), s.Uncovered, s.Why)
			}
		})
	}
}

// TestRepairSolved: a cancelled booking must be refunded what was paid
// less the fee, exactly (lago_rail_travel's cancellations_refunded): the
// amount is solved for from a first refund's effect on the sums, so that
// many chains cancel and refund, not the few whose drawn amount happened
// to be right (3 of 70 tasks before).
func TestRepairSolved(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "redteam", "worlds", "lago_rail_travel.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, _, w2 := synthesize(t, path, src, 100, 1)
	byName := map[string]*ir.Task{}
	for _, task := range w2.Tasks {
		byName[task.Name] = task
	}
	refunds := 0
	for _, m := range r.Tasks {
		cancelled := false
		for _, c := range byName[m.ID].Solution {
			switch {
			case c.Fails != nil:
			case c.Tool.Name == "cancel_booking":
				cancelled = true
			case c.Tool.Name == "refund" && cancelled:
				refunds++
			}
		}
	}
	if refunds < 10 {
		t.Errorf("%d refunds after a cancellation in %d tasks, want 10 or more; dropped: %v", refunds, len(r.Tasks), r.Summary.Dropped)
	}
}

// TestRepairInSteps: a violation no single call repairs (a loan closed
// before the payments booked add up to its schedule) is repaired by
// several calls after it, each bringing it closer, none made twice; and
// because other calls could have repaired it as well, the words ask for
// each.
func TestRepairInSteps(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "redteam", "worlds", "rhein_consumer_loans.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, _, w2 := synthesize(t, path, src, 100, 1)
	byName := map[string]*ir.Task{}
	for _, task := range w2.Tasks {
		byName[task.Name] = task
	}
	st, err := eval.NewState(w2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var instalment *ir.Entity
	for _, e := range w2.Entities {
		if e.Name == "Instalment" {
			instalment = e
		}
	}
	found := 0
	for _, m := range r.Tasks {
		task := byName[m.ID]
		closes, payments := false, 0
		made := map[string]bool{}
		for _, c := range task.Solution {
			if c.Fails != nil {
				continue
			}
			switch c.Tool.Name {
			case "close_loan":
				closes = true
			case "book_payment":
				if !closes {
					continue // a payment asked for, not a repair
				}
				key := canonicalOf(&ir.Task{Solution: []*ir.Step{c}})
				if made[key] {
					t.Errorf("%s: %s made twice", m.ID, strings.TrimSpace(key))
				}
				made[key] = true
				payments++
				for _, a := range c.Args {
					if a.Param.Name != "instalment" || a.Value == nil {
						continue
					}
					b, ok := st.RecordJSON(instalment, a.Value.Str)
					if !ok {
						continue // an instalment the task's calls made
					}
					i := bytes.Index(b, []byte(`"due_on":"`))
					if i < 0 {
						t.Fatalf("no due date in %s", b)
					}
					due := string(b[i+10 : i+20])
					if !strings.Contains(m.Instruction, due) {
						t.Errorf("%s: the payment for the instalment due on %s is not in the words: %s", m.ID, due, m.Instruction)
					}
				}
			}
		}
		if closes && payments >= 2 {
			found++
		}
	}
	if found == 0 {
		t.Errorf("no task closes a loan with the payments it needs; dropped: %v", r.Summary.Dropped)
	}
}

// noDistractors are the example worlds whose lookups never return two
// records: tau2_retail's users are found by custom tools that return one
// id, its orders and products by the keys users quote.
var noDistractors = map[string]bool{"tau2_retail": true}

// noShape are the origins an example world cannot have: tau2_retail's
// records are found by custom tools, and no search lists a group.
var noShape = map[string]map[string]bool{
	"tau2_retail": {OriginProgram: true, OriginSolver: true},
}

// TestSynthWorlds: the same verification on random valid worlds of
// internal/specgen, which hold every construct the language has.
func TestSynthWorlds(t *testing.T) {
	seeds := []uint64{3, 11, 29}
	if testing.Short() {
		seeds = seeds[:1]
	}
	dir := t.TempDir()
	for _, seed := range seeds {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			src := []byte(specgen.Spec(seed))
			path := filepath.Join(dir, fmt.Sprintf("random_%d.world", seed))
			r, w, w2 := synthesize(t, path, src, 40, seed)
			verify(t, r, w, w2)
			if len(r.Tasks) == 0 {
				t.Errorf("no task: %+v", r.Summary)
			}
			if r.Summary.Kept < 40 && r.Summary.Note == "" {
				t.Errorf("kept %d of 40 and no note says why", r.Summary.Kept)
			}
		})
	}
}

// TestDeterministic: the same spec and seed write the same bytes; another
// seed other tasks.
func TestDeterministic(t *testing.T) {
	path := filepath.Join(worldsDir, "insurance_claims.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _, _ := synthesize(t, path, src, 25, 7)
	b, _, _ := synthesize(t, path, src, 25, 7)
	c, _, _ := synthesize(t, path, src, 25, 8)
	if !bytes.Equal(a.Spec, b.Spec) || !bytes.Equal(JSONL(a.Tasks), JSONL(b.Tasks)) {
		t.Errorf("two runs with seed 7 differ")
	}
	if bytes.Equal(a.Spec, c.Spec) {
		t.Errorf("seeds 7 and 8 write the same spec")
	}
	if !bytes.HasPrefix(a.Spec, src) {
		t.Errorf("the written spec does not start with the world's own (formatted) spec")
	}
}

// TestWordsCheck: the dataflow check refuses an argument the words do not
// give and no observation showed, and an internal id in the words.
func TestWordsCheck(t *testing.T) {
	path := filepath.Join(worldsDir, "ecommerce_returns.world")
	w, _ := checkWorld(t, "ecommerce_returns")
	x, err := newSynth(w, Options{N: 1, Filename: path})
	if err != nil {
		t.Fatal(err)
	}
	tool := func(name string) *ir.Tool {
		for _, tl := range w.Tools {
			if tl.Name == name {
				return tl
			}
		}
		t.Fatalf("no tool %s", name)
		return nil
	}
	param := func(tl *ir.Tool, name string) *ir.Param {
		for _, p := range tl.Params {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no parameter %s.%s", tl.Name, name)
		return nil
	}
	find, cancel := tool("find_orders"), tool("cancel_order")
	lookup := &call{tool: find, args: []arg{{p: param(find, "order_number"), v: "W1004630"}}, lookup: true,
		obs: decode([]byte(`[{"id":"ord_w1004630","order_number":"W1004630"}]`))}
	write := &call{tool: cancel, args: []arg{{p: param(cancel, "order"), v: "ord_w1004630"}, {p: param(cancel, "reason"), v: "Found it cheaper"}}}
	mk := func(words string, facts []string) *task {
		return &task{instruction: words, facts: facts, calls: []*call{lookup, write}}
	}
	for _, c := range []struct {
		words string
		facts []string
		want  string
	}{
		{`Please cancel the order with order number “W1004630”; reason: “Found it cheaper”.`, []string{"“W1004630”", "“Found it cheaper”"}, ""},
		// The reason is in no words and no observation.
		{`Please cancel the order with order number “W1004630”.`, []string{"“W1004630”"}, "dataflow"},
		// The order number is not given: the lookup's argument comes
		// from nowhere.
		{`Please cancel my latest order; reason: “Found it cheaper”.`, []string{"“Found it cheaper”"}, "dataflow"},
		// The internal id of the order is in the words.
		{`Please cancel ord_w1004630, order number “W1004630”; reason: “Found it cheaper”.`, []string{"“W1004630”", "“Found it cheaper”"}, "leak"},
		// So is an id the world would make for a new record.
		{`Please cancel the order with order number “W1004630”; reason: “Found it cheaper”, see refund_3.`, []string{"“W1004630”", "“Found it cheaper”"}, "leak"},
	} {
		if got := x.checkWords(mk(c.words, c.facts)); got != c.want {
			t.Errorf("checkWords(%q) = %q, want %q", c.words, got, c.want)
		}
	}
}

// TestRubricFailsCollateral: a synthesised rubric fails a run that does
// what the task asks and one thing more.
func TestRubricFailsCollateral(t *testing.T) {
	path := filepath.Join(worldsDir, "ecommerce_returns.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, _, w2 := synthesize(t, path, src, 20, 1)
	var adjust *ir.Tool
	for _, tl := range w2.Tools {
		if tl.Name == "adjust_stock" {
			adjust = tl
		}
	}
	tried := 0
	for _, m := range r.Tasks {
		if m.Origin == OriginRefusal || slices.Contains(m.WriteTools, "adjust_stock") {
			continue
		}
		var task *ir.Task
		for _, tk := range w2.Tasks {
			if tk.Name == m.ID {
				task = tk
			}
		}
		res := eval.CheckSolution(task, mustState(t, w2, task))
		st := res.Final
		if _, terr := st.CallJSON(adjust.Name, []byte(`{"product":"p_tent","delta":1,"note":"recount"}`)); terr != nil {
			t.Fatalf("adjust_stock: %v", terr)
		}
		if g := st.Grade(task, mustState(t, w2, task)); g.Reward >= 1 {
			t.Errorf("%s: a collateral stock adjustment still gets reward 1", m.ID)
		}
		tried++
	}
	if tried == 0 {
		t.Fatal("no task to try")
	}
}

func mustState(t *testing.T, w *ir.World, task *ir.Task) *eval.State {
	t.Helper()
	st, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// TestInnerWords: an argument that is the id of something inside a record
// (an order's item, a user's payment method) is described by what tells
// it apart, never written as the id.
func TestInnerWords(t *testing.T) {
	w, _ := checkWorld(t, "tau2_retail")
	x, err := newSynth(w, Options{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	var order, user *ir.Entity
	for _, e := range w.Entities {
		switch e.Name {
		case "Order":
			order = e
		case "User":
			user = e
		}
	}
	const orderID = "#W2378156"
	rec := x.record(x.start, order, orderID)
	if rec == nil {
		t.Fatalf("no order %s", orderID)
	}
	related := x.relatedKeys(x.start, []recKey{{order, orderID}})
	items, _ := rec["items"].([]any)
	if len(items) == 0 {
		t.Fatal("the order has no items")
	}
	item := items[0].(map[string]any)
	in := x.findInner(x.start, related, item["item_id"].(string), "item_ids")
	if in == nil || in.holder.e != order || !strings.Contains(in.text, item["name"].(string)) {
		t.Errorf("item %v: %+v, want the order's item by its name", item["item_id"], in)
	}
	u := x.record(x.start, user, rec["user_id"].(string))
	var pm string
	for k := range u["payment_methods"].(map[string]any) {
		if pm == "" || k < pm {
			pm = k
		}
	}
	in = x.findInner(x.start, related, pm, "payment_method_id")
	if in == nil || in.holder.e != user || strings.Contains(in.text, pm) {
		t.Errorf("payment method %s: %+v, want the user's method described", pm, in)
	}
	if !x.inner[pm] || !x.inner[item["item_id"].(string)] {
		t.Errorf("%s and %v are not known as inner ids", pm, item["item_id"])
	}
}

// TestRuleOnAction: a call a rule on actions forbids is a broken call
// (never a step of a golden solution), though the tool lets it through.
func TestRuleOnAction(t *testing.T) {
	w, _ := checkWorld(t, "freight_billing")
	x, err := newSynth(w, Options{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	tool := map[string]*ir.Tool{}
	for _, tl := range w.Tools {
		tool[tl.Name] = tl
	}
	dispatch, hold := tool["dispatch_shipment"], tool["set_credit_hold"]
	if dispatch == nil || hold == nil || !x.ruled[dispatch] {
		t.Fatalf("freight_billing has no rule on dispatch_shipment")
	}
	var shipment *ir.Entity
	for _, e := range w.Entities {
		if e.Name == "Shipment" {
			shipment = e
		}
	}
	var booked map[string]any
	for _, id := range x.startIDs(shipment) {
		if r := x.record(x.start, shipment, id); r["status"] == "booked" {
			booked = r
			break
		}
	}
	if booked == nil {
		t.Fatal("no booked shipment in the seed")
	}
	args := []arg{{p: dispatch.Params[0], v: booked["id"]}}
	if _, terr, broke := x.call(x.start.Clone(), dispatch, args); terr != nil || broke {
		t.Fatalf("dispatching %v from the seed: %v, broke a rule: %v", booked["id"], terr, broke)
	}
	st := x.start.Clone()
	if _, terr := st.CallJSON(hold.Name, []byte(`{"customer":"`+booked["customer"].(string)+`","on_hold":true}`)); terr != nil {
		t.Fatal(terr)
	}
	if _, terr, broke := x.call(st.Clone(), dispatch, args); terr != nil || !broke {
		t.Errorf("dispatching for a customer on hold: %v, broke a rule: %v; want a broken rule", terr, broke)
	}
}

// TestLevel: a level keeps only tasks of that level; an unknown one is an
// error.
func TestLevel(t *testing.T) {
	w, src := checkWorld(t, "it_service_desk")
	path := filepath.Join(worldsDir, "it_service_desk.world")
	r, err := Synthesize(w, src, Options{N: 15, Seed: 3, Level: "hard", Filename: path})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Tasks) != 15 {
		t.Errorf("%d hard tasks, want 15: %s", len(r.Tasks), r.Summary.Note)
	}
	for _, m := range r.Tasks {
		if m.Difficulty.Level != "hard" {
			t.Errorf("%s is %s", m.ID, m.Difficulty.Level)
		}
	}
	if _, err := Synthesize(w, src, Options{N: 1, Level: "brutal"}); err == nil {
		t.Error("level brutal: no error")
	}
}

// TestWhichQuestions: questions answered by a list, "which of my … are
// …", by `answer list(r in E where …)` (or the names, list(r.name for
// …)): verified as every task, their golden answer states every record
// of the group, and an answer that leaves one out fails.
func TestWhichQuestions(t *testing.T) {
	path := filepath.Join(worldsDir, "it_service_desk.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, w, w2 := synthesize(t, path, src, 100, 1)
	verify(t, r, w, w2)
	which := 0
	for _, task := range w2.Tasks {
		if len(task.Assertions) == 0 || !strings.HasPrefix(task.Assertions[0].Text, "answer list(") {
			continue
		}
		which++
		if !strings.HasPrefix(task.Instruction, "Which ") {
			t.Errorf("%s: %q does not ask which", task.Name, task.Instruction)
		}
		res, err := eval.RunSolution(w2, task)
		if err != nil {
			t.Fatal(err)
		}
		start, err := eval.NewState(w2, task)
		if err != nil {
			t.Fatal(err)
		}
		golden := res.Final.GoldenAnswer(task)
		elems := strings.Split(golden, ", ")
		if len(elems) < 2 {
			t.Errorf("%s: the golden answer %q lists fewer than two records", task.Name, golden)
			continue
		}
		for _, a := range []string{golden, strings.Join(elems[1:], ", ")} {
			g := res.Final.GradeAnswer(task, start, nil, &a)
			if passed := g.Results[0].Passed; passed != (a == golden) {
				t.Errorf("%s: the answer %q passes %v; golden %q", task.Name, a, passed, golden)
			}
		}
	}
	if which == 0 {
		t.Errorf("no which-question among %d tasks", len(r.Tasks))
	}
}
