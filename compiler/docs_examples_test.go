package compiler

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/dsl"
)

// The language reference (docs/language.md, and docs/imported.md beside
// it) goes into the author prompt, so an LLM copies its examples.
// TestDocExamples holds every fenced code block of those pages to the
// checker: each block has an entry in docExamples, found by a phrase of
// the block, that puts it in a world (a host) and says the codes the
// checker reports on it (none: clean; an example of a diagnostic: its
// code, as its comment says). A block without an entry fails the test, so
// a new example cannot be wrong unnoticed; an entry whose phrase is in no
// block fails too, so the table follows the docs.

// docPages are the pages whose examples are checked, relative to the
// compiler directory.
var docPages = []string{"../docs/language.md", "../docs/imported.md"}

// docHeader is a world header for hosts that need nothing else of it.
const docHeader = `world docs {
  title    "Docs"
  industry "retail"
  country  "US"
  currency "USD"
  today    2026-03-14
}
`

// inClaims puts a block into claimBase (prompt_claims_test.go) after
// applying edits (pairs of old and new text, as claimSpec's): where a new
// text says BLOCK, else at the end.
func inClaims(edits ...string) func(t *testing.T, block string) string {
	return func(t *testing.T, block string) string {
		t.Helper()
		if len(edits)%2 != 0 {
			t.Fatal("odd number of edits")
		}
		src, placed := claimBase, false
		for i := 0; i < len(edits); i += 2 {
			if !strings.Contains(src, edits[i]) {
				t.Fatalf("edit %q is not in claimBase", edits[i])
			}
			placed = placed || strings.Contains(edits[i+1], "BLOCK")
			src = strings.Replace(src, edits[i], strings.ReplaceAll(edits[i+1], "BLOCK", block), 1)
		}
		if !placed {
			src += "\n" + block
		}
		return src
	}
}

// host returns a function that puts the block where BLOCK is in src.
func host(src string) func(t *testing.T, block string) string {
	return func(t *testing.T, block string) string {
		if !strings.Contains(src, "BLOCK") {
			t.Fatal("host without BLOCK")
		}
		return strings.Replace(src, "BLOCK", block, 1)
	}
}

