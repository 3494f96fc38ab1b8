package proc

import (
	"os"
	"slices"
	"strings"
)

// GoWorkDir makes a directory for the work directory of a go command (its
// GOTMPDIR) and returns env with GOTMPDIR naming it, and the function that
// removes it with whatever it holds. The go command removes its work
// directory ($WORK: the packages and test binaries it builds) when it
// ends, but not when it is stopped while it builds (go build and go test
// die by SIGINT then): its caller removes this directory once Wait has
// returned, on every way out, and nothing is left in the temporary
// directory. The directory is made where the go command would have made
// its own: in env's GOTMPDIR, or else its TMPDIR, or else os.TempDir().
// env nil means the process's environment.
func GoWorkDir(env []string) ([]string, func() error, error) {
	if env == nil {
		env = os.Environ()
	}
	base := lookup(env, "GOTMPDIR")
	if base == "" {
		base = lookup(env, "TMPDIR")
	}
	dir, err := os.MkdirTemp(base, "worldc-go-")
	if err != nil {
		return nil, nil, err
	}
	env = append(slices.Clip(env), "GOTMPDIR="+dir)
	return env, func() error { return os.RemoveAll(dir) }, nil
}

// lookup is the value of key in env, the last one as exec.Cmd takes it;
// "" when it is not set.
func lookup(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
