package compiler

import (
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Bounds on expressions (W025). The parser already bounds the nesting of
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
)

// checkExprBounds is W025: every expression within MaxExprDepth, every
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
	pos   dsl.Pos
	nodes int
	deep  bool // an expression was reported too deep
}

func (c *checker) newBounds(what string, pos dsl.Pos) *bounds {
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
		b.c.errorf("W025", pos, pos, "an expression of %s is nested %d levels deep (each operator of a chain such as a + b + c is a level); the limit is %d", b.what, d, MaxExprDepth)
	}
}

// done reports the declaration when it holds too many nodes (unless an
// expression of it was too deep: that is the same problem).
func (b *bounds) done() {
	if b.nodes > MaxDeclNodes && !b.deep {
		b.c.errorf("W025", b.pos, b.pos, "%s holds %d expression nodes and statements; the limit is %d", b.what, b.nodes, MaxDeclNodes)
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
