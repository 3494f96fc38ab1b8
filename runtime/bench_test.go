package runtime_test

import (
	"encoding/json"
	"fmt"
	goruntime "runtime"
	"testing"

	"github.com/worldc/worldc/internal/cpubench"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// BenchmarkCallGet: a get tool on a table of 1,000 rows, JSON arguments in,
// observation JSON out.
func BenchmarkCallGet(b *testing.B) {
	s := worldtest.BigState(1000).Clone()
	args := json.RawMessage(`{"id":"invoice_500"}`)
	cpubench.Loop(b, func() {
		obs := worldtest.Registry.Call(s, "get_invoice", args)
		if _, err := obs.MarshalJSON(); err != nil || !obs.OK {
			b.Fatal(obs, err)
		}
	})
}

// BenchmarkCallSearch: a search tool scanning all 1,000 rows (11 match).
func BenchmarkCallSearch(b *testing.B) {
	s := worldtest.BigState(1000).Clone()
	args := json.RawMessage(`{"customer":"customer_99"}`)
	obs := worldtest.Registry.Call(s, "find_invoices", args)
	var out []json.RawMessage
	if err := json.Unmarshal(obs.Data, &out); err != nil || len(out) != 11 {
		b.Fatalf("%d matches, %v", len(out), err)
	}
	cpubench.Loop(b, func() {
		obs := worldtest.Registry.Call(s, "find_invoices", args)
		if _, err := obs.MarshalJSON(); err != nil || !obs.OK {
			b.Fatal(obs, err)
		}
	})
}

// BenchmarkCallWrite: a tool that inserts a row (sequence ID, journaled)
// and commits; the state is reset to the seed every 1,000 calls.
func BenchmarkCallWrite(b *testing.B) {
	seed := worldtest.BigState(1000)
	s := seed.Clone()
	args := json.RawMessage(`{"customer":"customer_7","amount":120.5,"issued_on":"2026-03-01"}`)
	i := 0
	cpubench.Loop(b, func() {
		if i++; i%1000 == 0 {
			s = seed.Clone()
		}
		if obs := worldtest.Registry.Call(s, "create_invoice", args); !obs.OK {
			b.Fatal(obs.Error)
		}
	})
}

// BenchmarkCallFail: a tool that copies a row for writing, then fails its
// precondition: the call is rolled back.
func BenchmarkCallFail(b *testing.B) {
	s := worldtest.BigState(1000).Clone()
	args := json.RawMessage(`{"invoice":"invoice_3"}`) // paid already
	cpubench.Loop(b, func() {
		if obs := worldtest.Registry.Call(s, "mark_paid", args); obs.OK || obs.Error.Code != runtime.CodePreconditionFailed {
			b.Fatal(obs)
		}
	})
	if s.Invoices.Len() != 1000 || s.Journal().Pending() != 0 {
		b.Fatal("state changed")
	}
}

// BenchmarkDecodeArgs: strict decoding of a three-argument call.
func BenchmarkDecodeArgs(b *testing.B) {
	raw := json.RawMessage(`{"customer":"acme","amount":1200.5,"issued_on":"2026-03-01"}`)
	cpubench.Loop(b, func() {
		var a worldtest.CreateInvoiceArgs
		if err := runtime.DecodeArgs(raw, &a, "customer", "amount"); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkClone: resetting an episode to a frozen seed must not depend on
// the seed's size.
func BenchmarkClone(b *testing.B) {
	for _, rows := range []int{100, 100_000} {
		seed := worldtest.BigState(rows / 2) // two tables of rows/2
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			cpubench.Loop(b, func() { _ = seed.Clone() })
		})
	}
	for _, rows := range []int{100, 100_000} {
		s := worldtest.BigState(rows / 2).Clone()
		for i := 1; i <= 50; i++ { // 50 committed writes
			s.Journal().Begin()
			inv, err := s.Invoices.Mut(fmt.Sprintf("invoice_%d", i))
			if err != nil {
				b.Fatal(err)
			}
			inv.Amount++
			s.Journal().Commit()
		}
		b.Run(fmt.Sprintf("rows=%d/after-50-writes", rows), func(b *testing.B) {
			cpubench.Loop(b, func() { _ = s.Clone() })
		})
	}
}

// BenchmarkStateHash: hashing a state of 10,000 rows. "cold" includes
// encoding every base row once (the first hash of a new seed); "warm" reuses
// the base's cached row digests (every later hash of every clone); "warm+50"
// also encodes 50 changed rows.
func BenchmarkStateHash(b *testing.B) {
	b.Run("rows=10000/cold", func(b *testing.B) {
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		b.ReportAllocs()
		var cpu int64
		n := 0
		for b.Loop() {
			b.StopTimer()
			s := worldtest.BigState(5000)
			b.StartTimer()
			c0 := cpubench.ThreadCPU()
			_ = s.Hash()
			if c0 >= 0 {
				cpu += cpubench.ThreadCPU() - c0
				n++
			}
		}
		if n > 0 {
			b.ReportMetric(float64(cpu)/float64(n), "cpu-ns/op")
		}
	})
	seed := worldtest.BigState(5000)
	_ = seed.Hash()
	b.Run("rows=10000/warm", func(b *testing.B) {
		s := seed.Clone()
		cpubench.Loop(b, func() { _ = s.Hash() })
	})
	b.Run("rows=10000/warm+50", func(b *testing.B) {
		s := seed.Clone()
		for i := 1; i <= 50; i++ {
			inv, _ := s.Invoices.Mut(fmt.Sprintf("invoice_%d", i*7))
			inv.Amount++
		}
		cpubench.Loop(b, func() { _ = s.Hash() })
	})
}

// BenchmarkAll: iterating 1,000 rows, without and with an overlay.
func BenchmarkAll(b *testing.B) {
	seed := worldtest.BigState(1000)
	for _, writes := range []int{0, 50} {
		s := seed.Clone()
		for i := 1; i <= writes; i++ {
			inv, _ := s.Invoices.Mut(fmt.Sprintf("invoice_%d", i*13))
			inv.Amount++
		}
		b.Run(fmt.Sprintf("rows=1000/overlay=%d", writes), func(b *testing.B) {
			cpubench.Loop(b, func() {
				n := 0
				for r := range s.Invoices.All() {
					if r.Amount > 100 {
						n++
					}
				}
				if n == 0 {
					b.Fatal(n)
				}
			})
		})
	}
}
