// Package diag is the diagnostics of worldc's checker and gate: a problem
// found in a spec, positioned in its file and coded, with its text and JSON
// forms. It depends on neither the parser nor the checker, so that the gate
// and the CLI report in the checker's shape without linking either.
package diag

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/text"
)

// Severity of a diagnostic.
type Severity string

// The severities. Only errors make a spec invalid.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Position is a 1-based line and column.
type Position struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Diagnostic is one problem found in a spec. Its JSON form is the stable
// machine-readable shape the repair loop feeds back to an LLM.
type Diagnostic struct {
	Code     Code     `json:"code"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"col"`
	End      Position `json:"end"`
	Hint     string   `json:"hint"`
}

// String renders the diagnostic as `file:line:col: error[CODE]: message`,
// on one line: control characters of the file name and the message (a
// spec's strings, a data file's names) are shown escaped, so that a
// message cannot print a diagnostic line of its own or drive a terminal.
// The JSON form keeps them, escaped as JSON escapes them.
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s[%s]: %s", text.Printable(d.File), d.Line, d.Col, d.Severity, d.Code, text.Printable(d.Message))
}

// Diagnostics is a list of diagnostics.
type Diagnostics []Diagnostic

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == SeverityError {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by file, position, code and message, and drops
// exact duplicates.
func (ds Diagnostics) Sort() Diagnostics {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		if a.Col != b.Col {
			return a.Col - b.Col
		}
		if c := strings.Compare(string(a.Code), string(b.Code)); c != 0 {
			return c
		}
		return strings.Compare(a.Message, b.Message)
	})
	return slices.Compact(ds)
}

// Text renders one diagnostic per line.
func (ds Diagnostics) Text() string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// JSON renders the diagnostics as an indented JSON array (never null).
func (ds Diagnostics) JSON() []byte {
	if ds == nil {
		ds = Diagnostics{}
	}
	out, _ := json.MarshalIndent(ds, "", "  ")
	return append(out, '\n')
}

// RelativeTo rewrites file names relative to dir when they lie below it, as
// compilers print them.
func (ds Diagnostics) RelativeTo(dir string) Diagnostics {
	for i := range ds {
		if filepath.IsAbs(ds[i].File) {
			if rel, err := filepath.Rel(dir, ds[i].File); err == nil && !strings.HasPrefix(rel, "..") {
				ds[i].File = rel
			}
		}
	}
	return ds
}
