package gen

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// nestedRecordsWorld is issue 10's first reproducer: record Rk names
// R(k+1) twice, depth deep, and a tool takes an R0.
func nestedRecordsWorld(depth int) string {
	var b strings.Builder
	b.WriteString("world nested {\n  title \"x\"\n  industry \"x\"\n  country \"DE\"\n  currency \"EUR\"\n  today 2026-01-01\n}\n")
	for i := 0; i < depth; i++ {
		fmt.Fprintf(&b, "record R%d { a R%d  b R%d  c R%d? }\n", i, i+1, i+1, i+1)
	}
	fmt.Fprintf(&b, "record R%d { v string }\n", depth)
	b.WriteString(`service s "S" {
  entity E {
    name string
  }
  tool get_e: get E
  tool put(e: ref E, r: R0, more: list<R1>, maybe: R2?) "put" {
    set e.name = "x"
    return e
  }
}
service t "T" {
  entity F {
    e ref s.E
  }
  tool get_f: get F
}
seed {
  s.E e1 { name: "a" }
  t.F f1 { e: e1 }
}
`)
	return b.String()
}

// TestSchemaLinearInNestedRecords: a record named in several places of a
// tool's schema is described once in $defs, so the schema grows with the
// spec and not as 2^depth, and stays valid for OpenAI strict mode.
func TestSchemaLinearInNestedRecords(t *testing.T) {
	const depth = 11 // R0's smallest value holds 2^13-2 values: within the limit
	w, ds := compiler.CheckSource("nested.world", []byte(nestedRecordsWorld(depth)), compiler.WithoutReachability())
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	g := newTestGenerator(t, w)
	var put *ir.Tool
	for _, tl := range w.Tools {
		if tl.Name == "put" {
			put = tl
		}
	}
	schema := g.schema(put)
	if len(schema) > 1000*(depth+1) {
		t.Fatalf("schema of %d bytes for %d records: not linear", len(schema), depth+1)
	}
	if err := runtime.StrictSchema(json.RawMessage(schema)); err != nil {
		t.Errorf("not strict: %v", err)
	}
	var s struct {
		Properties map[string]map[string]any `json:"properties"`
		Defs       map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		t.Fatal(err)
	}
	// R0 is named once (the parameter r): written in place; every other
	// record is named at least twice: a definition each.
	if s.Properties["r"]["type"] != "object" {
		t.Errorf("r: %v, want R0 written in place", s.Properties["r"])
	}
	for i := 1; i <= depth; i++ {
		if s.Defs[fmt.Sprintf("R%d", i)] == nil {
			t.Errorf("no $defs entry for R%d", i)
		}
	}
	if len(s.Defs) != depth {
		t.Errorf("%d definitions, want %d", len(s.Defs), depth)
	}
	if strings.Count(schema, `"v":`) != 1 {
		t.Errorf("R%d described %d times, want once", depth, strings.Count(schema, `"v":`))
	}
	for _, want := range []string{`"more":{"type":"array","items":{"$ref":"#/$defs/R1"}`, `"maybe":{"anyOf":[{"$ref":"#/$defs/R2"},{"type":"null"}]`} {
		if !strings.Contains(schema, want) {
			t.Errorf("schema lacks %s", want)
		}
	}
}

// TestRenderErrorHoldsNoSource: jennifer's formatting error carries the
// whole unformatted file; render keeps one short line of it.
func TestRenderErrorHoldsNoSource(t *testing.T) {
	f := jen.NewFile("p")
	f.Func().Id("f").Params().Block(jen.Op("}}} not go").Comment(strings.Repeat("x", 100_000)))
	_, err := render(f)
	if err == nil {
		t.Fatal("no error for source gofmt cannot format")
	}
	if msg := err.Error(); len(msg) > 400 || strings.Contains(msg, "\n") || strings.Contains(msg, "not go") {
		t.Errorf("error of %d bytes holds source: %.200q", len(msg), msg)
	}
}

