//go:build unix

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// ownGroup puts cmd's process in a new process group whose ID is its
// process ID, and makes cancellation stop that group.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return stopGroup(cmd.Process) }
}

// stopGroup interrupts the process group of p (whose ID is p's), kills it
// if it has not ended within grace, and returns once it has ended (or
// after another grace). It returns os.ErrProcessDone when the group had
// ended already, which exec.Cmd takes for "nothing to cancel"; when the
// group cannot be signalled, it kills p alone.
//
// A process group ID stays allocated while any member of the group lives,
// so a signal sent to it cannot reach an unrelated process before the
// group has ended; after that, only a new group that took the same ID in
// the meantime could receive the SIGKILL, which needs the ID to be reused
// within the grace period.
func stopGroup(p *os.Process) error {
	pgid := p.Pid
	if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return p.Kill()
	}
	if waitGroup(pgid, grace) {
		return nil
	}
	if err := syscall.Kill(-pgid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	waitGroup(pgid, grace)
	return nil
}

// waitGroup waits up to d for every process of group pgid to have exited
// and reports whether they have.
func waitGroup(pgid int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		if !groupRuns(pgid) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
	}
}
