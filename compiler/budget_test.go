package compiler

import (
	"fmt"
	"strings"
	"testing"
)

// withCheckSteps replaces MaxCheckSteps, so that a test can spend the
// budget of a check without spending seconds.
func withCheckSteps(n int64) Option { return func(c *config) { c.checkSteps = n } }

// tasksWorld is the W019 example's world with n tasks, each paying an
// order of its own.
func tasksWorld(t *testing.T, n int) string {
	t.Helper()
	src, err := Example("W019")
	if err != nil {
		t.Fatal(err)
	}
	src = strings.Replace(src, "  tool get_order_with_a_name_far_longer_than_any_sensible_tool_name_should_be: get Order  // ERROR \"tool name of 70 characters; the limit is 64\"\n", "", 1)
	var b strings.Builder
	b.WriteString(src)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `
task pay_order_%d {
  persona     "Shop owner"
  instruction "Bob paid his order. Record it."
  seed {
    sales.Order x%d { customer: "Bob", total: %d }
  }
  expect {
    sales.Order[x%d].status == paid
    exists(r in books.Receipt where r.order == x%d)
    invariant paid_orders_have_receipts
  }
  solution {
    pay_order(order: x%d)
    record_receipt(order: x%d, amount: %d)
  }
}
`, i, i, i+1, i, i, i, i, i+1)
	}
	return b.String()
}

// TestCheckBudget: all the evaluation of one check shares one budget; the
// check reports where it ran out (W026, once, at the task it was checking)
// and evaluates nothing after it.
func TestCheckBudget(t *testing.T) {
	src := []byte(tasksWorld(t, 40))
	if w, ds := CheckSource("tasks.world", src); w == nil {
		t.Fatalf("within the default budget:\n%s", ds.Text())
	}
	_, ds := CheckSource("tasks.world", src, withCheckSteps(2000))
	if len(ds) != 1 || ds[0].Code != "W026" || !strings.Contains(ds[0].Message, "ran out of its evaluation budget of 2000 steps in all while evaluating the") {
		t.Fatalf("with a budget of 2000 steps:\n%s", ds.Text())
	}
	if !strings.HasPrefix(src2line(src, ds[0].Line), "task pay_order_") {
		t.Errorf("W026 at line %d, not at a task: %q", ds[0].Line, src2line(src, ds[0].Line))
	}
}

func src2line(src []byte, line int) string {
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	return lines[line-1]
}
