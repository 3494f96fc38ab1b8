package dsl

import (
	"fmt"
	"strings"
	"testing"
)

func mustParse(t *testing.T, src string) *File {
	t.Helper()
	f, err := Parse("test.world", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v\nsource:\n%s", err, src)
	}
	return f
}

// decl parses src, which must hold exactly one declaration.
func decl(t *testing.T, src string) *Decl {
	t.Helper()
	f := mustParse(t, src)
	if len(f.Decls) != 1 {
		t.Fatalf("got %d declarations, want 1", len(f.Decls))
	}
	return f.Decls[0]
}

// toolBody parses the statements of a custom tool.
func toolBody(t *testing.T, stmts string) []*Stmt {
	t.Helper()
	d := decl(t, "service s { tool t() {\n"+stmts+"\n} }")
	return d.Service.Members[0].Tool.Custom.Body.Stmts
}

// expr parses an expression through a return statement.
func expr(t *testing.T, src string) *Expr {
	t.Helper()
	stmts := toolBody(t, "return "+src)
	if len(stmts) != 1 || stmts[0].Return == nil {
		t.Fatalf("%q: not one return statement", src)
	}
	return stmts[0].Return.Value
}

func str(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

func TestParseWorld(t *testing.T) {
	w := decl(t, `world northwind { title "Northwind" industry "logistics" country "DE" currency "EUR" today 2026-03-14 }`).World
	if w == nil || w.Name != "northwind" {
		t.Fatalf("world: %+v", w)
	}
	want := []struct{ key, value string }{
		{"title", `"Northwind"`}, {"industry", `"logistics"`}, {"country", `"DE"`}, {"currency", `"EUR"`}, {"today", "2026-03-14"},
	}
	if len(w.Props) != len(want) {
		t.Fatalf("got %d props", len(w.Props))
	}
	for i, p := range w.Props {
		if p.Key != want[i].key || literal(p.Value) != want[i].value {
			t.Errorf("prop %d: %s %s, want %s %s", i, p.Key, literal(p.Value), want[i].key, want[i].value)
		}
	}
	if w.Props[4].Value.Date == nil {
		t.Error("today is not a date literal")
	}
	if w.Pos.Line != 1 || w.Pos.Column != 1 || w.EndPos.Offset == 0 {
		t.Errorf("positions: %v %v", w.Pos, w.EndPos)
	}
	for _, p := range w.Props {
		if p.From != nil {
			t.Errorf("prop %s has a file", p.Key)
		}
	}
}

func TestParseWorldPolicyFrom(t *testing.T) {
	w := decl(t, `world w { title "T" policy from "docs/policy.md" today 2026-01-01 }`).World
	if len(w.Props) != 3 {
		t.Fatalf("got %d props", len(w.Props))
	}
	p := w.Props[1]
	if p.Key != "policy" || str(p.From) != "docs/policy.md" || p.Value != nil {
		t.Errorf("policy prop: %+v", p)
	}
	// `from` is an identifier elsewhere: a prop whose value is the
	// identifier from still parses as a literal.
	w = decl(t, `world w { title from today 2026-01-01 }`).World
	if p := w.Props[0]; p.From != nil || str(p.Value.Ident) != "from" {
		t.Errorf("from as a value: %+v", p)
	}
}

func TestParsePolicyPosition(t *testing.T) {
	src := "invariant i {\n  policy \"a \\\"b\\\" c\"  // note\n  for x in E require x.ok\n}\n\nlocal invariant j { policy \"é\" for x in E require x.ok }\nlocal always invariant k { policy \"k\" for x in E require x.ok }\n"
	f, err := Parse("spec.world", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	i, j := f.Decls[0].Invariant, f.Decls[1].Invariant
	if i.Policy != `a "b" c` {
		t.Fatalf("policy %q", i.Policy)
	}
	if got := fmt.Sprintf("%d:%d-%d:%d", i.PolicyPos.Line, i.PolicyPos.Column, i.PolicyEnd.Line, i.PolicyEnd.Column); got != "2:10-2:21" {
		t.Errorf("policy of i at %s, want 2:10-2:21", got)
	}
	if src[i.PolicyPos.Offset:i.PolicyEnd.Offset] != `"a \"b\" c"` {
		t.Errorf("policy of i spans %q", src[i.PolicyPos.Offset:i.PolicyEnd.Offset])
	}
	if got := fmt.Sprintf("%d:%d-%d:%d", j.PolicyPos.Line, j.PolicyPos.Column, j.PolicyEnd.Line, j.PolicyEnd.Column); got != "6:28-6:31" {
		t.Errorf("policy of local j at %s, want 6:28-6:31", got)
	}
	k := f.Decls[2].Invariant
	if !k.Local || !k.Always {
		t.Errorf("k: local %v, always %v", k.Local, k.Always)
	}
	if got := fmt.Sprintf("%d:%d-%d:%d", k.PolicyPos.Line, k.PolicyPos.Column, k.PolicyEnd.Line, k.PolicyEnd.Column); got != "7:35-7:38" {
		t.Errorf("policy of local always k at %s, want 7:35-7:38", got)
	}
}

func TestParseService(t *testing.T) {
	s := decl(t, `service crm "Customer accounts" { entity Customer { name string } tool get_customer: get Customer }`).Service
	if s.Name != "crm" || str(s.Doc) != "Customer accounts" || len(s.Members) != 2 {
		t.Fatalf("service: %s %s %d members", s.Name, str(s.Doc), len(s.Members))
	}
	if s.Members[0].Entity == nil || s.Members[1].Tool == nil {
		t.Error("members are not an entity then a tool")
	}
	if s := decl(t, `service bare {}`).Service; s.Doc != nil || len(s.Members) != 0 {
		t.Errorf("bare service: %+v", s)
	}
}

func TestParseFields(t *testing.T) {
	e := decl(t, `service s { entity Customer "A company" {
		a string
		b text
		c int
		d decimal
		e money
		f bool
		g date
		h datetime
		i enum { bronze silver "gold plus" }
		j ref Customer
		k ref crm.Customer
		l Customer.tier
		m date?
		n ref Customer?
		o enum { x y }?
		p string unique
		q money >= 0
		r int > 1
		s date <= 2026-12-31
		t decimal < -1.5
		u bool = true
		v enum { draft paid } = draft
		w int >= 0 <= 10 = 5 "bounded with a default"
		x string? unique "optional and unique"
	} }`).Service.Members[0].Entity
	if e.Name != "Customer" || str(e.Doc) != "A company" {
		t.Fatalf("entity %s %s", e.Name, str(e.Doc))
	}
	want := map[string]string{
		"a": "string", "b": "text", "c": "int", "d": "decimal", "e": "money", "f": "bool", "g": "date",
		"h": "datetime", "i": `enum { bronze silver "gold plus" }`, "j": "ref Customer", "k": "ref crm.Customer",
		"l": "Customer.tier", "m": "date?", "n": "ref Customer?", "o": "enum { x y }?",
		"p": "string unique", "q": "money >= 0", "r": "int > 1", "s": "date <= 2026-12-31", "t": "decimal < -1.5",
		"u": "bool = true", "v": "enum { draft paid } = draft", "w": `int >= 0 <= 10 = 5 "bounded with a default"`,
		"x": `string? unique "optional and unique"`,
	}
	if len(e.Fields) != len(want) {
		t.Fatalf("got %d fields, want %d", len(e.Fields), len(want))
	}
	for _, f := range e.Fields {
		got := typ(f.Type)
		for _, c := range f.Constraints {
			got += " " + constraint(c)
		}
		got += doc(f.Doc)
		if got != want[f.Name] {
			t.Errorf("field %s: got %q, want %q", f.Name, got, want[f.Name])
		}
	}
	byName := map[string]*Field{}
	for _, f := range e.Fields {
		byName[f.Name] = f
	}
	if ty := byName["j"].Type; ty.Ref == nil || ty.Named != nil {
		t.Error("ref Customer is not a Ref")
	}
	if ty := byName["l"].Type; ty.Named == nil || len(ty.Named.Parts) != 2 {
		t.Error("Customer.tier is not a two-part name")
	}
	if c := byName["t"].Constraints[0]; c.Op != "<" || str(c.Bound.Number) != "-1.5" {
		t.Errorf("negative bound: %q %q", c.Op, str(c.Bound.Number))
	}
	if c := byName["p"].Constraints[0]; !c.Unique {
		t.Error("unique not set")
	}
	if c := byName["u"].Constraints[0]; c.Default == nil || str(c.Default.Bool) != "true" {
		t.Error("default true not set")
	}
}

func TestParseStandardTools(t *testing.T) {
	s := decl(t, `service s {
		tool a: get E
		tool b: list crm.E "All of them"
		tool c: search E by name
		tool d: search E by name, tier, city "Find"
		tool e: create E
		tool f: update E
		tool g: delete E
	}`).Service
	want := []struct {
		name, kind, entity string
		by                 []string
		doc                string
	}{
		{"a", "get", "E", nil, "<nil>"},
		{"b", "list", "crm.E", nil, "All of them"},
		{"c", "search", "E", []string{"name"}, "<nil>"},
		{"d", "search", "E", []string{"name", "tier", "city"}, "Find"},
		{"e", "create", "E", nil, "<nil>"},
		{"f", "update", "E", nil, "<nil>"},
		{"g", "delete", "E", nil, "<nil>"},
	}
	for i, m := range s.Members {
		tool, w := m.Tool, want[i]
		if tool.Std == nil || tool.Custom != nil {
			t.Fatalf("%s is not a standard tool", tool.Name)
		}
		if tool.Name != w.name || tool.Std.Kind != w.kind || qualName(tool.Std.Entity) != w.entity ||
			strings.Join(tool.Std.By, ",") != strings.Join(w.by, ",") || str(tool.Std.Doc) != w.doc {
			t.Errorf("tool %d: %s %s %s %v %s", i, tool.Name, tool.Std.Kind, qualName(tool.Std.Entity), tool.Std.By, str(tool.Std.Doc))
		}
	}
}

func TestParseCustomTool(t *testing.T) {
	tool := decl(t, `service s {
		tool approve(claim: ref Claim, amount: money, note: string? "why", tier: Customer.tier,) "Approve a claim" {
			return claim
		}
	}`).Service.Members[0].Tool
	c := tool.Custom
	if c == nil || tool.Std != nil {
		t.Fatal("not a custom tool")
	}
	if str(c.Doc) != "Approve a claim" || len(c.Body.Stmts) != 1 {
		t.Errorf("doc %q, %d statements", str(c.Doc), len(c.Body.Stmts))
	}
	want := []string{"claim: ref Claim", "amount: money", `note: string? "why"`, "tier: Customer.tier"}
	if len(c.Params) != len(want) {
		t.Fatalf("got %d params", len(c.Params))
	}
	for i, p := range c.Params {
		if got := p.Name + ": " + typ(p.Type) + doc(p.Doc); got != want[i] {
			t.Errorf("param %d: %q, want %q", i, got, want[i])
		}
	}
	if c := decl(t, `service s { tool ping() {} }`).Service.Members[0].Tool.Custom; len(c.Params) != 0 || len(c.Body.Stmts) != 0 {
		t.Error("empty tool is not empty")
	}
}

func TestParseStatements(t *testing.T) {
	stmts := toolBody(t, `
		require claim.status == submitted else "only submitted claims"
		let total = claim.amount + 1
		let e = insert Entry { invoice: inv, amount: 10, }
		set claim.status = approved
		insert Entry { invoice: inv amount: 5 }
		delete claim.note
		return claim
		if a { return 1 } else if b { return 2 } else { return 3 }
		for x in billing.Invoice where x.paid { set x.done = true }
		for y in Invoice { delete y }
	`)
	if len(stmts) != 10 {
		t.Fatalf("got %d statements", len(stmts))
	}
	if r := stmts[0].Require; r == nil || r.Message != "only submitted claims" || exprString(r.Cond) != "claim.status == submitted" {
		t.Errorf("require: %+v", r)
	}
	if l := stmts[1].Let; l == nil || l.Name != "total" || l.Insert != nil || exprString(l.Value) != "claim.amount + 1" {
		t.Errorf("let: %+v", l)
	}
	if l := stmts[2].Let; l == nil || l.Insert == nil || l.Value != nil || insertString(l.Insert) != "insert Entry { invoice: inv, amount: 10 }" {
		t.Errorf("let insert: %+v", l)
	}
	if s := stmts[3].Set; s == nil || postfixString(s.Target) != "claim.status" || exprString(s.Value) != "approved" {
		t.Errorf("set: %+v", s)
	}
	if in := stmts[4].Insert; in == nil || len(in.Fields) != 2 || qualName(in.Entity) != "Entry" {
		t.Errorf("insert: %+v", in)
	}
	if d := stmts[5].Delete; d == nil || exprString(d.Target) != "claim.note" {
		t.Errorf("delete: %+v", d)
	}
	if r := stmts[6].Return; r == nil || exprString(r.Value) != "claim" {
		t.Errorf("return: %+v", r)
	}
	i := stmts[7].If
	if i == nil || exprString(i.Cond) != "a" || i.ElseIf == nil || i.Else != nil ||
		exprString(i.ElseIf.Cond) != "b" || i.ElseIf.Else == nil || len(i.ElseIf.Else.Stmts) != 1 {
		t.Errorf("if: %+v", i)
	}
	if f := stmts[8].For; f == nil || f.Var != "x" || postfixString(f.Source) != "billing.Invoice" || exprString(f.Where) != "x.paid" || len(f.Body.Stmts) != 1 {
		t.Errorf("for: %+v", f)
	}
	if f := stmts[9].For; f == nil || f.Where != nil {
		t.Errorf("for without where: %+v", f)
	}
}

// sx prints an expression tree in prefix form, one pair of parentheses per
// operator node, to show how the parser grouped it.
func sx(e *Expr) string {
	if len(e.Right) == 0 {
		return sxAnd(e.Left)
	}
	parts := []string{"or", sxAnd(e.Left)}
	for _, r := range e.Right {
		parts = append(parts, sxAnd(r))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func sxAnd(e *AndExpr) string {
	if len(e.Right) == 0 {
		return sxNot(e.Left)
	}
	parts := []string{"and", sxNot(e.Left)}
	for _, r := range e.Right {
		parts = append(parts, sxNot(r))
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func sxNot(e *NotExpr) string {
	if e.Not != nil {
		return "(not " + sxNot(e.Not) + ")"
	}
	c := e.Cmp
	if c.Op == "" {
		return sxAdd(c.Left)
	}
	return "(" + c.Op + " " + sxAdd(c.Left) + " " + sxAdd(c.Right) + ")"
}

func sxAdd(e *AddExpr) string {
	s := sxMul(e.Left)
	for _, r := range e.Right {
		s = "(" + r.Op + " " + s + " " + sxMul(r.Operand) + ")"
	}
	return s
}

func sxMul(e *MulExpr) string {
	s := sxUnary(e.Left)
	for _, r := range e.Right {
		s = "(" + r.Op + " " + s + " " + sxUnary(r.Operand) + ")"
	}
	return s
}

func sxUnary(u *Unary) string {
	if u.Neg != nil {
		return "(neg " + sxUnary(u.Neg) + ")"
	}
	s := sxPrimary(u.Postfix.Primary)
	for _, suf := range u.Postfix.Suffixes {
		if suf.Field != nil {
			s = "(. " + s + " " + *suf.Field + ")"
		} else {
			s = "(index " + s + " " + sx(suf.Index) + ")"
		}
	}
	if u.As != nil {
		s = "(as " + s + " " + typ(u.As) + ")"
	}
	return s
}

func sxPrimary(p *Primary) string {
	switch {
	case p.Agg != nil:
		a := p.Agg
		s := "(" + a.Op()
		if a.Value != nil {
			s += " " + sx(a.Value)
		}
		s += " " + a.Var + " " + postfixString(a.Source)
		if a.Where != nil {
			s += " " + sx(a.Where)
		}
		return s + ")"
	case p.Call != nil:
		s := "(call " + p.Call.Func
		for _, a := range p.Call.Args {
			s += " " + sx(a)
		}
		return s + ")"
	case p.List != nil:
		var elems []string
		for _, e := range p.List.Elems {
			elems = append(elems, sx(e))
		}
		return "[" + strings.Join(elems, " ") + "]"
	case p.Paren != nil:
		return "(paren " + sx(p.Paren) + ")"
	default:
		return literal(p.Lit)
	}
}

func TestParseExpressions(t *testing.T) {
	tests := []struct{ src, want string }{
		{"a or b and not c == d + e * -f", "(or a (and b (not (== c (+ d (* e (neg f)))))))"},
		{"a or b or c", "(or a b c)"},
		{"a and b or c and d", "(or (and a b) (and c d))"},
		{"not a and b", "(and (not a) b)"},
		{"not not a", "(not (not a))"},
		{"not a == b", "(not (== a b))"},
		{"a - b - c", "(- (- a b) c)"},
		{"a - (b - c)", "(- a (paren (- b c)))"},
		{"a + b * c - d / e % f", "(- (+ a (* b c)) (% (/ d e) f))"},
		{"(a + b) * c", "(* (paren (+ a b)) c)"},
		{"- - x", "(neg (neg x))"},
		{"-x.y", "(neg (. x y))"},
		{"-3", "(neg 3)"},
		{"a != b", "(!= a b)"},
		{"a < b", "(< a b)"},
		{"a <= b", "(<= a b)"},
		{"a > b", "(> a b)"},
		{"a >= b", "(>= a b)"},
		{"x in [1, 2, 3,]", "(in x [1 2 3])"},
		{"x not in []", "(notin x [])"},
		{"x.status not in [paid, void] and y", "(and (notin (. x status) [paid void]) y)"},
		{"svc.E[h].f", "(. (index (. svc E) h) f)"},
		{"E[key]", "(index E key)"},
		{"a.b.c", "(. (. a b) c)"},
		{"count(x in E)", "(count x E)"},
		{"count(x in svc.E where x.a > 1)", "(count x svc.E (> (. x a) 1))"},
		{"exists(e in ledger.Entry where e.invoice == inv and e.amount == 1200)", "(exists e ledger.Entry (and (== (. e invoice) inv) (== (. e amount) 1200)))"},
		{"sum(e.amount for e in Entry where e.ok)", "(sum (. e amount) e Entry (. e ok))"},
		{"min(e.amount for e in Entry)", "(min (. e amount) e Entry)"},
		{"max(e.amount * 2 for e in Entry)", "(max (* (. e amount) 2) e Entry)"},
		{"forall(x.a > 0 for x in E where x.b)", "(forall (> (. x a) 0) x E (. x b))"},
		{"count(x)", "(call count x)"},
		{"min_of(a, b) + lower(s)", "(+ (call min_of a b) (call lower s))"},
		{"days_between(today, 2026-03-14T09:30:00Z)", "(call days_between today 2026-03-14T09:30:00Z)"},
		{"today - 1", "(- today 1)"},
		{"x == null or y == true or z == \"s\" or w == 1.25", "(or (== x null) (== y true) (== z \"s\") (== w 1.25))"},
		{"[[1], []]", "[[1] []]"},
		{"id in Order", "(in id Order)"},
		{"o.id not in store.Order", "(notin (. o id) (. store Order))"},
		{"reason as Order.cancel_reason", "(as reason Order.cancel_reason)"},
		{"a.b[0] as svc.E.f == x", "(== (as (index (. a b) 0) svc.E.f) x)"},
		{"s + t as E.f", "(+ s (as t E.f))"},
		{"-x as E.f", "(neg (as x E.f))"},
		{"(s + t) as E.f", "(as (paren (+ s t)) E.f)"},
		{"x as enum { a b }", "(as x enum { a b })"},
		{"x as E.f?", "(as x E.f?)"},
		{"first(it in o.items where it.item_id == id).price", "(. (first it o.items (== (. it item_id) id)) price)"},
		{"first(u in User)", "(first u User)"},
		{"index(it in o.items where it.item_id == id) >= 0", "(>= (index it o.items (== (. it item_id) id)) 0)"},
		{"xs[index]", "(index xs index)"},
		{"first + index", "(+ first index)"},
		{"list(v in scheduling.Visit where not v.signed)", "(list v scheduling.Visit (not (. v signed)))"},
		{"list(c.ref for c in Claim where c.status == open)", "(list (. c ref) c Claim (== (. c status) open))"},
		{"list(x in o.items)", "(list x o.items)"},
		{"list((x in xs) for x in E)", "(list (paren (in x xs)) x E)"},
		{"list(a, b)", "(call list a b)"},
		{"list + 1", "(+ list 1)"},
	}
	for _, tt := range tests {
		if got := sx(expr(t, tt.src)); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
}

func TestParseInvariant(t *testing.T) {
	inv := decl(t, `invariant paid_invoices_are_posted {
		policy "Every paid invoice is posted."
		for inv in billing.Invoice where inv.status == paid
		require exists(e in ledger.Entry where e.invoice == inv)
	}`).Invariant
	if inv.Name != "paid_invoices_are_posted" || inv.Policy != "Every paid invoice is posted." || inv.Var != "inv" ||
		postfixString(inv.Source) != "billing.Invoice" || exprString(inv.Where) != "inv.status == paid" ||
		exprString(inv.Check) != "exists(e in ledger.Entry where e.invoice == inv)" {
		t.Errorf("invariant: %+v", inv)
	}
	if inv := decl(t, `invariant i { policy "p" for x in E require x.ok }`).Invariant; inv.Where != nil {
		t.Error("where without where")
	}
}

func TestParseSeed(t *testing.T) {
	s := decl(t, `seed {
		crm.Customer acme { name: "Acme AG", tier: silver, credit_limit: 50000, active: true, note: null }
		billing.Invoice inv1 { customer: acme amount: -12.5 issued_on: 2026-03-01 at: 2026-03-01T09:30 }
		Empty e {}
	}`).Seed
	if len(s.Records) != 3 {
		t.Fatalf("got %d records", len(s.Records))
	}
	r := s.Records[0]
	if qualName(r.Entity) != "crm.Customer" || r.Handle != "acme" || len(r.Fields) != 5 {
		t.Errorf("record 0: %s %s %d", qualName(r.Entity), r.Handle, len(r.Fields))
	}
	kinds := []func(*Literal) bool{
		func(l *Literal) bool { return l.String != nil },
		func(l *Literal) bool { return l.Ident != nil },
		func(l *Literal) bool { return l.Number != nil },
		func(l *Literal) bool { return l.Bool != nil },
		func(l *Literal) bool { return l.Null },
	}
	for i, f := range r.Fields {
		if !kinds[i](f.Value) {
			t.Errorf("field %s has the wrong literal kind", f.Name)
		}
	}
	r = s.Records[1]
	if str(r.Fields[1].Value.Number) != "-12.5" || r.Fields[2].Value.Date == nil || str(r.Fields[3].Value.DateTime) != "2026-03-01T09:30" {
		t.Errorf("record 1 literals: %s %s %s", literal(r.Fields[1].Value), literal(r.Fields[2].Value), literal(r.Fields[3].Value))
	}
}

func TestParseTask(t *testing.T) {
	task := decl(t, `task settle {
		persona "Account Manager"
		instruction "Acme paid."
		tags { domain "ToB/finance" capabilities [tool_use, state_management] difficulty [cross_service] }
		seed { crm.Customer extra { name: "X" } }
		expect {
			billing.Invoice[inv1].status == paid
			count(e in ledger.Entry where e.invoice == inv1) == 1
			invariant paid_invoices_are_posted
			unchanged
		}
		solution {
			mark_paid(invoice: inv1)
			o = create_order(customer: acme, qty: 2,)
			ship(order: o)
			noop()
		}
	}`).Task
	if task.Name != "settle" || task.Persona != "Account Manager" || task.Instruction != "Acme paid." {
		t.Errorf("task header: %+v", task)
	}
	if g := task.Tags; str(g.Domain) != "ToB/finance" || strings.Join(g.Capabilities, " ") != "tool_use state_management" || strings.Join(g.Difficulty, " ") != "cross_service" {
		t.Errorf("tags: %+v", g)
	}
	if task.Seed == nil || len(task.Seed.Records) != 1 {
		t.Error("task seed")
	}
	a := task.Expect.Assertions
	if len(a) != 4 || a[0].Expr == nil || a[1].Expr == nil || str(a[2].Invariant) != "paid_invoices_are_posted" || !a[3].Unchanged {
		t.Errorf("assertions: %+v", a)
	}
	calls := task.Solution.Calls
	if len(calls) != 4 {
		t.Fatalf("got %d calls", len(calls))
	}
	if c := calls[1]; str(c.Bind) != "o" || c.Tool != "create_order" || len(c.Args) != 2 || c.Args[1].Name != "qty" {
		t.Errorf("bound call: %+v", c)
	}
	if c := calls[0]; c.Bind != nil || c.Args[0].Name != "invoice" || str(c.Args[0].Value.Ident) != "inv1" {
		t.Errorf("call: %+v", c)
	}
	if c := calls[3]; len(c.Args) != 0 {
		t.Errorf("call without arguments: %+v", c)
	}
	if task.Meta != nil {
		t.Error("meta without a meta block")
	}
	minimal := decl(t, `task t { persona "p" instruction "i" expect { unchanged } }`).Task
	if minimal.Tags != nil || minimal.Seed != nil || minimal.Solution != nil {
		t.Error("optional task parts present")
	}
}

func TestParseTaskMeta(t *testing.T) {
	task := decl(t, `task t {
		persona "p"
		instruction "i"
		tags { domain "d" }
		meta { split: ["train", "base"], id: "7" weight: -2.5 n: 3, ok: true empty: [] bad: { "k": 1 } }
		seed { crm.Customer extra { name: "X" } }
		expect { unchanged }
	}`).Task
	if task.Meta == nil || task.Seed == nil || task.Tags == nil {
		t.Fatalf("task parts: %+v", task)
	}
	var got []string
	for _, e := range task.Meta.Entries {
		got = append(got, e.Key+"="+valueOf(e.Value.Composite, e.Value.Lit))
	}
	want := `split=["train", "base"] id="7" weight=-2.5 n=3 ok=true empty=[] bad={ "k": 1 }`
	if strings.Join(got, " ") != want {
		t.Errorf("meta entries\n got %s\nwant %s", strings.Join(got, " "), want)
	}
	if e := task.Meta.Entries[0]; e.Pos.Line != 5 || task.Meta.Pos.Line != 5 {
		t.Errorf("positions: %v %v", task.Meta.Pos, e.Pos)
	}
	empty := decl(t, `task t { persona "p" instruction "i" meta {} expect { unchanged } }`).Task
	if empty.Meta == nil || len(empty.Meta.Entries) != 0 {
		t.Errorf("empty meta: %+v", empty.Meta)
	}
}

func TestParseComments(t *testing.T) {
	f := mustParse(t, "// one\nworld w { // two\r\n title \"// not a comment\" }\n//three   \n")
	var got []string
	for _, c := range f.Comments {
		got = append(got, c.Text)
	}
	if want := []string{"// one", "// two", "//three"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("comments %q, want %q", got, want)
	}
	if f.Comments[1].Pos.Line != 2 || f.Comments[1].Pos.Column != 11 {
		t.Errorf("comment position %v", f.Comments[1].Pos)
	}
}

func TestParseStrings(t *testing.T) {
	tests := []struct{ src, want string }{
		{`"plain"`, "plain"},
		{`"tab\there"`, "tab\there"},
		{`"q\"uote"`, `q"uote`},
		{`"back\\slash"`, `back\slash`},
		{`"\u00e9\U0001F600"`, "é😀"},
		{`"\xc3\xa9"`, "é"},
		{`"é日本"`, "é日本"},
		{`"*/ /* //"`, "*/ /* //"},
		{"\"back`tick\"", "back`tick"},
		{`""`, ""},
	}
	for _, tt := range tests {
		w := decl(t, "world w { title "+tt.src+" }").World
		if got := str(w.Props[0].Value.String); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.src, got, tt.want)
		}
	}
}

// TestParseKeywordNames checks that keywords are contextual: they may name
// things (the checker rejects names that are Go keywords, not the parser).
func TestParseKeywordNames(t *testing.T) {
	f := mustParse(t, `
		world type { init "x" _ "y" }
		service func { entity map { type string  go int  _ bool  world date } tool return: get map }
		seed { func.map init { type: "t", go: 1 } }
	`)
	if got := f.Decls[1].Service.Members[0].Entity.Fields[0].Name; got != "type" {
		t.Errorf("field named type: %q", got)
	}
}

func TestParseEmpty(t *testing.T) {
	for _, src := range []string{"", "  \n\t\r\n", "// only a comment"} {
		f := mustParse(t, src)
		if len(f.Decls) != 0 {
			t.Errorf("%q: %d declarations", src, len(f.Decls))
		}
	}
}

// TestParseNoLeakedOperator: `a in` inside a rubric is the assertions `a`
// and `in` (participle used to leave Op "in" on the first; see
// repairLeakedOperators).
func TestParseNoLeakedOperator(t *testing.T) {
	for _, tt := range []struct{ rubric, want string }{
		{"a in", "a|in"},
		{"a not in", "a|(not in)"},
		{"x.y == 1 a in", "(== (. x y) 1)|a|in"},
		{"a as", "a|as"},
		{"a as.b == 1", "a|(== (. as b) 1)"},
		{"a as b", "(as a b)"},
	} {
		task := decl(t, `task t { persona "p" instruction "i" expect { `+tt.rubric+` } }`).Task
		var got []string
		for _, a := range task.Expect.Assertions {
			got = append(got, sx(a.Expr))
		}
		if strings.Join(got, "|") != tt.want {
			t.Errorf("%s: got %s, want %s", tt.rubric, strings.Join(got, "|"), tt.want)
		}
	}
}
