package gen

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// The cost of always-invariants on the tau2-bench retail world: copies of
// its spec whose invariants are checked after every call, generated next
// to the shipped world (generated/tau2_retail, whose invariants are
// checked at the end only) and benchmarked in one test binary, so that
// the ratios compare runs made side by side. The shipped world is not
// changed. Figures are in docs/design/always-invariants.md.

// tau2AlwaysExtra are two more always-invariants for the copy "keyed":
// one follows the order's user (a keyed read of User, through an index of
// the orders by user_id), one reads a user's orders (a keyed read of
// Order, whose re-check builds the index its aggregate reads). Their
// policy texts are excerpts of tau2's policy.md, as W024 asks.
const tau2AlwaysExtra = `
local always invariant refunds_go_to_a_method_of_the_user {
  policy "The refund must either go to the original payment method, or an existing gift card."
  for o in store.Order where o.status == "return requested"
  require coalesce(o.return_payment_method_id, "") in o.user_id.payment_methods
}

local always invariant users_list_their_orders {
  policy "Each user has a profile containing:"
  for u in store.User
  require forall(o in u.orders for o in store.Order where o.user_id == u)
}
`

// tau2AlwaysVariants are the copies: the shipped rules made always
// ("always3"); the shipped rules and those of tau2AlwaysExtra, checked at
// the end only ("final5", the baseline of "always5") or always
// ("always5").
var tau2AlwaysVariants = []struct {
	name          string
	always, extra bool
}{{"tau2_always3", true, false}, {"tau2_final5", false, true}, {"tau2_always5", true, true}}

// tau2AlwaysSpec is the tau2 spec as the world name, with tau2AlwaysExtra
// when extra is set, and every invariant written `always` when always is.
// It is checked as if it were next to the shipped spec, whose data files
// it loads.
func tau2AlwaysSpec(t testing.TB, name string, always, extra bool) *ir.World {
	t.Helper()
	path := filepath.Join(moduleRoot(t), "testdata", "worlds", "tau2_retail.world")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(b), "world tau2_retail {", "world "+name+" {", 1)
	if extra {
		src += tau2AlwaysExtra
	}
	if !always {
		src = strings.ReplaceAll(src, "\nlocal always invariant ", "\nlocal invariant ")
	} else {
		for _, r := range [][2]string{
			{"\ninvariant ", "\nalways invariant "},
			{"\nlocal invariant ", "\nlocal always invariant "},
		} {
			if !strings.Contains(src, r[0]) {
				t.Fatalf("the tau2 spec has no %q", r[0])
			}
			src = strings.ReplaceAll(src, r[0], r[1])
		}
	}
	start := time.Now()
	w, ds := compiler.CheckSource(path, []byte(src))
	if w == nil || len(ds) > 0 {
		t.Fatalf("the always copy of the tau2 spec does not check clean:\n%s", ds.Text())
	}
	t.Logf("%s: checked in %v (with the 114 golden solutions)", name, time.Since(start).Round(time.Millisecond))
	return w
}

// TestTau2AlwaysChecks: every golden solution of the tau2 world keeps the
// always copies' rules after each of its steps, at check time (above) and
// in the generated packages' own tests.
func TestTau2AlwaysChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("replays the tau2 solutions and runs the go command")
	}
	root := scratch(t)
	var dirs []string
	for _, v := range tau2AlwaysVariants {
		w := tau2AlwaysSpec(t, v.name, v.always, v.extra)
		dir := filepath.Join(root, w.Name)
		writeFiles(t, dir, mustGenerate(t, w))
		dirs = append(dirs, dir)
	}
	vetAndTest(t, dirs...)
}

