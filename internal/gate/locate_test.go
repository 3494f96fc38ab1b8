package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
)

const locatorSpec = `world shop {
  title    "Shop"
  industry "retail"
  country  "DE"
  currency "EUR"
  today    2026-03-14
}

service crm "Customers" {
  entity Customer {
    name   string
    tier   enum { bronze gold }
    active bool = true
  }
  tool get_customer: get Customer
  tool set_tier(customer: ref Customer, tier: Customer.tier) "Move a customer" {
    require customer.active else "inactive"
    set customer.tier = tier
    return customer
  }
}

service billing "Invoices" {
  entity Invoice {
    customer ref crm.Customer
    amount   money >= 0
    status   enum { issued paid } = issued
  }
  tool get_invoice: get Invoice
  tool pay(invoice: ref Invoice) {
    require invoice.status == issued else "not issued"
    set invoice.status = paid
    return invoice
  }
}

invariant gold_customers_are_active {
  policy "Gold customers are active."
  for inv in billing.Invoice where inv.status == paid
  require inv.customer.active
}

seed {
  crm.Customer    acme { name: "Acme", tier: bronze }
  billing.Invoice inv1 { customer: acme, amount: 10 }
}

task pay_it {
  persona     "Clerk"
  instruction "Pay it."
  expect {
    billing.Invoice[inv1].status == paid
  }
  solution {
    pay(invoice: inv1)
  }
}
`

func TestLocator(t *testing.T) {
	w, diags := compiler.CheckSource("shop.world", []byte(locatorSpec))
	if w == nil {
		t.Fatalf("the spec does not check:\n%s", diags.Text())
	}
	dir := t.TempDir()
	src := `package shop

type CustomerTier string

type SetTierArgs struct {
	Customer string
}

func (s *State) SetTier(a SetTierArgs) error {
	return nil
}

func (s *State) checkGoldCustomersAreActive() []string {
	return nil
}

func taskPayIt() {}

func unrelated() {}

var registry = func() *Registry {
	r := NewRegistry()
	r.Register(Tool{
		Handler:    (*State).callSetTier,
		Name:       "set_tier",
		Parameters: json.RawMessage("{}"),
	})
	r.Register(Tool{
		Name:       "pay",
		Parameters: json.RawMessage("{}"),
	})
	return r
}()

func (s *State) Validate() []error {
	var errs []error
	for r := range s.Invoices.All() {
		if !s.Customers.Has(r.Customer) {
			errs = append(errs, fmt.Errorf("%s %q: %s refers to %s %q", "Invoice", r.ID, "customer", "Customer", r.Customer))
		}
		if bad(r.Amount) {
			errs = append(errs, fmt.Errorf("%s %q: %s", "Invoice", r.ID, "Invoice.amount"))
		}
	}
	return errs
}
`
	if err := os.MkdirAll(filepath.Join(dir, "gen", "shop"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen", "shop", "tools.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	locate := NewLocator(w, dir)
	line := func(s string) int { return strings.Count(src[:strings.Index(src, s)], "\n") + 1 }
	for _, tt := range []struct {
		at   string // a line of src
		want string
	}{
		{"type CustomerTier", "shop.world:12:5, field Customer.tier"},
		{"Customer string", "shop.world:16:3, tool set_tier"},
		{"return nil\n}\n\nfunc (s *State) check", "shop.world:16:3, tool set_tier"},
		{"func (s *State) checkGold", "shop.world:37:1, invariant gold_customers_are_active"},
		{"func taskPayIt", "shop.world:48:1, task pay_it"},
		{"func unrelated", "shop.world:1:1, world shop (generated code common to the world)"},
		{"Parameters: json.RawMessage(\"{}\"),\n\t})\n\tr.Register(Tool{\n\t\tName:", "shop.world:16:3, tool set_tier"},
		{"Parameters: json.RawMessage(\"{}\"),\n\t})\n\treturn", "shop.world:30:3, tool pay"},
		{"return r\n", "shop.world:1:1, world shop (generated code common to the world)"},
		{"errs = append(errs, fmt.Errorf(\"%s %q: %s refers", "shop.world:24:3, entity Invoice"},
		{"if bad(r.Amount)", "shop.world:26:5, field Invoice.amount"},
		{"for r := range s.Invoices", "shop.world:24:3, entity Invoice"},
	} {
		pos := fmt.Sprintf("gen/shop/tools.go:%d:2", line(tt.at))
		if got := locate(pos, ""); got != tt.want {
			t.Errorf("locate(%s) [%s] = %q, want %q", pos, strings.SplitN(tt.at, "\n", 2)[0], got, tt.want)
		}
	}
	// What nothing places is placed at the world.
	for _, pos := range []string{"nowhere.go:1:1", "garbage", "gen/shop/tools.go:9999:1"} {
		if got, want := locate(pos, ""), "shop.world:1:1, world shop (generated code common to the world)"; got != want {
			t.Errorf("locate(%q) = %q, want %q", pos, got, want)
		}
	}
	// Failures of the generated tests are placed by what they name.
	for _, tt := range []struct{ msg, want string }{
		{`world "shop": task "pay_it": step 1: tool "pay": solutions: the call fails`, "shop.world:55:5, task pay_it, solution step 1"},
		{`world "shop": task "pay_it": tasks: the rubric holds already`, "shop.world:48:1, task pay_it"},
		{`tool set_tier: no candidate arguments succeeded in 12 tries; the furthest got: …`, "shop.world:16:3, tool set_tier"},
		{`world "shop": invariant "gold_customers_are_active" is broken`, "shop.world:37:1, invariant gold_customers_are_active"},
		{`world "shop": tool "nope": x`, "shop.world:1:1, world shop (generated code common to the world)"},
	} {
		if got := locate("world_test.go:12", tt.msg); got != tt.want {
			t.Errorf("locate(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
