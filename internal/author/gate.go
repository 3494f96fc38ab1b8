package author

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// Gate runs the executability gate on one world at a time, with the code
// `worldc build` runs: the output directory is made a module that reaches
// worldc's runtime (output.PlanModule, output.ApplyModule), the world's
// package is written there (output.Plan, output.Apply) and vetted (gate.Vet).
type Gate struct {
	// Dir is the output directory: world W is generated into Dir/W.
	Dir string
	// Root is the directory of the module that holds Dir.
	Root string
	rt   *output.Runtime
	sem  chan struct{}
}

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

// NewGate prepares dir: it writes the module files and the runtime copy
// the worlds need there, as `worldc build -o dir` does.
func NewGate(dir string, opts GateOptions) (*Gate, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return nil, err
	}
	plan, err := output.PlanModule(dir, rt, output.ModuleOptions{ModulePath: opts.ModulePath, AddRuntime: opts.AddRuntime, Version: opts.Version})
	if err != nil {
		return nil, err
	}
	if err := output.ApplyModule(plan); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Gate{Dir: dir, Root: plan.Root, rt: rt, sem: make(chan struct{}, max(1, opts.Jobs))}, nil
}

// Vet generates w's package into Dir/<w.Name> and runs the gate on it. The
// error is for a gate that could not run (or a cancelled context); a world
// that fails gets a verdict that says why.
func (g *Gate) Vet(ctx context.Context, w *ir.World) (gate.WorldResult, error) {
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return gate.WorldResult{}, ctx.Err()
	}
	defer func() { <-g.sem }()
	files, err := gen.Generate(w)
	if err != nil {
		msg := fmt.Sprintf("generate: %v", err)
		return gate.WorldResult{World: w.Name, Stage: gate.StageGenerate, Reason: msg, Errors: []gate.Error{{Message: msg}}}, nil
	}
	outs := []output.Output{{World: w.Name, Files: files}}
	changes, err := output.Plan(g.Dir, outs)
	if err != nil {
		return gate.WorldResult{}, err
	}
	if err := output.Apply(g.Dir, outs, changes); err != nil {
		return gate.WorldResult{}, err
	}
	pkg := filepath.Join(g.Dir, w.Name)
	report, err := gate.Vet(ctx, []string{pkg}, gate.VetOptions{
		Dir:     g.Root,
		Runtime: g.rt,
		Locate:  map[string]gate.Locator{pkg: gate.NewLocator(w, g.Root)},
	})
	if err != nil {
		return gate.WorldResult{}, err
	}
	if len(report.Worlds) != 1 {
		return gate.WorldResult{}, fmt.Errorf("gate: %d verdicts for world %s", len(report.Worlds), w.Name)
	}
	return report.Worlds[0], nil
}

// Remove removes the package of world name from Dir (a world that did not
// pass must not stay where `go test ./...` would test it).
func (g *Gate) Remove(name string) error {
	if WorldName(name) != name {
		return fmt.Errorf("gate: %q is not a world name", name)
	}
	return os.RemoveAll(filepath.Join(g.Dir, name))
}