// tau2AlwaysBench runs in a package beside the copies. Each benchmark
// runs its work on every world in turn within each iteration and reports
// each world's CPU time per iteration ("final3-cpu-ns/op", …): the worlds
// are measured side by side, under the same load, as a paired comparison.
const tau2AlwaysBench = `package bench

import (
	"encoding/json"
	"os"
	goruntime "runtime"
	"testing"

	base "github.com/worldc/worldc/generated/tau2_retail"
	always3 "github.com/worldc/worldc/%[1]s/tau2_always3"
	always5 "github.com/worldc/worldc/%[1]s/tau2_always5"
	final5 "github.com/worldc/worldc/%[1]s/tau2_final5"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/cpubench"
)

var worlds = []struct {
	name string
	w    runtime.World
}{{"final3", base.New()}, {"always3", always3.New()}, {"final5", final5.New()}, {"always5", always5.New()}}

var sink any

// paired runs work on every world in each iteration, in turn, and
// reports the CPU time of each per iteration. setup, run outside the
// clock, prepares a world's work.
func paired(b *testing.B, setup func(w runtime.World) func()) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	works := make([]func(), len(worlds))
	for i, w := range worlds {
		works[i] = setup(w.w)
		works[i]() // warm
	}
	cpu := make([]int64, len(worlds))
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		for i, work := range works {
			c0 := cpubench.ThreadCPU()
			work()
			cpu[i] += cpubench.ThreadCPU() - c0
		}
		n++
	}
	for i, w := range worlds {
		b.ReportMetric(float64(cpu[i])/float64(n), w.name+"-cpu-ns/op")
	}
}

type action struct {
	Name      string
	Arguments json.RawMessage
}

// gold is every tau2 task's gold actions.
func gold(b *testing.B) [][]action {
	raw, err := os.ReadFile("actions.json")
	if err != nil {
		b.Fatal(err)
	}
	var out [][]action
	if err := json.Unmarshal(raw, &out); err != nil {
		b.Fatal(err)
	}
	return out
}

func episode(b *testing.B, w runtime.World) runtime.Episode {
	ep, err := w.NewEpisode("")
	if err != nil {
		b.Fatal(err)
	}
	return ep
}

// BenchmarkReplayAll replays the gold actions of the 114 tasks (550
// calls), each task in a fresh episode of the world seed.
func BenchmarkReplayAll(b *testing.B) {
	tasks := gold(b)
	paired(b, func(w runtime.World) func() {
		return func() {
			for _, t := range tasks {
				ep := episode(b, w)
				for _, a := range t {
					sink = ep.Call(a.Name, a.Arguments)
				}
			}
		}
	})
}

// BenchmarkReplayAndGrade is BenchmarkReplayAll with the grade of each
// episode, the step violations with it.
func BenchmarkReplayAndGrade(b *testing.B) {
	tasks := gold(b)
	paired(b, func(w runtime.World) func() {
		return func() {
			for _, t := range tasks {
				ep := episode(b, w)
				for _, a := range t {
					ep.Call(a.Name, a.Arguments)
				}
				sink = ep.Grade()
			}
		}
	})
}

// calls benchmarks one call, 100 times in one episode.
func calls(b *testing.B, tool, args string) {
	raw := json.RawMessage(args)
	paired(b, func(w runtime.World) func() {
		ep := episode(b, w)
		return func() {
			for range 100 {
				if o := ep.Call(tool, raw); !o.OK {
					b.Fatal(o.Err())
				}
			}
		}
	})
}

// BenchmarkGetOrderDetails: a call that writes nothing (100 calls).
func BenchmarkGetOrderDetails(b *testing.B) {
	calls(b, "get_order_details", ` + "`" + `{"order_id":"#W2378156"}` + "`" + `)
}

// BenchmarkModifyUserAddress: a call that writes a User, which the extra
// invariants read (keyed) (100 calls).
func BenchmarkModifyUserAddress(b *testing.B) {
	calls(b, "modify_user_address", ` + "`" + `{"user_id":"yusuf_rossi_9620","address1":"1 A St","address2":"","city":"Denver","state":"CO","country":"USA","zip":"80280"}` + "`" + `)
}

// BenchmarkModifyPendingOrderItems changes three items of #W9348897 (tau2
// task 36) in a fresh episode, 100 times: an Order written.
func BenchmarkModifyPendingOrderItems(b *testing.B) {
	raw := json.RawMessage(` + "`" + `{"order_id": "#W9348897", "item_ids": ["6117189161", "7453605304", "3799046073"], "new_item_ids": ["6700049080", "5320792178", "3234800602"], "payment_method_id": "credit_card_8853416"}` + "`" + `)
	paired(b, func(w runtime.World) func() {
		return func() {
			for range 100 {
				if o := episode(b, w).Call("modify_pending_order_items", raw); !o.OK {
					b.Fatal(o.Err())
				}
			}
		}
	})
}
`

