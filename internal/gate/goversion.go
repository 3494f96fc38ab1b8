package gate

import (
	"context"
	"fmt"
	"os/exec"
	"strings"

	"github.com/worldc/worldc/internal/proc"
)

// GoVersion is GoVersionContext in the current directory with the
// process's environment, for callers that have no context.
func GoVersion() (string, error) {
	return GoVersionContext(context.Background(), "", nil)
}

// GoVersionContext is the version of the go command the gate runs in dir
// with env (`go env GOVERSION`): dir "" is the current directory, env nil
// the process's environment (with GOTOOLCHAIN, a go.mod can select
// another go).
func GoVersionContext(ctx context.Context, dir string, env []string) (string, error) {
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
// killed, with everything it started when ctx is done (see proc).
func goCommand(ctx context.Context, opts *VetOptions, args ...string) *exec.Cmd {
	cmd := proc.CommandContext(ctx, "go", args...)
	cmd.Dir = opts.Dir
	cmd.Env = opts.Env
	return cmd
}
