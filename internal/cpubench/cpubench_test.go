package cpubench

import (
	"flag"
	"os"
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
	if testing.Short() {
		// testing.Benchmark runs for -test.benchtime (1s by default);
		// -short runs the loop for 20ms (make test for the full second).
		bt := flag.Lookup("test.benchtime")
		old := bt.Value.String()
		if err := bt.Value.Set("20ms"); err != nil {
			t.Fatal(err)
		}
		defer bt.Value.Set(old)
	}
	calls := 0
	r := testing.Benchmark(func(b *testing.B) { Loop(b, func() { calls++ }) })
	if calls == 0 || r.N == 0 {
		t.Fatalf("Loop ran f %d times, N = %d", calls, r.N)
	}
	if _, ok := r.Extra["cpu-ns/op"]; !ok && goruntime.GOOS == "linux" {
		t.Errorf("no cpu-ns/op metric: %v", r.Extra)
	}
}

// TestProcessCPUAdvances: a child process's CPU time moves forward while it
// works (on Linux; elsewhere it is unavailable, -1).
func TestProcessCPUAdvances(t *testing.T) {
	if goruntime.GOOS != "linux" {
		if ProcessCPU(os.Getpid()) != -1 {
			t.Fatal("ProcessCPU available off Linux")
		}
		t.Skip("no process clock on", goruntime.GOOS)
	}
	c0 := ProcessCPU(os.Getpid())
	if c0 <= 0 {
		t.Fatalf("ProcessCPU of this process: %d", c0)
	}
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if c1 := ProcessCPU(os.Getpid()); c1 <= c0 {
		t.Errorf("ProcessCPU did not advance: %d then %d (work %d)", c0, c1, x)
	}
	if ProcessCPU(-1) != -1 {
		t.Error("ProcessCPU of no process is not -1")
	}
}