// TestTau2AlwaysOverhead benchmarks the always copies against the shipped
// tau2 world, in one test binary, and logs the median CPU time per op of
// each and the ratios to the shipped world's (as benchstat compares).
// It runs only with WORLDC_BENCH=1 (WORLDC_BENCH_COUNT runs of each
// benchmark, default 6).
func TestTau2AlwaysOverhead(t *testing.T) {
	if os.Getenv("WORLDC_BENCH") == "" {
		t.Skip("set WORLDC_BENCH=1 to measure the cost of always-invariants on the tau2 world")
	}
	count := 6
	if n, err := strconv.Atoi(os.Getenv("WORLDC_BENCH_COUNT")); err == nil && n > 0 {
		count = n
	}
	root := scratch(t)
	tau2AlwaysSpec(t, "tau2_final3", false, false) // the shipped spec: its check time, for comparison
	for _, v := range tau2AlwaysVariants {
		w := tau2AlwaysSpec(t, v.name, v.always, v.extra)
		writeFiles(t, filepath.Join(root, w.Name), mustGenerate(t, w))
	}
	bench := filepath.Join(root, "bench")
	rel, _ := filepath.Rel(moduleRoot(t), root)
	writeFiles(t, bench, map[string][]byte{"bench_test.go": []byte(fmt.Sprintf(tau2AlwaysBench, filepath.ToSlash(rel)))})
	tasks, err := os.ReadFile(filepath.Join("difftest", "testdata", "tau2", "tasks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []struct {
		EvaluationCriteria struct {
			Actions []struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			} `json:"actions"`
		} `json:"evaluation_criteria"`
	}
	if err := json.Unmarshal(tasks, &parsed); err != nil {
		t.Fatal(err)
	}
	var actions [][]any
	for _, p := range parsed {
		var as []any
		for _, a := range p.EvaluationCriteria.Actions {
			as = append(as, map[string]any{"Name": a.Name, "Arguments": a.Arguments})
		}
		actions = append(actions, as)
	}
	b, _ := json.Marshal(actions)
	if err := os.WriteFile(filepath.Join(bench, "actions.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	brel, _ := filepath.Rel(moduleRoot(t), bench)
	out, ok := goCmd(t, "test", "-run", "^$", "-bench", ".", "-count", strconv.Itoa(count), "./"+filepath.ToSlash(brel))
	if !ok {
		t.Fatal(out)
	}
	t.Logf("\n%s", tau2AlwaysTable(out))
}

// tau2AlwaysTable summarizes benchmark output: per benchmark and world,
// the median over the runs of the world's CPU time per iteration, and the
// ratios always3/final3 and always5/final5.
func tau2AlwaysTable(out string) string {
	samples := map[string]map[string][]float64{} // benchmark → world → values
	var order []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		bench := f[0]
		if i := strings.LastIndexByte(bench, '-'); i > 0 {
			bench = bench[:i] // GOMAXPROCS
		}
		if samples[bench] == nil {
			samples[bench] = map[string][]float64{}
			order = append(order, bench)
		}
		for i := 2; i+1 < len(f); i += 2 {
			if world, ok := strings.CutSuffix(f[i+1], "-cpu-ns/op"); ok {
				v, _ := strconv.ParseFloat(f[i], 64)
				samples[bench][world] = append(samples[bench][world], v)
			}
		}
	}
	median := func(xs []float64) float64 {
		xs = slices.Clone(xs)
		slices.Sort(xs)
		if len(xs) == 0 {
			return 0
		}
		return xs[len(xs)/2]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s %12s %12s %7s %12s %12s %7s\n", "median cpu-ns/op", "final3", "always3", "ratio", "final5", "always5", "ratio")
	for _, bench := range order {
		m := func(w string) float64 { return median(samples[bench][w]) }
		fmt.Fprintf(&b, "%-34s %12.0f %12.0f %7.3f %12.0f %12.0f %7.3f  (n=%d)\n", bench,
			m("final3"), m("always3"), m("always3")/m("final3"), m("final5"), m("always5"), m("always5")/m("final5"), len(samples[bench]["final3"]))
	}
	return b.String()
}
