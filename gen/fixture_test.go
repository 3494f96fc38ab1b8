package gen

import (
	"fmt"

	"github.com/worldc/worldc/compiler/ir"
)

// This file builds checked IR by hand, so that the generator can be tested
// independently of the checker: northwind() is the example world of
// docs/language.md, extended to touch every construct the generator
// compiles.

func typ(k ir.Kind) *ir.Type { return &ir.Type{Kind: k} }

func opt(t *ir.Type) *ir.Type { c := *t; c.Optional = true; return &c }

func refT(e *ir.Entity) *ir.Type { return &ir.Type{Kind: ir.KindRef, Entity: e} }

func recT(e *ir.Entity) *ir.Type { return &ir.Type{Kind: ir.KindRecord, Entity: e} }

func vStr(s string) *ir.Value      { return &ir.Value{Kind: ir.KindString, Str: s} }
func vText(s string) *ir.Value     { return &ir.Value{Kind: ir.KindText, Str: s} }
func vEnum(s string) *ir.Value     { return &ir.Value{Kind: ir.KindEnum, Str: s} }
func vRef(s string) *ir.Value      { return &ir.Value{Kind: ir.KindRef, Str: s} }
func vDate(s string) *ir.Value     { return &ir.Value{Kind: ir.KindDate, Str: s} }
func vDateTime(s string) *ir.Value { return &ir.Value{Kind: ir.KindDateTime, Str: s} }
func vInt(i int64) *ir.Value       { return &ir.Value{Kind: ir.KindInt, Int: i} }
func vMoney(f float64) *ir.Value   { return &ir.Value{Kind: ir.KindMoney, Num: f} }
func vDec(f float64) *ir.Value     { return &ir.Value{Kind: ir.KindDecimal, Num: f} }
func vBool(b bool) *ir.Value       { return &ir.Value{Kind: ir.KindBool, Bool: b} }
func vNull() *ir.Value             { return &ir.Value{Kind: ir.KindNull} }

// lit is a constant of type t.
func lit(t *ir.Type, v *ir.Value) *ir.Lit { return &ir.Lit{ExprBase: ir.ExprBase{T: t}, Value: v} }

func enumLit(f *ir.Field, v string) *ir.Lit { return lit(f.Type, vEnum(v)) }

func varRef(v *ir.Var) *ir.VarRef { return &ir.VarRef{ExprBase: ir.ExprBase{T: v.Type}, Var: v} }

// field reads f of the record x.
func field(x ir.Expr, f *ir.Field) *ir.FieldRef {
	return &ir.FieldRef{ExprBase: ir.ExprBase{T: f.Type}, X: x, Field: f}
}

func idOf(x ir.Expr) *ir.IDOf {
	return &ir.IDOf{ExprBase: ir.ExprBase{T: refT(x.Type().Entity)}, X: x}
}

func deref(x ir.Expr) *ir.Deref {
	return &ir.Deref{ExprBase: ir.ExprBase{T: recT(x.Type().Entity)}, X: x}
}

func bin(op string, l, r ir.Expr) *ir.Binary {
	t := typ(ir.KindBool)
	switch op {
	case "+", "-", "*", "%":
		t = l.Type()
		if op == "-" && l.Type().Kind == ir.KindDate && r.Type().Kind == ir.KindDate {
			t = typ(ir.KindInt)
		}
	case "/":
		t = typ(ir.KindDecimal)
	}
	return &ir.Binary{ExprBase: ir.ExprBase{T: t}, Op: op, L: l, R: r}
}

func and(xs ...ir.Expr) ir.Expr {
	e := xs[0]
	for _, x := range xs[1:] {
		e = bin("and", e, x)
	}
	return e
}

func call(t *ir.Type, fn string, args ...ir.Expr) *ir.Call {
	return &ir.Call{ExprBase: ir.ExprBase{T: t}, Func: fn, Args: args}
}

func list(elem *ir.Type, xs ...ir.Expr) *ir.ListLit {
	return &ir.ListLit{ExprBase: ir.ExprBase{T: &ir.Type{Kind: ir.KindList, Elem: elem}}, Elems: xs}
}

