package main

import (
	"fmt"

	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
)

// outFlags are where gen and build write, and the module the worlds build
// in there (see output.PlanModule for the rule).
type outFlags struct {
	Out        string `short:"o" default:"generated" placeholder:"DIR" help:"Output directory (default ${default}): world W goes to DIR/W/. Outside any Go module, DIR becomes a module of its own."`
	Module     string `placeholder:"PATH" help:"Module path of DIR when it becomes a module of its own (default worlds)."`
	AddRuntime bool   `name:"add-runtime" help:"When DIR is inside a module that does not require worldc's runtime, add it there: a copy in .worldc/runtime at the module's root, and require and replace lines in its go.mod."`
}

// options are the pipeline's options for writing to the output directory;
// the module's writes are told on stderr.
func (f *outFlags) options(sys *stdio) *pipeline.Options {
	return &pipeline.Options{
		Cwd:   sys.cwd,
		Stdin: sys.stdin,
		Out:   absPath(sys.cwd, f.Out),
		Module: output.ModuleOptions{
			ModulePath: f.Module,
			AddRuntime: f.AddRuntime,
			Version:    worldcVersion(),
		},
		Events: pipeline.Events{Module: func(p *output.ModulePlan) {
			fmt.Fprintf(sys.stderr, "module %s in %s: worldc's runtime written to %s\n",
				p.Path, displayPath(sys.cwd, p.Root), displayPath(sys.cwd, p.RuntimeDir))
		}},
	}
}

// displayPath names a directory in output: relative to cwd when it lies
// below it, otherwise absolute.
func displayPath(cwd, abs string) string {
	return pipeline.DisplayName(cwd, abs, abs)
}
