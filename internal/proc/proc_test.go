package proc

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// The test binary is its own child process: with PROC_TEST_HELPER=sleep
// it sleeps until it is killed.
func TestMain(m *testing.M) {
	if os.Getenv("PROC_TEST_HELPER") == "sleep" {
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCancel: on every system, a cancelled command ends and Wait says it
// was stopped.
func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cmd := CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), "PROC_TEST_HELPER=sleep")
	if cmd.WaitDelay != WaitDelay {
		t.Errorf("WaitDelay = %v, want %v", cmd.WaitDelay, WaitDelay)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	cancel()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) && !errors.Is(err, context.Canceled) {
		t.Fatalf("Wait after cancel: %v, want the child stopped", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.Success() {
		t.Fatalf("the child exited successfully: %v", cmd.ProcessState)
	}
}

func TestRunsToCompletion(t *testing.T) {
	cmd := CommandContext(context.Background(), os.Args[0], "-test.run=^$")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
