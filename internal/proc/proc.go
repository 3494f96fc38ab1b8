// Package proc starts the child processes of worldc (the go command, a
// bundle's binary) so that cancelling their context stops them and
// everything they started, and waiting for them cannot hang.
//
// On unix a child runs in a process group of its own. Cancelling its
// context interrupts the whole group (SIGINT, as a terminal's Ctrl-C
// would: what handles it may clean up), then kills it (SIGKILL) if
// anything in it is still running after a grace period; Wait returns only
// once no process of the group runs any more, so that a caller may remove
// the directories the child worked in. The go command dies by SIGINT while
// it builds, leaving its work directory: GoWorkDir gives it one that the
// caller removes. Since the child is not in worldc's process group, a
// terminal's Ctrl-C reaches worldc alone, which then cancels and cleans
// up. A child must therefore not read from or write to the terminal itself
// (a background process group would be stopped): give it pipes or files,
// as exec.Cmd does by default. For the same reason a program that starts
// children this way must catch SIGINT and SIGTERM and cancel their
// contexts: killed by the signal itself, it would leave them running. A
// child that inherits SIGINT ignored (worldc started so, as a shell
// script's background job is) is killed after the grace period.
//
// Elsewhere, cancelling kills the child (exec.CommandContext's default).
// Everywhere, once the child has exited or its context is done, Wait waits
// at most WaitDelay for the output of processes that inherited its pipes.
package proc

import (
	"context"
	"os/exec"
	"time"
)

// WaitDelay is how long Wait waits, once the child has exited or been
// stopped, for its standard output and error to be closed by whatever else
// holds them (a grandchild that left the process group) before it closes
// them itself.
const WaitDelay = 5 * time.Second

// grace is how long the processes of a cancelled child's group have to
// exit after SIGINT before they get SIGKILL, and then to be gone after
// SIGKILL before Wait gives up waiting for them. A variable for tests.
var grace = 5 * time.Second

// CommandContext is exec.CommandContext(ctx, name, arg...) for a child
// that is stopped with its own children when ctx is done (see the package
// documentation). The caller may set Dir, Env, Stdin, Stdout and Stderr,
// and must not replace SysProcAttr or Cancel.
func CommandContext(ctx context.Context, name string, arg ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, arg...)
	cmd.WaitDelay = WaitDelay
	ownGroup(cmd)
	return cmd
}
