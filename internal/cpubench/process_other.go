//go:build !linux

package cpubench

// ProcessCPU returns -1: a process's CPU time is read only on Linux.
func ProcessCPU(pid int) int64 { return -1 }
