//go:build unix

package proc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startShell starts sh -c script with proc.CommandContext and returns the
// command and the first line it prints.
func startShell(t *testing.T, ctx context.Context, script string) (*exec.Cmd, *bufio.Reader, string) {
	t.Helper()
	cmd := CommandContext(ctx, "sh", "-c", script)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	line, err := r.ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("reading the first line of sh -c %q: %v", script, err)
	}
	return cmd, r, strings.TrimSpace(line)
}

// running reports whether process pid exists and has not exited. An
// exited process that its parent has not reaped yet (an orphan, here,
// whose new parent may never reap it) has exited.
func running(t *testing.T, pid int) bool {
	t.Helper()
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err == nil {
		state, _, ok := parseStat(stat)
		if !ok {
			t.Fatalf("cannot read /proc/%d/stat: %q", pid, stat)
		}
		return state != 'Z' && state != 'X'
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false // there is a /proc, and pid is not in it
	}
	return syscall.Kill(pid, 0) == nil
}

// TestCancelStopsGrandchildren: cancelling stops the child and what it
// started, here a background sleep that ignores SIGINT (sh starts
// background commands so), which the SIGKILL after the grace period ends.
// Wait returns once both are gone, although the sleep holds the child's
// standard output.
func TestCancelStopsGrandchildren(t *testing.T) {
	defer func(g time.Duration) { grace = g }(grace)
	grace = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, _, line := startShell(t, ctx, "sleep 100 & echo $!; wait")
	grandchild, err := strconv.Atoi(line)
	if err != nil {
		t.Fatalf("sh printed %q, not the pid of its sleep", line)
	}
	defer syscall.Kill(grandchild, syscall.SIGKILL) // should the test fail
	if !running(t, grandchild) {
		t.Fatalf("sleep %d is not running before the cancel", grandchild)
	}
	if pgid, err := syscall.Getpgid(cmd.Process.Pid); err != nil || pgid != cmd.Process.Pid {
		t.Errorf("the child's process group is %d (%v), want its own, %d", pgid, err, cmd.Process.Pid)
	}
	if pgid, err := syscall.Getpgid(grandchild); err != nil || pgid != cmd.Process.Pid {
		t.Errorf("the grandchild's process group is %d (%v), want the child's, %d", pgid, err, cmd.Process.Pid)
	}
	start := time.Now()
	cancel()
	err = cmd.Wait()
	if err == nil {
		t.Error("Wait after cancel: nil error")
	}
	if running(t, cmd.Process.Pid) {
		t.Errorf("sh %d still runs after Wait", cmd.Process.Pid)
	}
	if running(t, grandchild) {
		t.Errorf("its sleep %d still runs after Wait", grandchild)
	}
	if d := time.Since(start); d > WaitDelay {
		t.Errorf("Wait took %v after the cancel, more than WaitDelay: it waited for the pipe, not the group", d)
	}
}

// TestCancelInterruptsFirst: a cancelled child gets SIGINT first, and may
// clean up and exit as it likes.
func TestCancelInterruptsFirst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd, r, line := startShell(t, ctx, `trap 'echo cleaned up; exit 3' INT; echo ready; while :; do sleep 0.05; done`)
	if line != "ready" {
		t.Fatalf("sh printed %q, want ready", line)
	}
	cancel()
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("Wait: %v, want exit status 3 from the trap", err)
	}
	if got := strings.TrimSpace(string(rest)); got != "cleaned up" {
		t.Errorf("after the cancel sh printed %q, want its trap's line", got)
	}
}

// TestOwnGroup: a child that is not cancelled runs in its own process
// group (so that a terminal's Ctrl-C reaches worldc only) to its end.
func TestOwnGroup(t *testing.T) {
	cmd := CommandContext(context.Background(), "sh", "-c", "echo $$; read line; echo got $line")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stdout)
	line, _ := r.ReadString('\n')
	if pid, _ := strconv.Atoi(strings.TrimSpace(line)); pid != cmd.Process.Pid {
		t.Fatalf("sh says its pid is %q, want %d", line, cmd.Process.Pid)
	}
	if pgid, err := syscall.Getpgid(cmd.Process.Pid); err != nil || pgid != cmd.Process.Pid {
		t.Errorf("process group %d (%v), want the child's own, %d", pgid, err, cmd.Process.Pid)
	}
	if pgid := syscall.Getpgrp(); pgid == cmd.Process.Pid {
		t.Errorf("the test is in the child's process group")
	}
	io.WriteString(stdin, "x\n")
	stdin.Close()
	rest, _ := io.ReadAll(r)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if string(rest) != "got x\n" {
		t.Errorf("sh printed %q, want %q", rest, "got x\n")
	}
}

func TestParseStat(t *testing.T) {
	for _, tt := range []struct {
		stat  string
		state byte
		pgrp  int
		ok    bool
	}{
		{"42 (go) S 1 42 42 0 -1", 'S', 42, true},
		{"7 (a ) (b) Z 1 9 9 0", 'Z', 9, true},
		{"7 (go", 0, 0, false},
		{"7 (go) S 1", 0, 0, false},
	} {
		state, pgrp, ok := parseStat([]byte(tt.stat))
		if state != tt.state || pgrp != tt.pgrp || ok != tt.ok {
			t.Errorf("parseStat(%q) = %q, %d, %v; want %q, %d, %v", tt.stat, state, pgrp, ok, tt.state, tt.pgrp, tt.ok)
		}
	}
}
