package compiler

import (
	"fmt"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// The diagnostics' types are package diag's, under the names the checker's
// API has always used.
type (
	Severity    = diag.Severity
	Position    = diag.Position
	Diagnostic  = diag.Diagnostic
	Diagnostics = diag.Diagnostics
)

// The severities. Only errors make a spec invalid.
const (
	SeverityError   = diag.SeverityError
	SeverityWarning = diag.SeverityWarning
)

// srcPos is a source position of either kind the checker handles: the
// parser's (dsl.Pos, on syntax nodes) or the IR's (ir.Pos, on checked
// nodes). The two have the same fields, so each converts to the other:
// ir.Pos(p) when the checker builds IR, dsl.Pos(p) when it reports at an IR
// node.
type srcPos interface{ dsl.Pos | ir.Pos }

// diagAt builds a diagnostic for a validator at a node's span.
func diagAt(code diag.Code, pos, end dsl.Pos, format string, args ...any) Diagnostic {
	v := mustValidator(code)
	d := Diagnostic{
		Code:     code,
		Severity: SeverityError,
		Message:  fmt.Sprintf(format, args...),
		File:     pos.Filename,
		Line:     pos.Line,
		Col:      pos.Column,
		Hint:     v.Hint,
	}
	if end.Line > 0 {
		d.End = Position{Line: end.Line, Col: end.Column}
	} else {
		d.End = Position{Line: pos.Line, Col: pos.Column}
	}
	return d
}
