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

// TestSchemaBounds: every tool's JSON schema describes again the records
// it takes; W019 bounds that for one tool and for all of them together
// (a thousand tools taking a record with a large closure made a tools.go
// of 228 MB in 75 s and 2 GB).
func TestSchemaBounds(t *testing.T) {
	world := func(tools, fields, docBytes int) []byte {
		var b strings.Builder
		b.WriteString("world schemas {\n  title \"x\"\n  today 2026-01-01\n}\nrecord Big {\n")
		for i := 0; i < fields; i++ {
			fmt.Fprintf(&b, "  f%d string? %q\n", i, strings.Repeat("d", docBytes))
		}
		b.WriteString("}\nservice s \"S\" {\n  entity E {\n    name string\n  }\n  tool get_e: get E\n")
		for i := 0; i < tools; i++ {
			fmt.Fprintf(&b, "  tool put%d(e: ref E, r: Big) \"put\" {\n    set e.name = \"x\"\n    return e\n  }\n", i)
		}
		b.WriteString("}\n")
		return []byte(b.String())
	}
	codes := func(ds Diagnostics) (out []string) {
		for _, d := range ds {
			out = append(out, fmt.Sprintf("%s %d %s", d.Code, d.Line, d.Message))
		}
		return out
	}
	// One tool: 60 fields with docs of 20,000 bytes, beyond 1 MiB.
	_, ds := CheckSource("one.world", world(1, 60, 20_000))
	if got := codes(ds); len(got) != 1 || !strings.HasPrefix(got[0], "W019 ") || !strings.Contains(got[0], "the JSON schema of the parameters of tool put0 describes records in about") {
		t.Errorf("one tool:\n%s", strings.Join(got, "\n"))
	}
	// 200 tools taking a record of about 170 kB: within the limit each,
	// beyond 32 MiB together, reported once, at the tool that crosses it.
	_, ds = CheckSource("all.world", world(200, 10, 17_000))
	if got := codes(ds); len(got) != 1 || !strings.HasPrefix(got[0], "W019 ") || !strings.Contains(got[0], "the JSON schemas of the tools up to put19") {
		t.Errorf("200 tools:\n%s", strings.Join(got, "\n"))
	}
	if _, ds := CheckSource("few.world", world(20, 10, 17_000), WithoutReachability()); len(ds) != 0 {
		t.Errorf("20 tools:\n%s", ds.Text())
	}
}
