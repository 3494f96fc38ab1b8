package main

import (
	"fmt"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/text"
)

type checkCmd struct {
	JSON  bool     `help:"Print the diagnostics as a JSON array on stdout ([] when clean)."`
	Paths []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

func (c *checkCmd) Run(sys *stdio) error {
	specs, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	results := pipeline.Check(specs, sys.stdin)
	var all compiler.Diagnostics
	withErrors, warnings := 0, 0
	for _, r := range results {
		all = append(all, r.Diags...)
		if r.Diags.HasErrors() {
			withErrors++
		}
		for _, d := range r.Diags {
			if d.Severity == compiler.SeverityWarning {
				warnings++
			}
		}
	}
	if c.JSON {
		sys.stdout.Write(all.JSON())
	} else {
		fmt.Fprint(sys.stderr, all.Text())
	}
	fmt.Fprintln(sys.stderr, checkSummary(len(specs), withErrors, warnings))
	if withErrors > 0 {
		return exitError(exitFailure)
	}
	return nil
}

// checkSummary is the closing line of check: "3 worlds checked, 1 with
// errors", and the number of warnings when there are any.
func checkSummary(checked, withErrors, warnings int) string {
	s := fmt.Sprintf("%s checked, %d with errors", text.Plural(checked, "world"), withErrors)
	if warnings > 0 {
		s += ", " + text.Plural(warnings, "warning")
	}
	return s
}
