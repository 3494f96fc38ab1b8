package gen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// budgetWorld checks testdata/budget.world.
func budgetWorld(t *testing.T) *ir.World {
	return testdataWorld(t, "budget.world")
}

// ints is the JSON list [0, 1, …, n-1].
func ints(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, i)
	}
	b.WriteByte(']')
	return b.String()
}

// budgetProbes make each tool of budget.world run within its budget, then
// beyond it: the call fails as compiler/eval's does, and the state is as it
// was (the get_run after them).
var budgetProbes = []probe{
	{"double", `{"run":"r1","xs":` + ints(3) + `}`},
	{"double", `{"run":"r1","xs":` + ints(40) + `}`},
	{"get_run", `{"id":"r1"}`},
	{"pairs", `{"run":"r1","xs":` + ints(100) + `}`},
	{"pairs", `{"run":"r1","xs":` + ints(8000) + `}`},
	{"grow", `{"run":"r1","xs":` + ints(4) + `}`},
	{"grow", `{"run":"r1","xs":` + ints(40) + `}`},
	{"member", `{"run":"r1","xs":` + ints(3000) + `,"ys":` + ints(3000) + `}`},
	{"member", `{"run":"r1","xs":` + ints(8000) + `,"ys":` + ints(8000) + `}`},
	{"scan", `{"run":"r1","xs":` + ints(10) + `,"ys":` + ints(10) + `}`},
	{"scan", `{"run":"r1","xs":` + ints(3000) + `,"ys":` + ints(20000) + `}`},
	{"collect", `{"run":"r1","xs":` + ints(100) + `}`},
	{"collect", `{"run":"r1","xs":` + ints(8000) + `}`},
	{"get_run", `{"id":"r1"}`},
}

// TestBudgetDifferential: arguments that make a tool call run away end it
// with compiler/eval's error, in bounded time and memory (without the
// budget, a string doubled 40 times or a list doubled by appends took all
// the memory, and nested loops over long lists hours).
func TestBudgetDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, budgetWorld(t), budgetProbes)
}

// TestBudgetListOfLists: list(…) counts a step per element it keeps, so
// a list of 8,000 lists of 8,000 elements (64 million refs, a gigabyte)
// ends the call rather than the memory, and 100 of 100 does not.
func TestBudgetListOfLists(t *testing.T) {
	st, err := eval.NewState(budgetWorld(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if data, terr := st.CallJSON("collect", []byte(`{"run":"r1","xs":`+ints(100)+`}`)); terr != nil || string(data.JSON()) != "100" {
		t.Errorf("collect of 100: %v %v", data, terr)
	}
	if _, terr := st.CallJSON("collect", []byte(`{"run":"r1","xs":`+ints(8000)+`}`)); terr == nil || !strings.Contains(terr.Error(), "exceeded") {
		t.Errorf("collect of 8000: %v, want the step budget exceeded", terr)
	}
}
