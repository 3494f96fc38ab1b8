package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/worldc/worldc/dsl"
)

// processCPU is the CPU time this process has used. On a shared machine
// wall-clock ns/op moves with everyone else's load; CPU time per op
// (reported as cpu-ns/op) moves much less.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU runs the benchmark loop body and reports CPU time per op.
func reportCPU(b *testing.B, body func()) {
	start := processCPU()
	for b.Loop() {
		body()
	}
	b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCheck measures parse + check of each example world.
func BenchmarkCheck(b *testing.B) {
	files, _ := filepath.Glob("../testdata/worlds/*.world")
	if len(files) == 0 {
		b.Skip("no example worlds")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(strings.TrimSuffix(filepath.Base(f), ".world"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			reportCPU(b, func() {
				if _, ds := CheckSource(f, src); ds.HasErrors() {
					b.Fatal(ds.Text())
				}
			})
		})
	}
}

// BenchmarkLints measures the lints of issue 9 alone on each example
// world, checked once: unsatisfiable conditions (W028), checks that ignore
// their trigger (W029), the ISO codes (W030), money literals in
// expressions (W031; those of seeds are checked as they are read) and the
// value sets of dead triggers (W013). Compare with BenchmarkCheck.
func BenchmarkLints(b *testing.B) {
	files, _ := filepath.Glob("../testdata/worlds/*.world")
	if len(files) == 0 {
		b.Fatal("no example worlds")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		file, err := dsl.Parse(f, src)
		if err != nil {
			b.Fatal(err)
		}
		c := newChecker(f, nil)
		c.check(file)
		c.closeData()
		if c.diags.HasErrors() {
			b.Fatal(c.diags.Text())
		}
		b.Run(strings.TrimSuffix(filepath.Base(f), ".world"), func(b *testing.B) {
			b.ReportAllocs()
			reportCPU(b, func() {
				c.checkCountry(c.w.Country, dsl.Pos(c.w.Pos), dsl.Pos(c.w.Pos))
				c.checkCurrency(c.w.Currency, dsl.Pos(c.w.Pos), dsl.Pos(c.w.Pos))
				c.checkConditions()
				c.checkTriggerRead()
				c.checkMoneyExprs()
				for _, inv := range c.w.Invariants {
					c.deadTrigger(inv)
				}
			})
			if len(c.diags) > 0 {
				b.Fatal(c.diags.Text())
			}
		})
	}
}

// BenchmarkCheckSynthetic checks synthetic worlds of growing size, up to
// 200 entities, 1,000 tools and 10,000 seed records, to show that the cost
// grows linearly.
func BenchmarkCheckSynthetic(b *testing.B) {
	for _, entities := range []int{25, 50, 100, 200} {
		src := syntheticWorld(entities)
		b.Run(fmt.Sprintf("entities=%d", entities), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			reportCPU(b, func() {
				if _, ds := CheckSource("synthetic.world", src); ds.HasErrors() {
					b.Fatal(ds.Text()[:min(2000, len(ds.Text()))])
				}
			})
		})
	}
}

func TestSyntheticWorldChecks(t *testing.T) {
	if _, ds := CheckSource("synthetic.world", syntheticWorld(20)); len(ds) > 0 {
		t.Fatal(ds.Text())
	}
}

// syntheticWorld builds a valid world with the given number of entities,
// ten per service, five tools and fifty seed records per entity, and one
// cross-service invariant per service.
func syntheticWorld(entities int) []byte {
	var b strings.Builder
	b.WriteString("world synthetic {\n  title \"Synthetic\"\n  today 2026-03-14\n}\n\n")
	name := func(i int) string { return fmt.Sprintf("Thing%d", i) }
	svc := func(i int) string { return fmt.Sprintf("svc%d", i/10) }
	for i := 0; i < entities; i++ {
		if i%10 == 0 {
			if i > 0 {
				b.WriteString("}\n\n")
			}
			fmt.Fprintf(&b, "service %s \"Service %d\" {\n", svc(i), i/10)
		}
		e := name(i)
		fmt.Fprintf(&b, "  entity %s {\n    label string unique\n    amount money >= 0\n    status enum { draft open closed } = draft\n    day date\n", e)
		if i > 0 {
			fmt.Fprintf(&b, "    parent ref %s.%s\n", svc(i-1), name(i-1))
		}
		b.WriteString("  }\n")
		fmt.Fprintf(&b, "  tool get_%d: get %s\n  tool search_%d: search %s by label, status\n  tool create_%d: create %s\n  tool update_%d: update %s\n", i, e, i, e, i, e, i, e)
		fmt.Fprintf(&b, "  tool open_%d(x: ref %s, amount: money) \"Open it\" {\n    require x.status == draft else \"only drafts open\"\n    require amount >= 0 and amount <= x.amount * 2 else \"amount out of range\"\n    set x.status = open\n    set x.amount = amount\n    return x\n  }\n", i, e)
	}
	b.WriteString("}\n\n")
	for i := 10; i < entities; i += 10 {
		fmt.Fprintf(&b, "invariant open_%d_has_funded_parent {\n  policy \"An open %s has a parent with a positive amount.\"\n  for x in %s.%s where x.status == open\n  require x.parent.amount > 0\n}\n\n", i, name(i), svc(i), name(i))
	}
	b.WriteString("seed {\n")
	for i := 0; i < entities; i++ {
		for j := 0; j < 50; j++ {
			fmt.Fprintf(&b, "  %s.%s r%d_%d { label: \"item %d-%d\", amount: %d, day: 2026-01-%02d", svc(i), name(i), i, j, i, j, 10+j, 1+j%28)
			if i > 0 {
				fmt.Fprintf(&b, ", parent: r%d_%d", i-1, j)
			}
			b.WriteString(" }\n")
		}
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// BenchmarkCheckLoad checks a spec whose seed is loaded from a JSON file
// shaped like tau2-bench retail: products with variant maps, users with
// addresses and payment methods (a variant record), and orders with lists
// of items and payments, all keyed by business ids.
func BenchmarkCheckLoad(b *testing.B) {
	for _, orders := range []int{1000, 10000} {
		spec, files := loadWorld(orders)
		b.Run(fmt.Sprintf("orders=%d", orders), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(files["db.json"].Data)))
			reportCPU(b, func() {
				if _, ds := CheckSource("retail.world", spec, WithData(files)); ds.HasErrors() {
					b.Fatal(ds.Text()[:min(2000, len(ds.Text()))])
				}
			})
		})
	}
}

