package gen

import (
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// alwaysWorld checks testdata/always.world.
func alwaysWorld(t *testing.T) *ir.World {
	return testdataWorld(t, "always.world")
}

// alwaysProbes break every always-invariant of testdata/always.world at
// one step and repair it at a later one, each through a different read:
// the checked record written, a keyed read's row written (its key before
// the call, and after), a record reached through an index built on the
// way and kept up to date, a read without a key, an insert, a delete, a
// failed call and a read-only one.
var alwaysProbes = []probe{
	{"pay_order", `{"order":"o1"}`},                      // 1: o1 paid, no receipt
	{"record_receipt", `{"order":"o1","amount":20}`},     // repaired
	{"move_receipt", `{"receipt":"r3","order":"o1"}`},    // 3: o3 loses its receipt (the receipt's order before the call); o1's first receipt is r3 (insertion order)
	{"move_receipt", `{"receipt":"r3","order":"o3"}`},    // repaired
	{"set_active", `{"customer":"ana","active":false}`},  // 5: o2's code A1 names no active customer (orders by ref_code)
	{"set_active", `{"customer":"ana","active":true}`},   // repaired
	{"reopen_order", `{"order":"o1"}`},                   //
	{"set_active", `{"customer":"ana","active":false}`},  // 8: o1 open for an inactive customer (orders by customer)
	{"move_order", `{"order":"o1","customer":"ben"}`},    // repaired
	{"set_tier", `{"customer":"ben","tier":"gold"}`},     //
	{"cancel_order", `{"order":"o2"}`},                   //
	{"cancel_order", `{"order":"o1"}`},                   // 12: gold Ben has no order left (the order's customer)
	{"reopen_order", `{"order":"o1"}`},                   // repaired
	{"record_receipt", `{"order":"o2","amount":2000}`},   //
	{"record_receipt", `{"order":"o1","amount":1500}`},   // 15: two big receipts beside o3 (every order re-checked)
	{"drop_receipt", `{"receipt":"receipt_3"}`},          // repaired
	{"set_total", `{"order":"o3","total":0}`},            // 17: o3 paid for nothing, its receipt no longer its total
	{"set_total", `{"order":"o3","total":6000}`},         // repaired
	{"pay_order", `{"order":"o4"}`},                      // refused: not a step that can break a rule
	{"get_order", `{"id":"o1"}`},                         // reads only
	{"create_order", `{"customer":"ana","total":10}`},    // 21: a new open order of inactive Ana
	{"drop_order", `{"order":"order_1"}`},                // repaired by deleting it
	{"create_order", `{"customer":"ben","total":5}`},     // order_2, after the indexes were built
	{"set_ref", `{"order":"order_2","ref_code":"B1"}`},   //
	{"set_code", `{"customer":"ben","code":"B2"}`},       // 25: order_2's code B1 names no one now (the code before the call)
	{"set_code", `{"customer":"ben","code":"B1"}`},       // repaired
	{"set_ref", `{"order":"o1","ref_code":"C1"}`},        //
	{"set_active", `{"customer":"cem","active":false}`},  // 28: o1's code C1 names an inactive customer
	{"set_active", `{"customer":"cem","active":true}`},   // repaired
	{"drop_customer", `{"customer":"ben"}`},              // refused: ben has orders
	{"move_order", `{"order":"o4","customer":"nobody"}`}, // refused: no such customer
	{"list_receipts", `{}`},                              // reads only
}

// alwaysTaskProbes start from a task whose start state breaks an
// always-invariant (Dan, gold without orders): the task's job, so that it
// does not count while Dan stays gold (steps 1 and 2), nor when it is
// repaired (3), but breaking it again does (4).
var alwaysTaskProbes = map[string][]probe{
	"upgrade_ben": {
		{"pay_order", `{"order":"o3"}`},
		{"get_customer", `{"id":"dan"}`},
		{"set_tier", `{"customer":"dan","tier":"basic"}`},
		{"set_tier", `{"customer":"dan","tier":"gold"}`},
		{"set_tier", `{"customer":"dan","tier":"basic"}`},
	},
}

// TestAlwaysTrajectories checks, with compiler/eval alone, that the probes
// do what their comments say: each always-invariant is broken at some
// step and holds again at the end, so that TestAlwaysDifferential compares
// verdicts that only a check after every call sees.
func TestAlwaysTrajectories(t *testing.T) {
	w := alwaysWorld(t)
	runs := evalRuns(t, w, alwaysProbes, alwaysTaskProbes)
	var seed, task *diffRun
	for i := range runs {
		switch {
		case runs[i].Task == "":
			seed = &runs[i]
		case runs[i].Task == "upgrade_ben" && len(runs[i].Calls) == len(alwaysTaskProbes["upgrade_ben"]):
			task = &runs[i]
		}
	}
	last := seed.Calls[len(seed.Calls)-1]
	want := []string{
		"paid_orders_have_receipts Order o1 1",
		"paid_orders_have_receipts Order o3 3",
		"first_receipts_match Order o1 3",
		"referenced_codes_exist Order o2 5",
		"open_orders_have_active_customers Order o1 8",
		"gold_customers_have_orders Customer ben 12",
		"big_receipts_are_rare Order o3 15",
		"first_receipts_match Order o3 17",
		"paid_orders_cost_something Order o3 17",
		"open_orders_have_active_customers Order order_1 21",
		"referenced_codes_exist Order order_2 25",
		"referenced_codes_exist Order o1 28",
	}
	if !slices.Equal(last.Steps, want) {
		t.Errorf("violations along the probes:\n%s\nwant\n%s", strings.Join(last.Steps, "\n"), strings.Join(want, "\n"))
	}
	for _, v := range last.Violations {
		switch v {
		case "referenced_codes_exist Order o2": // o2's code still names inactive Ana
			continue
		case "cancelled_orders_have_no_receipts Order o2": // a rule of the final state only
			continue
		}
		t.Errorf("%s still breaks its rule at the end: the probes should repair it", v)
	}
	if task == nil {
		t.Fatal("no run of the task probes")
	}
	if got := task.Calls[2].Steps; len(got) != 0 {
		t.Errorf("task probes: %v after the repair, want none (Dan broke the rule only in the start state)", got)
	}
	if got := task.Calls[len(task.Calls)-1].Steps; !slices.Equal(got, []string{"gold_customers_have_orders Customer dan 4"}) {
		t.Errorf("task probes: %v, want dan at step 4 (broken again after the repair)", got)
	}
}

// TestAlwaysDifferential holds the generated checks of always-invariants,
// which re-check only what each call may have changed, to compiler/eval,
// which checks every record after every call: after each call of the
// probes and of the golden solutions, the violations seen along the run
// (invariant, record, step) must be the same.
func TestAlwaysDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differentialWith(t, alwaysWorld(t), alwaysProbes, alwaysTaskProbes)
}
