package compiler

import (
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/templates"
)

// The author prompt (templates/author/system.md.tmpl) tells the model what
// the checker and the gate enforce, in its sections "What the executability
// gate requires" and "Checklist". TestPromptClaims holds every bullet of
// those sections to specs that show it: each bullet has an entry in
// promptClaims, found by a phrase of the bullet, whose specs check with
// exactly the codes the entry gives (none: clean). A bullet without an
// entry fails the test, so a new sentence cannot say what the checker does
// not do; an entry whose phrase is in no bullet fails too, so the table
// follows the prompt.

// claimBase is a small world that checks clean: an order is paid, and a
// receipt for its total is booked in another service. Variants replace
// parts of it.
const claimBase = `world claims {
  title "Claims"
  today 2026-03-14
}

service sales "Orders" {
  entity Order {
    customer string
    total    money >= 0
    status   enum { open paid } = open
  }
  tool get_order: get Order
  tool open_order(customer: string, total: money) "Open an order" {
    let o = insert Order { customer: customer, total: total }
    return o
  }
  tool pay_order(order: ref Order) "Mark an open order paid" {
    require order.status == open else "order is not open"
    set order.status = paid
    return order
  }
}

service books "Bookkeeping" {
  entity Receipt {
    order  ref sales.Order
    amount money
  }
  tool list_receipts: list Receipt
  tool record_receipt(order: ref sales.Order, amount: money) "Record a receipt" {
    let r = insert Receipt { order: order, amount: amount }
    return r
  }
}

invariant paid_orders_have_receipts {
  policy "Every paid order has a receipt for its total."
  for o in sales.Order where o.status == paid
  require exists(r in books.Receipt where r.order == o and r.amount == o.total)
}

seed {
  sales.Order o1 { customer: "Ana", total: 20 }
}

task pay_o1 {
  persona     "Shop owner"
  instruction "Ana paid her 20 EUR order. Record it."
  expect {
    sales.Order[o1].status == paid
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)
  }
}
`

// claimSpec is a variant of claimBase: each pair of edits replaces the
// first string by the second (which must occur).
type claimSpec struct {
	name  string
	edits []string
	codes []diag.Code // the codes check reports, in order; nil: clean
}

var promptClaims = []struct {
	phrase string // occurs in exactly one bullet
	specs  []claimSpec
}{
	{"The world seed satisfies every field type, constraint, reference and invariant (W012)", []claimSpec{
		{"the base world", nil, nil},
		{"a world seed breaking an invariant", []string{
			`sales.Order o1 { customer: "Ana", total: 20 }`,
			`sales.Order o1 { customer: "Ana", total: 20 }
  sales.Order o0 { customer: "Bo", total: 5, status: paid }`}, []diag.Code{diag.SeedViolatesInvariant}},
		{"a world seed breaking a constraint", []string{`total: 20 }`, `total: -1 }`}, []diag.Code{diag.OutOfRange}},
		{"a task seed breaking a constraint", []string{
			`  expect {`,
			`  seed { sales.Order o2 { customer: "Bo", total: -5 } }
  expect {`}, []diag.Code{diag.OutOfRange}},
		{"a repair task starting from a broken invariant", []string{
			"task pay_o1 {",
			`task repair_o2 {
  persona     "Bookkeeper"
  instruction "Bo's order was marked paid without a receipt: book the 5 EUR receipt."
  seed { sales.Order o2 { customer: "Bo", total: 5, status: paid } }
  expect {
    exists(r in books.Receipt where r.order == o2 and r.amount == 5)
    invariant paid_orders_have_receipts
  }
  solution { record_receipt(order: o2, amount: 5) }
}

task pay_o1 {`}, nil},
	}},
	{"Every tool succeeds at least once (W025)", []claimSpec{
		{"a tool that succeeds only on a record a golden solution creates", []string{
			`sales.Order o1 { customer: "Ana", total: 20 }`,
			`sales.Order o1 { customer: "Ana", total: 20, status: paid }
  books.Receipt r1 { order: o1, amount: 20 }`,
			`  expect {
    sales.Order[o1].status == paid
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)
  }`,
			`  expect {
    exists(o in sales.Order where o.customer == "Cy" and o.status == paid)
    invariant paid_orders_have_receipts
  }
  solution {
    o = open_order(customer: "Cy", total: 7)
    record_receipt(order: o, amount: 7)
    pay_order(order: o)
  }`}, nil},
		{"a tool no state lets succeed", []string{
			`sales.Order o1 { customer: "Ana", total: 20 }`,
			`sales.Order o1 { customer: "Ana", total: 20, status: paid }
  books.Receipt r1 { order: o1, amount: 20 }`,
			`  tool open_order(customer: string, total: money) "Open an order" {
    let o = insert Order { customer: customer, total: total }
    return o
  }
`, "",
			`  expect {
    sales.Order[o1].status == paid
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)
  }`,
			`  expect {
    count(r in books.Receipt where r.order == o1) == 2
  }
  solution {
    record_receipt(order: o1, amount: 20)
  }`}, []diag.Code{diag.UnreachableTool}},
	}},
	{"Every task's rubric does not hold before the agent acts (W014)", []claimSpec{
		{"a rubric that already holds", []string{`sales.Order[o1].status == paid`, `sales.Order[o1].customer == "Ana"`}, []diag.Code{diag.RubricAlreadySatisfied}},
		{"`unchanged` holds before the agent acts", []string{
			`  expect {
    sales.Order[o1].status == paid
    invariant paid_orders_have_receipts
  }
  solution {
    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)
  }`,
			`  expect {
    unchanged
  }
  solution {
    get_order(id: o1)
  }`}, nil},
		{"a solution that does not reach reward 1", []string{"    pay_order(order: o1)\n", ""}, []diag.Code{diag.SolutionFails}},
		{"an always-invariant broken after a call of the solution", []string{
			"invariant paid_orders_have_receipts {", "always invariant paid_orders_have_receipts {",
			`    record_receipt(order: o1, amount: 20)
    pay_order(order: o1)`,
			`    pay_order(order: o1)
    record_receipt(order: o1, amount: 20)`}, []diag.Code{diag.SolutionFails}},
		{"a step that fails with exactly its message", []string{
			"    pay_order(order: o1)\n",
			"    pay_order(order: o1)\n    pay_order(order: o1) fails \"order is not open\"\n"}, nil},
		{"a step that fails with another message", []string{
			"    pay_order(order: o1)\n",
			"    pay_order(order: o1)\n    pay_order(order: o1) fails \"order is closed\"\n"}, []diag.Code{diag.SolutionFails}},
	}},
	{"A tool writes only its own service's entities (W010)", []claimSpec{
		{"a tool writing another service's entity", []string{
			`    let r = insert Receipt { order: order, amount: amount }`,
			`    let r = insert Receipt { order: order, amount: amount }
    set order.status = paid`}, []diag.Code{diag.WriteOutsideService}},
	}},
	{"every service is linked to another (W016)", []claimSpec{
		{"a service linked to none", []string{
			"invariant paid_orders_have_receipts {",
			`service hr "People" {
  entity Person { name string }
  tool list_people: list Person
}

invariant paid_orders_have_receipts {`,
			`sales.Order o1 { customer: "Ana", total: 20 }`,
			`sales.Order o1 { customer: "Ana", total: 20 }
  hr.Person p1 { name: "Ana" }`}, []diag.Code{diag.IsolatedService}},
	}},
	{"a rule inside one system is a `local invariant`", []claimSpec{
		{"an invariant inside one service", []string{
			"task pay_o1 {",
			`invariant paid_orders_have_customers {
  policy "Every paid order names its customer."
  for o in sales.Order where o.status == paid
  require o.customer != ""
}

task pay_o1 {`}, []diag.Code{diag.InvariantSameService}},
		{"the same rule as a local invariant", []string{
			"task pay_o1 {",
			`local invariant paid_orders_have_customers {
  policy "Every paid order names its customer."
  for o in sales.Order where o.status == paid
  require o.customer != ""
}

task pay_o1 {`}, nil},
	}},
	{"Some tool (or a seed record) can make each invariant's trigger true (W013)", []claimSpec{
		{"a trigger no tool makes true", []string{
			"  status   enum { open paid } = open",
			"  status   enum { open paid void } = open",
			"for o in sales.Order where o.status == paid",
			"for o in sales.Order where o.status == void"}, []diag.Code{diag.DeadInvariant}},
	}},
	{"Every entity a rubric reads has a tool that shows its records (W015)", []claimSpec{
		{"a rubric reading an entity no tool shows", []string{
			"  tool list_receipts: list Receipt\n", "",
			"    let r = insert Receipt { order: order, amount: amount }\n    return r\n",
			"    insert Receipt { order: order, amount: amount }\n",
			"    sales.Order[o1].status == paid\n",
			"    sales.Order[o1].status == paid\n    exists(r in books.Receipt where r.order == o1)\n"}, []diag.Code{diag.UnobservableRubric}},
	}},
	// Advice, not enforced: one task, or none with a solution, checks clean.
	{"Write at least two tasks", []claimSpec{
		{"a world with one task", nil, nil},
	}},
}

