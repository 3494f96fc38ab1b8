package author

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Operator is a named corruption of a valid spec: a mistake an author
// makes, applied at a site of the spec, that `worldc check` must report
// with Code.
type Operator struct {
	Name string    `json:"name"`
	Code diag.Code `json:"code"`
	Doc  string    `json:"doc"`
	// sites lists where the operator applies, in source order.
	sites func(s *subject) []site
}

// subject is a valid spec being corrupted.
type subject struct {
	src  string
	file *dsl.File
	w    *ir.World
}

// site is one place an operator applies, with the edits that corrupt it.
type site struct {
	what  string
	pos   dsl.Pos
	edits []edit
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// Corruption is an operator applied at one site of a spec, and what check
// said of the result: a synthetic repair pair (Corrupted, Diagnostics) →
// Original.
type Corruption struct {
	File     string `json:"file"`
	World    string `json:"world"`
	Operator string `json:"operator"`
	// Code is the diagnostic the operator must cause; Detected whether
	// check reported it.
	Code        string               `json:"code"`
	Detected    bool                 `json:"detected"`
	Site        string               `json:"site"`
	Line        int                  `json:"line"`
	Col         int                  `json:"col"`
	Diagnostics compiler.Diagnostics `json:"diagnostics"`
	Corrupted   string               `json:"corrupted"`
	Original    string               `json:"original"`
}

// Operators returns the corruption operators, sorted by name.
func Operators() []Operator {
	ops := slices.Clone(operators)
	slices.SortFunc(ops, func(a, b Operator) int { return strings.Compare(a.Name, b.Name) })
	return ops
}

// LookupOperators returns the operators named, or all of them for none.
func LookupOperators(names []string) ([]Operator, error) {
	if len(names) == 0 {
		return Operators(), nil
	}
	var out []Operator
	for _, n := range names {
		i := slices.IndexFunc(operators, func(o Operator) bool { return o.Name == n })
		if i < 0 {
			var all []string
			for _, o := range Operators() {
				all = append(all, o.Name)
			}
			return nil, fmt.Errorf("unknown operator %q (one of %s)", n, strings.Join(all, ", "))
		}
		out = append(out, operators[i])
	}
	return out, nil
}

// CorruptOptions configures Corrupt.
type CorruptOptions struct {
	// Operators to apply (all when empty).
	Operators []Operator
	// MaxSites bounds the sites per operator (0: every site).
	MaxSites int
	// Data is where the spec's data files are read (check's WithData);
	// nil: none.
	Data fs.FS
}

// Corrupt applies the operators to a spec that checks clean, at each of
// their sites (up to MaxSites each), checks every corrupted spec and
// returns the corruptions in operator and site order. A spec with errors
// is refused: a corruption of it proves nothing.
func Corrupt(file string, src []byte, opts CorruptOptions) ([]Corruption, error) {
	var checkOpts []compiler.Option
	if opts.Data != nil {
		checkOpts = append(checkOpts, compiler.WithData(opts.Data))
	}
	w, diags := compiler.CheckSource(file, src, checkOpts...)
	if diags.HasErrors() {
		return nil, fmt.Errorf("%s does not check clean: %s", file, strings.TrimSpace(diags.Text()))
	}
	f, err := dsl.Parse(file, src)
	if err != nil {
		return nil, err
	}
	s := &subject{src: string(src), file: f, w: w}
	ops := opts.Operators
	if len(ops) == 0 {
		ops = Operators()
	}
	var out []Corruption
	for _, op := range ops {
		sites := op.sites(s)
		if opts.MaxSites > 0 && len(sites) > opts.MaxSites {
			sites = sites[:opts.MaxSites]
		}
		for _, st := range sites {
			corrupted := apply(s.src, st.edits)
			_, diags := compiler.CheckSource(file, []byte(corrupted), checkOpts...)
			c := Corruption{File: file, World: w.Name, Operator: op.Name, Code: string(op.Code), Site: st.what,
				Line: st.pos.Line, Col: st.pos.Column, Diagnostics: diags, Corrupted: corrupted, Original: s.src}
			c.Detected = slices.ContainsFunc(diags, func(d compiler.Diagnostic) bool {
				return d.Code == op.Code && d.Severity == compiler.SeverityError
			})
			out = append(out, c)
		}
	}
	return out, nil
}

// apply carries out non-overlapping edits.
func apply(src string, edits []edit) string {
	edits = slices.Clone(edits)
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	for _, e := range edits {
		src = src[:e.start] + e.text + src[e.end:]
	}
	return src
}

// DetectionRate is how many corruptions of one operator check detected.
type DetectionRate struct {
	Operator string `json:"operator"`
	Code     string `json:"code"`
	Applied  int    `json:"applied"`
	Detected int    `json:"detected"`
	// Worlds is the number of distinct worlds it applied to.
	Worlds int `json:"worlds"`
}

// DetectionRates sums corruptions per operator, sorted by operator.
func DetectionRates(cs []Corruption) []DetectionRate {
	by := map[string]*DetectionRate{}
	worlds := map[string]map[string]bool{}
	for _, c := range cs {
		r := by[c.Operator]
		if r == nil {
			r = &DetectionRate{Operator: c.Operator, Code: c.Code}
			by[c.Operator] = r
			worlds[c.Operator] = map[string]bool{}
		}
		r.Applied++
		if c.Detected {
			r.Detected++
		}
		worlds[c.Operator][c.File] = true
	}
	var out []DetectionRate
	for op, r := range by {
		r.Worlds = len(worlds[op])
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b DetectionRate) int { return strings.Compare(a.Operator, b.Operator) })
	return out
}