var docExamples = []struct {
	phrase string // occurs in exactly one block
	// host builds the spec checked; nil: the block is a schema with
	// placeholders (NAME, …), which only has to parse, or, with noParse,
	// not even that.
	host    func(t *testing.T, block string) string
	codes   []diag.Code // errors and warnings check reports, in order
	noParse bool
}{
	{"world northwind_logistics {", host("BLOCK"), nil, false},
	{"entity Order key order_id", host(docHeader + `
service store "Orders" {
  BLOCK
  tool get_order: get Order
  tool cancel_order(order: ref Order) "Cancel a pending order" {
    require order.status == pending else "order is not pending"
    set order.status = cancelled
    return order
  }
}

service crm "Customers" {
  entity Customer {
    name       string
    last_order ref store.Order?
  }
  tool get_customer: get Customer
}

seed {
  store.Order w1 { order_id: "#W2378156", status: pending }
  crm.Customer ana { name: "Ana", last_order: w1 }
}
`), nil, false},
	{"record Address", host(docHeader + `
BLOCK

service accounts "User accounts" {
  entity User {
    name            string
    address         Address
    payment_methods map<string, PaymentMethod>
  }
  tool get_user: get User
  tool top_up(user: ref User, id: string, amount: decimal) "Add to a gift card's balance" {
    require id in user.payment_methods else "no such payment method"
    let pm = user.payment_methods[id]
    require pm.source == gift_card else "not a gift card"
    set user.payment_methods[id].balance = coalesce(pm.balance, 0) + amount
    return user
  }
}

service orders "Orders" {
  entity Order {
    user ref accounts.User
    ship_to Address
  }
  tool get_order: get Order
}

seed {
  accounts.User ana {
    name: "Ana",
    address: Address { address1: "1 Main St", city: "Paris" },
    payment_methods: { "g1": PaymentMethod { source: gift_card, id: "g1", balance: 10 } }
  }
  orders.Order o1 { user: ana, ship_to: Address { address1: "1 Main St", city: "Paris", zip: "75001" } }
}
`), nil, false},
	{"tool approve_claim(", host(docHeader + `
service claims "Claims" {
  entity Claim {
    policy          ref policies.Policy
    status          enum { submitted approved } = submitted
    approved_amount money?
  }
  tool get_claim: get Claim
  BLOCK
}

service policies "Policies" {
  entity Policy {
    holder         string
    coverage_limit money >= 0
  }
  tool get_policy: get Policy
}

seed {
  policies.Policy p1 { holder: "Ana", coverage_limit: 1000 }
  claims.Claim    c1 { policy: p1 }
}
`), nil, false},
	{`require order.total >= 0.5 else "nothing to pay"`, host(strings.Replace(strings.Replace(claimBase, `  today 2026-03-14`, `  currency "JPY"
  today 2026-03-14`, 1), `    set order.status = paid
`, `    set order.status = paid
BLOCK`, 1)), []diag.Code{diag.MoneyPrecision}, false},
	{"for x in ENTITY where TRIGGER", nil, nil, false},
	{"invariant paid_orders_are_booked {", inClaims(), []diag.Code{diag.InvariantIgnoresTrigger}, false},
	{"invariant refunded_orders_are_reversed {", inClaims(
		"status   enum { open paid } = open", "status   enum { open paid refunded } = open"), []diag.Code{diag.DeadInvariant}, false},
	{"local invariant shipped_orders_are_paid {", inClaims(
		"status   enum { open paid } = open", "status   enum { open paid shipped } = open\n    paid_on  date?",
		"    set order.status = paid\n", "    set order.status = paid\n    set order.paid_on = today\n",
		"  tool pay_order(", `  tool ship_order(order: ref Order) "Ship an order" {
    set order.status = shipped
    return order
  }
  tool pay_order(`), nil, false},
	{"always invariant paid_orders_have_receipts {", inClaims(
		`invariant paid_orders_have_receipts {
  policy "Every paid order has a receipt for its total."
  for o in sales.Order where o.status == paid
  require exists(r in books.Receipt where r.order == o and r.amount == o.total)
}
`, "BLOCK"), nil, false},
	{"rule no_dispatch_on_credit_hold {", host(docHeader + `
service crm "Shippers" {
  entity Customer {
    name    string
    on_hold bool = false
  }
  tool get_customer: get Customer
  tool set_hold(customer: ref Customer, on_hold: bool) "Put a shipper on or off credit hold" {
    set customer.on_hold = on_hold
    return customer
  }
}

service operations "Operations" {
  entity Shipment {
    customer ref crm.Customer
    status   enum { ready dispatched } = ready
  }
  tool get_shipment: get Shipment
  tool dispatch_shipment(shipment: ref Shipment) "Hand a shipment to the carrier" {
    require shipment.status == ready else "shipment is not ready"
    set shipment.status = dispatched
    return shipment
  }
}

BLOCK

seed {
  crm.Customer        bo { name: "Bo" }
  operations.Shipment s1 { customer: bo }
}

task dispatch_s1 {
  persona     "Dispatcher"
  instruction "Send shipment s1 on its way."
  expect {
    operations.Shipment[s1].status == dispatched
    invariant no_dispatch_on_credit_hold
  }
  solution { dispatch_shipment(shipment: s1) }
}
`), nil, false},
	{"crm.Customer acme { name", func(t *testing.T, block string) string {
		doc, err := os.ReadFile("../docs/language.md")
		if err != nil {
			t.Fatal(err)
		}
		world := docBlocks(string(doc))[0]
		// The world without its seed and task, and the block as its
		// seed, with an invoice for the billing tools to work on.
		before, _, ok := strings.Cut(world, "seed {")
		if !ok {
			t.Fatal("the first example of docs/language.md has no seed")
		}
		return before + strings.Replace(block, "\n}", "\n  billing.Invoice inv1 { customer: acme, amount: 1200, status: issued }\n}", 1)
	}, nil, false},
	{"task NAME {", nil, nil, true},
	{"nl_assertions:", inClaims("  expect {", "  BLOCK\n  expect {"), nil, false},
}

// docBlocks returns the fenced code blocks of a markdown page.
func docBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if in {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

func TestDocExamples(t *testing.T) {
	var blocks []string
	for _, p := range docPages {
		md, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, docBlocks(string(md))...)
	}
	if len(blocks) < 10 {
		t.Fatalf("%d code blocks found in %v", len(blocks), docPages)
	}
	covered := make([]bool, len(blocks))
	for _, ex := range docExamples {
		n := -1
		for i, b := range blocks {
			if strings.Contains(b, ex.phrase) {
				if n >= 0 {
					t.Errorf("the phrase %q occurs in more than one block", ex.phrase)
				}
				n = i
			}
		}
		if n < 0 {
			t.Errorf("no code block of %v has the phrase %q: remove its entry from docExamples", docPages, ex.phrase)
			continue
		}
		covered[n] = true
		block := blocks[n]
		if ex.host == nil {
			if _, err := dsl.Parse("doc.world", []byte(block)); (err == nil) == ex.noParse {
				t.Errorf("the schema %q: parse error %v, want an error: %v", ex.phrase, err, ex.noParse)
			}
			continue
		}
		src := ex.host(t, block)
		_, ds := CheckSource("doc.world", []byte(src))
		var got []diag.Code
		for _, d := range ds {
			got = append(got, d.Code)
		}
		if !slices.Equal(got, ex.codes) {
			t.Errorf("the example %q: codes %v, want %v\n%s\nin:\n%s", ex.phrase, got, ex.codes, ds.Text(), src)
		}
	}
	for i, b := range blocks {
		if !covered[i] {
			t.Errorf("no entry of docExamples checks this code block of %v:\n%s", docPages, b)
		}
	}
}