// promptBullets returns the bullets of the system prompt's gate section
// and checklist.
func promptBullets(t *testing.T) []string {
	t.Helper()
	data, err := fs.ReadFile(templates.Author, "author/system.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	start := strings.Index(s, "# What the executability gate requires")
	end := strings.Index(s, "# The language")
	if start < 0 || end < start {
		t.Fatal("the system prompt has no section \"What the executability gate requires\" before \"The language\"")
	}
	var bullets []string
	for _, line := range strings.Split(s[start:end], "\n") {
		if b, ok := strings.CutPrefix(line, "- "); ok {
			bullets = append(bullets, b)
		}
	}
	return bullets
}

func TestPromptClaims(t *testing.T) {
	bullets := promptBullets(t)
	if len(bullets) < 5 {
		t.Fatalf("%d bullets found in the gate section and the checklist", len(bullets))
	}
	covered := make([]bool, len(bullets))
	for _, c := range promptClaims {
		n := 0
		for i, b := range bullets {
			if strings.Contains(b, c.phrase) {
				covered[i] = true
				n++
			}
		}
		if n != 1 {
			t.Errorf("the phrase %q occurs in %d bullets of the prompt, want 1", c.phrase, n)
		}
		for _, sp := range c.specs {
			src := claimBase
			if len(sp.edits)%2 != 0 {
				t.Fatalf("%s: odd number of edits", sp.name)
			}
			for i := 0; i < len(sp.edits); i += 2 {
				if !strings.Contains(src, sp.edits[i]) {
					t.Fatalf("%s: edit %d: %q is not in the spec", sp.name, i/2, sp.edits[i])
				}
				src = strings.Replace(src, sp.edits[i], sp.edits[i+1], 1)
			}
			_, ds := CheckSource("claims.world", []byte(src))
			var got []diag.Code
			for _, d := range ds {
				if d.Severity == SeverityError {
					got = append(got, d.Code)
				}
			}
			if !slices.Equal(got, sp.codes) {
				t.Errorf("%q, shown by %s: codes %v, want %v\n%s", c.phrase, sp.name, got, sp.codes, ds.Text())
			}
		}
	}
	for i, b := range bullets {
		if !covered[i] {
			t.Errorf("the prompt says %q, which no entry of promptClaims shows with a spec", b)
		}
	}
}
