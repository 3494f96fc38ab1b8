package eval

import (
	"math"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

const (
	w1JSON  = `{"order_id":"#W1","user":"ann","items":[{"item_id":"kb_linear","product":"p_kb","price":100,"options":{"switch":"linear"},"qty":1},{"item_id":"sh_9","product":"p_sh","price":50,"options":{"color":"red","size":"9"},"qty":2}],"status":"pending","history":[{"kind":"payment","amount":200,"method":"gc_1"}],"note":null,"returned":null}`
	annJSON = `{"user_id":"ann","name":"Ann","address":{"line1":"1 Main","line2":null,"city":"Paris","zip":"75001","country":"FR"},"methods":{"gc_1":{"source":"gift_card","id":"gc_1","balance":10},"pp_1":{"source":"paypal","id":"pp_1"}},"orders":["#W1","#W2"],"tags":["vip"]}`
)

// TestCompositeJSON pins the JSON of keyed records (no "id"), value
// records (AllFields order), variants (only the case's fields), maps (key
// order) and lists, in observations and snapshots.
func TestCompositeJSON(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	if got := mustCall(t, s, "get_order", `{"id":"#W1"}`); got != w1JSON {
		t.Errorf("get_order = %s", got)
	}
	if got := mustCall(t, s, "get_user", `{"id":"ann"}`); got != annJSON {
		t.Errorf("get_user = %s", got)
	}
	if d, _ := s.RecordJSON(x.Review, "rev_1"); string(d) != `{"id":"rev_1","order":"#W2","stars":4}` {
		t.Errorf("unkeyed record: %s", d)
	}
	js := string(s.JSON())
	for _, want := range []string{
		`{"Product":[{"product_id":"p_kb","name":"Keyboard","variants":{"kb_clicky":{"price":90,"available":false},"kb_linear":`,
		`"User":[` + annJSON + `,`,
		`"Order":[` + w1JSON + `,`,
		`"Review":[{"id":"rev_1","order":"#W2","stars":4}]}`,
	} {
		if !strings.Contains(js, want) {
			t.Errorf("state JSON lacks %s:\n%s", want, js)
		}
	}
	d, err := s.CallJSON("get_order", []byte(`{"id":"#W1"}`))
	if err != nil || d.ID() != "#W1" {
		t.Errorf("keyed record id: %q %v", d.ID(), err)
	}
	if got := mustCall(t, s, "product_types", `{}`); got != `{"Keyboard":"p_kb","Shoes":"p_sh"}` {
		t.Errorf("product_types = %s", got)
	}
	if got := mustCall(t, s, "find_item", `{"item_id":"sh_10"}`); got != `{"price":55.25,"available":true}` {
		t.Errorf("find_item = %s", got)
	}
}

func TestCompositeExpressions(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	w1 := lookup(x.Order, handle(x.Order, "#W1"))
	ann := lookup(x.User, handle(x.User, "ann"))
	items := fld(w1, x.oItems)
	methods := fld(ann, x.uMethods)
	strs := func(ss ...string) ir.Expr {
		var es []ir.Expr
		for _, s := range ss {
			es = append(es, sLit(s))
		}
		return list(tString, es...)
	}
	decs := func(fs ...float64) ir.Expr {
		var es []ir.Expr
		for _, f := range fs {
			es = append(es, dLit(f))
		}
		return list(tDecimal, es...)
	}
	nan := binT("/", dLit(0), dLit(0), tDecimal)
	negZero := neg(dLit(0))
	addr := func(city ir.Expr) ir.Expr {
		return structLit(x.Address, nil, x.aLine1, sLit("l"), x.aCity, city, x.aZip, sLit("z"))
	}
	tests := []struct {
		name string
		x    ir.Expr
		want string
	}{
		// Index.
		{"list index", fld(index(items, iLit(1)), x.itID), `"sh_9"`},
		{"list index out of range", index(items, iLit(2)), "error internal: list index 2 out of range (length 2)"},
		{"negative index", index(items, iLit(-1)), "error internal: list index -1 out of range (length 2)"},
		{"map index", fld(index(methods, sLit("gc_1")), x.mBalance), "10"},
		{"missing key", index(methods, sLit("nope")), `error internal: map has no key "nope"`},
		{"index of null", index(fld(w1, x.oReturned), iLit(0)), "error internal: cannot index null"},
		{"map index through a ref", fld(index(via(fld(index(items, iLit(0)), x.itProduct), x.pVariants), sLit("kb_tactile")), x.vPrice), "120.5"},

		// Value records.
		{"field of a value record", fld(fld(ann, x.uAddress), x.aCity), `"Paris"`},
		{"unset optional field", fld(fld(ann, x.uAddress), x.aLine2), "null"},
		{"case field of another case reads null", fld(index(methods, sLit("pp_1")), x.mBalance), "null"},
		{"the tag", fld(index(methods, sLit("pp_1")), x.Method.Tag), `"paypal"`},
		{"field of null", fld(&ir.Lit{ExprBase: base(tOpt(tStruct(x.Address))), Value: vNull()}, x.aCity), "error internal: cannot read field city of null"},
		{"literal with default", addr(sLit("c")), `{"line1":"l","line2":null,"city":"c","zip":"z","country":"US"}`},
		{"literal overriding default", structLit(x.Address, nil, x.aLine1, sLit("l"), x.aCity, sLit("c"), x.aZip, sLit("z"), x.aCountry, sLit("FR")), `{"line1":"l","line2":null,"city":"c","zip":"z","country":"FR"}`},
		{"variant literal", structLit(x.Method, x.giftCard, x.mID, sLit("g"), x.mBalance, iLit(3)), `{"source":"gift_card","id":"g","balance":3}`},
		{"variant literal without case fields", structLit(x.Method, x.paypal, x.mID, sLit("p")), `{"source":"paypal","id":"p"}`},
		{"record values equal", eq(addr(sLit("c")), addr(sLit("c"))), "true"},
		{"record values differ", eq(addr(sLit("c")), addr(sLit("d"))), "false"},
		{"record value from the state", eq(fld(ann, x.uAddress), structLit(x.Address, nil, x.aLine1, sLit("1 Main"), x.aCity, sLit("Paris"), x.aZip, sLit("75001"), x.aCountry, sLit("FR"))), "true"},

		// Lists and maps.
		{"list literal typed decimal", list(tDecimal, iLit(1), dLit(2.5)), "[1,2.5]"},
		{"list equality", eq(strs("a", "b"), strs("a", "b")), "true"},
		{"list equality is ordered", eq(strs("a", "b"), strs("b", "a")), "false"},
		{"list with NaN is unequal", eq(list(tDecimal, nan), list(tDecimal, nan)), "false"},
		{"map literal sorted", mapLit(tInt, "b", iLit(2), "a", iLit(1)), `{"a":1,"b":2}`},
		{"map equality", eq(mapLit(tInt, "a", iLit(1)), mapLit(tInt, "a", iLit(1))), "true"},
		{"map equality by values", eq(mapLit(tInt, "a", iLit(1)), mapLit(tInt, "a", iLit(2))), "false"},
		{"empty map", mapLit(tString), "{}"},
		{"empty list", list(tString), "[]"},
		{"in list", bin("in", sLit("#W2"), fld(ann, x.uOrders)), "true"},
		{"not in list", bin("notin", sLit("#W3"), fld(ann, x.uOrders)), "true"},
		{"in map keys", bin("in", sLit("pp_1"), methods), "true"},
		{"not in map keys", bin("in", sLit("gift"), methods), "false"},
		{"in null", bin("in", sLit("a"), fld(w1, x.oReturned)), "error internal: in: null is not a list or a map"},
		{"ordering lists", bin("<", strs("a"), strs("b")), "error internal: cannot compare list < list"},

		// Functions.
		{"len list", call("len", tInt, items), "2"},
		{"len map", call("len", tInt, methods), "2"},
		{"len string", call("len", tInt, sLit("héllo")), "5"},
		{"len null", call("len", tInt, fld(w1, x.oReturned)), "error internal: len: argument 1 is null"},
		{"keys", call("keys", tList(tString), fld(index(items, iLit(1)), x.itOptions)), `["color","size"]`},
		{"keys of a list", call("keys", tList(tString), strs("a")), "error internal: keys(list): unsupported argument types"},
		{"append", call("append", tList(tString), strs("a"), sLit("b")), `["a","b"]`},
		{"append converts", call("append", tList(tDecimal), decs(1.5), iLit(2)), `[1.5,2]`},
		{"append null element", call("append", tList(tOpt(tString)), strs("a"), nullLit()), `["a",null]`},
		{"append to null", call("append", tList(tString), fld(w1, x.oReturned), sLit("a")), "error internal: append: argument 1 is null"},
		{"sorted strings byte-wise", call("sorted", tList(tString), strs("b", "B", "a", "é", "")), `["","B","a","b","é"]`},
		{"sorted numbers", call("sorted", tList(tDecimal), list(tDecimal, dLit(2.5), iLit(-1), nan, dLit(0))), `[null,-1,0,2.5]`},
		{"sorted is stable", call("sorted", tList(tDecimal), list(tDecimal, dLit(0), negZero, dLit(-1))), `[-1,0,-0]`},
		{"sorted ints", call("sorted", tList(tInt), list(tInt, iLit(3), iLit(-7), iLit(3))), `[-7,3,3]`},
		{"sorted dates", call("sorted", tList(tDate), list(tDate, dateLit("2026-02-01"), dateLit("2025-12-31"))), `["2025-12-31","2026-02-01"]`},
		{"sorted with null", call("sorted", tList(tOpt(tString)), list(tOpt(tString), sLit("a"), nullLit())), "error internal: sorted: the list holds null"},
		{"sorted bools", call("sorted", tList(tBool), list(tBool, bLit(true))), "error internal: sorted: cannot order bool values"},
		{"sorted copies", call("len", tInt, call("sorted", tList(tString), strs())), "0"},
		{"coalesce list", call("coalesce", tList(tString), fld(w1, x.oReturned), strs()), "[]"},

		// Aggregates over lists and maps.
		{"sum left to right", aggIn("sum", decs(0.1, 0.2, 0.3), tDecimal, func(v ir.Expr) (ir.Expr, ir.Expr) { return nil, v }), "0.6000000000000001"},
		{"sum of ints", aggIn("sum", list(tInt, iLit(2), iLit(3)), tInt, func(v ir.Expr) (ir.Expr, ir.Expr) { return nil, v }), "5"},
		{"count where", aggIn("count", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) { return bin(">", fld(it, x.itQty), iLit(1)), nil }), "1"},
		{"exists over map values", aggIn("exists", methods, tBool, func(m ir.Expr) (ir.Expr, ir.Expr) { return eq(fld(m, x.mID), sLit("pp_1")), nil }), "true"},
		{"forall over map values", aggIn("forall", methods, tBool, func(m ir.Expr) (ir.Expr, ir.Expr) {
			return nil, eq(fld(m, x.Method.Tag), litT(vEnum("gift_card"), x.Method.Tag.Type))
		}), "false"},
		{"max over map values, nulls skipped", aggIn("max", methods, tDecimal, func(m ir.Expr) (ir.Expr, ir.Expr) { return nil, fld(m, x.mBalance) }), "10"},
		{"min over no elements", aggIn("min", strs(), tDecimal, func(v ir.Expr) (ir.Expr, ir.Expr) { return nil, call("len", tInt, v) }), "0"},
		{"aggregate over null", aggIn("count", fld(w1, x.oReturned), tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), "error internal: cannot iterate over null"},
		{"nested aggregates", aggIn("sum", items, tInt, func(it ir.Expr) (ir.Expr, ir.Expr) {
			return nil, aggIn("count", fld(it, x.itOptions), tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil })
		}), "3"},
	}
	for _, tc := range tests {
		if got := evalText(s, tc.x); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestAssign covers writes through paths: what they change, the
// constraints checked on the written field as a whole, the errors of a
// path that does not fit, and copy-on-write.
func TestAssign(t *testing.T) {
	x := newShop(t)
	orderID := func(more ...*ir.Param) []*ir.Param { return append([]*ir.Param{param("order_id", tString)}, more...) }
	order := func(p map[string]ir.Expr) ir.Expr { return lookup(x.Order, p["order_id"]) }
	write := func(value ir.Expr, path ...ir.PathStep) *ir.Tool {
		return adHoc(x.store, orderID(), func(p map[string]ir.Expr) []ir.Stmt {
			return []ir.Stmt{assign(order(p), value, path...), &ir.Return{Value: order(p)}}
		})
	}
	user := func(value ir.Expr, path ...ir.PathStep) *ir.Tool {
		return adHoc(x.store, []*ir.Param{param("user", tRef(x.User))}, func(p map[string]ir.Expr) []ir.Stmt {
			return []ir.Stmt{assign(p["user"], value, path...), &ir.Return{Value: fld(p["user"], x.uMethods)}}
		})
	}
	item0 := []ir.PathStep{pf(x.oItems), pi(iLit(0))}
	at := func(steps ...ir.PathStep) []ir.PathStep {
		return append(append([]ir.PathStep(nil), item0...), steps...)
	}
	tests := []struct {
		tool      *ir.Tool
		args      string
		want, err string
	}{
		{write(dLit(7.5), at(pf(x.itPrice))...), `{"order_id":"#W1"}`, `"price":7.5,`, ""},
		{write(iLit(7), at(pf(x.itPrice))...), `{"order_id":"#W1"}`, `"price":7,`, ""},
		{write(sLit("v"), at(pf(x.itOptions), pi(sLit("new")))...), `{"order_id":"#W1"}`, `"options":{"new":"v","switch":"linear"}`, ""},
		{write(sLit("v"), at(pf(x.itOptions), pi(sLit("switch")))...), `{"order_id":"#W1"}`, `"options":{"switch":"v"}`, ""},
		{write(mapLit(tString), at(pf(x.itOptions))...), `{"order_id":"#W1"}`, `"options":{},"qty":1}`, ""},
		{write(list(tString, sLit("b")), pf(x.oReturned)), `{"order_id":"#W1"}`, `"returned":["b"]}`, ""},
		// Errors of the spec: internal.
		{write(dLit(1), pf(x.oItems), pi(iLit(5)), pf(x.itPrice)), `{"order_id":"#W1"}`, "", "internal: list index 5 out of range (length 2)"},
		{write(sLit("x"), pf(x.oReturned), pi(iLit(0))), `{"order_id":"#W1"}`, "", "internal: cannot index null"},
		{user(dLit(1), pf(x.uMethods), pi(sLit("nope")), pf(x.mBalance)), `{"user":"ann"}`, "", `internal: map has no key "nope"`},
		{write(dLit(1), pf(x.oItems), pf(x.itPrice)), `{"order_id":"#W1"}`, "", "internal: cannot read field price of list"},
		{write(dLit(1), pf(x.oItems), pi(sLit("a"))), `{"order_id":"#W1"}`, "", "internal: cannot index list with string"},
		{write(dLit(1), at(pf(x.aCity))...), `{"order_id":"#W1"}`, "", "internal: Item has no field city"},
		{write(dLit(1), at(pf(x.itPrice))...), `{"order_id":"#W9"}`, "", `not_found: Order "#W9" not found`},
		// Constraints of the written field, at any depth.
		{write(dLit(-1), at(pf(x.itPrice))...), `{"order_id":"#W1"}`, "", "constraint_violation: Order.items[0].price must be >= 0, got -1"},
		{write(binT("/", dLit(0), dLit(0), tDecimal), at(pf(x.itPrice))...), `{"order_id":"#W1"}`, "", "constraint_violation: Order.items[0].price must be a finite number, got NaN"},
		{write(nullLit(), at(pf(x.itID))...), `{"order_id":"#W1"}`, "", "constraint_violation: Order.items[0].item_id is required"},
		{write(sLit("x"), at(pf(x.itQty))...), `{"order_id":"#W1"}`, "", "constraint_violation: Order.items[0].qty must be int, got string"},
		{write(iLit(0), at(pf(x.itQty))...), `{"order_id":"#W1"}`, "", "constraint_violation: Order.items[0].qty must be >= 1, got 0"},
		{write(sLit("gift"), pf(x.oHistory), pi(iLit(0)), pf(x.payKind)), `{"order_id":"#W1"}`, "", `constraint_violation: Order.history[0].kind must be one of payment, refund, got "gift"`},
		{write(iLit(1), at(pf(x.itOptions), pi(sLit("k")))...), `{"order_id":"#W1"}`, "", `constraint_violation: Order.items[0].options["k"] must be string, got int`},
		{write(nullLit(), at(pf(x.itOptions), pi(sLit("k")))...), `{"order_id":"#W1"}`, "", `constraint_violation: Order.items[0].options["k"] is required`},
		{write(sLit("#W7"), pf(x.oID)), `{"order_id":"#W1"}`, "", `constraint_violation: Order.order_id cannot be changed: it is the key of Order "#W1"`},
		{write(sLit("#W1"), pf(x.oID)), `{"order_id":"#W1"}`, `"order_id":"#W1"`, ""},
		{user(dLit(5), pf(x.uMethods), pi(sLit("pp_1")), pf(x.mBalance)), `{"user":"ann"}`, "", `constraint_violation: User.methods["pp_1"].balance belongs to case gift_card, not paypal`},
		{user(nullLit(), pf(x.uMethods), pi(sLit("pp_1")), pf(x.mBalance)), `{"user":"ann"}`, `"pp_1":{"source":"paypal","id":"pp_1"}`, ""},
		// Changing the case: the fields must fit the new one.
		{user(litT(vEnum("paypal"), x.Method.Tag.Type), pf(x.uMethods), pi(sLit("gc_1")), pf(x.Method.Tag)), `{"user":"ann"}`, "", `constraint_violation: User.methods["gc_1"].balance belongs to case gift_card, not paypal`},
		{user(litT(vEnum("gift_card"), x.Method.Tag.Type), pf(x.uMethods), pi(sLit("pp_1")), pf(x.Method.Tag)), `{"user":"ann"}`, "", `constraint_violation: User.methods["pp_1"].balance is required`},
		{user(sLit("cash"), pf(x.uMethods), pi(sLit("pp_1")), pf(x.Method.Tag)), `{"user":"ann"}`, "", `constraint_violation: User.methods["pp_1"].source must be one of gift_card, card, paypal, got "cash"`},
		{user(structLit(x.Method, x.paypal, x.mID, sLit("gc_1")), pf(x.uMethods), pi(sLit("gc_1"))), `{"user":"ann"}`, `"gc_1":{"source":"paypal","id":"gc_1"}`, ""},
		{user(structLit(x.Method, x.giftCard, x.mID, sLit("g")), pf(x.uMethods), pi(sLit("g"))), `{"user":"ann"}`, "", `constraint_violation: User.methods["g"].balance is required`},
	}
	for i, tc := range tests {
		s := x.state(t)
		before := s.Hash()
		m, _ := ArgsFromJSON([]byte(tc.args))
		d, err := s.Call(tc.tool, m)
		if err != nil {
			if tc.err == "" || err.Error() != tc.err {
				t.Errorf("%d: error %v, want %q", i, err, tc.err)
			}
			if s.Hash() != before {
				t.Errorf("%d: the failed call changed the state", i)
			}
			continue
		}
		if tc.err != "" || !strings.Contains(d.String(), tc.want) {
			t.Errorf("%d: got %s, want %s / error %q", i, d, tc.want, tc.err)
		}
		if p := s.CheckConstraints(); len(p) > 0 {
			t.Errorf("%d: constraint problems after the call: %v", i, p)
		}
	}

	// Locals: a var rebinds; a path into a local list/map changes only the
	// local; an unbound local is the spec's fault.
	v := &ir.Var{Name: "v", Type: tList(tMap(tInt))}
	n := &ir.Var{Name: "n", Type: tDecimal}
	locals := adHoc(x.store, nil, func(map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			varDecl(n, iLit(1)),
			assign(vr(n), bin("+", vr(n), dLit(0.5))),
			varDecl(v, list(tMap(tInt), mapLit(tInt, "a", iLit(1)), mapLit(tInt))),
			assign(vr(v), iLit(2), pi(iLit(1)), pi(sLit("b"))),
			assign(vr(v), iLit(3), pi(iLit(0)), pi(sLit("a"))),
			&ir.Return{Value: list(nil, vr(n), vr(v))},
		}
	})
	s := x.state(t)
	if got, err := s.Call(locals, nil); err != nil || got.String() != `[1.5,[{"a":3},{"b":2}]]` {
		t.Errorf("locals = %s, %v", got, err)
	}
	unbound := adHoc(x.store, nil, func(map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{assign(vr(n), dLit(1))}
	})
	if _, err := s.Call(unbound, nil); err == nil || err.Error() != "internal: variable n is not bound" {
		t.Errorf("unbound local: %v", err)
	}
	// A deleted record cannot be written through a path.
	rev := &ir.Var{Name: "r", Type: tRec(x.Order)}
	delWrite := adHoc(x.store, orderID(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Let{Var: rev, Value: order(p)},
			&ir.Delete{Target: vr(rev)},
			assign(vr(rev), dLit(1), at(pf(x.itPrice))...),
		}
	})
	mustCall(t, s, "create_order", `{"order_id":"#N","user":"bob","items":[{"item_id":"i","product":"p_kb","price":1,"options":{}}],"status":"pending","history":[]}`)
	if _, err := s.Call(delWrite, map[string]*ir.Value{"order_id": vStr("#N")}); err == nil || err.Error() != `not_found: Order "#N" not found` {
		t.Errorf("write after delete: %v", err)
	}
}

