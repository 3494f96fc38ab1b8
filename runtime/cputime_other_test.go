//go:build !linux

package runtime_test

func threadCPU() int64 { return -1 }
