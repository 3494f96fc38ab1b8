// Package cpubench measures benchmarks by the CPU time of the benchmark's
// own thread as well as by wall time. On a shared, loaded machine ns/op is
// wall time and includes waiting for a CPU; the thread's CPU time per op
// ("cpu-ns/op") moves much less, so comparisons between runs hold up.
//
// It is a test helper, internal to worldc: no generated world or user of
// the runtime can import it. The runtime module's benchmarks use it too:
// Go's internal rule goes by import path (github.com/worldc/worldc/runtime
// lies below github.com/worldc/worldc), and the runtime's tests run from
// worldc's module (make test), where this package resolves. The runtime's
// go.mod does not require worldc, so the copy of the runtime written to
// users' modules, which leaves tests out, needs only the standard library.
package cpubench

import (
	goruntime "runtime"
	"testing"
)

// Loop runs f b.N times (with b.Loop), reports allocations and, where the
// OS can say, the CPU time of the calling thread per op as "cpu-ns/op".
// The goroutine is locked to its thread for the duration, so the thread's
// clock is the benchmark's.
func Loop(b *testing.B, f func()) {
	b.Helper()
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	c0 := ThreadCPU()
	n := 0
	for b.Loop() {
		f()
		n++
	}
	if c1 := ThreadCPU(); c0 >= 0 && c1 >= 0 && n > 0 {
		b.ReportMetric(float64(c1-c0)/float64(n), "cpu-ns/op")
	}
}