// TestNoAliasing: locals, loop snapshots, earlier observations and clones
// keep their values when the state is written through paths.
func TestNoAliasing(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	before, err := s.CallJSON("get_order", []byte(`{"id":"#W2"}`))
	if err != nil {
		t.Fatal(err)
	}
	users, _ := s.CallJSON("get_user", []byte(`{"id":"ann"}`))
	clone := s.Clone()
	cloneHash := clone.Hash()
	// copies: [all[0].price, first.price, order.items[0].price, opts, order.items[0].options]
	if got := mustCall(t, s, "copies", `{"order_id":"#W2"}`); got != `[55.25,55.25,1.5,{"mine":"local","size":"10"},{"new":"x","size":"10"}]` {
		t.Errorf("copies = %s", got)
	}
	mustCall(t, s, "cancel_order", `{"order_id":"#W1"}`)
	mustCall(t, s, "set_balance", `{"user":"ann","method":"gc_1","balance":1}`)
	if !strings.Contains(before.String(), `"price":55.25,`) || users.String() != annJSON {
		t.Errorf("earlier observations changed: %s %s", before, users)
	}
	if clone.Hash() != cloneHash || string(mustCall(t, clone, "get_user", `{"id":"ann"}`)) != annJSON {
		t.Errorf("the clone changed")
	}
	if got := mustCall(t, s, "get_order", `{"id":"#W2"}`); !strings.Contains(got, `"price":1.5,`) {
		t.Errorf("the write is lost: %s", got)
	}
	// The undo log holds the old values: a failing call after nested
	// writes restores them.
	failing := adHoc(x.store, []*ir.Param{param("user", tRef(x.User))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			assign(p["user"], dLit(99), pf(x.uMethods), pi(sLit("gc_1")), pf(x.mBalance)),
			assign(p["user"], sLit("Rome"), pf(x.uAddress), pf(x.aCity)),
			assign(p["user"], sLit("x"), pf(x.uOrders), pi(iLit(0))),
			&ir.Fail{MessageExpr: bin("+", sLit("balance is "), call("upper", tString, fld(fld(p["user"], x.uAddress), x.aCity)))},
		}
	})
	h := s.Hash()
	_, terr := s.Call(failing, map[string]*ir.Value{"user": vRef("ann")})
	if terr == nil || terr.Error() != "precondition_failed: balance is ROME" || s.Hash() != h {
		t.Errorf("failing call: %v; state restored: %v", terr, s.Hash() == h)
	}
}

