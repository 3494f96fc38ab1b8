package author

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/gate"
)

// Finding is one problem the loop feeds back to the model: a diagnostic of
// `worldc check` (the same fields as its JSON) or an error of the gate.
type Finding struct {
	Code     string             `json:"code,omitempty"`
	Severity compiler.Severity  `json:"severity"`
	Message  string             `json:"message"`
	File     string             `json:"file,omitempty"`
	Line     int                `json:"line,omitempty"`
	Col      int                `json:"col,omitempty"`
	End      *compiler.Position `json:"end,omitempty"`
	Hint     string             `json:"hint,omitempty"`
	// Go is the position in the generated package of a gate error.
	Go string `json:"go,omitempty"`
	// Context is the spec's lines around the position, numbered, with the
	// position marked; not part of the JSON the prompt shows.
	Context string `json:"-"`
}

// Where is the finding's position as `file:line:col`, or "the spec".
func (f Finding) Where() string {
	if f.Line == 0 {
		if f.Go != "" {
			return "generated " + f.Go
		}
		return "the spec"
	}
	return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Col)
}

// contextLines is how many lines before and after a position the repair
// prompt shows.
const contextLines = 2

// CheckFindings turns check diagnostics (errors only: warnings do not stop
// a spec) into findings with the lines around each position.
func CheckFindings(diags compiler.Diagnostics, src string) []Finding {
	var out []Finding
	for _, d := range diags {
		if d.Severity != compiler.SeverityError {
			continue
		}
		end := d.End
		f := Finding{Code: string(d.Code), Severity: d.Severity, Message: d.Message, File: d.File, Line: d.Line, Col: d.Col, End: &end, Hint: d.Hint}
		f.Context = snippet(src, d.Line, d.Col)
		out = append(out, f)
	}
	return out
}

// GateFindings turns a failed gate verdict into findings: each error at
// its spec position when the gate could tell it (the declaration the Go
// code was generated from) or when its message names a tool, task or
// invariant of w ("tool pay: …"), else at its Go position only.
func GateFindings(r gate.WorldResult, src string, w *ir.World) []Finding {
	var out []Finding
	for _, e := range r.Errors {
		f := Finding{Severity: compiler.SeverityError, Message: e.Message, Go: e.Go}
		file, line, col, ok := parseSpecPos(e.Spec)
		if !ok {
			file, line, col, ok = declPos(w, e.Message)
		}
		if ok {
			f.File, f.Line, f.Col = file, line, col
			f.Context = snippet(src, line, col)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		out = append(out, Finding{Severity: compiler.SeverityError, Message: r.Reason})
	}
	return out
}

// declPos is the position of the declaration a conformance message starts
// with: "tool NAME: …", "task NAME: …" or "invariant NAME …".
func declPos(w *ir.World, msg string) (string, int, int, bool) {
	if w == nil {
		return "", 0, 0, false
	}
	kind, rest, _ := strings.Cut(msg, " ")
	fields := strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == ':' || r == ',' })
	if len(fields) == 0 {
		return "", 0, 0, false
	}
	name := fields[0]
	var pos *ir.Pos
	switch kind {
	case "tool":
		for _, t := range w.Tools {
			if t.Name == name {
				pos = &t.Pos
			}
		}
	case "task":
		for _, t := range w.Tasks {
			if t.Name == name {
				pos = &t.Pos
			}
		}
	case "invariant":
		for _, inv := range w.Invariants {
			if inv.Name == name {
				pos = &inv.Pos
			}
		}
	}
	if pos == nil || pos.Line == 0 {
		return "", 0, 0, false
	}
	return pos.Filename, pos.Line, pos.Column, true
}

// parseSpecPos reads "file:line:col" or "file:line:col, tool x".
func parseSpecPos(s string) (file string, line, col int, ok bool) {
	s, _, _ = strings.Cut(s, ", ")
	parts := strings.Split(s, ":")
	if len(parts) < 3 {
		return "", 0, 0, false
	}
	n := len(parts)
	l, err1 := strconv.Atoi(parts[n-2])
	c, err2 := strconv.Atoi(parts[n-1])
	if err1 != nil || err2 != nil {
		return "", 0, 0, false
	}
	return strings.Join(parts[:n-2], ":"), l, c, true
}

// snippet is the lines of src around line, numbered, with a caret under
// col.
func snippet(src string, line, col int) string {
	lines := strings.Split(src, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	var b strings.Builder
	width := len(strconv.Itoa(min(len(lines), line+contextLines)))
	for i := max(1, line-contextLines); i <= min(len(lines), line+contextLines); i++ {
		fmt.Fprintf(&b, "%*d | %s\n", width, i, lines[i-1])
		if i == line && col >= 1 {
			fmt.Fprintf(&b, "%*s | %s^\n", width, "", strings.Repeat(" ", col-1))
		}
	}
	return b.String()
}

func findingsJSON(fs []Finding) []byte {
	if fs == nil {
		fs = []Finding{}
	}
	out, _ := json.MarshalIndent(fs, "", "  ")
	return append(out, '\n')
}

// Signature identifies a set of findings regardless of where they are:
// their codes and messages, sorted. A repair whose findings have the
// signature of the previous round's made no progress.
func Signature(fs []Finding) string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.Code + " " + f.Message
	}
	slices.Sort(keys)
	return strings.Join(keys, "\n")
}

// codes lists the distinct codes of the findings, sorted.
func codes(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Code != "" && !slices.Contains(out, f.Code) {
			out = append(out, f.Code)
		}
	}
	slices.Sort(out)
	return out
}
