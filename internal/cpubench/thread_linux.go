package cpubench

import (
	"syscall"
	"unsafe"
)

// ThreadCPU returns the CPU time consumed by the calling OS thread, in
// nanoseconds, or -1 if it is unavailable.
func ThreadCPU() int64 {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return -1
	}
	return ts.Nano()
}
