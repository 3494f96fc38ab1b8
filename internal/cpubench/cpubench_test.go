package cpubench

import (
	goruntime "runtime"
	"testing"
)

// TestThreadCPUAdvances: busy work on a locked thread moves its clock
// forward (on Linux; elsewhere the clock is unavailable, -1).
func TestThreadCPUAdvances(t *testing.T) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	c0 := ThreadCPU()
	if c0 < 0 {
		if goruntime.GOOS == "linux" {
			t.Fatal("ThreadCPU unavailable on Linux")
		}
		t.Skip("no thread clock on", goruntime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if c1 := ThreadCPU(); c1 <= c0 {
		t.Errorf("ThreadCPU did not advance: %d then %d (work %d)", c0, c1, x)
	}
}

// TestLoopReportsCPU: Loop runs the function and reports cpu-ns/op.
func TestLoopReportsCPU(t *testing.T) {
	calls := 0
	r := testing.Benchmark(func(b *testing.B) { Loop(b, func() { calls++ }) })
	if calls == 0 || r.N == 0 {
		t.Fatalf("Loop ran f %d times, N = %d", calls, r.N)
	}
	if _, ok := r.Extra["cpu-ns/op"]; !ok && goruntime.GOOS == "linux" {
		t.Errorf("no cpu-ns/op metric: %v", r.Extra)
	}
}
