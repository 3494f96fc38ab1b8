package compiler

import (
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
)

// Bounds on expressions (W027). The parser already bounds the nesting of
// brackets and prefix operators (dsl.MaxNesting), but not an operator
// chain: `n + 1 + 1 + …` is one expression nested one level per operator,
// and the generator, the formatter of the generated source and the
// evaluator all work through that nesting. With these bounds everything
// the checker accepts is generated in time linear in the spec.
const (
	// MaxExprDepth is the deepest nesting of one expression, counted in
	// expression nodes: an operator, a call, a field access, an aggregate
	// each add a level. The example worlds stay under 12.
	MaxExprDepth = 100
	// MaxDeclNodes is the most expression nodes and statements of one
	// declaration: a tool's body, an invariant, a task's rubric. The
	// example worlds stay under 300.
	MaxDeclNodes = 20_000
	// MaxCheckSteps bounds the evaluation steps of checking one spec, all
	// of them (W026): the invariants on the seed, every task's rubric on
	// its start state, every golden solution and its grading. Each of
	// these is also bounded on its own by eval.DefaultLimits.
	MaxCheckSteps = 500_000_000
	// MaxToolSchemaBytes bounds what the JSON schema of one tool's
	// parameters says about the records they take (each record once, in
	// $defs or in place): their fields, docs and enum values, estimated
	// from the spec. MaxSchemaBytes bounds the same for all the tools
	// together: a record is described again in every tool that takes it.
	MaxToolSchemaBytes = 1 << 20
	MaxSchemaBytes     = 32 << 20
)

// checkSchemaBounds is W019 for the tools' JSON schemas: each record is
// described once per tool that takes it (in its $defs or in place), so a
// thousand tools taking a record with a large closure made a tools.go of
// hundreds of megabytes.
func (c *checker) checkSchemaBounds() {
	var total int
	for _, t := range c.w.Tools {
		n := schemaBytes(t)
		if n > MaxToolSchemaBytes {
			c.errorAtNode(diag.SizeLimit, t.Pos, "the JSON schema of the parameters of tool %s describes records in about %d bytes (their fields, docs and enum values); the limit is %d", t.Name, n, MaxToolSchemaBytes)
			continue
		}
		if total += n; total > MaxSchemaBytes {
			c.errorAtNode(diag.SizeLimit, t.Pos, "the JSON schemas of the tools up to %s describe records in about %d bytes (each record once per tool that takes it); the limit is %d", t.Name, total, MaxSchemaBytes)
			return
		}
	}
}

// schemaBytes estimates the bytes the JSON schema of t's parameters spends
// on the records they take (about what gen writes, before the escaping of
// a Go string): every record reachable once, a variant's common fields
// once per case.
func schemaBytes(t *ir.Tool) int {
	seen := map[*ir.StructDef]bool{}
	n := 0
	var visit func(ty *ir.Type)
	fields := func(fs []*ir.Field) {
		for _, f := range fs {
			n += 96 + len(f.Name) + len(f.Doc)
			if f.Type != nil && f.Type.Kind == ir.KindEnum && f.Type.Enum != nil {
				for _, v := range f.Type.Enum.Values {
					n += len(v) + 4
				}
			}
			visit(f.Type)
		}
	}
	visit = func(ty *ir.Type) {
		for ty != nil && (ty.Kind == ir.KindList || ty.Kind == ir.KindMap) {
			ty = ty.Elem
		}
		if ty == nil || ty.Kind != ir.KindStruct || ty.Struct == nil || seen[ty.Struct] {
			return
		}
		sd := ty.Struct
		seen[sd] = true
		n += 64 + len(sd.Name)
		if sd.Tag == nil || len(sd.Cases) == 0 {
			fields(sd.Fields)
			return
		}
		for _, cs := range sd.Cases {
			fields(sd.Fields)
			fields(cs.Fields)
		}
	}
	for _, p := range t.Params {
		visit(p.Type)
	}
	return n
}

// checkExprBounds is W027: every expression within MaxExprDepth, every
// declaration within MaxDeclNodes. Each is reported once, at the
// expression or declaration that exceeds it.
func (c *checker) checkExprBounds() {
	for _, t := range c.w.Tools {
		b := c.newBounds("tool "+t.Name, t.Pos)
		ir.WalkStmts(t.Body, func(ir.Stmt) { b.nodes++ }, func(e ir.Expr) bool {
			b.expr(e)
			return false
		})
		b.done()
	}
	for _, inv := range c.w.Invariants {
		b := c.newBounds("invariant "+inv.Name, inv.Pos)
		b.expr(inv.Where)
		b.expr(inv.Check)
		b.done()
	}
	for _, t := range c.w.Tasks {
		b := c.newBounds("the rubric of task "+t.Name, t.Pos)
		for _, a := range t.Assertions {
			b.expr(a.Expr)
			for _, l := range a.Except {
				b.expr(l)
			}
		}
		b.done()
	}
}

// bounds measures one declaration.
type bounds struct {
	c     *checker
	what  string
	pos   ir.Pos
	nodes int
	deep  bool // an expression was reported too deep
}

func (c *checker) newBounds(what string, pos ir.Pos) *bounds {
	return &bounds{c: c, what: what, pos: pos}
}

// expr counts e's nodes and reports it when it is nested too deeply.
func (b *bounds) expr(e ir.Expr) {
	if e == nil {
		return
	}
	n, d := exprShape(e)
	b.nodes += n
	if d > MaxExprDepth {
		b.deep = true
		pos := e.Position()
		if pos.Line == 0 {
			pos = b.pos
		}
		b.c.errorAtNode(diag.ExpressionTooLarge, pos, "an expression of %s is nested %d levels deep (each operator of a chain such as a + b + c is a level); the limit is %d", b.what, d, MaxExprDepth)
	}
}

// done reports the declaration when it holds too many nodes (unless an
// expression of it was too deep: that is the same problem).
func (b *bounds) done() {
	if b.nodes > MaxDeclNodes && !b.deep {
		b.c.errorAtNode(diag.ExpressionTooLarge, b.pos, "%s holds %d expression nodes and statements; the limit is %d", b.what, b.nodes, MaxDeclNodes)
	}
}

// exprShape is the number of nodes of e and its depth (1 for a leaf).
func exprShape(e ir.Expr) (nodes, depth int) {
	ir.WalkExpr(e, func(x ir.Expr) bool {
		if x == e {
			nodes++
			return true
		}
		n, d := exprShape(x)
		nodes += n
		depth = max(depth, d)
		return false
	})
	return nodes, depth + 1
}
