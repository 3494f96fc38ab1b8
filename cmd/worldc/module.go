package main

import (
	"fmt"

	"github.com/worldc/worldc/internal/output"
)

// outFlags are where gen and build write, and the module the worlds build
// in there (see output.PlanModule for the rule).
type outFlags struct {
	Out        string `short:"o" default:"generated" placeholder:"DIR" help:"Output directory (default ${default}): world W goes to DIR/W/. Outside any Go module, DIR becomes a module of its own."`
	Module     string `placeholder:"PATH" help:"Module path of DIR when it becomes a module of its own (default worlds)."`
	AddRuntime bool   `name:"add-runtime" help:"When DIR is inside a module that does not require worldc's runtime, add it there: a copy in .worldc/runtime at the module's root, and require and replace lines in its go.mod."`
}

// planModule decides how the worlds written to the output directory build.
func (f *outFlags) planModule(sys *stdio) (*output.ModulePlan, error) {
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return nil, err
	}
	return output.PlanModule(absPath(sys.cwd, f.Out), rt, output.ModuleOptions{
		ModulePath: f.Module,
		AddRuntime: f.AddRuntime,
		Version:    worldcVersion(),
	})
}

// applyModule writes the module's go.mod and runtime copy when they
// change, and says so.
func (f *outFlags) applyModule(sys *stdio, p *output.ModulePlan) error {
	if len(p.Files)+len(p.Remove) == 0 {
		return nil
	}
	if err := output.ApplyModule(p); err != nil {
		return err
	}
	fmt.Fprintf(sys.stderr, "module %s in %s: worldc's runtime written to %s\n",
		p.Path, displayPath(sys.cwd, p.Root), displayPath(sys.cwd, p.RuntimeDir))
	return nil
}

// displayPath names a directory in output: relative to cwd when it lies
// below it, otherwise absolute.
func displayPath(cwd, abs string) string {
	return displayName(cwd, abs, abs)
}
