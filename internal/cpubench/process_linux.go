package cpubench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// ProcessCPU returns the CPU time consumed so far by every thread of the
// process pid, in nanoseconds, or -1 if it is unavailable. It sums the
// threads' run times from /proc/PID/task/*/schedstat (nanosecond
// resolution); a thread that has exited no longer counts, which the Go
// runtime's threads seldom do. It is how a benchmark measures a server
// that runs in a child process: the server's CPU alone, without the
// client's.
func ProcessCPU(pid int) int64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return -1
	}
	var total int64
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue // the thread exited meanwhile
		}
		f := bytes.Fields(data)
		if len(f) == 0 {
			return -1
		}
		ns, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return -1
		}
		total += ns
	}
	return total
}
