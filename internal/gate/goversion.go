package gate

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/worldc/worldc/internal/proc"
)

// GoVersion is the version of the go command the gate runs in dir
// with env (`go env GOVERSION`): dir "" is the current directory, env nil
// the process's environment (with GOTOOLCHAIN, a go.mod can select
// another go).
func GoVersion(ctx context.Context, dir string, env []string) (string, error) {
	cmd := proc.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goCommand is `go args...` as the gate runs it: in opts.Dir with
// opts.Env, in a process group of its own that is interrupted, then
// killed, with everything it started when ctx is done (see proc), and
// with a work directory of its own that remove removes, whatever the go
// command left in it (call it once Wait has returned).
func goCommand(ctx context.Context, opts *VetOptions, args ...string) (cmd *exec.Cmd, remove func(), err error) {
	env, removeDir, err := proc.GoWorkDir(opts.Env)
	if err != nil {
		return nil, nil, fmt.Errorf("go %s: %w", args[0], err)
	}
	cmd = proc.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.Dir
	cmd.Env = env
	return cmd, func() { removeDir() }, nil
}
