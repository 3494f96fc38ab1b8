package author

import (
	"context"

	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
)

// GateOptions configures NewGate.
type GateOptions struct {
	// ModulePath and AddRuntime are `worldc build`'s --module and
	// --add-runtime (see output.ModuleOptions).
	ModulePath string
	AddRuntime bool
	// Version is worldc's version, for the runtime copy's README.
	Version string
	// Jobs is how many worlds are vetted at once (default 1: go test
	// builds in parallel already).
	Jobs int
}

// NewGate prepares dir as `worldc build -o dir` does (its module files
// and runtime copy) and returns the pipeline's gate for one world at a
// time: the loop's drafts are generated, written and vetted by the code
// every command uses, and a failed draft's package is removed under the
// same rules (only the files worldc wrote).
func NewGate(ctx context.Context, dir string, opts GateOptions) (*pipeline.WorldGate, error) {
	return pipeline.NewWorldGate(ctx, pipeline.Options{
		Out:    dir,
		Module: output.ModuleOptions{ModulePath: opts.ModulePath, AddRuntime: opts.AddRuntime, Version: opts.Version},
	}, opts.Jobs)
}
