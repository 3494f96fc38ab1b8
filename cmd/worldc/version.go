package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/worldc/worldc/internal/output"
)

type versionCmd struct{}

// Run prints worldc's version, the Go it was built with and the runtime it
// generates code for.
func (versionCmd) Run(sys *stdio) error {
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return err
	}
	fmt.Fprint(sys.stdout, versionText(rt))
	return nil
}

// versionText is what `worldc version` and `worldc --version` print.
func versionText(rt *output.Runtime) string {
	return fmt.Sprintf("worldc  %s\ngo      %s %s/%s\nruntime %s %s (%s)\n",
		worldcVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH,
		output.RuntimeModule, rt.Version(), rt.Hash)
}

// worldcVersion is the module version worldc was built at, from its build
// information: a release or pseudo-version when built by go install, with
// the VCS revision when built from a checkout; "(devel)" otherwise.
func worldcVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]) {
		v += " " + rev[:min(12, len(rev))]
		if modified == "true" {
			v += " (modified)"
		}
	}
	return v
}
