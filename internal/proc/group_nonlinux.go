//go:build unix && !linux

package proc

// groupRuns reports whether group pgid has a member. Without /proc an
// exited process that is not reaped yet counts too; the init of these
// systems reaps orphans promptly.
func groupRuns(pgid int) bool { return killable(pgid) }
