package eval

import (
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

func keyIn(e *ir.Entity, key ir.Expr, not bool) ir.Expr {
	return &ir.KeyIn{ExprBase: base(tBool), Entity: e, Key: key, Not: not}
}

func cast(x ir.Expr, t *ir.Type) ir.Expr { return &ir.Cast{ExprBase: base(t), X: x} }

// TestKeysCastsFirst covers `k in E`, `x as T`, first(…) and index(…).
func TestKeysCastsFirst(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	w1 := lookup(x.Order, handle(x.Order, "#W1"))
	ann := lookup(x.User, handle(x.User, "ann"))
	items := fld(w1, x.oItems)
	statusT := x.oStatus.Type
	tests := []struct {
		name string
		x    ir.Expr
		want string
	}{
		{"key of a keyed entity", keyIn(x.Order, sLit("#W2"), false), "true"},
		{"missing key", keyIn(x.Order, sLit("#W9"), false), "false"},
		{"not in", keyIn(x.Order, sLit("#W9"), true), "true"},
		{"not in, present", keyIn(x.Order, sLit("#W1"), true), "false"},
		{"keys are exact", keyIn(x.Order, sLit("#w1"), false), "false"},
		{"id of an entity without a key", keyIn(x.Review, sLit("rev_1"), false), "true"},
		{"a handle is not a key", keyIn(x.User, sLit("Ann"), false), "false"},
		{"key from an expression", keyIn(x.User, fld(w1, x.oUser), false), "true"},
		{"the key's fault", keyIn(x.User, fld(lookup(x.Order, sLit("#W9")), x.oUser), false), `error not_found: Order "#W9" not found`},

		{"cast", cast(sLit("cancelled"), statusT), `"cancelled"`},
		{"cast compares as the enum", eq(cast(call("lower", tString, sLit("PENDING")), statusT), enumLit(x.oStatus, "pending")), "true"},
		{"cast of a value outside the enum", cast(sLit("shipped"), statusT), `error constraint_violation: "shipped" is not a value of Order.status; values: pending, cancelled, modified`},
		{"cast is case-sensitive", cast(sLit("Pending"), statusT), `error constraint_violation: "Pending" is not a value of Order.status; values: pending, cancelled, modified`},
		{"cast of an enum of another type", cast(fld(index(fld(w1, x.oHistory), iLit(0)), x.payKind), statusT), `error constraint_violation: "payment" is not a value of Order.status; values: pending, cancelled, modified`},
		{"cast of null", cast(fld(w1, x.oNote), statusT), "error internal: as Order.status: cannot convert null"},

		{"first over a list", fld(aggIn("first", items, tStruct(x.Item), func(it ir.Expr) (ir.Expr, ir.Expr) {
			return bin(">", fld(it, x.itQty), iLit(1)), nil
		}), x.itID), `"sh_9"`},
		{"first without where", fld(aggIn("first", items, tStruct(x.Item), func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), x.itID), `"kb_linear"`},
		{"first of several matches", fld(aggIn("first", items, tStruct(x.Item), func(it ir.Expr) (ir.Expr, ir.Expr) {
			return bin(">=", fld(it, x.itPrice), iLit(50)), nil
		}), x.itID), `"kb_linear"`},
		{"first over map values, in key order", fld(aggIn("first", fld(ann, x.uMethods), tStruct(x.Method), func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), x.mID), `"gc_1"`},
		{"first over records, in insertion order", idOf(agg("first", x.Order, tRec(x.Order), func(o ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(o, x.oStatus), enumLit(x.oStatus, "pending")), nil
		})), `"#W1"`},
		{"first record is live", fld(agg("first", x.Order, tRec(x.Order), func(o ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(o, x.oUser), sLit("bob")), nil
		}), x.oStatus), `"pending"`},
		{"first: no element", aggIn("first", items, tStruct(x.Item), func(it ir.Expr) (ir.Expr, ir.Expr) {
			return eq(fld(it, x.itID), sLit("nope")), nil
		}), "error internal: first: no element matches"},
		{"first: no record", agg("first", x.Review, tRec(x.Review), func(r ir.Expr) (ir.Expr, ir.Expr) {
			return bin(">", fld(r, x.rStars), iLit(4)), nil
		}), "error internal: first: no Review matches"},
		{"first over null", aggIn("first", fld(w1, x.oReturned), tString, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "error internal: cannot iterate over null"},

		{"index", aggIn("index", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) { return eq(fld(it, x.itID), sLit("sh_9")), nil }), "1"},
		{"index of the first match", aggIn("index", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) { return bin(">", fld(it, x.itPrice), iLit(0)), nil }), "0"},
		{"index: none", aggIn("index", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) { return eq(fld(it, x.itID), sLit("nope")), nil }), "-1"},
		{"index of an empty list", aggIn("index", list(tString), tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "-1"},
	}
	for _, tc := range tests {
		if got := evalText(s, tc.x); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}

	// A failed cast fails the call with constraint_violation and rolls
	// back the writes before it.
	setStatus := adHoc(x.store, []*ir.Param{param("order_id", tString), param("status", tString)}, func(p map[string]ir.Expr) []ir.Stmt {
		order := lookup(x.Order, p["order_id"])
		return []ir.Stmt{
			&ir.Require{Cond: keyIn(x.Order, p["order_id"], false), MessageExpr: bin("+", sLit("no order "), p["order_id"])},
			&ir.Set{Target: order, Field: x.oNote, Value: sLit("changed")},
			&ir.Set{Target: order, Field: x.oStatus, Value: cast(p["status"], statusT)},
			&ir.Return{Value: fld(order, x.oStatus)},
		}
	})
	for _, tc := range []struct{ args, want string }{
		{`{"order_id":"#W1","status":"cancelled"}`, `"cancelled"`},
		{`{"order_id":"#W1","status":"lost"}`, `constraint_violation: "lost" is not a value of Order.status; values: pending, cancelled, modified`},
		{`{"order_id":"#W7","status":"cancelled"}`, `precondition_failed: no order #W7`},
	} {
		s := x.state(t)
		before := s.Hash()
		m, _ := ArgsFromJSON([]byte(tc.args))
		d, err := s.Call(setStatus, m)
		got := ""
		if err != nil {
			got = err.Error()
			if s.Hash() != before {
				t.Errorf("%s: the failed call changed the state", tc.args)
			}
		} else {
			got = d.String()
		}
		if got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.args, got, tc.want)
		}
	}
}