func newTestGenerator(t *testing.T, w *ir.World) *generator {
	t.Helper()
	g, err := newGenerator(w)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// boundsWorld is a world near the edge of what W027 accepts: a tool with
// fifty requires, each an operator chain nested nearly MaxExprDepth
// deep, and a membership test in a list of 9,000 numbers.
func boundsWorld() string {
	var body strings.Builder
	for i := 0; i < 50; i++ {
		fmt.Fprintf(&body, "    require n%s > %d else \"too small\"\n", strings.Repeat(" + 1", compiler.MaxExprDepth-4), i)
	}
	nums := make([]string, 9_000)
	for i := range nums {
		nums[i] = fmt.Sprint(i)
	}
	fmt.Fprintf(&body, "    require n in [%s] else \"no\"\n", strings.Join(nums, ", "))
	return `world bounds {
  title "x"
  industry "x"
  country "DE"
  currency "EUR"
  today 2026-01-01
}
service s "S" {
  entity E {
    n int
  }
  tool get_e: get E
  tool bump(e: ref E, n: int) "bump" {
` + body.String() + `    set e.n = n
    return e
  }
}
service t "T" {
  entity F {
    e ref s.E
  }
  tool get_f: get F
}
seed {
  s.E e1 { n: 1 }
  t.F f1 { e: e1 }
}
`
}

// TestGeneratedNestingBounded: what the checker accepts is generated as Go
// whose syntax tree nests about as deep as the spec's expressions, never
// as deep as a list is long (gofmt, and go/printer, take time quadratic in
// the nesting, and refuse beyond a depth).
func TestGeneratedNestingBounded(t *testing.T) {
	w, ds := compiler.CheckSource("bounds.world", []byte(boundsWorld()))
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	files := mustGenerate(t, w)
	for _, name := range Files(files) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		depth, deepest := 0, 0
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				depth--
				return false
			}
			depth++
			deepest = max(deepest, depth)
			return true
		})
		if limit := 4 * compiler.MaxExprDepth; deepest > limit {
			t.Errorf("%s: syntax tree %d deep; want at most %d", name, deepest, limit)
		}
	}
}

// clashWorld is issue 10's fifth reproducer: invariants named customer,
// customer_tier and invoice_status, whose checks would be named like the
// checks of the entity Customer and of the fields Customer.tier and
// Invoice.status, and an entity CustomerCredit, whose check would be
// named like that of Customer.credit.
const clashWorld = `world tiers {
  title "x"
  industry "x"
  country "DE"
  currency "EUR"
  today 2026-01-01
}
service crm "C" {
  entity Customer {
    tier   enum { bronze gold }
    credit money >= 0 = 0
  }
  entity CustomerCredit {
    level int >= 0
  }
  tool get_customer: get Customer
  tool get_customer_credit: get CustomerCredit
  tool set_tier(c: ref Customer, tier: Customer.tier) "t" {
    set c.tier = tier
    return c
  }
}
service billing "B" {
  entity Invoice {
    customer ref crm.Customer
    status   enum { open paid } = open
  }
  tool get_invoice: get Invoice
  tool pay(i: ref Invoice) "p" {
    set i.status = paid
    return i
  }
}
invariant customer_tier {
  policy "Gold customers have an invoice."
  for c in crm.Customer where c.tier == gold
  require exists(i in billing.Invoice where i.customer == c)
}
local invariant customer {
  policy "Every customer with an invoice is bronze or gold."
  for c in crm.Customer where exists(i in billing.Invoice where i.customer == c)
  require c.tier in [bronze, gold]
}
invariant invoice_status {
  policy "A paid invoice belongs to a gold customer."
  for i in billing.Invoice where i.status == paid
  require count(c in crm.Customer where c == i.customer and c.tier == gold) == 1
}
seed {
  crm.Customer c1 { tier: bronze }
  crm.CustomerCredit t1 { level: 1 }
  billing.Invoice i1 { customer: c1 }
}
task pay_i1 {
  persona     "p"
  instruction "Pay invoice i1 and make its customer gold."
  expect {
    billing.Invoice[i1].status == paid
    crm.Customer[c1].tier == gold
  }
  solution {
    set_tier(c: c1, tier: gold)
    pay(i: i1)
  }
}
`

