package compiler

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

const compositeSpec = `world ir_shapes {
  title "IR shapes"
  today 2026-03-14
}

record Address {
  city string
  zip  string?
}

service store "Store" {
  record PaymentMethod by source {
    id string
    case gift_card { balance decimal }
    case paypal {}
  }
  entity User key user_id {
    user_id string
    address Address
    methods map<string, PaymentMethod>
    tags    list<string>
  }
  entity Order {
    user  ref User
    items list<string>
  }
  tool get_user: get User
  tool update_user: update User
  tool get_order: get Order
  tool pay(user_id: string, ids: list<string>) {
    require user_id != "" else "no " + user_id
    let user = User[user_id]
    var total = 0.0
    for i, id in ids {
      set total = total + i
    }
    for k, pm in user.methods where pm.source == gift_card {
      set user.methods[k].balance = coalesce(pm.balance, 0.0) + total
    }
    set user.address = Address { city: "Paris" }
    set user.methods["p"] = PaymentMethod { source: paypal, id: "p" }
    if total > 100 {
      fail "too much"
    }
    return user
  }
}

local invariant users_have_cities {
  policy "Every user has a city."
  for u in store.User
  require u.address.city != ""
}

seed {
  store.User ann { user_id: "ann_1", address: Address { city: "Paris" }, methods: { "p": PaymentMethod { source: paypal, id: "p" }, "g": PaymentMethod { source: gift_card, id: "g", balance: 5 } }, tags: ["b", "a"] }
  store.Order o1 { user: ann, items: [] }
}

task pay_it {
  persona     "Customer"
  instruction "Pay."
  expect {
    store.User["ann_1"].methods["g"].balance == 6
    unchanged except User["ann_1"]
  }
  solution {
    pay(user_id: "", ids: ["x"]) fails "no "
    pay(user_id: "ann_1", ids: ["x", "y"])
    get_user(user_id: ann)
  }
}
`