// TestLoopsOverValues: for over lists and maps iterates a snapshot taken
// when the loop starts, in order (maps in key order), with the index or
// key; the body reads the current state, earlier writes of the same call
// included (tau2 quirks Q1 and Q2).
func TestLoopsOverValues(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	// cancel_order appends to the history it iterates: one refund per
	// entry present at the start.
	mustCall(t, s, "create_order", `{"order_id":"#P","user":"ann","items":[],"status":"pending","history":[{"kind":"payment","amount":3.005,"method":"gc_1"},{"kind":"refund","amount":1,"method":"gc_1"},{"kind":"payment","amount":2,"method":"pp_1"}]}`)
	got := mustCall(t, s, "cancel_order", `{"order_id":"#P"}`)
	if !strings.HasSuffix(got, `"history":[{"kind":"payment","amount":3.005,"method":"gc_1"},{"kind":"refund","amount":1,"method":"gc_1"},{"kind":"payment","amount":2,"method":"pp_1"},{"kind":"refund","amount":3.005,"method":"gc_1"},{"kind":"refund","amount":1,"method":"gc_1"},{"kind":"refund","amount":2,"method":"pp_1"}],"note":null,"returned":null}`) {
		t.Errorf("cancel = %s", got)
	}
	// Balance: round(round(10 + 3.005, 2) + 1, 2), refunds refunded too;
	// 10 + 3.005 is 13.004999999999999, which Python's round makes 13.0.
	if got := mustCall(t, s, "get_user", `{"id":"ann"}`); !strings.Contains(got, `"gc_1":{"source":"gift_card","id":"gc_1","balance":14}`) {
		t.Errorf("balance: %s", got)
	}

	// Q1 and Q2: items [a, b] of one product, item_ids [a, b], new_ids
	// [b, c]: the first item is renamed twice (to b, then to c) and takes
	// the last new variant's (c's) price; the second is untouched.
	mustCall(t, s, "create_order", `{"order_id":"#Q","user":"bob","items":[{"item_id":"kb_linear","product":"p_kb","price":100,"options":{}},{"item_id":"kb_tactile","product":"p_kb","price":120.5,"options":{}}],"status":"pending","history":[]}`)
	if got := mustCall(t, s, "modify_items", `{"order_id":"#Q","item_ids":["kb_linear","kb_tactile"],"new_ids":["kb_tactile","kb_silent"]}`); got != "10" {
		t.Errorf("diff = %s", got)
	}
	if got := mustCall(t, s, "get_order", `{"id":"#Q"}`); !strings.Contains(got, `"items":[{"item_id":"kb_silent","product":"p_kb","price":110,"options":{},"qty":1},{"item_id":"kb_tactile","product":"p_kb","price":120.5,"options":{},"qty":1}],"status":"modified"`) {
		t.Errorf("Q2: %s", got)
	}
	for _, tc := range []struct{ args, err string }{
		{`{"order_id":"#W3","item_ids":["kb_tactile"],"new_ids":["kb_clicky"]}`, "precondition_failed: New item kb_clicky not found or available"},
		{`{"order_id":"#W3","item_ids":["kb_tactile"],"new_ids":["sh_9"]}`, "precondition_failed: Variant not found"},
		{`{"order_id":"#W3","item_ids":["zz"],"new_ids":["kb_linear"]}`, "precondition_failed: Item zz not found"},
		{`{"order_id":"#W3","item_ids":["kb_tactile"],"new_ids":[]}`, "precondition_failed: The number of items to be exchanged should match"},
	} {
		if err := callErr(t, s, "modify_items", tc.args); err.Error() != tc.err {
			t.Errorf("modify_items(%s) = %v, want %s", tc.args, err, tc.err)
		}
	}
	// Empty lists are accepted (tau2 Q8).
	if got := mustCall(t, s, "modify_items", `{"order_id":"#W3","item_ids":[],"new_ids":[]}`); got != "0" {
		t.Errorf("empty modify = %s", got)
	}

	// Keys, where, maps in key order, return from inside the loop, null
	// source.
	k := &ir.Var{Name: "out", Type: tList(tString)}
	walk := adHoc(x.store, []*ir.Param{param("m", tMap(tInt))}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			varDecl(k, list(tString)),
			forIn(p["m"], true, func(key, v ir.Expr) (ir.Expr, []ir.Stmt) {
				return bin(">", v, iLit(0)), []ir.Stmt{
					assign(vr(k), call("append", tList(tString), vr(k), key)),
					&ir.If{Cond: eq(v, iLit(99)), Then: []ir.Stmt{&ir.Return{Value: vr(k)}}},
				}
			}),
			&ir.Return{Value: vr(k)},
		}
	})
	for args, want := range map[string]string{
		`{"m":{"b":1,"a":2,"c":0,"d":-1}}`: `["a","b"]`,
		`{"m":{"b":1,"a":99,"c":3}}`:       `["a"]`,
		`{"m":{}}`:                         `[]`,
	} {
		m, _ := ArgsFromJSON([]byte(args))
		if d, err := s.Call(walk, m); err != nil || d.String() != want {
			t.Errorf("walk(%s) = %s, %v; want %s", args, d, err, want)
		}
	}
	nullLoop := adHoc(x.store, nil, func(map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{forIn(fld(lookup(x.Order, sLit("#W1")), x.oReturned), false, func(_, _ ir.Expr) (ir.Expr, []ir.Stmt) { return nil, nil })}
	})
	if _, err := s.Call(nullLoop, nil); err == nil || err.Error() != "internal: cannot iterate over null" {
		t.Errorf("loop over null: %v", err)
	}
}