// TestGeneratedNamesDoNotClash: every method of State and every
// package-level name of a generated package is declared once, whatever
// the spec names (the gate's type check reported "already declared").
func TestGeneratedNamesDoNotClash(t *testing.T) {
	w, ds := compiler.CheckSource("tiers.world", []byte(clashWorld))
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	files := mustGenerate(t, w)
	declared := map[string]string{}
	for _, name := range Files(files) {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, files[name], parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		declare := func(key string) {
			if prev, dup := declared[key]; dup {
				t.Errorf("%s declared in %s and again in %s", key, prev, name)
			}
			declared[key] = name
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					recv := d.Recv.List[0].Type
					if star, ok := recv.(*ast.StarExpr); ok {
						recv = star.X
					}
					declare(fmt.Sprintf("method %s.%s", recv.(*ast.Ident).Name, d.Name.Name))
				} else {
					declare("func " + d.Name.Name)
				}
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					switch sp := sp.(type) {
					case *ast.TypeSpec:
						declare("name " + sp.Name.Name)
					case *ast.ValueSpec:
						for _, n := range sp.Names {
							if n.Name != "_" {
								declare("name " + n.Name)
							}
						}
					}
				}
			}
		}
	}
	for _, want := range []string{"method State.checkCustomer", "method State.checkCustomerTier", "method State.checkInvoiceStatus", "method State.checkCustomerCredit", "method State.checkCustomer2", "method State.checkCustomerTier2", "method State.checkInvoiceStatus2", "method State.checkCustomerCredit2"} {
		if declared[want] == "" {
			t.Errorf("no %s", want)
		}
	}
	if testing.Short() {
		return // the package's own tests run in the full suite
	}
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
}

// optionalRecordsWorld nests records depth deep, each with fanOut
// optional fields of the next: their smallest value is tiny (all null),
// and so must the conformance candidates stay.
func optionalRecordsWorld(fanOut, depth int) string {
	var b strings.Builder
	b.WriteString("world optrec {\n  title \"x\"\n  industry \"x\"\n  country \"DE\"\n  currency \"EUR\"\n  today 2026-01-01\n}\n")
	for d := 0; d < depth; d++ {
		fmt.Fprintf(&b, "record R%d {\n", d)
		for i := 0; i < fanOut; i++ {
			fmt.Fprintf(&b, "  f%d R%d?\n", i, d+1)
		}
		b.WriteString("}\n")
	}
	fmt.Fprintf(&b, "record R%d { v string }\n", depth)
	b.WriteString(`service s "S" {
  entity E {
    name string
  }
  tool get_e: get E
  tool put(e: ref E, r: R0) "put" {
    set e.name = "x"
    return e
  }
}
service t "T" {
  entity F {
    e ref s.E
  }
  tool get_f: get F
}
seed {
  s.E e1 { name: "a" }
  t.F f1 { e: e1 }
}
`)
	return b.String()
}

// TestConformanceCandidatesBounded: a record candidate fills at most
// maxShapeValues fields from the outermost record down, so records in
// optional fields of records in optional fields do not make the
// conformance tests grow as fanOut^depth (60 fields four deep wrote a
// conformance.go of 337 MB).
func TestConformanceCandidatesBounded(t *testing.T) {
	w, ds := compiler.CheckSource("optrec.world", []byte(optionalRecordsWorld(20, 4)))
	if w == nil {
		t.Fatalf("check:\n%s", ds.Text())
	}
	files := mustGenerate(t, w)
	if n := len(files["conformance.go"]); n > 200_000 {
		t.Errorf("conformance.go of %d bytes", n)
	}
}
