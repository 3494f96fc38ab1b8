package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