func TestCompositeArguments(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	tests := []struct{ tool, args, want string }{
		// Value records: defaults, optional fields, unknown and missing
		// fields, nested types.
		{"set_address", `{"user":"bob","address":{"line1":"L","city":"C","zip":"Z"}}`, `{"line1":"L","line2":null,"city":"C","zip":"Z","country":"US"}`},
		{"set_address", `{"user":"bob","address":{"line1":"L","line2":null,"city":"C","zip":"Z","country":null}}`, `{"line1":"L","line2":null,"city":"C","zip":"Z","country":"US"}`},
		{"set_address", `{"user":"bob","address":{"line1":"L","city":"C"}}`, `invalid_arguments: argument "address": missing required field "zip"`},
		{"set_address", `{"user":"bob","address":{"line1":"L","city":"C","zip":"Z","zipp":1}}`, `invalid_arguments: argument "address": unknown field "zipp"`},
		{"set_address", `{"user":"bob","address":{"line1":"L","city":"C","zip":75001}}`, `invalid_arguments: argument "address": .zip: expected string, got int`},
		{"set_address", `{"user":"bob","address":["L"]}`, `invalid_arguments: argument "address": expected Address, got array`},
		{"set_address", `{"user":"bob","address":"L"}`, `invalid_arguments: argument "address": expected Address, got string`},
		{"set_address", `{"user":"bob","address":{"line1":"L","city":"C","zip":"Z","city":"D"}}`, `{"line1":"L","line2":null,"city":"D","zip":"Z","country":"US"}`},
		// Variants: the tag picks the case.
		{"add_method", `{"user":"bob","method":{"source":"gift_card","id":"g","balance":0}}`, `{"cc_1":{"source":"card","id":"cc_1","brand":"visa","last_four":"4242"},"g":{"source":"gift_card","id":"g","balance":0}}`},
		{"add_method", `{"user":"bob","method":{"source":"paypal","id":"p","balance":null}}`, `"p":{"source":"paypal","id":"p"}`},
		{"add_method", `{"user":"bob","method":{"id":"g"}}`, `invalid_arguments: argument "method": missing required field "source"`},
		{"add_method", `{"user":"bob","method":{"source":"cash","id":"g"}}`, `invalid_arguments: argument "method": .source: "cash" is not one of gift_card, card, paypal`},
		{"add_method", `{"user":"bob","method":{"source":"paypal","id":"g","brand":"visa"}}`, `invalid_arguments: argument "method": field "brand" belongs to case card, not paypal`},
		{"add_method", `{"user":"bob","method":{"source":"card","id":"g","brand":"visa"}}`, `invalid_arguments: argument "method": missing required field "last_four"`},
		{"add_method", `{"user":"bob","method":{"source":"gift_card","id":"g9","balance":-1}}`, `constraint_violation: User.methods["g9"].balance must be >= 0, got -1`},
		{"add_method", `{"user":"bob","method":{"source":"paypal","id":"cc_1"}}`, `precondition_failed: Payment method cc_1 exists`},
		// Lists and maps.
		{"tag_user", `{"user":"bob","tags":["vip","new","vip"]}`, `"tags":["new","vip","vip"]}`},
		{"tag_user", `{"user":"bob","tags":[]}`, `"tags":[]}`},
		{"tag_user", `{"user":"bob","tags":["vip","old"]}`, `invalid_arguments: argument "tags": [1]: "old" is not one of vip, new`},
		{"tag_user", `{"user":"bob","tags":["vip",null]}`, `invalid_arguments: argument "tags": [1]: expected enum, got null`},
		{"tag_user", `{"user":"bob","tags":{"a":"vip"}}`, `invalid_arguments: argument "tags": expected list<enum>, got object`},
		{"tag_user", `{"user":"bob","tags":"vip"}`, `invalid_arguments: argument "tags": expected list<enum>, got string`},
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":1,"options":{"b":"2","a":"1"}}}`, `[{"item_id":"x","product":"p_kb","price":1,"options":{"a":"1","b":"2"},"qty":1}]`},
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":1,"options":{"a":1}}}`, `invalid_arguments: argument "item": .options["a"]: expected string, got int`},
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":1,"options":[]}}`, `invalid_arguments: argument "item": .options: expected map<string, string>, got array`},
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":"1","options":{}}}`, `invalid_arguments: argument "item": .price: expected decimal, got string`},
		// Refs inside composite arguments are looked up, after every
		// argument is decoded.
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_zz","price":1,"options":{}}}`, `not_found: Product "p_zz" not found`},
		{"set_item", `{"order_id":"#W3","index":"0","item":{"item_id":"x","product":"p_zz","price":1,"options":{}}}`, `invalid_arguments: argument "index": expected int, got string`},
		{"set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":-1,"options":{}}}`, `constraint_violation: Order.items[0].price must be >= 0, got -1`},
		{"set_item", `{"order_id":"#W3","index":1,"item":{"item_id":"x","product":"p_kb","price":1,"options":{}}}`, `internal: list index 1 out of range (length 1)`},
		{"create_order", `{"order_id":"#N","user":"bob","items":[{"item_id":"x","product":"p_kb","price":1,"options":{},"qty":2}],"status":"pending","history":[]}`, `{"order_id":"#N","user":"bob","items":[{"item_id":"x","product":"p_kb","price":1,"options":{},"qty":2}],"status":"pending","history":[],"note":null,"returned":null}`},
		{"create_order", `{"order_id":"#N2","user":"bob","items":[{"item_id":"x","product":"p_no","price":1,"options":{}}],"status":"pending","history":[]}`, `not_found: Product "p_no" not found`},
		{"find_orders", `{"items":[{"item_id":"x","product":"p_kb","price":1,"options":{},"qty":2}]}`, `[{"order_id":"#N",`},
		{"find_orders", `{"items":[{"item_id":"x","product":"p_kb","price":1,"options":{}}]}`, `[]`},
		{"find_orders", `{"note":"GI"}`, `[{"order_id":"#W2",`},
	}
	for _, tc := range tests {
		before := s.Hash()
		d, err := s.CallJSON(tc.tool, []byte(tc.args))
		got := d.String()
		if err != nil {
			got = err.Error()
			if s.Hash() != before {
				t.Errorf("%s(%s) failed but changed the state", tc.tool, tc.args)
			}
		}
		if got != tc.want && (err != nil || !strings.Contains(got, tc.want)) {
			t.Errorf("%s(%s)\n got %s\nwant %s", tc.tool, tc.args, got, tc.want)
		}
	}

	// Composite constants as arguments (solution steps): lists, maps and
	// record constants (fields in AllFields order).
	d, err := s.Call(x.addMethod, map[string]*ir.Value{"user": vRef("bob"), "method": vStruct(vEnum("gift_card"), vStr("g2"), vInt(5), nil, nil)})
	if err != nil || !strings.Contains(d.String(), `"g2":{"source":"gift_card","id":"g2","balance":5}`) {
		t.Errorf("record constant argument: %s %v", d, err)
	}
	if _, err := s.Call(x.addMethod, map[string]*ir.Value{"user": vRef("bob"), "method": vStruct(vEnum("paypal"), vStr("g3"), vInt(5), nil, nil)}); err == nil || err.Message != `argument "method": field "balance" belongs to case gift_card, not paypal` {
		t.Errorf("record constant of the wrong case: %v", err)
	}
	if _, err := s.Call(x.addMethod, map[string]*ir.Value{"user": vRef("bob"), "method": vStruct(vEnum("paypal"))}); err == nil || err.Message != `argument "method": expected Method, got object` {
		t.Errorf("short record constant: %v", err)
	}
	if d, err := s.Call(x.tagUser, map[string]*ir.Value{"user": vRef("bob"), "tags": vList(vEnum("new"))}); err != nil || !strings.HasSuffix(d.String(), `"tags":["new"]}`) {
		t.Errorf("list constant: %s %v", d, err)
	}

	// ArgsFromJSON keeps nested content; the last of a nested key given
	// twice wins, as encoding/json decides.
	m, aerr := ArgsFromJSON([]byte(`{"a":[1,"x",[true],{"k":1,"k":2.5}],"b":{"z":null,"y":{}}}`))
	if aerr != nil {
		t.Fatal(aerr)
	}
	a := m["a"]
	if a.Kind != ir.KindList || len(a.List) != 4 || a.List[0].Int != 1 || a.List[1].Str != "x" || !a.List[2].List[0].Bool ||
		a.List[3].Kind != ir.KindMap || len(a.List[3].Entries) != 1 || a.List[3].Entries[0].Value.Num != 2.5 {
		t.Errorf("nested list: %+v", a)
	}
	if b := m["b"]; b.Kind != ir.KindMap || b.Entries[0].Key != "y" || b.Entries[1].Value.Kind != ir.KindNull {
		t.Errorf("nested object: %+v", b)
	}
	if _, err := ArgsFromJSON([]byte(`{"a":[1e999]}`)); err == nil || err.Error() != `argument "a": number 1e999 is out of range` {
		t.Errorf("nested out of range: %v", err)
	}
}

func TestKeyedEntities(t *testing.T) {
	x := newShop(t)
	s := x.state(t)
	// Lookups, handles and r.id use the key.
	for expr, want := range map[ir.Expr]string{
		idOf(lookup(x.Order, sLit("#W3"))):                                       `"#W3"`,
		fld(lookup(x.Order, handle(x.Order, "#W3")), x.oID):                      `"#W3"`,
		fld(deref(litT(vRef("bob"), tRef(x.User))), x.uName):                     `"Bob"`,
		fld(lookup(x.Order, sLit("W3")), x.oID):                                  `error not_found: Order "W3" not found`,
		fld(via(fld(lookup(x.Order, sLit("#W3")), x.oUser), x.uAddress), x.aZip): `"80280"`,
	} {
		if got := evalText(s, expr); got != want {
			t.Errorf("%s, want %s", got, want)
		}
	}
	// Create takes the key from its field; it is required and unique, and
	// no id sequence is used.
	for _, tc := range []struct{ args, want string }{
		{`{"order_id":"#W3","user":"bob","items":[],"status":"pending","history":[]}`, `constraint_violation: Order.order_id must be unique: "#W3" is already used by Order "#W3"`},
		{`{"user":"bob","items":[],"status":"pending","history":[]}`, `invalid_arguments: missing required argument "order_id"`},
		{`{"order_id":"order_1","user":"bob","items":[],"status":"pending","history":[]}`, `{"order_id":"order_1","user":"bob","items":[],"status":"pending","history":[],"note":null,"returned":null}`},
	} {
		d, err := s.CallJSON("create_order", []byte(tc.args))
		got := d.String()
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("create_order(%s) = %s, want %s", tc.args, got, tc.want)
		}
	}
	// Update: the key may be given unchanged, not changed.
	if got := mustCall(t, s, "update_order", `{"id":"#W3","order_id":"#W3","note":"n"}`); !strings.Contains(got, `"note":"n"`) {
		t.Errorf("update = %s", got)
	}
	if err := callErr(t, s, "update_order", `{"id":"#W3","order_id":"#W4"}`); err.Error() != `constraint_violation: Order.order_id cannot be changed: it is the key of Order "#W3"` {
		t.Errorf("update key: %v", err)
	}
	// Delete is refused while a ref inside a composite field names the
	// record (User.orders is list<ref Order>), or a plain ref field.
	if err := callErr(t, s, "delete_order", `{"id":"#W3"}`); err.Error() != `constraint_violation: Order "#W3" is still referenced by User "bob" (field orders)` {
		t.Errorf("delete #W3: %v", err)
	}
	if got := mustCall(t, s, "delete_order", `{"id":"order_1"}`); !strings.HasPrefix(got, `{"order_id":"order_1",`) {
		t.Errorf("delete order_1 = %s", got)
	}
	// Unkeyed entities keep their id sequence (rev_1 starts it at 1).
	mustCall(t, s, "create_review", `{"order":"#W1","stars":5}`)
	if got := mustCall(t, s, "create_review", `{"order":"#W1","stars":1}`); !strings.HasPrefix(got, `{"id":"review_3",`) {
		t.Errorf("unkeyed ids continue: %s", got)
	}

	// The start state: a record's key field must hold its id.
	y := newShop(t)
	y.w.Seed[0].Values[0] = vStr("p_other")
	if _, err := NewState(y.w, nil); err == nil || err.Error() != `eval: seed record Product "p_kb": its key product_id is "p_other"` {
		t.Errorf("key mismatch: %v", err)
	}
	y.w.Seed[0].Values[0] = vNull()
	if _, err := NewState(y.w, nil); err == nil || err.Error() != `eval: seed record Product "p_kb": its key product_id is null` {
		t.Errorf("null key: %v", err)
	}
	// Composite constants that do not fit their type.
	z := newShop(t)
	z.w.Seed[2].Values[2] = vStruct(vStr("x"))
	if _, err := NewState(z.w, nil); err == nil || err.Error() != `eval: seed record User "ann": address: Address constant with 1 fields, want 5` {
		t.Errorf("short record: %v", err)
	}
	z = newShop(t)
	z.w.Seed[2].Values[4] = vList(vRef("#W1"), vDate("2026-02-30"))
	if _, err := NewState(z.w, nil); err == nil || !strings.HasPrefix(err.Error(), `eval: seed record User "ann": orders: [1]: invalid date`) {
		t.Errorf("bad element: %v", err)
	}
}

func TestCompositeConstraints(t *testing.T) {
	x := newShop(t)
	item := func(id, product string, price float64, qty int64) *ir.Value {
		return vStruct(vStr(id), vRef(product), vDec(price), vMap(), vInt(qty))
	}
	orderRec := func(id string, items *ir.Value, history *ir.Value) *ir.Record {
		return record(x.Order, id, vStr(id), vRef("bob"), items, vEnum("pending"), history, vNull(), vNull())
	}
	x.w.Seed = append(x.w.Seed,
		orderRec("#B1", vList(item("a", "p_kb", -1, 1)), vList()),
		orderRec("#B2", vList(item("a", "p_gone", 1, 1)), vList(vStruct(vEnum("gift"), vDec(1), vStr("m")))),
		orderRec("#B3", vList(vStruct(vNull(), vRef("p_kb"), vDec(1), vMap(), vInt(1))), vList()),
		orderRec("#B4", vList(item("a", "p_kb", 1, 1)), vList()),
		record(x.User, "cat", vStr("cat"), vStr("Cat"), vStruct(vStr("l"), nil, vStr("c"), vStr("z"), vStr("US")),
			vMap("p", vStruct(vEnum("paypal"), vStr("p"), vDec(3), nil, nil), "g", vStruct(vEnum("gift_card"), vStr("g"), nil, nil, nil)),
			vList(vRef("#B4"), vRef("#B9")), vList(vEnum("gold"))),
	)
	s, err := NewState(x.w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range s.CheckConstraints() {
		got = append(got, p.Kind+" "+p.Field+": "+p.Message)
	}
	// "g" comes before "p" in key order: its problem is the one reported.
	want := []string{
		`required methods: User.methods["g"].balance is required`,
		`ref orders: User.orders[1] refers to Order "#B9", which does not exist`,
		`enum tags: User.tags[0] must be one of vip, new, got "gold"`,
		`bound items: Order.items[0].price must be >= 0, got -1`,
		`ref items: Order.items[0].product refers to Product "p_gone", which does not exist`,
		`enum history: Order.history[0].kind must be one of payment, refund, got "gift"`,
		`required items: Order.items[0].item_id is required`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The case problem shows once "g" is fixed.
	x.w.Seed[len(x.w.Seed)-1].Values[3] = vMap("p", vStruct(vEnum("paypal"), vStr("p"), vDec(3), nil, nil))
	s, _ = NewState(x.w, nil)
	if p := s.CheckConstraints(); len(p) < 1 || p[0].Kind != ProblemCase || p[0].Message != `User.methods["p"].balance belongs to case gift_card, not paypal` {
		t.Errorf("case problem: %v", p)
	}
	// The invariant over composite values: no "a" variant anywhere, and
	// #B2's product is missing.
	if v := s.Violations(); len(v) != 4 || v[0].ID != "#B1" || v[1].Detail != `Product "p_gone" not found` || v[3].ID != "#B4" {
		t.Errorf("violations: %v", v)
	}
}

func TestUnchangedExcept(t *testing.T) {
	x := newShop(t)
	start := x.state(t)
	task := x.cancelTask
	grade := func(s *State) string {
		g := s.Grade(task, start)
		var out []string
		for _, r := range g.Results {
			if !r.Passed {
				out = append(out, r.Text+": "+r.Detail)
			}
		}
		return strings.Join(out, "; ")
	}
	except := `unchanged except Order["#W1"], User["ann"]`
	s := start.Clone()
	mustCall(t, s, "cancel_order", `{"order_id":"#W1"}`)
	if got := grade(s); got != "" {
		t.Errorf("after cancel: %s", got)
	}
	mustCall(t, s, "move_city", `{"user":"bob","city":"Lyon"}`)
	if got := grade(s); got != except+": changed: User" {
		t.Errorf("another user changed: %s", got)
	}
	s = start.Clone()
	mustCall(t, s, "cancel_order", `{"order_id":"#W1"}`)
	mustCall(t, s, "create_order", `{"order_id":"#W9","user":"ann","items":[],"status":"pending","history":[]}`)
	if got := grade(s); got != except+": changed: Order" {
		t.Errorf("inserted order: %s", got)
	}
	mustCall(t, s, "delete_order", `{"id":"#W9"}`)
	if got := grade(s); got != "" {
		t.Errorf("inserted then deleted keyed order: %s", got)
	}
	// A table with no excepted record keeps its id sequence.
	mustCall(t, s, "delete_review", `{"id":"rev_1"}`)
	if got := grade(s); got != except+": changed: Review" {
		t.Errorf("deleted review: %s", got)
	}
	s = start.Clone()
	mustCall(t, s, "cancel_order", `{"order_id":"#W1"}`)
	mustCall(t, s, "create_review", `{"order":"#W1","stars":2}`)
	mustCall(t, s, "delete_review", `{"id":"review_2"}`)
	if got := grade(s); got != except+": changed: Review" || s.Equal(start) {
		t.Errorf("review sequence moved: %s", got)
	}
	// Excepted records may also be deleted (rev_1 here); the order of the
	// others must not change.
	only := &ir.Task{Name: "t", Assertions: []*ir.Assertion{{Kind: ir.AssertUnchanged, Text: "u", Except: []*ir.Lookup{lookup(x.Review, sLit("rev_1")).(*ir.Lookup), lookup(x.Review, sLit("never")).(*ir.Lookup)}}}}
	s = start.Clone()
	mustCall(t, s, "delete_review", `{"id":"rev_1"}`)
	if g := s.Grade(only, start); g.Reward != 1 {
		t.Errorf("deleted excepted record: %+v", g.Results)
	}
	mustCall(t, s, "create_review", `{"order":"#W1","stars":2}`)
	if g := s.Grade(only, start); g.Reward != 0 || g.Results[0].Detail != "changed: Review" {
		t.Errorf("new record: %+v", g.Results)
	}
	bad := &ir.Task{Name: "t", Assertions: []*ir.Assertion{{Kind: ir.AssertUnchanged, Text: "u", Except: []*ir.Lookup{lookup(x.Review, iLit(3)).(*ir.Lookup)}}}}
	if g := start.Grade(bad, start); g.Reward != 0 || g.Results[0].Detail != "except: the key of Review is int, not a string" {
		t.Errorf("bad except: %+v", g.Results)
	}
}

func TestExpectedFailures(t *testing.T) {
	x := newShop(t)
	res, err := RunSolution(x.w, x.cancelTask)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || len(res.Steps) != 2 || res.Steps[0].Err == nil || !res.Steps[0].AsExpected() {
		t.Fatalf("cancel_w1: %s", res.Problem())
	}
	if got := string(res.Steps[0].Observation()); got != `{"ok":false,"error":{"code":"precondition_failed","message":"Non-pending order cannot be cancelled"}}` {
		t.Errorf("expected failure: %s", got)
	}
	if res.Steps[0].Hash != res.StartHash {
		t.Errorf("the expected failure changed the state")
	}
	// Another message, or a success, is not what the solution says.
	other := "Order #W1 not found"
	x.cancelTask.Solution[0].Fails = &other
	res, _ = RunSolution(x.w, x.cancelTask)
	if res.OK() || res.Failed != 0 || len(res.Steps) != 1 || !strings.HasPrefix(res.Problem(), `step 1 (cancel_order) should fail with "Order #W1 not found" but failed with precondition_failed: Non-pending order cannot be cancelled; reward 2/4;`) {
		t.Errorf("other message: %s", res.Problem())
	}
	x.cancelTask.Solution[0].Fails = nil
	x.cancelTask.Solution[1].Fails = &other
	x.cancelTask.Solution = x.cancelTask.Solution[1:]
	res, _ = RunSolution(x.w, x.cancelTask)
	if res.OK() || res.Failed != 0 || !strings.HasPrefix(res.Problem(), `step 1 (cancel_order) should fail with "Order #W1 not found" but succeeded`) || res.FinalHash == res.StartHash {
		t.Errorf("unexpected success: %s", res.Problem())
	}
	// A step that failed as expected binds nothing.
	msg := "Item not found"
	bind := &ir.Task{Name: "b", Solution: []*ir.Step{
		{Bind: "i", Tool: x.findItem, Args: []*ir.Arg{{Param: x.findItem.Params[0], Value: vStr("zz")}}, Fails: &msg},
		{Tool: x.cancelOrder, Args: []*ir.Arg{{Param: x.cancelOrder.Params[0], Bound: "i"}}},
	}}
	res, _ = RunSolution(x.w, bind)
	if res.Failed != 1 || res.Steps[1].Err.Error() != `invalid_arguments: argument "order_id": i is not bound to a returned record` {
		t.Errorf("bound after an expected failure: %s", res.Problem())
	}
	if res, _ := RunSolution(x.w, x.noopTask); !res.OK() {
		t.Errorf("noop: %s", res.Problem())
	}
}

func TestCompositeHashAndEqual(t *testing.T) {
	x := newShop(t)
	start := x.state(t)
	s := start.Clone()
	mustCall(t, s, "set_balance", `{"user":"ann","method":"gc_1","balance":10.5}`)
	if s.Equal(start) || s.Hash() == start.Hash() {
		t.Error("a nested write does not show")
	}
	mustCall(t, s, "set_balance", `{"user":"ann","method":"gc_1","balance":10}`)
	if !s.Equal(start) || s.Hash() != start.Hash() {
		t.Error("a nested write and its reverse")
	}
	mustCall(t, s, "add_method", `{"user":"ann","method":{"source":"paypal","id":"a"}}`)
	if s.Equal(start) || s.Hash() == start.Hash() {
		t.Error("a new map key does not show")
	}
	// Equality of stored values is reflexive even with NaN inside.
	nan := []value{math.NaN()}
	if !sameValue(nan, []value{math.NaN()}) || equal(nan, nan) {
		t.Error("NaN inside lists")
	}
	m1 := newMap([]string{"b", "a", "b"}, []value{int64(1), int64(2), int64(3)})
	if string(appendJSON(nil, m1)) != `{"a":2,"b":3}` {
		t.Errorf("newMap: %s", appendJSON(nil, m1))
	}
}
