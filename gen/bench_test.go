package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler/ir"
)

// bigNorthwind is northwind with n extra customers, each with a paid
// invoice and its ledger entry (3n records), named name.
func bigNorthwind(name string, n int) *ir.World {
	w := northwind()
	w.Name = name
	b := &builder{w: w.World}
	for i := 0; i < n; i++ {
		c := fmt.Sprintf("c%d", i)
		inv := fmt.Sprintf("i%d", i)
		w.Seed = append(w.Seed,
			b.record(w.customer, c, map[string]*ir.Value{"name": vStr(fmt.Sprintf("Customer %d GmbH", i)), "email": vStr(c + "@example.com"),
				"tier": vEnum("silver"), "credit_limit": vMoney(1000)}),
			b.record(w.invoice, inv, map[string]*ir.Value{"customer": vRef(c), "amount": vMoney(100), "status": vEnum("paid"), "issued_on": vDate("2026-03-01")}),
			b.record(w.entry, "e"+inv, map[string]*ir.Value{"invoice": vRef(inv), "amount": vMoney(100), "posted_on": vDate("2026-03-02")}),
		)
	}
	return w.World
}

func BenchmarkGenerateNorthwind(b *testing.B) {
	w := northwind().World
	for b.Loop() {
		if _, err := Generate(w); err != nil {
			b.Fatal(err)
		}
	}
}

const benchFile = `package %s

import (
	"encoding/json"
	"testing"
)

func BenchmarkGetCustomer(b *testing.B) {
	e, err := NewEpisode("")
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(` + "`" + `{"id":"c%d"}` + "`" + `)
	for b.Loop() {
		if o := e.Call("get_customer", args); !o.OK {
			b.Fatal(o.Err())
		}
	}
}

func BenchmarkSearchCustomers(b *testing.B) {
	e, _ := NewEpisode("")
	args := json.RawMessage(` + "`" + `{"name":"no such name"}` + "`" + `)
	for b.Loop() {
		if o := e.Call("find_customers", args); !o.OK {
			b.Fatal(o.Err())
		}
	}
}

func BenchmarkReset(b *testing.B) {
	if _, err := NewEpisode(""); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		NewEpisode("")
	}
}

func BenchmarkCheckInvariants(b *testing.B) {
	s, _ := Seed()
	if vs := s.CheckInvariants(); len(vs) > 0 {
		b.Fatal(vs)
	}
	for b.Loop() {
		s.CheckInvariants()
	}
}
`

// TestGeneratedPerformance measures generated packages with seeds of
// growing size: build time, registry calls, reset and invariant checks.
// It runs only with WORLDC_BENCH=1 (minutes); figures go to the log.
func TestGeneratedPerformance(t *testing.T) {
	if os.Getenv("WORLDC_BENCH") == "" {
		t.Skip("set WORLDC_BENCH=1 to measure generated packages")
	}
	root := scratch(t)
	sizes := []int{33, 333, 3333, 33333}
	var dirs []string
	for _, n := range sizes {
		name := fmt.Sprintf("northwind_%d", n)
		dir := filepath.Join(root, name)
		writeFiles(t, dir, mustGenerate(t, bigNorthwind(name, n)))
		if err := os.WriteFile(filepath.Join(dir, "bench_test.go"), []byte(fmt.Sprintf(benchFile, name, n/2)), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	if out, ok := goCmd(t, "build", "./gen/..."); !ok { // warm the cache for runtime
		t.Fatal(out)
	}
	for i, dir := range dirs {
		rel, _ := filepath.Rel(moduleRoot(t), dir)
		start := time.Now()
		if out, ok := goCmd(t, "build", "./"+rel); !ok {
			t.Fatal(out)
		}
		seed, _ := os.ReadFile(filepath.Join(dir, "seed.json"))
		t.Logf("%d records (seed.json %d KiB): go build %v", 3*sizes[i]+5, len(seed)>>10, time.Since(start).Round(time.Millisecond))
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(moduleRoot(t), dir)
		out, ok := goCmd(t, "test", "-run=^$", "-bench=.", "-benchtime=200x", "./"+rel)
		if !ok {
			t.Fatal(out)
		}
		t.Log(out)
	}
}
