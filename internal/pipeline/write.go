package pipeline

import (
	"context"

	"github.com/worldc/worldc/internal/output"
)

// PlanModule decides how worlds written to opts.Out build (see
// output.PlanModule), with the runtime this worldc generates code for.
func PlanModule(ctx context.Context, opts *Options) (*output.ModulePlan, error) {
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return nil, err
	}
	return output.PlanModule(ctx, opts.Out, rt, opts.Module)
}

// ApplyModule writes what the module plan says, telling Events.Module when
// it wrote anything.
func ApplyModule(opts *Options, p *output.ModulePlan) error {
	if len(p.Files)+len(p.Remove) == 0 {
		return nil
	}
	if err := output.ApplyModule(p); err != nil {
		return err
	}
	if opts.Events.Module != nil {
		opts.Events.Module(p)
	}
	return nil
}

// Write brings opts.Out in line with outs (only files whose bytes changed
// are written; only files worldc wrote are removed) and returns the
// changes.
func Write(opts *Options, outs []output.Output) ([]output.Change, error) {
	changes, err := output.Plan(opts.Out, outs)
	if err != nil {
		return nil, err
	}
	return changes, output.Apply(opts.Out, outs, changes)
}
