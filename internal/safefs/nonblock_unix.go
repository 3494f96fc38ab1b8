//go:build unix

package safefs

import "syscall"

// oNonblock opens without waiting for a FIFO's writer (it does nothing to
// a regular file's reads).
const oNonblock = syscall.O_NONBLOCK
