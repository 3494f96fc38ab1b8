package eval

import (
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// Types.

func tKind(k ir.Kind) *ir.Type { return &ir.Type{Kind: k} }

var (
	tString   = tKind(ir.KindString)
	tText     = tKind(ir.KindText)
	tInt      = tKind(ir.KindInt)
	tDecimal  = tKind(ir.KindDecimal)
	tMoney    = tKind(ir.KindMoney)
	tBool     = tKind(ir.KindBool)
	tDate     = tKind(ir.KindDate)
	tDateTime = tKind(ir.KindDateTime)
	tNull     = tKind(ir.KindNull)
)

func tOpt(t *ir.Type) *ir.Type   { c := *t; c.Optional = true; return &c }
func tRef(e *ir.Entity) *ir.Type { return &ir.Type{Kind: ir.KindRef, Entity: e} }
func tRec(e *ir.Entity) *ir.Type { return &ir.Type{Kind: ir.KindRecord, Entity: e} }
func tList(el *ir.Type) *ir.Type { return &ir.Type{Kind: ir.KindList, Elem: el} }

// Constants.

func vStr(s string) *ir.Value      { return &ir.Value{Kind: ir.KindString, Str: s} }
func vInt(i int64) *ir.Value       { return &ir.Value{Kind: ir.KindInt, Int: i} }
func vDec(f float64) *ir.Value     { return &ir.Value{Kind: ir.KindDecimal, Num: f} }
func vMoney(f float64) *ir.Value   { return &ir.Value{Kind: ir.KindMoney, Num: f} }
func vBool(b bool) *ir.Value       { return &ir.Value{Kind: ir.KindBool, Bool: b} }
func vDate(s string) *ir.Value     { return &ir.Value{Kind: ir.KindDate, Str: s} }
func vDateTime(s string) *ir.Value { return &ir.Value{Kind: ir.KindDateTime, Str: s} }
func vEnum(s string) *ir.Value     { return &ir.Value{Kind: ir.KindEnum, Str: s} }
func vRef(s string) *ir.Value      { return &ir.Value{Kind: ir.KindRef, Str: s} }
func vNull() *ir.Value             { return &ir.Value{Kind: ir.KindNull} }

// Expressions.

func base(t *ir.Type) ir.ExprBase { return ir.ExprBase{T: t} }

func lit(v *ir.Value) ir.Expr {
	t := tKind(v.Kind)
	return &ir.Lit{ExprBase: base(t), Value: v}
}
func litT(v *ir.Value, t *ir.Type) ir.Expr { return &ir.Lit{ExprBase: base(t), Value: v} }
func sLit(s string) ir.Expr                { return lit(vStr(s)) }
func iLit(i int64) ir.Expr                 { return lit(vInt(i)) }
func dLit(f float64) ir.Expr               { return lit(vDec(f)) }
func bLit(b bool) ir.Expr                  { return lit(vBool(b)) }
func dateLit(s string) ir.Expr             { return lit(vDate(s)) }
func nullLit() ir.Expr                     { return lit(vNull()) }
func enumLit(f *ir.Field, s string) ir.Expr {
	return litT(vEnum(s), f.Type)
}

func vr(v *ir.Var) ir.Expr { return &ir.VarRef{ExprBase: base(v.Type), Var: v} }
func today() ir.Expr       { return &ir.Today{ExprBase: base(tDate)} }

// fld reads field f of the record x.
func fld(x ir.Expr, f *ir.Field) ir.Expr {
	return &ir.FieldRef{ExprBase: base(f.Type), X: x, Field: f}
}

// idOfRec is x.id.
func idOf(x ir.Expr) ir.Expr { return &ir.FieldRef{ExprBase: base(tString), X: x} }

// via follows the ref x and reads field f.
func via(x ir.Expr, f *ir.Field) ir.Expr {
	e := x.Type().Entity
	return fld(&ir.Deref{ExprBase: base(tRec(e)), X: x}, f)
}
func deref(x ir.Expr) ir.Expr {
	return &ir.Deref{ExprBase: base(tRec(x.Type().Entity)), X: x}
}
func recID(x ir.Expr) ir.Expr {
	return &ir.IDOf{ExprBase: base(tRef(x.Type().Entity)), X: x}
}
func lookup(e *ir.Entity, key ir.Expr) ir.Expr {
	return &ir.Lookup{ExprBase: base(tRec(e)), Entity: e, Key: key}
}
func handle(e *ir.Entity, id string) ir.Expr {
	return &ir.Handle{ExprBase: base(tRef(e)), Entity: e, ID: id}
}

func bin(op string, l, r ir.Expr) ir.Expr {
	var t *ir.Type
	switch op {
	case "or", "and", "==", "!=", "<", "<=", ">", ">=", "in", "notin":
		t = tBool
	case "/":
		t = tDecimal
	default:
		t = l.Type()
		if l.Type().Kind == ir.KindDate && r.Type().Kind == ir.KindDate {
			t = tInt
		}
	}
	return &ir.Binary{ExprBase: base(t), Op: op, L: l, R: r}
}
func binT(op string, l, r ir.Expr, t *ir.Type) ir.Expr {
	return &ir.Binary{ExprBase: base(t), Op: op, L: l, R: r}
}
func and(l, r ir.Expr) ir.Expr { return bin("and", l, r) }
func eq(l, r ir.Expr) ir.Expr  { return bin("==", l, r) }
func not(x ir.Expr) ir.Expr    { return &ir.Unary{ExprBase: base(tBool), Op: "not", X: x} }
func neg(x ir.Expr) ir.Expr    { return &ir.Unary{ExprBase: base(x.Type()), Op: "-", X: x} }
func conv(x ir.Expr, t *ir.Type) ir.Expr {
	return &ir.Convert{ExprBase: base(t), X: x}
}
func call(fn string, t *ir.Type, args ...ir.Expr) ir.Expr {
	return &ir.Call{ExprBase: base(t), Func: fn, Args: args}
}
func list(el *ir.Type, elems ...ir.Expr) ir.Expr {
	return &ir.ListLit{ExprBase: base(tList(el)), Elems: elems}
}

// agg builds an aggregate; body receives the loop variable and returns the
// where and value expressions.
func agg(op string, e *ir.Entity, t *ir.Type, body func(x ir.Expr) (where, val ir.Expr)) ir.Expr {
	v := &ir.Var{Name: "x", Type: tRec(e)}
	where, val := body(vr(v))
	return &ir.Aggregate{ExprBase: base(t), Op: op, Var: v, Entity: e, Where: where, Value: val}
}

// World construction.

func newEntity(s *ir.Service, name string, fields ...*ir.Field) *ir.Entity {
	e := &ir.Entity{Name: name, Service: s, Fields: fields}
	for _, f := range fields {
		f.Entity = e
		if f.Type != nil && f.Type.Kind == ir.KindEnum {
			f.Type.Enum.Field = f
		}
	}
	s.Entities = append(s.Entities, e)
	return e
}

func field(name string, t *ir.Type) *ir.Field { return &ir.Field{Name: name, Type: t} }

func enumType(vals ...string) *ir.Type {
	return &ir.Type{Kind: ir.KindEnum, Enum: &ir.EnumDef{Values: vals}}
}

func unique(f *ir.Field) *ir.Field { f.Unique = true; return f }
func withDefault(f *ir.Field, v *ir.Value) *ir.Field {
	f.Default = v
	return f
}
func withBound(f *ir.Field, op string, v *ir.Value) *ir.Field {
	f.Bounds = append(f.Bounds, ir.Bound{Op: op, Value: v})
	return f
}

// stdTool builds a standard tool with the parameters the checker gives it.
func stdTool(s *ir.Service, name string, kind ir.ToolKind, e *ir.Entity, by ...*ir.Field) *ir.Tool {
	t := &ir.Tool{Name: name, Service: s, Kind: kind, Entity: e, By: by}
	idParam := &ir.Param{Name: "id", Type: tRef(e)} // as the checker builds it
	switch kind {
	case ir.ToolGet, ir.ToolDelete:
		t.Params = []*ir.Param{idParam}
		t.Returns = tRec(e)
	case ir.ToolList:
		t.Params = []*ir.Param{{Name: "offset", Type: tOpt(tInt)}}
		t.Returns = tList(tRec(e))
	case ir.ToolSearch:
		for _, f := range by {
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: tOpt(f.Type), Field: f})
		}
		t.Returns = tList(tRec(e))
	case ir.ToolCreate:
		for _, f := range e.Fields {
			pt := f.Type
			if !f.Required() {
				pt = tOpt(f.Type)
			}
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: pt, Field: f})
		}
		t.Returns = tRec(e)
	case ir.ToolUpdate:
		t.Params = []*ir.Param{idParam}
		for _, f := range e.Fields {
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: tOpt(f.Type), Field: f})
		}
		t.Returns = tRec(e)
	}
	s.Tools = append(s.Tools, t)
	return t
}

