package pipeline

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// WorldGate runs the executability gate on one world at a time, as Build
// does for a corpus: the output directory is made a module that reaches
// worldc's runtime, the world's package is written there under the output
// rules and vetted. It is what the authoring loop vets its drafts with.
type WorldGate struct {
	opts Options
	// Root is the directory of the module that holds the output
	// directory.
	Root string
	sem  chan struct{}

	mu      sync.Mutex
	written map[string]map[string][sha256.Size]byte // world → what Vet wrote there
}

// NewWorldGate prepares opts.Out: it writes the module files and the
// runtime copy the worlds need there. jobs is how many worlds are vetted
// at once (at least 1: go test builds in parallel already).
func NewWorldGate(ctx context.Context, opts Options, jobs int) (*WorldGate, error) {
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	opts.Out = out
	plan, err := PlanModule(ctx, &opts)
	if err != nil {
		return nil, err
	}
	if err := ApplyModule(&opts, plan); err != nil {
		return nil, err
	}
	opts.Cwd = plan.Root
	return &WorldGate{opts: opts, Root: plan.Root, sem: make(chan struct{}, max(1, jobs)), written: map[string]map[string][sha256.Size]byte{}}, nil
}

// Dir is the output directory: world W is generated into Dir/W.
func (g *WorldGate) Dir() string { return g.opts.Out }

// Vet generates w's package into Dir/<w.Name> and runs the gate on it. The
// error is for a gate that could not run (or a cancelled context); a world
// that fails gets a verdict that says why.
func (g *WorldGate) Vet(ctx context.Context, w *ir.World) (gate.WorldResult, error) {
	select {
	case g.sem <- struct{}{}:
	case <-ctx.Done():
		return gate.WorldResult{}, ctx.Err()
	}
	defer func() { <-g.sem }()
	c := &Checked{Spec: Spec{Name: w.Pos.Filename}, World: w}
	out, pm, err := GenerateForGate(c)
	if err != nil {
		return generateFailure(c, err), nil
	}
	if _, err := Write(&g.opts, []output.Output{out}); err != nil {
		return gate.WorldResult{}, err
	}
	g.mu.Lock()
	g.written[w.Name] = out.Sums()
	g.mu.Unlock()
	pkg := filepath.Join(g.opts.Out, w.Name)
	report, err := Vet(ctx, []string{pkg}, &g.opts, nil, map[string]gate.Locator{pkg: gate.NewLocator(pm, pkg)})
	if err != nil {
		return gate.WorldResult{}, err
	}
	if len(report.Worlds) != 1 {
		return gate.WorldResult{}, fmt.Errorf("gate: %d verdicts for world %s", len(report.Worlds), w.Name)
	}
	return report.Worlds[0], nil
}

// Remove removes the package of world name from Dir (a world that did not
// pass must not stay where `go test ./...` would test it): the files
// worldc wrote there and nothing else (output.Remove). A directory of that
// name that is not worldc's is left as it is, with an error that says so.
func (g *WorldGate) Remove(name string) error {
	g.mu.Lock()
	written := g.written[name]
	delete(g.written, name)
	g.mu.Unlock()
	return output.Remove(g.opts.Out, name, written)
}
