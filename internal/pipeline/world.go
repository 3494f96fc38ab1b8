package pipeline

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// claims decides which spec a world's name belongs to: the first spec that
// defines it, in the order the specs were given, whether its verdict comes
// from the cache or from this run.
type claims map[string]claim

type claim struct {
	index int    // the spec's place in the run
	spec  string // its name
}

// take claims world for the spec at index. It loses (won false) to an
// earlier spec's claim, owner; otherwise it takes the name, and had says
// whether a later spec held it before (such as a cached verdict, taken
// first in time), owner being that spec.
func (c claims) take(world string, index int, spec string) (owner claim, had, won bool) {
	prev, had := c[world]
	if had && prev.index < index {
		return prev, true, false
	}
	c[world] = claim{index, spec}
	return prev, had, true
}

// duplicateDiagnostic is the error of a spec whose world an earlier spec,
// first, already defines (W002 at its world header).
func duplicateDiagnostic(w *ir.World, spec, first string) compiler.Diagnostic {
	p := w.Pos
	return compiler.Diagnostic{
		Code: diag.DuplicateName, Severity: compiler.SeverityError,
		File: p.Filename, Line: p.Line, Col: p.Column,
		Message: (&output.DuplicateWorldError{World: w.Name, First: first, Second: spec}).Error(),
		Hint:    "Rename one of the two worlds (world NAME { … }), or leave one spec out.",
	}
}

// MarkDuplicates turns every checked spec whose world an earlier spec
// defines into a spec with an error: its World is dropped and the W002
// diagnostic added. It returns the diagnostics it added.
func MarkDuplicates(results []Checked) compiler.Diagnostics {
	var added compiler.Diagnostics
	cl := claims{}
	for i := range results {
		r := &results[i]
		if r.World == nil {
			continue
		}
		if first, _, won := cl.take(r.World.Name, i, r.Spec.Name); !won {
			d := duplicateDiagnostic(r.World, r.Spec.Name, first.spec)
			r.Diags = append(r.Diags, d)
			r.World = nil
			added = append(added, d)
		}
	}
	return added
}

// Generate runs the code generator on a checked world.
func Generate(c *Checked) (output.Output, error) {
	files, err := gen.Generate(c.World)
	if err != nil {
		return output.Output{}, generateError(c, err)
	}
	return output.Output{World: c.World.Name, Files: files, Source: c.Spec.Name}, nil
}

// GenerateForGate is Generate with the package's position map, which the
// gate reads to place a failure in the spec.
func GenerateForGate(c *Checked) (output.Output, *ir.PosMap, error) {
	p, err := gen.GeneratePackage(c.World)
	if err != nil {
		return output.Output{}, nil, generateError(c, err)
	}
	return output.Output{World: c.World.Name, Files: p.Files, Source: c.Spec.Name}, p.Positions, nil
}

func generateError(c *Checked, err error) error {
	return fmt.Errorf("%s: generating world %s: %w", c.Spec.Name, c.World.Name, err)
}

// GenerateAll generates every checked world of results.
func GenerateAll(results []Checked) ([]output.Output, error) {
	var outs []output.Output
	for i := range results {
		if results[i].World == nil {
			continue
		}
		out, err := Generate(&results[i])
		if err != nil {
			return nil, err
		}
		outs = append(outs, out)
	}
	return outs, nil
}

// WithErrors counts the results that have errors.
func WithErrors(results []Checked) int {
	n := 0
	for i := range results {
		if results[i].World == nil {
			n++
		}
	}
	return n
}

// Meta classifies a checked world for reports.
func Meta(w *ir.World) *gate.WorldMeta {
	m := &gate.WorldMeta{Title: w.Title, Industry: w.Industry, Country: w.Country, Tools: len(w.Tools), Tasks: len(w.Tasks)}
	for _, t := range w.Tasks {
		m.Capabilities = append(m.Capabilities, t.Capabilities...)
		m.Difficulty = append(m.Difficulty, t.Difficulty...)
	}
	slices.Sort(m.Capabilities)
	m.Capabilities = slices.Compact(m.Capabilities)
	slices.Sort(m.Difficulty)
	m.Difficulty = slices.Compact(m.Difficulty)
	return m
}

// checkFailure is the verdict on a spec with errors, named after its file,
// with the first error as the reason and the errors as its diagnostics.
func checkFailure(c *Checked) gate.WorldResult {
	res := gate.WorldResult{World: strings.TrimSuffix(filepath.Base(c.Spec.Name), SpecExt), Stage: gate.StageCheck, Spec: c.Spec.Name}
	res.Diagnostics = c.Errors()
	for _, d := range res.Diagnostics {
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

// generateFailure is the verdict on a world the generator failed on.
func generateFailure(c *Checked, err error) gate.WorldResult {
	return gate.WorldResult{World: c.World.Name, Stage: gate.StageGenerate, Reason: "generate: " + err.Error(),
		Errors: []gate.Error{{Message: err.Error()}}, Spec: c.Spec.Name, Meta: Meta(c.World)}
}
