package gate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestVetCancelled: a gate whose context is cancelled while go test runs
// a world's tests stops at once: Vet returns the context's error, the
// world being tested gets no verdict (not the failure go test reports for
// a test binary it was told to stop), the test binary has exited, and the
// aggregating packages of linked testing and go test's work directory are
// gone. The world's test
// writes its process ID to a file and sleeps: the test cancels once the
// file is there, not after some time.
func TestVetCancelled(t *testing.T) {
	needGo(t)
	for _, tt := range []struct {
		name string
		opts VetOptions
	}{
		{"linked", VetOptions{LinkBatch: 1}},
		{"go test", VetOptions{NoLink: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			marker := filepath.Join(t.TempDir(), "pid")
			sleeper := `package sleeper

import (
	"os"
	"strconv"
	"time"
)

// Conformance says it runs, then sleeps until it is stopped.
func Conformance() []error {
	os.WriteFile(` + strconv.Quote(marker+".new") + `, []byte(strconv.Itoa(os.Getpid())), 0o644)
	os.Rename(` + strconv.Quote(marker+".new") + `, ` + strconv.Quote(marker) + `)
	time.Sleep(time.Hour)
	return nil
}
`
			dir := writeModule(t, map[string]string{
				"w/sleeper/w.go":      sleeper,
				"w/sleeper/w_test.go": "package sleeper\n\nimport \"testing\"\n\nfunc TestConformance(t *testing.T) {\n\tfor _, err := range Conformance() {\n\t\tt.Error(err)\n\t}\n}\n",
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var mu sync.Mutex
			var verdicts []string
			opts := tt.opts
			opts.Dir = dir
			opts.NoCache = true
			tmp := t.TempDir()
			opts.Env = append(os.Environ(), "TMPDIR="+tmp)
			opts.Progress = func(r WorldResult) {
				mu.Lock()
				defer mu.Unlock()
				verdicts = append(verdicts, r.World+": "+r.Reason)
			}
			done := make(chan vetResult, 1)
			go func() {
				r, err := Vet(ctx, []string{"./w/..."}, opts)
				done <- vetResult{r, err}
			}()
			pid := waitForPID(t, marker, done)
			if tt.opts.LinkBatch > 0 {
				if left, _ := filepath.Glob(filepath.Join(dir, "_worldc_gate_*")); len(left) == 0 {
					t.Error("no _worldc_gate_* directory while the linked test runs")
				}
			}
			cancel()
			var res vetResult
			select {
			case res = <-done:
			case <-time.After(2 * time.Minute):
				t.Fatal("Vet still runs two minutes after the cancel")
			}
			if !errors.Is(res.err, context.Canceled) {
				t.Errorf("Vet: %v, %v; want context.Canceled", res.report, res.err)
			}
			mu.Lock()
			if len(verdicts) > 0 {
				t.Errorf("verdicts after the cancel: %q", verdicts)
			}
			mu.Unlock()
			if running(t, pid) {
				t.Errorf("the test binary (pid %d) still runs after Vet returned", pid)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "_worldc_gate_*")); len(left) > 0 {
				t.Errorf("left behind: %v", left)
			}
			// go test died building or testing: its work directory too.
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				t.Errorf("left in TMPDIR: %v", left)
			}
		})
	}
}

type vetResult struct {
	report *Report
	err    error
}

// waitForPID waits until the file holds a process ID, or Vet ends without
// writing it.
func waitForPID(t *testing.T, file string, done <-chan vetResult) int {
	t.Helper()
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if data, err := os.ReadFile(file); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
			if err != nil {
				t.Fatalf("%s holds %q", file, data)
			}
			return pid
		}
		select {
		case r := <-done:
			t.Fatalf("Vet ended before the world's test ran: %+v, %v", r.report, r.err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("the world's test did not start within five minutes")
		}
	}
}