// customTool builds a custom tool; params are name/type pairs; body gets the
// parameter variables by name (a ref parameter's variable is a record).
func customTool(s *ir.Service, name string, params []*ir.Param, body func(p map[string]ir.Expr) []ir.Stmt) *ir.Tool {
	t := &ir.Tool{Name: name, Service: s, Kind: ir.ToolCustom, Params: params}
	vars := map[string]ir.Expr{}
	for _, p := range params {
		vt := p.Type
		if vt.Kind == ir.KindRef {
			vt = tRec(vt.Entity)
			if p.Type.Optional {
				vt = tOpt(vt)
			}
		}
		p.Var = &ir.Var{Name: p.Name, Type: vt}
		vars[p.Name] = vr(p.Var)
	}
	t.Body = body(vars)
	s.Tools = append(s.Tools, t)
	return t
}

func param(name string, t *ir.Type) *ir.Param { return &ir.Param{Name: name, Type: t} }

func record(e *ir.Entity, id string, vals ...*ir.Value) *ir.Record {
	return &ir.Record{Entity: e, ID: id, Values: vals}
}

// fixture is the world of docs/language.md's example, extended to reach
// every feature.
type fixture struct {
	w                              *ir.World
	crm, billing, ledger           *ir.Service
	Customer, Invoice, Entry       *ir.Entity
	cName, cEmail, cTier, cLimit   *ir.Field
	cActive, cParent, cNote        *ir.Field
	iCustomer, iAmount, iStatus    *ir.Field
	iIssued                        *ir.Field
	eInvoice, eAmount, ePosted     *ir.Field
	eLines, eAt                    *ir.Field
	findCustomers, getCustomer     *ir.Tool
	listCustomers, createCustomer  *ir.Tool
	updateCustomer, deleteCustomer *ir.Tool
	setTier, getInvoice, markPaid  *ir.Tool
	createInvoice, deleteInvoice   *ir.Tool
	voidDrafts, cloneDrafts        *ir.Tool
	insertThenFail, postEntry      *ir.Tool
	listEntries, renameAll         *ir.Tool
	noReturn, failDeep             *ir.Tool
	posted                         *ir.Invariant
	settle, onboard, refuse        *ir.Task
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	x := &fixture{}
	x.crm = &ir.Service{Name: "crm"}
	x.billing = &ir.Service{Name: "billing"}
	x.ledger = &ir.Service{Name: "ledger"}

	x.cName = field("name", tString)
	x.cEmail = unique(field("email", tString))
	x.cTier = field("tier", enumType("bronze", "silver", "gold"))
	x.cLimit = withBound(field("credit_limit", tMoney), ">=", vInt(0))
	x.cActive = withDefault(field("active", tBool), vBool(true))
	x.cParent = field("parent", nil)
	x.cNote = field("note", tOpt(tText))
	x.Customer = newEntity(x.crm, "Customer", x.cName, x.cEmail, x.cTier, x.cLimit, x.cActive, x.cParent, x.cNote)
	x.cParent.Type = tOpt(tRef(x.Customer))

	x.iCustomer = field("customer", tRef(x.Customer))
	x.iAmount = withBound(field("amount", tMoney), ">=", vInt(0))
	x.iStatus = withDefault(field("status", enumType("draft", "issued", "paid", "void")), vEnum("draft"))
	x.iIssued = field("issued_on", tOpt(tDate))
	x.Invoice = newEntity(x.billing, "Invoice", x.iCustomer, x.iAmount, x.iStatus, x.iIssued)

	x.eInvoice = field("invoice", tRef(x.Invoice))
	x.eAmount = field("amount", tMoney)
	x.ePosted = withBound(field("posted_on", tDate), ">=", vDate("2020-01-01"))
	x.eLines = withBound(withBound(withDefault(field("lines", tInt), vInt(1)), ">=", vInt(1)), "<=", vInt(100))
	x.eAt = field("booked_at", tOpt(tDateTime))
	x.Entry = newEntity(x.ledger, "Entry", x.eInvoice, x.eAmount, x.ePosted, x.eLines, x.eAt)

	// crm tools.
	x.findCustomers = stdTool(x.crm, "find_customers", ir.ToolSearch, x.Customer, x.cName, x.cTier, x.cParent, x.cActive)
	x.getCustomer = stdTool(x.crm, "get_customer", ir.ToolGet, x.Customer)
	x.listCustomers = stdTool(x.crm, "list_customers", ir.ToolList, x.Customer)
	x.createCustomer = stdTool(x.crm, "create_customer", ir.ToolCreate, x.Customer)
	x.updateCustomer = stdTool(x.crm, "update_customer", ir.ToolUpdate, x.Customer)
	x.deleteCustomer = stdTool(x.crm, "delete_customer", ir.ToolDelete, x.Customer)
	x.setTier = customTool(x.crm, "set_tier", []*ir.Param{param("customer", tRef(x.Customer)), param("tier", x.cTier.Type)},
		func(p map[string]ir.Expr) []ir.Stmt {
			return []ir.Stmt{
				&ir.Require{Cond: fld(p["customer"], x.cActive), Message: "customer is inactive"},
				&ir.Set{Target: p["customer"], Field: x.cTier, Value: p["tier"]},
				&ir.Return{Value: p["customer"]},
			}
		})
	// rename_all(suffix) renames every customer and returns the count.
	x.renameAll = customTool(x.crm, "rename_all", []*ir.Param{param("suffix", tString)},
		func(p map[string]ir.Expr) []ir.Stmt {
			c := &ir.Var{Name: "c", Type: tRec(x.Customer)}
			n := &ir.Var{Name: "n", Type: tString} // a let run once per record
			return []ir.Stmt{
				&ir.For{Var: c, Entity: x.Customer, Body: []ir.Stmt{
					&ir.Let{Var: n, Value: bin("+", fld(vr(c), x.cName), p["suffix"])},
					&ir.Set{Target: vr(c), Field: x.cName, Value: vr(n)},
				}},
				&ir.Return{Value: agg("count", x.Customer, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil })},
			}
		})

	// billing tools.
	x.getInvoice = stdTool(x.billing, "get_invoice", ir.ToolGet, x.Invoice)
	x.createInvoice = stdTool(x.billing, "create_invoice", ir.ToolCreate, x.Invoice)
	x.deleteInvoice = stdTool(x.billing, "delete_invoice", ir.ToolDelete, x.Invoice)
	x.markPaid = customTool(x.billing, "mark_paid", []*ir.Param{param("invoice", tRef(x.Invoice))},
		func(p map[string]ir.Expr) []ir.Stmt {
			return []ir.Stmt{
				&ir.Require{Cond: eq(fld(p["invoice"], x.iStatus), enumLit(x.iStatus, "issued")), Message: "only issued invoices can be paid"},
				&ir.Set{Target: p["invoice"], Field: x.iStatus, Value: enumLit(x.iStatus, "paid")},
				&ir.Return{Value: p["invoice"]},
			}
		})
	x.voidDrafts = customTool(x.billing, "void_drafts", nil, func(map[string]ir.Expr) []ir.Stmt {
		i := &ir.Var{Name: "i", Type: tRec(x.Invoice)}
		return []ir.Stmt{&ir.For{Var: i, Entity: x.Invoice, Where: eq(fld(vr(i), x.iStatus), enumLit(x.iStatus, "draft")),
			Body: []ir.Stmt{&ir.Set{Target: vr(i), Field: x.iStatus, Value: enumLit(x.iStatus, "void")}}}}
	})
	// clone_drafts inserts a copy of every draft into the table it iterates.
	x.cloneDrafts = customTool(x.billing, "clone_drafts", nil, func(map[string]ir.Expr) []ir.Stmt {
		i := &ir.Var{Name: "i", Type: tRec(x.Invoice)}
		return []ir.Stmt{
			&ir.For{Var: i, Entity: x.Invoice, Where: eq(fld(vr(i), x.iStatus), enumLit(x.iStatus, "draft")),
				Body: []ir.Stmt{&ir.Insert{Entity: x.Invoice, Fields: []*ir.FieldInit{
					{Field: x.iCustomer, Value: fld(vr(i), x.iCustomer)},
					{Field: x.iAmount, Value: fld(vr(i), x.iAmount)},
				}}}},
			&ir.Return{Value: agg("count", x.Invoice, tInt, func(v ir.Expr) (ir.Expr, ir.Expr) {
				return eq(fld(v, x.iStatus), enumLit(x.iStatus, "draft")), nil
			})},
		}
	})
	// insert_then_fail inserts, sets and deletes, then fails a require.
	x.insertThenFail = customTool(x.billing, "insert_then_fail", []*ir.Param{param("customer", tRef(x.Customer)), param("victim", tRef(x.Invoice))},
		func(p map[string]ir.Expr) []ir.Stmt {
			n := &ir.Var{Name: "n", Type: tRec(x.Invoice)}
			return []ir.Stmt{
				&ir.Insert{Var: n, Entity: x.Invoice, Fields: []*ir.FieldInit{{Field: x.iCustomer, Value: recID(p["customer"])}, {Field: x.iAmount, Value: conv(iLit(5), tMoney)}}},
				&ir.Set{Target: vr(n), Field: x.iStatus, Value: enumLit(x.iStatus, "issued")},
				&ir.Delete{Target: p["victim"]},
				&ir.Require{Cond: bLit(false), Message: "always fails"},
			}
		})
	x.noReturn = customTool(x.billing, "touch", []*ir.Param{param("invoice", tRef(x.Invoice)), param("on", tOpt(tDate))},
		func(p map[string]ir.Expr) []ir.Stmt {
			return []ir.Stmt{
				&ir.If{Cond: eq(p["on"], nullLit()),
					Then: []ir.Stmt{&ir.Set{Target: p["invoice"], Field: x.iIssued, Value: today()}},
					Else: []ir.Stmt{&ir.Set{Target: p["invoice"], Field: x.iIssued, Value: p["on"]}}},
			}
		})

	// ledger tools.
	x.postEntry = customTool(x.ledger, "post_entry", []*ir.Param{param("invoice", tRef(x.Invoice)), param("amount", tMoney)},
		func(p map[string]ir.Expr) []ir.Stmt {
			e := &ir.Var{Name: "e", Type: tRec(x.Entry)}
			return []ir.Stmt{
				&ir.Require{Cond: bin(">", p["amount"], conv(iLit(0), tMoney)), Message: "amount must be positive"},
				&ir.Insert{Var: e, Entity: x.Entry, Fields: []*ir.FieldInit{
					{Field: x.eInvoice, Value: recID(p["invoice"])},
					{Field: x.eAmount, Value: p["amount"]},
					{Field: x.ePosted, Value: today()},
				}},
				&ir.Return{Value: vr(e)},
			}
		})
	x.listEntries = stdTool(x.ledger, "list_entries", ir.ToolList, x.Entry)
	x.failDeep = customTool(x.ledger, "fail_deep", []*ir.Param{param("n", tInt)}, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Return{Value: bin("%", iLit(10), p["n"])}}
	})

	// The invariant.
	inv := &ir.Var{Name: "inv", Type: tRec(x.Invoice)}
	x.posted = &ir.Invariant{
		Name: "paid_invoices_are_posted", Policy: "Every paid invoice is posted.", Var: inv, Entity: x.Invoice,
		Where: eq(fld(vr(inv), x.iStatus), enumLit(x.iStatus, "paid")),
		Check: agg("exists", x.Entry, tBool, func(e ir.Expr) (ir.Expr, ir.Expr) {
			return and(eq(fld(e, x.eInvoice), recID(vr(inv))), eq(fld(e, x.eAmount), fld(vr(inv), x.iAmount))), nil
		}),
	}

	x.w = &ir.World{
		Name: "northwind", Today: "2026-03-14",
		// Constants built by hand are floats (vDec): a world of float numbers.
		FloatNumbers: true,
		Services:     []*ir.Service{x.crm, x.billing, x.ledger},
		Entities:     []*ir.Entity{x.Customer, x.Invoice, x.Entry},
		Invariants:   []*ir.Invariant{x.posted},
	}
	for _, s := range x.w.Services {
		x.w.Tools = append(x.w.Tools, s.Tools...)
	}
	x.w.Seed = []*ir.Record{
		record(x.Customer, "acme", vStr("Acme AG"), vStr("ap@acme.example"), vEnum("silver"), vMoney(50000), vBool(true), vNull(), vNull()),
		record(x.Customer, "bolt", vStr("Bolt GmbH"), vStr("hi@bolt.example"), vEnum("gold"), vInt(1000), vBool(false), vRef("acme"), vStr("slow payer")),
		record(x.Invoice, "inv1", vRef("acme"), vMoney(1200), vEnum("issued"), vDate("2026-03-01")),
		record(x.Invoice, "inv2", vRef("bolt"), vMoney(80.5), vEnum("draft"), vNull()),
	}

	x.settle = &ir.Task{
		Name: "settle_acme_invoice",
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: "billing.Invoice[inv1].status == paid", Expr: eq(fld(lookup(x.Invoice, handle(x.Invoice, "inv1")), x.iStatus), enumLit(x.iStatus, "paid"))},
			{Kind: ir.AssertExpr, Text: "exists(e in ledger.Entry where e.invoice == inv1 and e.amount == 1200)", Expr: agg("exists", x.Entry, tBool, func(e ir.Expr) (ir.Expr, ir.Expr) {
				return and(eq(fld(e, x.eInvoice), handle(x.Invoice, "inv1")), eq(fld(e, x.eAmount), conv(iLit(1200), tMoney))), nil
			})},
			{Kind: ir.AssertInvariant, Text: "invariant paid_invoices_are_posted", Invariant: x.posted},
		},
	}
	x.settle.Solution = []*ir.Step{
		{Tool: x.markPaid, Args: []*ir.Arg{{Param: x.markPaid.Params[0], Value: vRef("inv1")}}},
		{Tool: x.postEntry, Args: []*ir.Arg{{Param: x.postEntry.Params[0], Value: vRef("inv1")}, {Param: x.postEntry.Params[1], Value: vInt(1200)}}},
	}

	cp := func(tool *ir.Tool, name string) *ir.Param {
		for _, p := range tool.Params {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("no param %s of %s", name, tool.Name)
		return nil
	}
	x.onboard = &ir.Task{
		Name: "onboard",
		Seed: []*ir.Record{record(x.Customer, "zed", vStr("Zed"), vStr("z@zed.example"), vEnum("bronze"), vInt(0), vBool(true), vNull(), vNull())},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: `exists(c in Customer where c.email == "new@n.example" and c.tier == gold)`, Expr: agg("exists", x.Customer, tBool, func(c ir.Expr) (ir.Expr, ir.Expr) {
				return and(eq(fld(c, x.cEmail), sLit("new@n.example")), eq(fld(c, x.cTier), enumLit(x.cTier, "gold"))), nil
			})},
			{Kind: ir.AssertExpr, Text: "count(i in Invoice where i.status == paid) == 1", Expr: eq(agg("count", x.Invoice, tInt, func(i ir.Expr) (ir.Expr, ir.Expr) {
				return eq(fld(i, x.iStatus), enumLit(x.iStatus, "paid")), nil
			}), iLit(1))},
			{Kind: ir.AssertInvariant, Text: "invariant paid_invoices_are_posted", Invariant: x.posted},
		},
		Solution: []*ir.Step{
			{Bind: "c", Tool: x.createCustomer, Args: []*ir.Arg{
				{Param: cp(x.createCustomer, "name"), Value: vStr("Newco")},
				{Param: cp(x.createCustomer, "email"), Value: vStr("new@n.example")},
				{Param: cp(x.createCustomer, "tier"), Value: vEnum("gold")},
				{Param: cp(x.createCustomer, "credit_limit"), Value: vInt(100)},
			}},
			{Bind: "i", Tool: x.createInvoice, Args: []*ir.Arg{
				{Param: cp(x.createInvoice, "customer"), Bound: "c"},
				{Param: cp(x.createInvoice, "amount"), Value: vDec(50)},
				{Param: cp(x.createInvoice, "status"), Value: vEnum("issued")},
			}},
			{Tool: x.markPaid, Args: []*ir.Arg{{Param: x.markPaid.Params[0], Bound: "i"}}},
			{Tool: x.postEntry, Args: []*ir.Arg{{Param: x.postEntry.Params[0], Bound: "i"}, {Param: x.postEntry.Params[1], Value: vInt(50)}}},
		},
	}
	x.refuse = &ir.Task{
		Name:       "refuse",
		Assertions: []*ir.Assertion{{Kind: ir.AssertUnchanged, Text: "unchanged"}},
		Solution:   []*ir.Step{},
	}
	x.w.Tasks = []*ir.Task{x.settle, x.onboard, x.refuse}
	return x
}

