package difftest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"testing"
	"time"

	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/internal/cpubench"
	"github.com/worldc/worldc/runtime"
)

// Benchmarks of the compiled tau2-bench retail world (50 products, 500
// users, 1,000 orders). Figures are in docs/design/tau2-retail.md §13.

var tau2Sink any

func tau2Episode(b *testing.B) runtime.Episode {
	b.Helper()
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		b.Fatal(err)
	}
	return ep
}

// tau2Call benchmarks one call and the JSON encoding of its observation,
// as a server sends it to the agent.
func tau2Call(b *testing.B, tool, args string) { tau2CallOn(b, tau2Episode(b), tool, args) }

// tau2CallOn is tau2Call in the episode ep.
func tau2CallOn(b *testing.B, ep runtime.Episode, tool, args string) {
	raw := json.RawMessage(args)
	o := ep.Call(tool, raw)
	if !o.OK {
		b.Fatal(o.Err())
	}
	buf, _ := observationJSON(nil, o)
	b.SetBytes(int64(len(buf)))
	cpubench.Loop(b, func() {
		o := ep.Call(tool, raw)
		var err error
		buf, err = observationJSON(buf[:0], o)
		if err != nil || !o.OK {
			b.Fatal(err, o.Err())
		}
	})
	tau2Sink = buf
}

// observationJSON appends the observation as the agent sees it to buf,
// which a server reuses from call to call. (Before the generated encoders
// this was json.Marshal(o), which compacted and validated the data again.)
func observationJSON(buf []byte, o runtime.Observation) ([]byte, error) {
	return o.AppendJSON(buf)
}

// tau2Fails benchmarks a call that fails (its observation not encoded).
func tau2Fails(b *testing.B, tool, args string) {
	ep := tau2Episode(b)
	raw := json.RawMessage(args)
	cpubench.Loop(b, func() {
		if o := ep.Call(tool, raw); o.OK {
			b.Fatal("succeeded")
		}
	})
}

// BenchmarkTau2Calculate evaluates a gold calculate call (tau2 task 16):
// Python's arithmetic on three prices, rounded and written as Python does.
func BenchmarkTau2Calculate(b *testing.B) {
	tau2Call(b, "calculate", `{"expression":"3131.1 + 4777.75 + 367.38"}`)
}

// BenchmarkTau2GetOrderDetails reads an order by its key: #W2378156 (five
// items, tau2 task 0), the first and the last order of db.json (two items
// each); or fails to find one.
func BenchmarkTau2GetOrderDetails(b *testing.B) {
	b.Run("W2378156", func(b *testing.B) {
		tau2Call(b, "get_order_details", `{"order_id":"#W2378156"}`)
	})
	b.Run("first", func(b *testing.B) {
		tau2Call(b, "get_order_details", `{"order_id":"#W2611340"}`)
	})
	b.Run("last", func(b *testing.B) {
		tau2Call(b, "get_order_details", `{"order_id":"#W5765741"}`)
	})
	b.Run("not_found", func(b *testing.B) {
		tau2Fails(b, "get_order_details", `{"order_id":"#W0000000"}`)
	})
	// The order after the episode changed it (a copy of the seed's row,
	// the same values): its JSON is written on every call, as it is the
	// first time any episode reads a row of the seed (Registry.Call keeps
	// the JSON of the seed's rows, see runtime.Journal.rowJSON).
	b.Run("W2378156_changed", func(b *testing.B) {
		ep := tau2Episode(b)
		if _, err := ep.(*tau2_retail.Episode).State().Orders.Mut("#W2378156"); err != nil {
			b.Fatal(err)
		}
		tau2CallOn(b, ep, "get_order_details", `{"order_id":"#W2378156"}`)
	})
}

// BenchmarkTau2GetUserDetails reads the 500th user by its key.
func BenchmarkTau2GetUserDetails(b *testing.B) {
	tau2Call(b, "get_user_details", `{"user_id":"ethan_khan_3904"}`)
}

// BenchmarkTau2FindUserIDByEmail scans the users in file order, as
// BenchmarkTau2FindUserIDByNameZip.
func BenchmarkTau2FindUserIDByEmail(b *testing.B) {
	b.Run("user_60", func(b *testing.B) {
		tau2Call(b, "find_user_id_by_email", `{"email":"yusuf.rossi7301@example.com"}`)
	})
	b.Run("user_500", func(b *testing.B) {
		tau2Call(b, "find_user_id_by_email", `{"email":"ethan.khan4367@example.com"}`)
	})
	b.Run("not_found", func(b *testing.B) {
		tau2Fails(b, "find_user_id_by_email", `{"email":"nobody@example.com"}`)
	})
}

