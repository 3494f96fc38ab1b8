package gen

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// TestUnexpectedIR: IR the checker would never produce makes Generate
// return an error that names the world and the spec position of what it
// could not compile, not panic.
func TestUnexpectedIR(t *testing.T) {
	t.Parallel()
	at := ir.Pos{Filename: "northwind.world", Line: 42, Column: 7}
	tests := []struct {
		name  string
		spoil func(w *ir.World)
		want  []string // in the error
	}{
		{"unknown tool kind", func(w *ir.World) {
			w.Tools[0].Kind, w.Tools[0].Pos = "frobnicate", at
		}, []string{"world northwind", "northwind.world:42:7", `unknown tool kind "frobnicate"`, "not of the spec"}},
		{"unknown operator", func(w *ir.World) {
			b := firstBinary(t, w)
			b.Op, b.Pos = "<>", at
		}, []string{"world northwind", "northwind.world:42:7", "unknown operator <>"}},
		{"unknown function", func(w *ir.World) {
			b := firstBinary(t, w)
			b.L = &ir.Call{ExprBase: ir.ExprBase{T: b.L.Type(), Pos: at}, Func: "frobnicate"}
		}, []string{"world northwind", "northwind.world:42:7", "unknown function frobnicate"}},
		{"a panic the generator did not foresee", func(w *ir.World) {
			w.Pos = at
			w.Entities[0].Fields[0].Type = nil
		}, []string{"world northwind", "northwind.world:42:7", "panicked", "nil pointer"}},
		{"a malformed clock", func(w *ir.World) {
			w.Pos, w.Today = at, "2026-02-30"
		}, []string{"world northwind", "northwind.world:42:7", "today"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := northwind().World
			tt.spoil(w)
			files, err := Generate(w)
			if err == nil {
				t.Fatalf("no error, %d files", len(files))
			}
			if files != nil {
				t.Errorf("files besides the error: %d", len(files))
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

// firstBinary is the first binary expression of w's invariants.
func firstBinary(t *testing.T, w *ir.World) *ir.Binary {
	t.Helper()
	var found *ir.Binary
	for _, inv := range w.Invariants {
		for _, e := range []ir.Expr{inv.Where, inv.Check} {
			ir.WalkExpr(e, func(x ir.Expr) bool {
				if b, ok := x.(*ir.Binary); ok && found == nil {
					found = b
				}
				return found == nil
			})
		}
	}
	if found == nil {
		t.Fatal("no binary expression in the fixture's invariants")
	}
	return found
}
