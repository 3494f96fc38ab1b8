//go:build unix

package proc

import (
	"bytes"
	"errors"
	"strconv"
	"syscall"
)

// killable reports whether group pgid has a member, exited or not.
func killable(pgid int) bool {
	err := syscall.Kill(-pgid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// parseStat reads the state and the process group of a /proc/PID/stat
// line: "pid (comm) state ppid pgrp ...", where comm may hold spaces and
// parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	pgrp, err := strconv.Atoi(string(f[2]))
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], pgrp, true
}
