//go:build !unix

package proc

import "os/exec"

// ownGroup keeps exec.CommandContext's cancellation, which kills the
// child's process only: there are no process groups to stop here.
func ownGroup(cmd *exec.Cmd) {}