func TestLoadWorldChecks(t *testing.T) {
	spec, files := loadWorld(100)
	w, ds := CheckSource("retail.world", spec, WithData(files))
	if w == nil || len(ds) > 0 {
		t.Fatal(ds.Text())
	}
	if len(w.Seed) != 100+100/5+100/20 {
		t.Errorf("%d seed records", len(w.Seed))
	}
}

// loadWorld builds a retail-like spec and its db.json with the given
// number of orders (three items and one payment each), a user per five
// orders and a product per twenty.
func loadWorld(orders int) ([]byte, fstest.MapFS) {
	spec := `world retail {
  title "Retail"
  today 2026-03-14
}

service catalog "Products" {
  record Variant {
    item_id   string
    options   map<string, string>
    available bool
    price     decimal >= 0
  }
  entity Product key product_id {
    product_id string
    name       string
    variants   map<string, Variant>
  }
  tool get_product: get Product
}

service store "Users and orders" {
  record Address {
    address1 string
    city     string
    zip      string
  }
  record PaymentMethod by source {
    id string
    case gift_card { balance decimal >= 0 }
    case credit_card { brand string  last_four string }
    case paypal {}
  }
  record OrderItem {
    name       string
    product_id ref catalog.Product
    item_id    string
    price      decimal
    options    map<string, string>
  }
  record OrderPayment {
    transaction_type  enum { payment refund }
    amount            decimal
    payment_method_id string
  }
  entity User key user_id {
    user_id         string
    address         Address
    email           string unique
    payment_methods map<string, PaymentMethod>
    orders          list<ref Order>
  }
  entity Order key order_id {
    order_id        string
    user_id         ref User
    address         Address
    items           list<OrderItem>
    status          enum { pending delivered cancelled } = pending
    payment_history list<OrderPayment>
    return_items    list<string>?
  }
  tool get_user: get User
  tool get_order: get Order
}

seed {
  load catalog.Product from "db.json" at "products"
  load store.User      from "db.json" at "users"
  load store.Order     from "db.json" at "orders"
}
`
	var b strings.Builder
	products, users := max(orders/20, 1), max(orders/5, 1)
	b.WriteString("{\n  \"products\": {\n")
	for p := range products {
		if p > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"P%d\": {\"product_id\": \"P%d\", \"name\": \"Product %d\", \"variants\": {", p, p, p)
		for v := range 4 {
			if v > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"I%d_%d\": {\"item_id\": \"I%d_%d\", \"options\": {\"color\": \"c%d\", \"size\": \"s%d\"}, \"available\": %t, \"price\": %d.5}", p, v, p, v, v, v, v%3 != 0, 10+v)
		}
		b.WriteString("}}")
	}
	b.WriteString("\n  },\n  \"users\": {\n")
	for u := range users {
		if u > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    \"u%d\": {\"user_id\": \"u%d\", \"address\": {\"address1\": \"%d Main St\", \"city\": \"Springfield\", \"zip\": \"%05d\"}, \"email\": \"u%d@example.com\", ", u, u, u, u, u)
		fmt.Fprintf(&b, "\"payment_methods\": {\"gift_card_%d\": {\"source\": \"gift_card\", \"id\": \"gift_card_%d\", \"balance\": 100.0}, \"credit_card_%d\": {\"source\": \"credit_card\", \"id\": \"credit_card_%d\", \"brand\": \"visa\", \"last_four\": \"1234\"}}, \"orders\": [", u, u, u, u)
		for o := u; o < orders; o += users {
			if o > u {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "\"#W%d\"", o)
		}
		b.WriteString("]}")
	}
	b.WriteString("\n  },\n  \"orders\": {\n")
	for o := range orders {
		if o > 0 {
			b.WriteString(",\n")
		}
		u := o % users
		fmt.Fprintf(&b, "    \"#W%d\": {\"order_id\": \"#W%d\", \"user_id\": \"u%d\", \"address\": {\"address1\": \"%d Main St\", \"city\": \"Springfield\", \"zip\": \"%05d\"}, \"items\": [", o, o, u, u, u)
		for i := range 3 {
			if i > 0 {
				b.WriteString(", ")
			}
			p, v := (o+i)%products, i
			fmt.Fprintf(&b, "{\"name\": \"Product %d\", \"product_id\": \"P%d\", \"item_id\": \"I%d_%d\", \"price\": %d.5, \"options\": {\"color\": \"c%d\", \"size\": \"s%d\"}}", p, p, p, v, 10+v, v, v)
		}
		fmt.Fprintf(&b, "], \"status\": \"%s\", \"payment_history\": [{\"transaction_type\": \"payment\", \"amount\": 34.5, \"payment_method_id\": \"gift_card_%d\"}]}", []string{"pending", "delivered", "cancelled"}[o%3], u)
	}
	b.WriteString("\n  }\n}\n")
	return []byte(spec), fstest.MapFS{"db.json": {Data: []byte(b.String())}}
}
