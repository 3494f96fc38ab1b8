package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// manyTasksWorld writes, in dir, a spec whose seed loads orders.csv with
// the given number of orders, and the given number of tasks with golden
// solutions: two tasks of three pay an order of the loaded seed, the
// third pays an order of its own task seed. It returns the spec's path.
//
// As in a synthesised world, the loaded table is written by the tasks'
// solutions and by tools of the search: every task's start state, its
// solution's replay and the reachability search run on it. No order is
// paid in the seed, so that record_receipt and ship_order succeed only
// along the golden solutions: the search tries them from every start
// state first. The invariant reads the orders through their keys.
func manyTasksWorld(tb testing.TB, dir string, orders, tasks int) string {
	tb.Helper()
	var spec strings.Builder
	spec.WriteString(`world many_tasks {
  title "Many tasks"
  today 2026-03-14
}

service sales "Orders" {
  entity Order key order_id {
    order_id string
    customer string
    total    money >= 0
    status   enum { open paid shipped } = open
  }
  tool get_order: get Order
  tool search_orders: search Order by customer, status
  tool pay_order(order: ref Order) "Mark an order as paid" {
    require order.status == open else "order is not open"
    set order.status = paid
    return order
  }
  tool ship_order(order: ref Order) "Ship a paid order" {
    require order.status == paid else "order is not paid"
    set order.status = shipped
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
    require order.status == paid else "order is not paid"
    insert Receipt { order: order, amount: amount }
  }
}

invariant receipts_are_for_paid_orders {
  policy "A receipt is recorded for an order that is paid or shipped."
  for r in books.Receipt
  require r.order.status != open
}

seed {
  load sales.Order from "orders.csv"
}
`)
	var csv strings.Builder
	csv.WriteString("order_id,customer,total,status\n")
	for i := range orders {
		fmt.Fprintf(&csv, "o%d,Customer %d,%d,open\n", i, i%997, 10+i%90)
	}
	for i := range tasks {
		switch i % 3 {
		case 0, 2:
			id := fmt.Sprintf("o%d", i%orders)
			total := 10 + i%orders%90
			fmt.Fprintf(&spec, `
task pay_%d {
  persona     "Shop owner"
  instruction "The customer paid order %s. Record it."
  expect {
    sales.Order["%s"].status == paid
    exists(r in books.Receipt where r.order == "%s")
  }
  solution {
    pay_order(order: "%s")
    record_receipt(order: "%s", amount: %d)
  }
}
`, i, id, id, id, id, id, total)
		case 1:
			fmt.Fprintf(&spec, `
task pay_own_%d {
  persona     "Shop owner"
  instruction "Bob paid his order. Record it."
  seed {
    sales.Order x%d { order_id: "x%d", customer: "Bob", total: %d }
  }
  expect {
    sales.Order["x%d"].status == paid
    exists(r in books.Receipt where r.order == x%d)
    invariant receipts_are_for_paid_orders
  }
  solution {
    pay_order(order: x%d)
    record_receipt(order: x%d, amount: %d)
  }
}
`, i, i, i, 1+i%50, i, i, i, i, 1+i%50)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "orders.csv"), []byte(csv.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "many.world")
	if err := os.WriteFile(path, []byte(spec.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestManyTasksWorldChecks: the benchmark's world is valid, so that the
// benchmark measures a whole check (reachability included).
func TestManyTasksWorldChecks(t *testing.T) {
	path := manyTasksWorld(t, t.TempDir(), 100, 12)
	w, ds := CheckFile(path)
	if w == nil || len(ds) > 0 {
		t.Fatal(ds.Text())
	}
	if len(w.Tasks) != 12 || len(w.Seed) != 100 {
		t.Fatalf("%d tasks, %d seed records", len(w.Tasks), len(w.Seed))
	}
}

// BenchmarkCheckManyTasks checks a world of many tasks with golden
// solutions over a large loaded seed (issue 20, item 2): the cost must
// grow with tasks plus records, not with their product. With -short, the
// small sizes only.
func BenchmarkCheckManyTasks(b *testing.B) {
	type size struct{ orders, tasks int }
	sizes := []size{{1000, 10}, {1000, 100}, {20000, 10}, {20000, 100}, {20000, 400}, {150000, 10}, {150000, 100}, {150000, 400}}
	if testing.Short() {
		sizes = []size{{1000, 10}, {1000, 100}}
		b.Log("-short: 1,000 orders only")
	}
	for _, sz := range sizes {
		path := manyTasksWorld(b, b.TempDir(), sz.orders, sz.tasks)
		b.Run(fmt.Sprintf("orders=%d/tasks=%d", sz.orders, sz.tasks), func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				if w, ds := CheckFile(path); w == nil || len(ds) > 0 {
					b.Fatal(ds.Text()[:min(2000, len(ds.Text()))])
				}
			})
		})
	}
}
