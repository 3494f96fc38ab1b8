package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/worldc/worldc/dsl"
)

// manyTasksWorld writes, in dir, a spec whose seed loads orders.csv with
// the given number of orders, and the given number of tasks with golden
// solutions: each pays an order of the loaded seed, or, with ownSeeds, one
// task of three pays an order of its own task seed. It returns the spec's
// path.
//
// As in a synthesised world, the loaded table is written by the tasks'
// solutions and by tools of the search: every task's start state, its
// solution's replay and the reachability search run on it. No order is
// paid in the seed, so that record_receipt and ship_order succeed only
// along the golden solutions: the search tries them from every start
// state first. The invariant reads the orders through their keys.
func manyTasksWorld(tb testing.TB, dir string, orders, tasks int, ownSeeds bool) string {
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
		switch {
		case !ownSeeds || i%3 != 1:
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
		default:
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
	path := manyTasksWorld(t, t.TempDir(), 100, 12, true)
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
	sizes := []size{{1000, 10}, {1000, 100}, {1000, 1000}, {20000, 10}, {20000, 100}, {20000, 400}, {150000, 10}, {150000, 100}, {150000, 400}, {150000, 1000}}
	if testing.Short() {
		sizes = []size{{1000, 10}, {1000, 100}}
		b.Log("-short: 1,000 orders only")
	}
	for _, sz := range sizes {
		b.Run(fmt.Sprintf("orders=%d/tasks=%d", sz.orders, sz.tasks), func(b *testing.B) {
			path := manyTasksWorld(b, b.TempDir(), sz.orders, sz.tasks, true)
			b.ReportAllocs()
			reportCPU(b, func() {
				if w, ds := CheckFile(path); w == nil || len(ds) > 0 {
					b.Fatal(ds.Text()[:min(2000, len(ds.Text()))])
				}
			})
		})
	}
}

// checkWork checks the spec at path and returns what the check did.
func checkWork(t *testing.T, path string) (rows int64, search searchWork) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := dsl.Parse(path, src)
	if err != nil {
		t.Fatal(err)
	}
	c := newChecker(path, nil)
	c.check(f)
	c.closeData()
	if len(c.diags) > 0 || c.budget == nil {
		t.Fatalf("%s", c.diags.Text())
	}
	return c.budget.Rows(), c.searched
}

// TestCheckGrowsWithTasksPlusRecords is issue 20's item 2 as a test of
// growth, counting work instead of timing it: a check of n tasks over a
// seed of r loaded records must cost about r + n, not r × n. Between 10
// and 60 tasks, over 1,000 and over 8,000 records:
//
//   - the rows the evaluator's states copy, index or compare (eval.Budget
//     Rows): the 7,000 more records cost the same with 60 tasks as with
//     10 (the seed is indexed once, a task costs its own records and
//     writes), and the seed's index is built (the counter counts);
//   - the bytes the check allocates per task do not grow with the seed;
//   - the reachability search tries every task's start state, yet runs no
//     more calls with 60 tasks than with 10 when all of them start from
//     the world seed: their searches are that of the seed.
func TestCheckGrowsWithTasksPlusRecords(t *testing.T) {
	const r1, r2, n1, n2 = 1000, 8000, 10, 60
	type work struct {
		rows   int64
		bytes  int64
		search searchWork
	}
	measure := func(records, tasks int, ownSeeds bool) work {
		path := manyTasksWorld(t, t.TempDir(), records, tasks, ownSeeds)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		rows, search := checkWork(t, path)
		runtime.ReadMemStats(&after)
		w := work{rows, int64(after.TotalAlloc - before.TotalAlloc), search}
		t.Logf("%d records, %d tasks (task seeds: %v): %d rows, %d bytes, %d calls tried, %d run", records, tasks, ownSeeds, w.rows, w.bytes, search.tries, search.calls)
		return w
	}
	a, b := measure(r1, n1, true), measure(r1, n2, true)
	c, d := measure(r2, n1, true), measure(r2, n2, true)
	if a.rows < r1 || c.rows < r2 {
		t.Errorf("rows %d over %d records, %d over %d: the seed's index is not counted", a.rows, r1, c.rows, r2)
	}
	if few, many := c.rows-a.rows, d.rows-b.rows; many > few+n2-n1 {
		t.Errorf("%d more records cost %d rows with %d tasks, %d with %d: the tasks copy the seed", r2-r1, few, n1, many, n2)
	}
	perTask := func(x, y work) int64 { return (y.bytes - x.bytes) / (n2 - n1) }
	if small, large := perTask(a, b), perTask(c, d); large > small+small/2+16<<10 {
		t.Errorf("a task allocates %d bytes over %d records, %d over %d: it grows with the seed", small, r1, large, r2)
	}
	e, f := measure(r1, n1, false), measure(r1, n2, false)
	if f.search.tries-e.search.tries < 10*(n2-n1) {
		t.Fatalf("%d and %d calls tried with %d and %d tasks: the search does not try the tasks' start states", e.search.tries, f.search.tries, n1, n2)
	}
	if f.search.calls > e.search.calls {
		t.Errorf("the search ran %d calls with %d tasks starting from the world seed, %d with %d: it repeats the seed's search per task", e.search.calls, n1, f.search.calls, n2)
	}
}
