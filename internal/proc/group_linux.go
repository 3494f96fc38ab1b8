package proc

import "os"

// groupRuns reports whether a process of group pgid is still running: one
// that has not exited. A process that has exited but is not reaped yet (a
// zombie: an orphan whose new parent does not wait for it, as the init of
// some containers does not) is in its group still, but runs nothing, so
// /proc is read rather than asking kill(-pgid, 0).
func groupRuns(pgid int) bool {
	d, err := os.Open("/proc")
	if err != nil {
		return killable(pgid)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return killable(pgid)
	}
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone since the directory was read
		}
		if state, group, ok := parseStat(stat); ok && group == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}
