package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/gate"
)

type buildCmd struct {
	outFlags
	gateFlags
	Paths []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

// Run is the main job: check every spec, generate the worlds that check
// clean into DIR, and vet them. A world that fails at any step gets a FAIL
// verdict with the reason, and the others go on (unlike gen, which writes
// nothing unless every spec is clean).
func (c *buildCmd) Run(sys *stdio) error {
	if err := c.validate(); err != nil {
		return err
	}
	files, err := expandPaths(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	results := checkFiles(sys, files)
	if err := checkDuplicateWorlds(results); err != nil {
		return err
	}
	var failed []gate.WorldResult
	var outs []gate.Output
	var built []checkResult
	for _, r := range results {
		if !c.JSON {
			fmt.Fprint(sys.stderr, r.diags.Text())
		}
		if r.world == nil {
			failed = append(failed, checkFailure(r))
			continue
		}
		out, err := generateWorld(r)
		if err != nil {
			failed = append(failed, gate.WorldResult{World: r.world.Name, Stage: gate.StageGenerate,
				Reason: "generate: " + err.Error(), Errors: []gate.Error{{Message: err.Error()}}})
			continue
		}
		outs = append(outs, out)
		built = append(built, r)
	}
	outDir := absPath(sys.cwd, c.Out)
	mod, err := c.planModule(sys)
	if err != nil {
		return err
	}
	changes, err := gate.Plan(outDir, outs)
	if err != nil {
		return err
	}
	if err := c.applyModule(sys, mod); err != nil {
		return err
	}
	if err := gate.Apply(outDir, outs, changes); err != nil {
		return err
	}
	if !c.JSON {
		fmt.Fprintf(sys.stderr, "%s generated in %s: %s\n", plural(len(outs), "world"), c.Out, changeSummary(changes))
	}
	opts := c.options(sys)
	opts.Locate = map[string]gate.Locator{}
	var patterns []string
	for _, r := range built {
		dir := filepath.Join(outDir, r.world.Name)
		patterns = append(patterns, packageDir(sys.cwd, dir))
		opts.Locate[dir] = gate.NewLocator(r.world, sys.cwd)
	}
	return runGate(sys, patterns, c.gateFlags, opts, failed)
}

// checkFailure is the verdict on a spec with errors, named after its file,
// with the first error as the reason.
func checkFailure(r checkResult) gate.WorldResult {
	res := gate.WorldResult{World: strings.TrimSuffix(filepath.Base(r.file.name), specExt), Stage: gate.StageCheck}
	for _, d := range r.diags {
		if d.Severity != compiler.SeverityError {
			continue
		}
		res.Errors = append(res.Errors, gate.Error{Spec: fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col), Message: fmt.Sprintf("error[%s]: %s", d.Code, d.Message)})
	}
	if len(res.Errors) > 0 {
		res.Reason = "check: " + res.Errors[0].Spec + ": " + res.Errors[0].Message
		if n := len(res.Errors) - 1; n > 0 {
			res.Reason += fmt.Sprintf(" (and %d more)", n)
		}
	}
	return res
}

// absPath resolves p against cwd.
func absPath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// packageDir is how the go command is told about the package in dir: a
// ./relative path below cwd, otherwise the absolute path.
func packageDir(cwd, dir string) string {
	if rel, err := filepath.Rel(cwd, dir); err == nil && filepath.IsLocal(rel) {
		return "./" + filepath.ToSlash(rel)
	}
	return dir
}
