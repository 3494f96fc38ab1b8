//go:build unix

package gate

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// running reports whether process pid exists and has not exited (an
// orphan that exited and that nobody reaped has exited).
func running(t *testing.T, pid int) bool {
	t.Helper()
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || len(stat) < i+3 {
			t.Fatalf("cannot read /proc/%d/stat: %q", pid, stat)
		}
		return stat[i+2] != 'Z' && stat[i+2] != 'X'
	} else if _, err := os.Stat("/proc/self/stat"); err == nil {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
