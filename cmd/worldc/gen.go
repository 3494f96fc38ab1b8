package main

import (
	"fmt"
	"path/filepath"

	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/text"
)

type genCmd struct {
	outFlags
	Check bool     `help:"Write nothing; list the files that are missing, out of date or stale, and exit 1 if any."`
	Paths []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

// Run checks every spec, generates every world, and writes DIR/<world>/
// only if all of that succeeded: only the files whose bytes changed, and
// removing files of those worlds that are no longer generated.
func (c *genCmd) Run(sys *stdio) error {
	specs, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	_, outs, err := checkAndGenerate(sys, specs, "nothing generated")
	if err != nil {
		return err
	}
	opts := c.options(sys)
	mod, err := pipeline.PlanModule(sys.ctx, opts)
	if err != nil {
		return err
	}
	if c.Check {
		changes, err := output.Plan(opts.Out, outs)
		if err != nil {
			return err
		}
		changes = append(mod.Changes(opts.Out), changes...)
		for _, ch := range changes {
			p := filepath.FromSlash(ch.Path)
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Out, p)
			}
			fmt.Fprintf(sys.stderr, "%s: %s\n", p, ch.Kind)
		}
		if len(changes) > 0 {
			fmt.Fprintf(sys.stderr, "%s of %s not up to date in %s; run worldc gen\n", text.Plural(len(changes), "file"), text.Plural(len(outs), "world"), c.Out)
			return exitError(exitFailure)
		}
		fmt.Fprintf(sys.stderr, "%s up to date in %s\n", text.Plural(len(outs), "world"), c.Out)
		return nil
	}
	if err := pipeline.ApplyModule(opts, mod); err != nil {
		return err
	}
	changes, err := pipeline.Write(opts, outs)
	if err != nil {
		return err
	}
	fmt.Fprintf(sys.stderr, "%s generated in %s: %s\n", text.Plural(len(outs), "world"), c.Out, changeSummary(changes))
	return nil
}

// checkAndGenerate checks every spec, printing every diagnostic (warnings
// included), and generates their worlds when all of them check clean and
// no two define one world. Otherwise it says how many have errors and that
// nothing is done (what: "nothing generated") and fails. The outputs are
// those of the results, in order.
func checkAndGenerate(sys *stdio, specs []pipeline.Spec, what string) ([]pipeline.Checked, []output.Output, error) {
	results := pipeline.Check(specs, sys.stdin)
	pipeline.MarkDuplicates(results)
	for _, r := range results {
		fmt.Fprint(sys.stderr, r.Diags.Text())
	}
	if failed := pipeline.WithErrors(results); failed > 0 {
		fmt.Fprintf(sys.stderr, "%s checked, %d with errors: %s\n", text.Plural(len(results), "world"), failed, what)
		return nil, nil, exitError(exitFailure)
	}
	outs, err := pipeline.GenerateAll(results)
	return results, outs, err
}

// changeSummary says what Apply did: "3 files written, 1 removed", or "up
// to date".
func changeSummary(changes []output.Change) string {
	written, removed := 0, 0
	for _, c := range changes {
		if c.Kind == output.Stale {
			removed++
		} else {
			written++
		}
	}
	switch {
	case written == 0 && removed == 0:
		return "up to date"
	case removed == 0:
		return text.Plural(written, "file") + " written"
	default:
		return fmt.Sprintf("%s written, %d removed", text.Plural(written, "file"), removed)
	}
}