// BenchmarkTau2FindUserIDByNameZip scans the users in file order: Yusuf
// Rossi (tau2 task 0) is the 60th of 500, Ethan Khan the 500th.
func BenchmarkTau2FindUserIDByNameZip(b *testing.B) {
	b.Run("user_60", func(b *testing.B) {
		tau2Call(b, "find_user_id_by_name_zip", `{"first_name":"Yusuf","last_name":"Rossi","zip":"19122"}`)
	})
	b.Run("user_500", func(b *testing.B) {
		tau2Call(b, "find_user_id_by_name_zip", `{"first_name":"Ethan","last_name":"Khan","zip":"92117"}`)
	})
	b.Run("not_found", func(b *testing.B) {
		tau2Fails(b, "find_user_id_by_name_zip", `{"first_name":"No","last_name":"Body","zip":"00000"}`)
	})
}

// BenchmarkTau2Reset starts an episode in a fresh copy of the seed.
func BenchmarkTau2Reset(b *testing.B) {
	tau2Episode(b)
	b.ReportAllocs()
	for b.Loop() {
		ep, err := tau2_retail.New().NewEpisode("")
		if err != nil {
			b.Fatal(err)
		}
		tau2Sink = ep
	}
}

// BenchmarkTau2StateHash hashes the whole state (1,550 records), on the
// seed and after a write.
func BenchmarkTau2StateHash(b *testing.B) {
	b.Run("seed", func(b *testing.B) {
		ep := tau2Episode(b)
		b.ReportAllocs()
		for b.Loop() {
			tau2Sink = ep.StateHash()
		}
	})
	b.Run("after_200_cancels", func(b *testing.B) {
		ep := tau2Episode(b)
		n := 0
		for o := range ep.(*tau2_retail.Episode).State().Orders.All() {
			if n == 200 {
				break
			}
			if o.Status != tau2_retail.OrderStatusPending {
				continue
			}
			if obs := ep.Call("cancel_pending_order", json.RawMessage(`{"order_id":"`+o.OrderID+`","reason":"no longer needed"}`)); !obs.OK {
				b.Fatal(obs.Err())
			}
			n++
		}
		if n != 200 {
			b.Fatalf("%d pending orders cancelled, want 200", n)
		}
		cpubench.Loop(b, func() { tau2Sink = ep.StateHash() })
	})
	b.Run("after_write", func(b *testing.B) {
		ep := tau2Episode(b)
		if o := ep.Call("cancel_pending_order", json.RawMessage(`{"order_id":"#W5918442","reason":"no longer needed"}`)); !o.OK {
			b.Fatal(o.Err())
		}
		b.ReportAllocs()
		for b.Loop() {
			tau2Sink = ep.StateHash()
		}
	})
}

// BenchmarkTau2ReplayAll replays the gold actions of all 114 tasks (550
// calls), each in a fresh episode, as the fidelity test does (without
// comparing), writing each observation as the agent sees it.
func BenchmarkTau2ReplayAll(b *testing.B) {
	d := loadTau2(b)
	calls := 0
	for _, t := range d.tasks {
		calls += len(t.EvaluationCriteria.Actions)
	}
	n := 0
	var buf []byte
	cpubench.Loop(b, func() {
		for _, t := range d.tasks {
			ep, err := tau2_retail.New().NewEpisode("")
			if err != nil {
				b.Fatal(err)
			}
			for _, a := range t.EvaluationCriteria.Actions {
				if buf, err = observationJSON(buf[:0], ep.Call(a.Name, a.Arguments)); err != nil {
					b.Fatal(err)
				}
			}
		}
		n++
	})
	tau2Sink = buf
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n*calls), "ns/call")
}

// BenchmarkTau2ModifyPendingOrderItems changes three of the five items of
// #W9348897 (tau2 task 36: each found by its position), in a fresh episode
// each time (BenchmarkTau2Reset measures that part).
func BenchmarkTau2ModifyPendingOrderItems(b *testing.B) {
	raw := json.RawMessage(`{"order_id": "#W9348897", "item_ids": ["6117189161", "7453605304", "3799046073"], "new_item_ids": ["6700049080", "5320792178", "3234800602"], "payment_method_id": "credit_card_8853416"}`)
	tau2Episode(b)
	cpubench.Loop(b, func() {
		ep, err := tau2_retail.New().NewEpisode("")
		if err != nil {
			b.Fatal(err)
		}
		if o := ep.Call("modify_pending_order_items", raw); !o.OK {
			b.Fatal(o.Err())
		}
	})
}

