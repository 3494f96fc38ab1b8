//go:build !linux

package cpubench

// ThreadCPU returns -1: the thread's CPU time is read only on Linux.
func ThreadCPU() int64 { return -1 }
