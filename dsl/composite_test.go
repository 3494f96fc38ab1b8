package dsl

import (
	"strings"
	"testing"
)

// TestParseComposite covers the syntax of issue 4: value records, variants,
// keys, list and map types, literals, var, fail, built messages, keyed
// loops, local invariants, loads, `unchanged except` and expected
// failures.
func TestParseComposite(t *testing.T) {
	f := mustParse(t, `
record Address "A postal address" { city string  zip string? }
service s {
  record PaymentMethod by source {
    id string
    case gift_card { balance decimal }
    case paypal {}
  }
  entity Order key order_id "An order" {
    order_id string
    items    list<map<string, Address>>?
  }
}`)
	rec := f.Decls[0].Record
	if rec == nil || rec.Name != "Address" || str(rec.Doc) != "A postal address" || len(rec.Items) != 2 {
		t.Fatalf("top-level record: %+v", rec)
	}
	pm := f.Decls[1].Service.Members[0].Record
	if pm == nil || str(pm.By) != "source" || len(pm.Items) != 3 || pm.Items[1].Case == nil || pm.Items[1].Case.Name != "gift_card" || len(pm.Items[2].Case.Fields) != 0 {
		t.Fatalf("variant record: %+v", pm)
	}
	e := f.Decls[1].Service.Members[1].Entity
	if str(e.Key) != "order_id" || str(e.Doc) != "An order" {
		t.Errorf("entity key and doc: %q %q", str(e.Key), str(e.Doc))
	}
	items := e.Fields[1].Type
	if items.List == nil || items.List.Map == nil || items.List.Map.Key != "string" || !items.Optional || typ(items) != "list<map<string, Address>>?" {
		t.Errorf("nested type: %s", typ(items))
	}

	stmts := toolBody(t, `require a else "plain"
require a else "Order " + id + " not found"
require a else ("paren")
fail "no"
fail "no " + id
var total = 0.0
var seen: map<string, int> = {}
for x in E {}
for i, x in xs where i > 0 { set total = total + x }
set o.items[i].price = p
set m["k"] = Address { city: "Paris", zip: null }`)
	if r := stmts[0].Require; r.Message != "plain" || r.MessageExpr != nil {
		t.Errorf("literal message: %+v", r)
	}
	if r := stmts[1].Require; r.Message != "" || r.MessageExpr == nil {
		t.Errorf("built message: %+v", r)
	}
	if r := stmts[2].Require; r.MessageExpr == nil || r.MessageExpr.Left.Left.Cmp.Left.Left.Left.Postfix.Primary.Paren == nil {
		t.Errorf("parenthesised message: %+v", r)
	}
	if stmts[3].Fail == nil || stmts[4].Fail == nil {
		t.Error("fail")
	}
	if v := stmts[5].Var; v == nil || v.Name != "total" || v.Type != nil {
		t.Errorf("var: %+v", v)
	}
	if v := stmts[6].Var; v == nil || typ(v.Type) != "map<string, int>" || v.Value.Left.Left.Cmp.Left.Left.Left.Postfix.Primary.Map == nil {
		t.Errorf("typed var: %+v", v)
	}
	if l := stmts[7].For; l == nil || l.Key != "" || l.Var != "x" || len(l.Body.Stmts) != 0 {
		t.Errorf("`for x in E {}` must stay a loop with an empty body: %+v", l)
	}
	if l := stmts[8].For; l == nil || l.Key != "i" || l.Var != "x" || l.Where == nil {
		t.Errorf("for with an index: %+v", l)
	}
	if s := stmts[9].Set; s == nil || len(s.Target.Suffixes) != 3 || s.Target.Suffixes[1].Index == nil {
		t.Errorf("set through a path: %+v", s)
	}
	if s := stmts[10].Set; s == nil || s.Value.Left.Left.Cmp.Left.Left.Left.Postfix.Primary.Struct == nil {
		t.Errorf("record literal: %+v", s)
	}

	f = mustParse(t, `
local invariant i { policy "p" for x in E require true }
always invariant a { policy "p" for x in E require true }
local always invariant la { policy "p" for x in E require true }
seed {
  load s.E from "a/b.json" at "items" { name: "Name" }
  s.E e1 { a: [1, 2], m: { "k": R { x: 1 } }, r: R { y: "z" }, n: null }
  load s.E from "e.csv"
}
task t {
  persona "p"
  instruction "i"
  expect {
    unchanged except E["a"], s.E[e1]
  }
  solution {
    call(ids: ["a", "b"], m: {}) fails "Order not found"
    call(x: 1)
  }
}`)
	if inv := f.Decls[0].Invariant; !inv.Local || inv.Always || inv.Name != "i" {
		t.Errorf("local invariant: %+v", inv)
	}
	if inv := f.Decls[1].Invariant; inv.Local || !inv.Always || inv.Name != "a" {
		t.Errorf("always invariant: %+v", inv)
	}
	if inv := f.Decls[2].Invariant; !inv.Local || !inv.Always || inv.Name != "la" {
		t.Errorf("local always invariant: %+v", inv)
	}
	seed := f.Decls[3].Seed
	if len(seed.Loads) != 2 || len(seed.Records) != 1 || seed.Loads[0].From != "a/b.json" || str(seed.Loads[0].At) != "items" ||
		len(seed.Loads[0].Fields) != 1 || seed.Loads[0].Fields[0].Source != "Name" || seed.Loads[1].At != nil {
		t.Errorf("loads: %+v", seed.Loads)
	}
	fv := seed.Records[0].Fields
	if fv[0].Composite.List == nil || fv[1].Composite.Map == nil || fv[1].Composite.Map.Entries[0].Value.Composite.Record == nil ||
		fv[2].Composite.Record.Name != "R" || fv[3].Value == nil || !fv[3].Value.Null {
		t.Errorf("composite seed values: %+v", fv)
	}
	task := f.Decls[4].Task
	if a := task.Expect.Assertions[0]; !a.Unchanged || len(a.Except) != 2 {
		t.Errorf("unchanged except: %+v", a)
	}
	calls := task.Solution.Calls
	if str(calls[0].Fails) != "Order not found" || calls[0].Args[0].Composite.List == nil || calls[0].Args[1].Composite.Map == nil || calls[1].Fails != nil {
		t.Errorf("solution: %+v", calls)
	}
}