func (x *fixture) state(t testing.TB) *State {
	t.Helper()
	s, err := NewState(x.w, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// mustCall calls a tool by name with JSON arguments and fails on error.
func mustCall(t testing.TB, s *State, tool, args string) string {
	t.Helper()
	d, err := s.CallJSON(tool, []byte(args))
	if err != nil {
		t.Fatalf("%s(%s): %v", tool, args, err)
	}
	return d.String()
}

// callErr calls a tool that must fail, checks that the state is unchanged
// and returns the error.
func callErr(t testing.TB, s *State, tool, args string) *ToolError {
	t.Helper()
	before := s.Hash()
	d, err := s.CallJSON(tool, []byte(args))
	if err == nil {
		t.Fatalf("%s(%s) = %s, want an error", tool, args, d)
	}
	if h := s.Hash(); h != before {
		t.Fatalf("%s(%s) failed with %v but changed the state", tool, args, err)
	}
	return err
}

// Composite types, values and expressions (issue 4).

func tMap(el *ir.Type) *ir.Type        { return &ir.Type{Kind: ir.KindMap, Elem: el} }
func tStruct(d *ir.StructDef) *ir.Type { return &ir.Type{Kind: ir.KindStruct, Struct: d} }

func vList(vs ...*ir.Value) *ir.Value { return &ir.Value{Kind: ir.KindList, List: vs} }

// vMap builds a map constant from key/value pairs (sorted here, as the
// checker sorts them).
func vMap(kv ...any) *ir.Value {
	out := &ir.Value{Kind: ir.KindMap}
	for i := 0; i < len(kv); i += 2 {
		out.Entries = append(out.Entries, ir.MapEntry{Key: kv[i].(string), Value: kv[i+1].(*ir.Value)})
	}
	slices.SortFunc(out.Entries, func(a, b ir.MapEntry) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// vStruct builds a record constant: one value per AllFields field, nil
// standing for null.
func vStruct(vs ...*ir.Value) *ir.Value {
	for i, v := range vs {
		if v == nil {
			vs[i] = vNull()
		}
	}
	return &ir.Value{Kind: ir.KindStruct, Fields: vs}
}

// newStruct declares a plain value record.
func newStruct(w *[]*ir.StructDef, name string, fields ...*ir.Field) *ir.StructDef {
	d := &ir.StructDef{Name: name, Fields: fields}
	for _, f := range fields {
		f.Struct = d
		if f.Type != nil && f.Type.Kind == ir.KindEnum {
			f.Type.Enum.Field = f
		}
	}
	*w = append(*w, d)
	return d
}

// newVariant declares a variant record `record name by tag { common… case
// … }`; cases are built with newCase.
func newVariant(w *[]*ir.StructDef, name, tag string, common []*ir.Field, cases ...*ir.Case) *ir.StructDef {
	d := newStruct(w, name, common...)
	var names []string
	for _, c := range cases {
		names = append(names, c.Name)
		for _, f := range c.Fields {
			f.Struct, f.Case = d, c
			if f.Type != nil && f.Type.Kind == ir.KindEnum {
				f.Type.Enum.Field = f
			}
		}
	}
	d.Cases = cases
	d.Tag = &ir.Field{Name: tag, Struct: d, Type: enumType(names...)}
	d.Tag.Type.Enum.Field = d.Tag
	return d
}

func newCase(name string, fields ...*ir.Field) *ir.Case { return &ir.Case{Name: name, Fields: fields} }

func index(x, key ir.Expr) ir.Expr {
	var t *ir.Type
	if xt := x.Type(); xt != nil {
		t = xt.Elem
	}
	return &ir.Index{ExprBase: base(t), X: x, Key: key}
}

// structLit builds `D { f: v, … }` (case c for a variant); fields are
// field/value pairs in any order (sorted into AllFields order here).
func structLit(d *ir.StructDef, c *ir.Case, fv ...any) ir.Expr {
	x := &ir.StructLit{ExprBase: base(tStruct(d)), Struct: d, Case: c}
	for i := 0; i < len(fv); i += 2 {
		x.Fields = append(x.Fields, &ir.FieldInit{Field: fv[i].(*ir.Field), Value: fv[i+1].(ir.Expr)})
	}
	slices.SortFunc(x.Fields, func(a, b *ir.FieldInit) int {
		return structFieldIndex(d, a.Field) - structFieldIndex(d, b.Field)
	})
	return x
}

// mapLit builds `{ "k": v, … }` of type map<string, el>.
func mapLit(el *ir.Type, kv ...any) ir.Expr {
	x := &ir.MapLit{ExprBase: base(tMap(el))}
	for i := 0; i < len(kv); i += 2 {
		x.Entries = append(x.Entries, ir.MapLitEntry{Key: kv[i].(string), Value: kv[i+1].(ir.Expr)})
	}
	slices.SortFunc(x.Entries, func(a, b ir.MapLitEntry) int { return strings.Compare(a.Key, b.Key) })
	return x
}

// pf and pi are path steps: a field, an index or key.
func pf(f *ir.Field) ir.PathStep { return ir.PathStep{Field: f} }
func pi(x ir.Expr) ir.PathStep   { return ir.PathStep{Index: x} }
func assign(root ir.Expr, value ir.Expr, path ...ir.PathStep) ir.Stmt {
	return &ir.Assign{Root: root, Path: path, Value: value}
}

// forIn is `for [k,] v in src where … { body }`; body gets the variables.
func forIn(src ir.Expr, withKey bool, body func(k, v ir.Expr) (where ir.Expr, stmts []ir.Stmt)) ir.Stmt {
	st := &ir.For{Source: src, Var: &ir.Var{Name: "v", Type: src.Type().Elem}}
	var k ir.Expr
	if withKey {
		kt := tInt
		if src.Type().Kind == ir.KindMap {
			kt = tString
		}
		st.Key = &ir.Var{Name: "k", Type: kt}
		k = vr(st.Key)
	}
	st.Where, st.Body = body(k, vr(st.Var))
	return st
}

// aggIn is an aggregate over a list or map.
func aggIn(op string, src ir.Expr, t *ir.Type, body func(x ir.Expr) (where, val ir.Expr)) ir.Expr {
	v := &ir.Var{Name: "x", Type: src.Type().Elem}
	where, val := body(vr(v))
	return &ir.Aggregate{ExprBase: base(t), Op: op, Var: v, Source: src, Where: where, Value: val}
}

func varDecl(v *ir.Var, x ir.Expr) ir.Stmt { return &ir.VarDecl{Var: v, Value: x} }