func handle(e *ir.Entity, id string) *ir.Handle {
	return &ir.Handle{ExprBase: ir.ExprBase{T: refT(e)}, Entity: e, ID: id}
}

func lookup(e *ir.Entity, id string) *ir.Lookup {
	return &ir.Lookup{ExprBase: ir.ExprBase{T: recT(e)}, Entity: e, Key: handle(e, id)}
}

// agg builds an aggregate; body receives the loop variable and returns
// (where, value).
func agg(op string, t *ir.Type, e *ir.Entity, name string, body func(v ir.Expr) (ir.Expr, ir.Expr)) *ir.Aggregate {
	v := &ir.Var{Name: name, Type: recT(e)}
	where, value := body(varRef(v))
	return &ir.Aggregate{ExprBase: ir.ExprBase{T: t}, Op: op, Var: v, Entity: e, Where: where, Value: value}
}

// builder assembles a world, linking the back pointers the checker sets.
type builder struct{ w *ir.World }

func newBuilder(name string) *builder {
	// Constants built by hand carry floats (Num): a world of float numbers.
	return &builder{w: &ir.World{Name: name, Title: "Northwind Logistics GmbH", Industry: "logistics",
		Country: "DE", Currency: "EUR", Today: "2026-03-14", FloatNumbers: true}}
}

func (b *builder) service(name, doc string) *ir.Service {
	s := &ir.Service{Name: name, Doc: doc}
	b.w.Services = append(b.w.Services, s)
	return s
}

func (b *builder) entity(s *ir.Service, name, doc string, fields ...*ir.Field) *ir.Entity {
	e := &ir.Entity{Name: name, Doc: doc, Service: s, Fields: fields}
	for _, f := range fields {
		f.Entity = e
		if f.Type.Kind == ir.KindEnum {
			f.Type.Enum.Field = f
		}
	}
	s.Entities = append(s.Entities, e)
	b.w.Entities = append(b.w.Entities, e)
	return e
}

func fld(name string, t *ir.Type) *ir.Field { return &ir.Field{Name: name, Type: t} }

func enumT(values ...string) *ir.Type {
	return &ir.Type{Kind: ir.KindEnum, Enum: &ir.EnumDef{Values: values}}
}

// enumOf is the type of a parameter `E.field`.
func enumOf(f *ir.Field) *ir.Type { return &ir.Type{Kind: ir.KindEnum, Enum: f.Type.Enum} }

func (b *builder) tool(s *ir.Service, t *ir.Tool) *ir.Tool {
	t.Service = s
	s.Tools = append(s.Tools, t)
	b.w.Tools = append(b.w.Tools, t)
	return t
}

// stdTool builds a standard tool with the parameters the checker derives.
func (b *builder) stdTool(s *ir.Service, name string, kind ir.ToolKind, e *ir.Entity, doc string, by ...*ir.Field) *ir.Tool {
	t := &ir.Tool{Name: name, Kind: kind, Entity: e, Doc: doc, By: by}
	idParam := &ir.Param{Name: "id", Type: refT(e)}
	switch kind {
	case ir.ToolGet, ir.ToolDelete:
		t.Params = []*ir.Param{idParam}
		t.Returns = recT(e)
	case ir.ToolList:
		t.Params = []*ir.Param{{Name: "offset", Type: opt(typ(ir.KindInt))}}
		t.Returns = &ir.Type{Kind: ir.KindList, Elem: recT(e)}
	case ir.ToolSearch:
		for _, f := range by {
			pt := *f.Type
			pt.Optional = true
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: &pt, Field: f})
		}
		t.Returns = &ir.Type{Kind: ir.KindList, Elem: recT(e)}
	case ir.ToolCreate:
		for _, f := range e.Fields {
			pt := *f.Type
			pt.Optional = !f.Required()
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: &pt, Field: f})
		}
		t.Returns = recT(e)
	case ir.ToolUpdate:
		t.Params = []*ir.Param{idParam}
		for _, f := range e.Fields {
			pt := *f.Type
			pt.Optional = true
			t.Params = append(t.Params, &ir.Param{Name: f.Name, Type: &pt, Field: f})
		}
		t.Returns = recT(e)
	}
	return b.tool(s, t)
}