// TestParseRecordRubrics covers whole-record literals (qualified or not)
// and matches(x, { … }), and that `matches` stays an ordinary name
// elsewhere.
func TestParseRecordRubrics(t *testing.T) {
	f := mustParse(t, `
task t {
  persona "p"
  instruction "i"
  expect {
    store.Order["#1"] == store.Order { order_id: "#1", status: cancelled }
    Order["#1"] != Order { order_id: "#1" }
    matches(Order["#1"], { status: cancelled, items: [] }) and matches(x.address, {})
    matches.x == count(matches in E)
  }
}`)
	as := f.Decls[0].Task.Expect.Assertions
	prim := func(e *Expr) *Primary { return e.Left.Left.Cmp.Left.Left.Left.Postfix.Primary }
	right := func(e *Expr) *Primary { return e.Left.Left.Cmp.Right.Left.Left.Postfix.Primary }
	if s := right(as[0].Expr).Struct; s == nil || s.Service != "store" || s.Name != "Order" || s.QualifiedName() != "store.Order" || len(s.Fields) != 2 {
		t.Errorf("qualified record literal: %+v", s)
	}
	if s := right(as[1].Expr).Struct; s == nil || s.Service != "" || s.QualifiedName() != "Order" {
		t.Errorf("record literal: %+v", s)
	}
	m := prim(as[2].Expr).Match
	if m == nil || len(m.Fields) != 2 || m.Fields[1].Name != "items" || prim(m.X).Lit == nil {
		t.Fatalf("matches: %+v", m)
	}
	if m2 := as[2].Expr.Left.Right[0].Cmp.Left.Left.Left.Postfix.Primary.Match; m2 == nil || len(m2.Fields) != 0 {
		t.Errorf("matches with no field: %+v", m2)
	}
	if p := prim(as[3].Expr); p.Lit == nil || str(p.Lit.Ident) != "matches" {
		t.Errorf("matches as a name: %+v", p)
	}
}

// TestParseCompositeErrors pins the messages of likely mistakes in the new
// syntax.
func TestParseCompositeErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{">= after a type", "service s { tool t() { var x: list<int>= [] } }", `unexpected token ">=" (expected ">")`},
		{"map without a value type", "service s { entity E { a map<string> } }", `spec.world:1:36: unexpected token ">"`},
		{"case outside braces", "record R by k { case a }", `unexpected token "}" (expected "{")`},
		{"load without from", "seed { load s.E \"x.json\" }", `unexpected token "x.json"`},
		{"fails without a message", "task t { persona \"p\" instruction \"i\" expect { unchanged } solution { f() fails } }", `spec.world:1:74: "fails" needs the message the call is expected to fail with`},
		{"bad field in a record", "record R by k \"doc\" {\n  a int\n  b = 1\n}", `spec.world:3:5: unexpected token "="`},
		{"bad field in a case", "record R by k {\n  case c {\n    a int\n    b = 1\n  }\n}", `spec.world:4:7: unexpected token "="`},
		{"matches with a field without a value", "task t { persona \"p\" instruction \"i\" expect { matches(o.x[1], { status }) } }", `unexpected token "}" (expected ":")`},
		{"matches with a map", "task t { persona \"p\" instruction \"i\" expect { matches(o, { \"status\": 1 }) } }", `unexpected token "status"`},
		{"bad field in a keyed entity", "service s {\n  entity E key k \"doc\" {\n    k string\n    b = 1\n  }\n}", `spec.world:4:7: unexpected token "="`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := parseError(t, []byte(tt.src))
			if !strings.Contains(e.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", e.Error(), tt.want)
			}
		})
	}
}
