package gate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/gen"
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

// TestLocator places failures of the package generated from locatorSpec
// by the position map the generator made with it.
func TestLocator(t *testing.T) {
	w, diags := compiler.CheckSource("shop.world", []byte(locatorSpec))
	if w == nil {
		t.Fatalf("the spec does not check:\n%s", diags.Text())
	}
	pkg, err := gen.GeneratePackage(w)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "gen", "shop")
	locate := NewLocator(pkg.Positions, dir)
	// line is the line of file that holds text, which must be on one line
	// only.
	line := func(file, text string) int {
		t.Helper()
		src := string(pkg.Files[file])
		if n := strings.Count(src, text); n != 1 {
			t.Fatalf("%s holds %q %d times", file, text, n)
		}
		return strings.Count(src[:strings.Index(src, text)], "\n") + 1
	}
	const world = "shop.world:1:1, world shop (generated code common to the world)"
	for _, tt := range []struct {
		file, at string // a line of the generated file
		want     string
	}{
		{"types.go", "type CustomerTier string", "shop.world:12:5, field Customer.tier"},
		{"types.go", "CustomerTierGold   CustomerTier =", "shop.world:12:5, field Customer.tier"},
		{"types.go", "type Invoice struct", "shop.world:24:3, entity Invoice"},
		{"tools.go", "type SetTierArgs struct", "shop.world:16:3, tool set_tier"},
		{"tools.go", "func (s *State) SetTier(", "shop.world:16:3, tool set_tier"},
		{"tools.go", "customer, err := s.findCustomer(args.Customer)", "shop.world:16:3, tool set_tier"},
		{"tools.go", `runtime.PreconditionFailed("inactive")`, "shop.world:17:5, tool set_tier, require"},
		{"tools.go", "customer.Tier = args.Tier", "shop.world:18:5, tool set_tier, set"},
		{"tools.go", "return customer, nil", "shop.world:19:5, tool set_tier, return"},
		{"tools.go", "func (s *State) callSetTier(", "shop.world:16:3, tool set_tier"},
		{"tools.go", "(*State).callSetTier,", "shop.world:16:3, tool set_tier"},
		{"tools.go", "(*State).callPay,", "shop.world:30:3, tool pay"},
		{"tools.go", "var registry =", world},
		{"state.go", "func (s *State) checkInvoiceAmount(", "shop.world:26:5, field Invoice.amount"},
		{"state.go", "func NewState()", world},
		{"state.go", "func (s *State) Validate()", world},
		{"state.go", "for r := range s.Invoices.All()", "shop.world:24:3, entity Invoice"},
		{"state.go", "if !s.Customers.Has(r.Customer)", "shop.world:25:5, field Invoice.customer"},
		{"state.go", "if err := s.checkInvoiceAmount(r); err != nil {\n\t\t\t\terrs", "shop.world:26:5, field Invoice.amount"},
		{"invariants.go", "func (s *State) checkGoldCustomersAreActive()", "shop.world:37:1, invariant gold_customers_are_active"},
		{"invariants.go", "out = append(out, s.checkGoldCustomersAreActive()...)", "shop.world:37:1, invariant gold_customers_are_active"},
		{"tasks.go", "func assertPayIt1(", "shop.world:52:5, task pay_it, assertion 1"},
		{"tasks.go", "var tasks =", world},
		{"tasks.go", "func rubricOf(", world},
		{"world.go", "func New()", world},
		{"world_test.go", "func TestConformance(", world},
	} {
		pos := fmt.Sprintf("%s:%d:2", filepath.Join(dir, tt.file), line(tt.file, tt.at))
		if got := locate(pos, ""); got != tt.want {
			t.Errorf("locate(%s) [%s] = %q, want %q", pos, strings.SplitN(tt.at, "\n", 2)[0], got, tt.want)
		}
	}
	// A position relative to the working directory, as the locator's
	// directory is, is in the package too.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	rel := NewLocator(pkg.Positions, filepath.Join("gen", "shop"))
	if got, want := rel(fmt.Sprintf("%s:%d", filepath.Join(wd, "gen", "shop", "tools.go"), line("tools.go", "customer.Tier = args.Tier")), ""), "shop.world:18:5, tool set_tier, set"; got != want {
		t.Errorf("relative directory: %q, want %q", got, want)
	}
	// What nothing places is placed at the world: positions in no file of
	// the package, or in none of its declarations.
	setTier := line("tools.go", "customer.Tier = args.Tier")
	for _, pos := range []string{
		"nowhere.go:1:1", "garbage", filepath.Join(dir, "tools.go") + ":9999:1", filepath.Join(dir, "tools.go") + ":2:1",
		filepath.Join(dir, "nothere.go") + ":3:1", fmt.Sprintf("%s:%d:2", filepath.Join(dir, "..", "other", "tools.go"), setTier),
	} {
		if got := locate(pos, ""); got != world {
			t.Errorf("locate(%q) = %q, want %q", pos, got, world)
		}
	}
	// Failures of the generated tests are placed by what they name.
	for _, tt := range []struct{ goPos, msg, want string }{
		{"world_test.go:12", `world "shop": task "pay_it": step 1: tool "pay": solutions: the call fails`, "shop.world:55:5, task pay_it, solution step 1"},
		{"world_test.go:12", `world "shop": task "pay_it": step 2: tool "pay": solutions: the call fails`, "shop.world:48:1, task pay_it"},
		{"world_test.go:12", `world "shop": task "pay_it": tasks: the rubric holds already`, "shop.world:48:1, task pay_it"},
		{"world_test.go:12", `tool set_tier: no candidate arguments succeeded in 12 tries; the furthest got: …`, "shop.world:16:3, tool set_tier"},
		{"world_test.go:12", `world "shop": invariant "gold_customers_are_active" is broken`, "shop.world:37:1, invariant gold_customers_are_active"},
		{"world_test.go:12", `world "shop": tool "nope": x`, world},
		// In code common to the world, the message is more precise.
		{fmt.Sprintf("%s:%d", filepath.Join(dir, "world_test.go"), line("world_test.go", "func TestConformance(")), `tool "pay": x`, "shop.world:30:3, tool pay"},
		// In a tool's code, the position is.
		{fmt.Sprintf("%s:%d", filepath.Join(dir, "tools.go"), setTier), `tool "pay": x`, "shop.world:18:5, tool set_tier, set"},
	} {
		if got := locate(tt.goPos, tt.msg); got != tt.want {
			t.Errorf("locate(%q, %q) = %q, want %q", tt.goPos, tt.msg, got, tt.want)
		}
	}
	// Without a map, nothing is placed.
	if got := NewLocator(nil, dir)("tools.go:1", `tool "pay": x`); got != "" {
		t.Errorf("no map: %q", got)
	}
}
