package eval_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

const traceWorld = `
world corner_shop { title "Corner Shop" industry "retail" country "DE" currency "EUR" today 2026-03-14 }

service sales "Orders" {
  entity Order {
    total  money >= 0
    status enum { open paid } = open
  }
  tool get_order: get Order
  tool pay_order(order: ref Order) "Pay an order" {
    require order.status == open else "order is not open"
    set order.status = paid
    return order
  }
  tool reopen_order(order: ref Order) "Reopen an order" {
    set order.status = open
    return order
  }
}

service books "Bookkeeping" {
  entity Receipt { order ref sales.Order  amount money }
  tool list_receipts: list Receipt
  tool record_receipt(order: ref sales.Order, amount: money) "Record a receipt" {
    let r = insert Receipt { order: order, amount: amount }
    return r
  }
}

always invariant paid_orders_have_receipts {
  policy "Every paid order has a receipt."
  for o in sales.Order where o.status == paid
  require exists(r in books.Receipt where r.order == o)
}

seed {
  sales.Order o1 { total: 20 }
  sales.Order o2 { total: 30 }
}

task pay_o1 {
  persona "Owner"
  instruction "Pay o1 and book it."
  expect {
    sales.Order[o1].status == paid
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)
  }
}

task fix_o3 {
  persona "Owner"
  instruction "o3 was paid without a receipt: book it."
  seed { sales.Order o3 { total: 5, status: paid } }
  expect {
    exists(r in books.Receipt where r.order == o3)
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o3, amount: 5)
  }
}
`

func traceCheck(t *testing.T) *ir.World {
	t.Helper()
	w, ds := compiler.CheckSource("trace.world", []byte(traceWorld))
	if w == nil || len(ds) > 0 {
		t.Fatalf("the world does not check clean:\n%s", ds.Text())
	}
	return w
}

func steps(tr *eval.Trace) string {
	var out []string
	for _, v := range tr.Violations {
		out = append(out, fmt.Sprintf("%s %d %s", v.ID, v.Step, v.Tool))
	}
	return strings.Join(out, ", ")
}

// TestTrace follows an episode call by call: a violation counts at the
// step after which it is first seen, repaired or not; a failed call is a
// step that cannot break a rule.
func TestTrace(t *testing.T) {
	w := traceCheck(t)
	s, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var tr eval.Trace
	call := func(tool, args string) {
		t.Helper()
		_, terr := s.CallJSON(tool, []byte(args))
		tr.After(s, tool, terr == nil)
	}
	call("pay_order", `{"order":"o1"}`)                  // 1: breaks it
	call("record_receipt", `{"order":"o1","amount":20}`) // 2: repairs it
	call("pay_order", `{"order":"o1"}`)                  // 3: refused
	call("pay_order", `{"order":"o2"}`)                  // 4: breaks it
	call("pay_order", `{"order":"nope"}`)                // 5: refused
	call("reopen_order", `{"order":"o2"}`)               // 6: repairs it
	call("pay_order", `{"order":"o2"}`)                  // 7: breaks it again: o2's first step stays 4
	if got, want := steps(&tr), "o1 1 pay_order, o2 4 pay_order"; got != want {
		t.Errorf("trace: %s, want %s", got, want)
	}
	if v := s.Violations(); len(v) != 1 || v[0].ID != "o2" {
		t.Errorf("final violations %v", v)
	}
}

// TestTraceStartState: a record that breaks an always-invariant in the
// start state (a repair task's) is the task's job: it does not count while
// it goes on breaking the rule, only a break after a call that left it
// keeping the rule does. Without Start, it counts at the first call that
// succeeds.
func TestTraceStartState(t *testing.T) {
	w := traceCheck(t)
	task := w.Tasks[1]
	for _, c := range []struct {
		calls   [][2]string
		noStart bool
		want    string
	}{
		{[][2]string{{"get_order", `{"id":"nope"}`}, {"get_order", `{"id":"o3"}`}}, false, ""},
		{[][2]string{{"get_order", `{"id":"nope"}`}, {"get_order", `{"id":"o3"}`}}, true, "o3 2 get_order"},
		{[][2]string{{"pay_order", `{"order":"o2"}`}, {"record_receipt", `{"order":"o3","amount":5}`}}, false, "o2 1 pay_order"},
		{[][2]string{{"reopen_order", `{"order":"o3"}`}, {"get_order", `{"id":"o3"}`}, {"pay_order", `{"order":"o3"}`}}, false, "o3 3 pay_order"},
		{[][2]string{{"record_receipt", `{"order":"o3","amount":5}`}}, false, ""},
		{nil, false, ""},
	} {
		s, err := eval.NewState(w, task)
		if err != nil {
			t.Fatal(err)
		}
		var tr eval.Trace
		if !c.noStart {
			tr.Start(s)
		}
		for _, call := range c.calls {
			_, terr := s.CallJSON(call[0], []byte(call[1]))
			tr.After(s, call[0], terr == nil)
		}
		if got := steps(&tr); got != c.want {
			t.Errorf("%v: trace %q, want %q", c.calls, got, c.want)
		}
	}
}

// TestGradeEpisode: `invariant NAME` of an always-invariant fails when the
// rule broke along the episode, though it holds at the end; Grade, of a
// state alone, cannot see that.
func TestGradeEpisode(t *testing.T) {
	w := traceCheck(t)
	task := w.Tasks[0]
	start, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	s := start.Clone()
	var tr eval.Trace
	for _, call := range [][2]string{{"pay_order", `{"order":"o1"}`}, {"record_receipt", `{"order":"o1","amount":20}`}} {
		_, terr := s.CallJSON(call[0], []byte(call[1]))
		tr.After(s, call[0], terr == nil)
	}
	if g := s.Grade(task, start); g.Reward != 1 || len(g.StepViolations) != 0 {
		t.Errorf("Grade of the final state: %+v", g)
	}
	g := s.GradeEpisode(task, start, &tr)
	if g.Reward != 0.5 || g.Results[1].Passed || len(g.StepViolations) != 1 || len(g.Violations) != 0 {
		t.Fatalf("GradeEpisode: %+v", g)
	}
	if want := `invariant paid_orders_have_receipts violated by Order "o1" after step 1 (pay_order)`; g.Results[1].Detail != want {
		t.Errorf("detail %q, want %q", g.Results[1].Detail, want)
	}
	// The golden solution keeps the rule at every step.
	res, err := eval.RunSolution(w, task)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.FirstBreak() != -1 {
		t.Errorf("golden solution: %s", res.Problem())
	}
}