// param makes a custom tool parameter; a ref parameter's variable is the
// record.
func param(name string, t *ir.Type, doc string) *ir.Param {
	vt := t
	if t.Kind == ir.KindRef {
		vt = recT(t.Entity)
	}
	return &ir.Param{Name: name, Type: t, Doc: doc, Var: &ir.Var{Name: name, Type: vt}}
}

func (b *builder) record(e *ir.Entity, id string, vals map[string]*ir.Value) *ir.Record {
	r := &ir.Record{Entity: e, ID: id}
	for _, f := range e.Fields {
		v, ok := vals[f.Name]
		switch {
		case ok:
		case f.Default != nil:
			v = f.Default
		default:
			v = vNull()
		}
		r.Values = append(r.Values, v)
	}
	for k := range vals {
		if e.Field(k) == nil {
			panic(fmt.Sprintf("record %s: no field %s", id, k))
		}
	}
	return r
}

func arg(t *ir.Tool, name string, v *ir.Value) *ir.Arg {
	for _, p := range t.Params {
		if p.Name == name {
			return &ir.Arg{Param: p, Value: v}
		}
	}
	panic("no param " + name)
}

func toolNamed(w *ir.World, name string) *ir.Tool {
	for _, t := range w.Tools {
		if t.Name == name {
			return t
		}
	}
	panic("no tool " + name)
}

func boundArg(t *ir.Tool, name, bound string) *ir.Arg {
	a := arg(t, name, nil)
	a.Bound = bound
	return a
}

// northwindWorld holds the pieces of the example world that tests poke at.
type northwindWorld struct {
	*ir.World
	customer, invoice, entry *ir.Entity
	markPaid, postEntry      *ir.Tool
}

