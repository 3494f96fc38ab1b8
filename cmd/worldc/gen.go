package main

import (
	"fmt"
	"path/filepath"

	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/output"
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
	files, err := expandPaths(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	results := checkFiles(sys, files)
	if failed := printCheckFailures(sys, results); failed > 0 {
		fmt.Fprintf(sys.stderr, "%s checked, %d with errors: nothing generated\n", plural(len(results), "world"), failed)
		return exitError(exitFailure)
	}
	if err := checkDuplicateWorlds(results); err != nil {
		return err
	}
	outs, err := generate(results)
	if err != nil {
		return err
	}
	outDir := absPath(sys.cwd, c.Out)
	mod, err := c.planModule(sys)
	if err != nil {
		return err
	}
	changes, err := output.Plan(outDir, outs)
	if err != nil {
		return err
	}
	if c.Check {
		changes = append(mod.Changes(outDir), changes...)
		for _, ch := range changes {
			p := filepath.FromSlash(ch.Path)
			if !filepath.IsAbs(p) {
				p = filepath.Join(c.Out, p)
			}
			fmt.Fprintf(sys.stderr, "%s: %s\n", p, ch.Kind)
		}
		if len(changes) > 0 {
			fmt.Fprintf(sys.stderr, "%s of %s not up to date in %s; run worldc gen\n", plural(len(changes), "file"), plural(len(outs), "world"), c.Out)
			return exitError(exitFailure)
		}
		fmt.Fprintf(sys.stderr, "%s up to date in %s\n", plural(len(outs), "world"), c.Out)
		return nil
	}
	if err := c.applyModule(sys, mod); err != nil {
		return err
	}
	if err := output.Apply(outDir, outs, changes); err != nil {
		return err
	}
	fmt.Fprintf(sys.stderr, "%s generated in %s: %s\n", plural(len(outs), "world"), c.Out, changeSummary(changes))
	return nil
}

// printCheckFailures prints the diagnostics of every spec (warnings
// included) and returns how many have errors.
func printCheckFailures(sys *stdio, results []checkResult) int {
	failed := 0
	for _, r := range results {
		fmt.Fprint(sys.stderr, r.diags.Text())
		if r.world == nil {
			failed++
		}
	}
	return failed
}

// checkDuplicateWorlds fails when two specs define the same world: they
// would be generated into the same directory.
func checkDuplicateWorlds(results []checkResult) error {
	first := map[string]string{}
	for _, r := range results {
		if r.world == nil {
			continue
		}
		if f, ok := first[r.world.Name]; ok {
			return fmt.Errorf("%s and %s both define world %s", f, r.file.name, r.world.Name)
		}
		first[r.world.Name] = r.file.name
	}
	return nil
}

// generate runs the code generator on every checked world.
func generate(results []checkResult) ([]output.Output, error) {
	var outs []output.Output
	for _, r := range results {
		if r.world == nil {
			continue
		}
		out, err := generateWorld(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.file.name, err)
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// generateWorld runs the code generator on one checked world.
func generateWorld(r checkResult) (output.Output, error) {
	files, err := gen.Generate(r.world)
	if err != nil {
		return output.Output{}, fmt.Errorf("generating world %s: %w", r.world.Name, err)
	}
	return output.Output{World: r.world.Name, Files: files}, nil
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
		return plural(written, "file") + " written"
	default:
		return fmt.Sprintf("%s written, %d removed", plural(written, "file"), removed)
	}
}
