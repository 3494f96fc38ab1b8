package ir_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

const readsWorld = `
world reads { title "Reads" industry "retail" country "DE" currency "EUR" today 2026-03-14 }

service crm "Customers" {
  entity Account { balance money }
  entity Customer { code string  active bool = true  account ref Account }
  tool list_customers: list Customer
  tool list_accounts: list Account
  tool set_active(c: ref Customer, active: bool) "Set" { set c.active = active }
}

service sales "Orders" {
  record Line { customer ref crm.Customer  qty int }
  entity Order { customer ref crm.Customer  code string  total money  lines list<Line> }
  entity Receipt { order ref Order  amount money }
  tool list_orders: list Order
  tool list_receipts: list Receipt
  tool set_total(o: ref Order, total: money) "Set" { set o.total = total }
}

local invariant r1 { policy "1" for o in sales.Order require o.customer.active }
local invariant r2 { policy "2" for o in sales.Order require crm.Customer[o.code].active and o.code in crm.Customer }
local invariant r3 { policy "3" for o in sales.Order require exists(r in sales.Receipt where r.order == o and r.amount > 0) }
local invariant r4 { policy "4" for o in sales.Order require count(c in crm.Customer where c.code == o.code) <= 1 }
local invariant r5 { policy "5" for o in sales.Order require count(r in sales.Receipt where r.amount > o.total) == 0 }
local invariant r6 { policy "6" for o in sales.Order require o.customer.account.balance >= 0 }
local invariant r7 { policy "7" for o in sales.Order require forall(l.customer.active for l in o.lines) }
local invariant r8 { policy "8" for o in sales.Order where o.total > 0 require o.total < 100 }

seed {
  crm.Account a1 { balance: 1 }
  crm.Customer c1 { code: "C1", account: a1 }
  sales.Order o1 { customer: c1, code: "c1", total: 10, lines: [] }
  sales.Receipt p1 { order: o1, amount: 10 }
}
`

// TestInvariantReads: which reads are keyed by the checked record, and
// by which fields; the others are global.
func TestInvariantReads(t *testing.T) {
	w, ds := compiler.CheckSource("reads.world", []byte(readsWorld))
	if w == nil || ds.HasErrors() {
		t.Fatalf("does not check:\n%s", ds.Text())
	}
	name := func(f *ir.Field) string {
		if f == nil {
			return "id"
		}
		return f.Name
	}
	want := map[string]string{
		"r1": "Customer.id=customer",
		"r2": "Customer.id=code", // the lookup and the membership: one read
		"r3": "Receipt.order=id",
		"r4": "Customer.code=code",
		"r5": "Receipt",
		"r6": "Account Customer.id=customer", // the account through the customer: global
		"r7": "Customer",
		"r8": "",
	}
	for _, inv := range w.Invariants {
		var got []string
		for _, r := range ir.InvariantReads(inv) {
			if r.Keyed {
				got = append(got, fmt.Sprintf("%s.%s=%s", r.Entity.Name, name(r.Field), name(r.Via)))
			} else {
				got = append(got, r.Entity.Name)
			}
		}
		if g := strings.Join(got, " "); g != want[inv.Name] {
			t.Errorf("%s: reads %q, want %q", inv.Name, g, want[inv.Name])
		}
	}
}