// BenchmarkTau2Grade grades the rubrics of all 114 tasks: on their start
// states (the do-nothing agent: most assertions fail and are explained)
// and after their gold actions (every assertion holds).
func BenchmarkTau2Grade(b *testing.B) {
	d := loadTau2(b)
	for _, final := range []bool{false, true} {
		name := "start"
		if final {
			name = "final"
		}
		b.Run(name, func(b *testing.B) {
			var eps []runtime.Episode
			for _, t := range d.tasks {
				ep, err := tau2_retail.New().NewEpisode("retail_" + t.ID)
				if err != nil {
					b.Fatal(err)
				}
				if final {
					for _, a := range t.EvaluationCriteria.Actions {
						ep.Call(a.Name, a.Arguments)
					}
					if g := ep.Grade(); g.Reward != 1 {
						b.Fatalf("task %s: reward %v after the gold actions", t.ID, g.Reward)
					}
				}
				eps = append(eps, ep)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, ep := range eps {
					tau2Sink = ep.Grade()
				}
			}
		})
	}
}

// BenchmarkTau2ColdStart builds testdata/coldstart, a program that starts
// the first episode of the tau2 world in a new process, makes one call
// and hashes the state, and runs it as new processes, reporting their CPU
// time (user and system) per run as cpu-ns/op: "empty" exits before the
// episode (the cost of starting the process and initialising the
// packages), "episode" after the call, "hash" after the state hash.
func BenchmarkTau2ColdStart(b *testing.B) {
	gobin := filepath.Join(goruntime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			b.Skip("no go command to build testdata/coldstart")
		}
	}
	exe := filepath.Join(b.TempDir(), "coldstart")
	if out, err := exec.Command(gobin, "build", "-o", exe, "./testdata/coldstart").CombinedOutput(); err != nil {
		b.Fatalf("building testdata/coldstart: %v\n%s", err, out)
	}
	for _, mode := range []string{"empty", "episode", "hash"} {
		b.Run(mode, func(b *testing.B) {
			var cpu time.Duration
			n := 0
			for b.Loop() {
				cmd := exec.Command(exe, "-"+mode)
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				n++
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(n), "cpu-ns/op")
		})
	}
}

// TestTau2AllocationBudget holds the tool calls of the benchmarks to their
// allocation budgets: a get allocates the observation and nothing else;
// a search allocates nothing per row it passes (the 60th and the 500th
// user cost the same); writing the observation into a reused buffer
// allocates nothing.
func TestTau2AllocationBudget(t *testing.T) {
	ep, err := tau2_retail.NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	var buf []byte
	allocs := func(tool, args string) float64 {
		raw := json.RawMessage(args)
		return testing.AllocsPerRun(100, func() {
			o := ep.Call(tool, raw)
			if !o.OK {
				t.Fatal(o.Err())
			}
			buf, _ = o.AppendJSON(buf[:0])
		})
	}
	for _, c := range []struct{ tool, args string }{
		{"get_order_details", `{"order_id":"#W2378156"}`},
		{"get_user_details", `{"user_id":"ethan_khan_3904"}`},
		{"get_product_details", `{"product_id":"9523456873"}`},
	} {
		if n := allocs(c.tool, c.args); n != 1 {
			t.Errorf("%s: %v allocations, want 1 (the observation)", c.tool, n)
		}
	}
	for _, tool := range []string{"find_user_id_by_name_zip", "find_user_id_by_email"} {
		args := map[string][2]string{
			"find_user_id_by_name_zip": {`{"first_name":"Yusuf","last_name":"Rossi","zip":"19122"}`, `{"first_name":"Ethan","last_name":"Khan","zip":"92117"}`},
			"find_user_id_by_email":    {`{"email":"yusuf.rossi7301@example.com"}`, `{"email":"ethan.khan4367@example.com"}`},
		}[tool]
		a60, a500 := allocs(tool, args[0]), allocs(tool, args[1])
		if a60 != a500 || a500 > 2 {
			t.Errorf("%s: %v allocations for the 60th user, %v for the 500th: want the same, at most 2 (the result and the observation)", tool, a60, a500)
		}
	}
}
