package eval_test

import (
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

const matchSpec = `world matching {
  title "Matching"
  today 2026-03-14
}

service store "Store" {
  record PaymentMethod by source {
    id string
    case gift_card { balance decimal }
    case paypal {}
  }
  entity User key user_id {
    user_id string
    name    string
    methods map<string, PaymentMethod>
    note    string?
  }
  entity Order {
    user   ref User
    status enum { pending cancelled } = pending
    total  money
  }
  tool get_user: get User
  tool get_order: get Order
  tool cancel(order: ref Order) {
    set order.status = cancelled
  }
  tool same_total(order_id: string, other_id: string) {
    require matches(Order[order_id], { status: cancelled, total: Order[other_id].total }) else "no"
  }
}

seed {
  store.User  ann { user_id: "ann_1", name: "Ann", methods: { "p": PaymentMethod { source: paypal, id: "p" }, "g": PaymentMethod { source: gift_card, id: "g", balance: 5 } } }
  store.Order o1  { user: ann, total: 10 }
}

task t {
  persona     "P"
  instruction "I"
  expect {
    Order[o1] == Order { id: "o1", user: ann, status: cancelled, total: 10 }
    matches(Order[o1], { status: cancelled, total: 12 })
    Order[o1] != Order { id: "o1", user: ann, total: 10 }
    matches(User[ann].methods["p"], { source: paypal, balance: null }) and not matches(User[ann].methods["g"], { balance: null })
    Order["o9"] == Order { id: "o9", user: ann, total: 1 }
    matches(Order[o1].user, { name: "Ann", note: null })
    matches(Order[o1], { id: "o2" })
  }
}
`

// TestMatch covers the semantics of whole-record comparisons and matches:
// absent fields of an entity literal (defaults and nulls), case fields of
// another case, following a ref, the id, faults, the order of evaluation,
// and the report of the fields that differ.
func TestMatch(t *testing.T) {
	// same_total takes ids the search has no candidates for: its
	// semantics, not its reachability, is the point.
	w, ds := compiler.CheckSource("match.world", []byte(matchSpec), compiler.WithoutReachability())
	if w == nil {
		t.Fatal(ds.Text())
	}
	task := w.Tasks[0]
	st, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	start := st.Clone()
	type result struct {
		passed bool
		detail string
	}
	want := []result{
		{false, `status is "pending", want "cancelled"`},
		{false, `status is "pending", want "cancelled"; total is 10, want 12`},
		{false, ""},
		{true, ""},
		{false, `Order "o9" not found`},
		{true, ""},
		{false, `id is "o1", want "o2"`},
	}
	check := func(label string) {
		t.Helper()
		g := st.Grade(task, start)
		for i, r := range g.Results {
			if r.Passed != want[i].passed || r.Detail != want[i].detail {
				t.Errorf("%s: assertion %d (%s): passed %v (%s), want %v (%s)", label, i+1, r.Text, r.Passed, r.Detail, want[i].passed, want[i].detail)
			}
		}
	}
	check("start")
	if _, terr := st.CallJSON("same_total", []byte(`{"order_id":"o1","other_id":"o9"}`)); terr == nil || terr.Code != eval.CodeNotFound || terr.Message != `Order "o9" not found` {
		t.Errorf("a value that faults fails the match even when a field differs before it: %v", terr)
	}
	if _, terr := st.CallJSON("same_total", []byte(`{"order_id":"o8","other_id":"o9"}`)); terr == nil || terr.Message != `Order "o8" not found` {
		t.Errorf("the record is evaluated first: %v", terr)
	}
	if _, terr := st.CallJSON("cancel", []byte(`{"order":"o1"}`)); terr != nil {
		t.Fatal(terr)
	}
	if _, terr := st.CallJSON("same_total", []byte(`{"order_id":"o1","other_id":"o1"}`)); terr != nil {
		t.Errorf("same total: %v", terr)
	}
	want[0] = result{true, ""}
	want[1] = result{false, "total is 10, want 12"}
	want[2] = result{true, ""}
	check("after cancel")

	var m *ir.Match
	if u, ok := task.Assertions[2].Expr.(*ir.Unary); !ok || u.Op != "not" {
		t.Fatalf("!= is not of a match: %T", task.Assertions[2].Expr)
	} else if m, ok = u.X.(*ir.Match); !ok || !m.Whole || len(m.Fields) != 3 || m.ID == nil {
		t.Fatalf("whole match: %+v", u.X)
	}
	if l, ok := m.Fields[1].Value.(*ir.Lit); !ok || m.Fields[1].Field.Name != "status" || l.Value.Str != "pending" {
		t.Errorf("an absent defaulted field is its default: %+v", m.Fields[1])
	}
	pm := task.Assertions[5].Expr.(*ir.Match)
	if _, ok := pm.X.(*ir.Deref); !ok || pm.Whole || len(pm.Fields) != 2 || pm.Fields[0].Field.Name != "name" {
		t.Errorf("matches on a ref follows it: %+v", pm)
	}
}
