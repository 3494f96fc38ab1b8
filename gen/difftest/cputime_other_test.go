//go:build !linux

package difftest

func threadCPU() int64 { return -1 }
