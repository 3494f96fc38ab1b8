package compiler

import (
	"fmt"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

const keysSpec = `world keys_ir {
  title "Keys IR"
  today 2026-03-14
}

service store "Store" {
  record Item {
    item_id string
    price   decimal
  }
  entity Order key order_id {
    order_id string
    email    string
    items    list<Item>
    status   enum { pending cancelled }
  }
  entity Note {
    text string
  }
  tool get_order: get Order
  tool get_note: get Note
  tool t(id: string, s: string, n: string?) {
    require id in Order else "1"
    require id not in Order else "2"
    require exists(o in Order where o.order_id == id) else "3"
    require exists(o in store.Order where id == o.id) else "4"
    require exists(o in Order where o.order_id == "#W1") else "5"
    require exists(x in Note where x.id == s) else "6"
    require exists(o in Order where o.email == id) else "7"
    require exists(o in Order where o.order_id == id and o.status == pending) else "8"
    require exists(o in Order where o.order_id == lower(id)) else "9"
    require exists(o in Order where o.order_id == o.email) else "10"
    require exists(o in Order where o.order_id == coalesce(n, "")) else "11"
    require s as Order.status == pending else "12"
    require "cancelled" as Order.status == cancelled else "13"
    require first(it in Order[id].items where it.price > 1).price > 0 else "14"
    require first(o in Order).email != "" else "15"
    require index(it in Order[id].items where it.item_id == s) >= 0 else "16"
  }
}

seed {
  store.Order w1 { order_id: "#W1", email: "a@b", items: [], status: pending }
  store.Note n1 { text: "x" }
}
`

// TestKeysIR pins the IR of `k in E`, of the recognised form
// `exists(x in E where x.key == v)`, of `as` and of first and index.
func TestKeysIR(t *testing.T) {
	// t is a tool of made-up requires, not meant to succeed: its IR is the point.
	w, ds := CheckSource("keys.world", []byte(keysSpec), WithoutReachability())
	if w == nil {
		t.Fatal(ds.Text())
	}
	var tool *ir.Tool
	for _, x := range w.Tools {
		if x.Name == "t" {
			tool = x
		}
	}
	cond := map[string]ir.Expr{}
	for _, st := range tool.Body {
		r := st.(*ir.Require)
		cond[r.Message] = r.Cond
	}
	keyIn := func(msg, entity string, not bool, key string) {
		t.Helper()
		k, ok := cond[msg].(*ir.KeyIn)
		if !ok {
			t.Errorf("%s: %T, want *ir.KeyIn", msg, cond[msg])
			return
		}
		if k.Entity.Name != entity || k.Not != not || k.T.Kind != ir.KindBool {
			t.Errorf("%s: %s not=%v %s", msg, k.Entity.Name, k.Not, k.T)
		}
		if got := exprKey(k.Key); got != key {
			t.Errorf("%s: key %s, want %s", msg, got, key)
		}
	}
	keyIn("1", "Order", false, "var id")
	keyIn("2", "Order", true, "var id")
	keyIn("3", "Order", false, "var id")
	keyIn("4", "Order", false, "var id")
	keyIn("5", "Order", false, `lit "#W1"`)
	keyIn("6", "Note", false, "var s")
	for _, msg := range []string{"7", "8", "9", "10", "11"} {
		if a, ok := cond[msg].(*ir.Aggregate); !ok || a.Op != "exists" {
			t.Errorf("%s: %T, want the exists aggregate unchanged", msg, cond[msg])
		}
	}

	status := cond["12"].(*ir.Binary).L
	if c, ok := status.(*ir.Cast); !ok || c.T.Kind != ir.KindEnum || c.T.Enum.Field.Name != "status" || exprKey(c.X) != "var s" {
		t.Errorf("12: %T %v", status, status.Type())
	}
	if l, ok := cond["13"].(*ir.Binary).L.(*ir.Lit); !ok || l.Value.Kind != ir.KindEnum || l.Value.Str != "cancelled" || l.T.Enum == nil {
		t.Errorf("13: a constant cast is folded: %T", cond["13"].(*ir.Binary).L)
	}

	first := cond["14"].(*ir.Binary).L.(*ir.FieldRef).X.(*ir.Aggregate)
	if first.Op != "first" || first.T.Kind != ir.KindStruct || first.T.Struct.Name != "Item" || first.T.Optional || first.Source == nil {
		t.Errorf("14: %s %s", first.Op, first.T)
	}
	firstRec := cond["15"].(*ir.Binary).L.(*ir.FieldRef).X.(*ir.Aggregate)
	if firstRec.Op != "first" || firstRec.T.Kind != ir.KindRecord || firstRec.T.Entity.Name != "Order" || firstRec.Entity == nil {
		t.Errorf("15: %s %s", firstRec.Op, firstRec.T)
	}
	index := cond["16"].(*ir.Binary).L.(*ir.Aggregate)
	if index.Op != "index" || index.T.Kind != ir.KindInt {
		t.Errorf("16: %s %s", index.Op, index.T)
	}
}

func exprKey(e ir.Expr) string {
	switch x := e.(type) {
	case *ir.VarRef:
		return "var " + x.Var.Name
	case *ir.Lit:
		return fmt.Sprintf("lit %q", x.Value.Str)
	}
	return fmt.Sprintf("%T", e)
}