// TestCompositeIR pins the IR conventions of issue 4 that the evaluator
// and the generator rely on.
func TestCompositeIR(t *testing.T) {
	w, ds := CheckSource("shapes.world", []byte(compositeSpec))
	if w == nil {
		t.Fatal(ds.Text())
	}
	if len(w.Structs) != 2 || w.Structs[0].Name != "Address" || w.Structs[1].Name != "PaymentMethod" {
		t.Fatalf("structs in declaration order: %v", w.Structs)
	}
	pm := w.Structs[1]
	if pm.Tag == nil || pm.Tag.Name != "source" || pm.Tag.Struct != pm || pm.Tag.Type.Kind != ir.KindEnum ||
		strings.Join(pm.Tag.Type.Enum.Values, ",") != "gift_card,paypal" || pm.Tag.Type.Enum.Field != pm.Tag {
		t.Errorf("tag: %+v", pm.Tag)
	}
	if names := fieldNames(pm.AllFields()); strings.Join(names, ",") != "source,id,balance" {
		t.Errorf("AllFields: %v", names)
	}
	if f := pm.Field("balance"); f.Case != pm.Cases[0] || f.Type.Optional {
		t.Errorf("case field: case %v, type %s (declared type, not optional)", f.Case, f.Type)
	}

	var user, order *ir.Entity
	for _, e := range w.Entities {
		switch e.Name {
		case "User":
			user = e
		case "Order":
			order = e
		}
	}
	if user.Key == nil || user.Key.Name != "user_id" || order.Key != nil {
		t.Errorf("keys: %v %v", user.Key, order.Key)
	}

	// Standard tools of a keyed entity: the id parameter is named after
	// the key; update does not change the key.
	for _, tool := range w.Tools {
		switch tool.Name {
		case "get_user":
			if p := tool.Params[0]; p.Name != "user_id" || p.Type.Kind != ir.KindRef || p.Field != nil {
				t.Errorf("get_user param: %+v", p)
			}
		case "update_user":
			for _, p := range tool.Params[1:] {
				if p.Field == user.Key {
					t.Error("update_user can change the key")
				}
			}
		}
	}

	// Seed: ids of keyed records are their keys, refs hold ids, record
	// values have one value per AllFields (tag first, null for another
	// case's fields), maps are sorted, lists keep their order.
	ann, o1 := w.Seed[0], w.Seed[1]
	if ann.ID != "ann_1" || o1.ID != "o1" {
		t.Errorf("ids: %q %q", ann.ID, o1.ID)
	}
	if v := o1.Values[0]; v.Kind != ir.KindRef || v.Str != "ann_1" {
		t.Errorf("ref to a keyed record by handle: %+v", v)
	}
	methods := ann.Values[2]
	if methods.Kind != ir.KindMap || len(methods.Entries) != 2 || methods.Entries[0].Key != "g" {
		t.Fatalf("map value: %+v", methods)
	}
	g := methods.Entries[0].Value
	if g.Kind != ir.KindStruct || len(g.Fields) != 3 || g.Fields[0].Str != "gift_card" || g.Fields[1].Str != "g" || g.Fields[2].Num != 5 {
		t.Errorf("gift card value: %+v", g.Fields)
	}
	p := methods.Entries[1].Value
	if p.Fields[0].Kind != ir.KindEnum || p.Fields[0].Str != "paypal" || p.Fields[2].Kind != ir.KindNull {
		t.Errorf("paypal value: %+v", p.Fields)
	}
	if addr := ann.Values[1]; addr.Fields[1].Kind != ir.KindNull {
		t.Errorf("absent optional field: %+v", addr.Fields)
	}
	if tags := ann.Values[3]; tags.Kind != ir.KindList || tags.List[0].Str != "b" {
		t.Errorf("list value: %+v", tags)
	}
	if o1.Values[1].Kind != ir.KindList || o1.Values[1].List == nil {
		t.Errorf("empty list value: %+v", o1.Values[1])
	}

	// Tool bodies.
	var pay *ir.Tool
	for _, tool := range w.Tools {
		if tool.Name == "pay" {
			pay = tool
		}
	}
	body := pay.Body
	if r := body[0].(*ir.Require); r.Message != "" || r.MessageExpr == nil || r.MessageExpr.Type().Kind != ir.KindString {
		t.Errorf("built message: %+v", r)
	}
	if v := body[2].(*ir.VarDecl); v.Var.Name != "total" || v.Var.Type.Kind != ir.KindDecimal {
		t.Errorf("var: %+v", v)
	}
	loop := body[3].(*ir.For)
	if loop.Entity != nil || loop.Source == nil || loop.Key == nil || loop.Key.Type.Kind != ir.KindInt || loop.Var.Type.Kind != ir.KindString {
		t.Errorf("list loop: %+v", loop)
	}
	if a := loop.Body[0].(*ir.Assign); a.Path != nil || a.Root.(*ir.VarRef).Var != body[2].(*ir.VarDecl).Var {
		t.Errorf("assign to a var: %+v", a)
	}
	mloop := body[4].(*ir.For)
	if mloop.Key.Type.Kind != ir.KindString || mloop.Var.Type.Kind != ir.KindStruct || mloop.Where == nil {
		t.Errorf("map loop: %+v", mloop)
	}
	a := mloop.Body[0].(*ir.Assign)
	if len(a.Path) != 3 || a.Path[0].Field != user.Field("methods") || a.Path[1].Index == nil || a.Path[2].Field != pm.Field("balance") || a.Root.Type().Kind != ir.KindRecord {
		t.Errorf("assign through a path: %+v", a)
	}
	set := body[5].(*ir.Set)
	lit := set.Value.(*ir.StructLit)
	if set.Field != user.Field("address") || lit.Struct != w.Structs[0] || len(lit.Fields) != 1 || lit.Case != nil {
		t.Errorf("set of a record field with a literal: %+v %+v", set, lit)
	}
	a = body[6].(*ir.Assign)
	plit := a.Value.(*ir.StructLit)
	if len(a.Path) != 2 || plit.Case != pm.Cases[1] || len(plit.Fields) != 1 || plit.Fields[0].Field.Name != "id" {
		t.Errorf("variant literal (the tag is not among the fields): %+v", plit)
	}
	if f := body[7].(*ir.If).Then[0].(*ir.Fail); f.Message != "too much" || f.MessageExpr != nil {
		t.Errorf("fail: %+v", f)
	}

	if !w.Invariants[0].Local {
		t.Error("local invariant")
	}

	task := w.Tasks[0]
	if ex := task.Assertions[1].Except; task.Assertions[1].Kind != ir.AssertUnchanged || len(ex) != 1 || ex[0].Entity != user {
		t.Errorf("unchanged except: %+v", task.Assertions[1])
	}
	steps := task.Solution
	if steps[0].Fails == nil || *steps[0].Fails != "no " || steps[1].Fails != nil {
		t.Errorf("expected failure: %+v", steps[0])
	}
	if v := steps[1].Args[1].Value; v.Kind != ir.KindList || len(v.List) != 2 || v.List[1].Str != "y" {
		t.Errorf("list argument: %+v", v)
	}
	if v := steps[2].Args[0].Value; v.Kind != ir.KindRef || v.Str != "ann_1" {
		t.Errorf("handle argument of a keyed entity: %+v", v)
	}
}