// northwind is the docs/language.md example, extended: every field kind,
// optional and unique fields, bounds, all six standard tools, and custom
// tools with let, insert, set, delete, if and for.
func northwind() *northwindWorld {
	b := newBuilder("northwind")
	crm := b.service("crm", "Customer accounts")
	tier := fld("tier", enumT("bronze", "silver", "gold"))
	tier.Doc = "Pricing tier"
	creditLimit := fld("credit_limit", typ(ir.KindMoney))
	creditLimit.Bounds = []ir.Bound{{Op: ">=", Value: vMoney(0)}}
	active := fld("active", typ(ir.KindBool))
	active.Default = vBool(true)
	email := fld("email", typ(ir.KindString))
	email.Unique = true
	seats := fld("seats", typ(ir.KindInt))
	seats.Default = vInt(1)
	seats.Bounds = []ir.Bound{{Op: ">", Value: vInt(0)}, {Op: "<=", Value: vInt(1000)}}
	customer := b.entity(crm, "Customer", "A company we bill",
		fld("name", typ(ir.KindString)), email, tier, creditLimit, active, seats,
		fld("notes", opt(typ(ir.KindText))),
		fld("last_contact", opt(typ(ir.KindDateTime))),
		fld("discount", opt(typ(ir.KindDecimal))))

	b.stdTool(crm, "find_customers", ir.ToolSearch, customer, "Find customers by name or tier", customer.Field("name"), tier)
	b.stdTool(crm, "get_customer", ir.ToolGet, customer, "")
	b.stdTool(crm, "create_customer", ir.ToolCreate, customer, "Open a customer account")
	b.stdTool(crm, "update_customer", ir.ToolUpdate, customer, "")
	{
		pc := param("customer", refT(customer), "")
		pt := param("tier", enumOf(tier), "The new tier")
		c := varRef(pc.Var)
		b.tool(crm, &ir.Tool{Name: "set_tier", Kind: ir.ToolCustom, Doc: "Move a customer to another tier",
			Params: []*ir.Param{pc, pt}, Returns: recT(customer),
			Body: []ir.Stmt{
				&ir.Require{Cond: field(c, active), Message: "customer is inactive"},
				&ir.Set{Target: c, Field: tier, Value: varRef(pt.Var)},
				&ir.Return{Value: c},
			}})
	}

	billing := b.service("billing", "Invoices")
	amount := fld("amount", typ(ir.KindMoney))
	amount.Bounds = []ir.Bound{{Op: ">=", Value: vMoney(0)}}
	status := fld("status", enumT("draft", "issued", "paid", "void"))
	status.Default = vEnum("draft")
	invCustomer := fld("customer", refT(customer))
	issuedOn := fld("issued_on", opt(typ(ir.KindDate)))
	invoice := b.entity(billing, "Invoice", "", invCustomer, amount, status, issuedOn)
	b.stdTool(billing, "get_invoice", ir.ToolGet, invoice, "")
	b.stdTool(billing, "create_invoice", ir.ToolCreate, invoice, "Draft an invoice")
	b.stdTool(billing, "delete_invoice", ir.ToolDelete, invoice, "Delete an invoice")
	var markPaid *ir.Tool
	{
		pi := param("invoice", refT(invoice), "")
		inv := varRef(pi.Var)
		markPaid = b.tool(billing, &ir.Tool{Name: "mark_paid", Kind: ir.ToolCustom,
			Params: []*ir.Param{pi}, Returns: recT(invoice),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("==", field(inv, status), enumLit(status, "issued")), Message: "only issued invoices can be paid"},
				&ir.Set{Target: inv, Field: status, Value: enumLit(status, "paid")},
				&ir.Return{Value: inv},
			}})
	}
	{
		// issue_invoice: an if/else and date arithmetic.
		pi := param("invoice", refT(invoice), "")
		pd := param("due_in", opt(typ(ir.KindInt)), "Days until the invoice is due")
		inv := varRef(pi.Var)
		days := &ir.Var{Name: "days", Type: typ(ir.KindInt)}
		b.tool(billing, &ir.Tool{Name: "issue_invoice", Kind: ir.ToolCustom, Doc: "Issue a draft invoice dated today",
			Params: []*ir.Param{pi, pd}, Returns: recT(invoice),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("in", field(inv, status), list(status.Type, enumLit(status, "draft"))), Message: "only drafts can be issued"},
				&ir.Require{Cond: field(deref(field(inv, invCustomer)), active), Message: "the customer is inactive"},
				&ir.Let{Var: days, Value: call(typ(ir.KindInt), "coalesce", varRef(pd.Var), lit(typ(ir.KindInt), vInt(30)))},
				&ir.If{Cond: bin(">", varRef(days), lit(typ(ir.KindInt), vInt(90))),
					Then: []ir.Stmt{&ir.Require{Cond: lit(typ(ir.KindBool), vBool(false)), Message: "payment terms over 90 days need approval"}},
					Else: []ir.Stmt{&ir.Set{Target: inv, Field: issuedOn, Value: &ir.Today{ExprBase: ir.ExprBase{T: typ(ir.KindDate)}}}}},
				&ir.Set{Target: inv, Field: status, Value: enumLit(status, "issued")},
				&ir.Return{Value: inv},
			}})
	}
	{
		// void_drafts: a for loop over another entity, returning a count.
		pc := param("customer", refT(customer), "")
		n := &ir.Var{Name: "n", Type: typ(ir.KindInt)}
		v := &ir.Var{Name: "inv", Type: recT(invoice)}
		b.tool(billing, &ir.Tool{Name: "void_drafts", Kind: ir.ToolCustom, Doc: "Void every draft invoice of a customer",
			Params: []*ir.Param{pc}, Returns: typ(ir.KindInt),
			Body: []ir.Stmt{
				&ir.Let{Var: n, Value: agg("count", typ(ir.KindInt), invoice, "i", func(i ir.Expr) (ir.Expr, ir.Expr) {
					return and(bin("==", field(i, invCustomer), idOf(varRef(pc.Var))), bin("==", field(i, status), enumLit(status, "draft"))), nil
				})},
				&ir.Require{Cond: bin(">", varRef(n), lit(typ(ir.KindInt), vInt(0))), Message: "the customer has no draft invoices"},
				&ir.For{Var: v, Entity: invoice,
					Where: and(bin("==", field(varRef(v), invCustomer), idOf(varRef(pc.Var))), bin("==", field(varRef(v), status), enumLit(status, "draft"))),
					Body:  []ir.Stmt{&ir.Set{Target: varRef(v), Field: status, Value: enumLit(status, "void")}}},
				&ir.Return{Value: varRef(n)},
			}})
	}

	ledger := b.service("ledger", "General ledger")
	entInvoice := fld("invoice", refT(invoice))
	entAmount := fld("amount", typ(ir.KindMoney))
	postedOn := fld("posted_on", typ(ir.KindDate))
	entry := b.entity(ledger, "Entry", "A ledger line", entInvoice, entAmount, postedOn)
	b.stdTool(ledger, "list_entries", ir.ToolList, entry, "")
	var postEntry *ir.Tool
	{
		pi := param("invoice", refT(invoice), "")
		pa := param("amount", typ(ir.KindMoney), "")
		e := &ir.Var{Name: "e", Type: recT(entry)}
		postEntry = b.tool(ledger, &ir.Tool{Name: "post_entry", Kind: ir.ToolCustom,
			Params: []*ir.Param{pi, pa}, Returns: recT(entry),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin(">", varRef(pa.Var), lit(typ(ir.KindMoney), vMoney(0))), Message: "amount must be positive"},
				&ir.Insert{Entity: entry, Var: e, Fields: []*ir.FieldInit{
					{Field: entInvoice, Value: idOf(varRef(pi.Var))},
					{Field: entAmount, Value: varRef(pa.Var)},
					{Field: postedOn, Value: &ir.Today{ExprBase: ir.ExprBase{T: typ(ir.KindDate)}}},
				}},
				&ir.Return{Value: varRef(e)},
			}})
	}
	{
		pe := param("entry", refT(entry), "")
		b.tool(ledger, &ir.Tool{Name: "reverse_entry", Kind: ir.ToolCustom, Doc: "Remove a ledger line posted today",
			Params: []*ir.Param{pe},
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("==", field(varRef(pe.Var), postedOn), &ir.Today{ExprBase: ir.ExprBase{T: typ(ir.KindDate)}}), Message: "only today's entries can be reversed"},
				&ir.Delete{Target: varRef(pe.Var)},
			}})
	}

	invVar := &ir.Var{Name: "inv", Type: recT(invoice)}
	paidPosted := &ir.Invariant{Name: "paid_invoices_are_posted",
		Policy: "Every paid invoice is posted to the ledger for its full amount.",
		Var:    invVar, Entity: invoice,
		Where: bin("==", field(varRef(invVar), status), enumLit(status, "paid")),
		Check: agg("exists", typ(ir.KindBool), entry, "e", func(e ir.Expr) (ir.Expr, ir.Expr) {
			return and(bin("==", field(e, entInvoice), idOf(varRef(invVar))), bin("==", field(e, entAmount), field(varRef(invVar), amount))), nil
		})}
	b.w.Invariants = append(b.w.Invariants, paidPosted)
	entVar := &ir.Var{Name: "e", Type: recT(entry)}
	postedTotal := &ir.Invariant{Name: "ledger_matches_invoices",
		Policy: "The ledger never holds more for an invoice than the invoice's amount.",
		Var:    entVar, Entity: entry,
		Check: bin("<=", agg("sum", typ(ir.KindMoney), entry, "o", func(o ir.Expr) (ir.Expr, ir.Expr) {
			return bin("==", field(o, entInvoice), field(varRef(entVar), entInvoice)), field(o, entAmount)
		}), field(deref(field(varRef(entVar), entInvoice)), amount))}
	b.w.Invariants = append(b.w.Invariants, postedTotal)

	b.w.Seed = []*ir.Record{
		b.record(customer, "acme", map[string]*ir.Value{"name": vStr("Acme AG"), "email": vStr("ap@acme.example"),
			"tier": vEnum("silver"), "credit_limit": vMoney(50000), "last_contact": vDateTime("2026-03-01T09:30:00Z")}),
		b.record(customer, "globex", map[string]*ir.Value{"name": vStr("Globex"), "email": vStr("billing@globex.example"),
			"tier": vEnum("gold"), "credit_limit": vMoney(12000.5), "seats": vInt(40), "notes": vText("Pays late.\nCall first."), "discount": vDec(0.05)}),
		b.record(invoice, "inv1", map[string]*ir.Value{"customer": vRef("acme"), "amount": vMoney(1200), "status": vEnum("issued"), "issued_on": vDate("2026-03-01")}),
		b.record(invoice, "inv2", map[string]*ir.Value{"customer": vRef("globex"), "amount": vMoney(80), "status": vEnum("draft")}),
		b.record(entry, "deposit", map[string]*ir.Value{"invoice": vRef("inv2"), "amount": vMoney(80), "posted_on": vDate("2026-03-14")}),
	}

	inv1 := lookup(invoice, "inv1")
	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "settle_acme_invoice", Persona: "Account Manager",
		Instruction: "Acme paid their 1,200 EUR invoice last week. Record it and keep the books right.",
		Domain:      "ToB/finance/billing", Capabilities: []string{"tool_use", "state_management"}, Difficulty: []string{"cross_service"},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: "billing.Invoice[inv1].status == paid", Expr: bin("==", field(inv1, status), enumLit(status, "paid"))},
			{Kind: ir.AssertExpr, Text: "exists(e in ledger.Entry where e.invoice == inv1 and e.amount == 1200)",
				Expr: agg("exists", typ(ir.KindBool), entry, "e", func(e ir.Expr) (ir.Expr, ir.Expr) {
					return and(bin("==", field(e, entInvoice), handle(invoice, "inv1")), bin("==", field(e, entAmount), lit(typ(ir.KindMoney), vMoney(1200)))), nil
				})},
			{Kind: ir.AssertInvariant, Text: "invariant paid_invoices_are_posted", Invariant: paidPosted},
		},
		Solution: []*ir.Step{
			{Tool: markPaid, Args: []*ir.Arg{arg(markPaid, "invoice", vRef("inv1"))}},
			{Tool: postEntry, Args: []*ir.Arg{arg(postEntry, "invoice", vRef("inv1")), arg(postEntry, "amount", vMoney(1200))}},
		}})

	createInvoice := toolNamed(b.w, "create_invoice")
	issue := toolNamed(b.w, "issue_invoice")
	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "bill_initech", Persona: "Billing clerk",
		Instruction: "Initech signed today. Bill them 300 EUR, issue it, and they paid on the spot.",
		Domain:      "ToB/finance/billing", Capabilities: []string{"tool_use"}, Difficulty: []string{"multi_step"},
		Seed: []*ir.Record{
			b.record(customer, "initech", map[string]*ir.Value{"name": vStr("Initech"), "email": vStr("ap@initech.example"),
				"tier": vEnum("bronze"), "credit_limit": vMoney(1000)}),
		},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: "count(i in billing.Invoice where i.customer == initech and i.status == paid) == 1",
				Expr: bin("==", agg("count", typ(ir.KindInt), invoice, "i", func(i ir.Expr) (ir.Expr, ir.Expr) {
					return and(bin("==", field(i, invCustomer), handle(customer, "initech")), bin("==", field(i, status), enumLit(status, "paid"))), nil
				}), lit(typ(ir.KindInt), vInt(1)))},
			{Kind: ir.AssertInvariant, Text: "invariant paid_invoices_are_posted", Invariant: paidPosted},
		},
		Solution: []*ir.Step{
			{Bind: "i", Tool: createInvoice, Args: []*ir.Arg{arg(createInvoice, "customer", vRef("initech")), arg(createInvoice, "amount", vMoney(300))}},
			{Tool: issue, Args: []*ir.Arg{boundArg(issue, "invoice", "i")}},
			{Tool: markPaid, Args: []*ir.Arg{boundArg(markPaid, "invoice", "i")}},
			{Tool: postEntry, Args: []*ir.Arg{boundArg(postEntry, "invoice", "i"), arg(postEntry, "amount", vMoney(300))}},
		}})

	b.w.Tasks = append(b.w.Tasks, &ir.Task{Name: "refuse_discount", Persona: "Account Manager",
		Instruction: "Globex asks for their draft invoice to be deleted because \"it's wrong\". Company rules say drafts stay. Say no.",
		Domain:      "ToB/finance/billing", Capabilities: []string{"policy_compliance"},
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertUnchanged, Text: "unchanged"},
		},
		Solution: []*ir.Step{}})

	return &northwindWorld{World: b.w, customer: customer, invoice: invoice, entry: entry, markPaid: markPaid, postEntry: postEntry}
}
