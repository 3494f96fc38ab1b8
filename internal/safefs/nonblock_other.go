//go:build !unix

package safefs

// oNonblock is 0 where there is no O_NONBLOCK (nor FIFOs to block on).
const oNonblock = 0
