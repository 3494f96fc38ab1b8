package compiler

import (
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// condExpr checks `if C then A else B`: C a bool; A knows what C being
// true says of null values, B what its being false says (narrow.go). The
// result has the type both branches have (condType); a branch that is a
// bare name or an empty list or map takes the other's type, and when both
// are, the context's (coerce).
func (c *checker) condExpr(e *dsl.CondExpr, s *scope) ir.Expr {
	cond := c.boolExpr(e.Cond, s, "condition of if … then … else")
	then := c.expr(e.Then, s.knowing(narrowedBy(cond, true)))
	els := c.expr(e.Else, s.knowing(narrowedBy(cond, false)))
	if isInvalid(cond) || isInvalid(then) || isInvalid(els) {
		return invalid(e.Pos)
	}
	x := &ir.Cond{ExprBase: base(then.Type(), e.Pos), Cond: cond, Then: then, Else: els}
	if untypedCond(x) {
		return x // typed by its context: coerce, or settle where there is none
	}
	switch {
	case untypedBranch(then):
		if els = c.settle(els, e.Else.EndPos); !isInvalid(els) {
			then = c.coerce(then, els.Type(), e.Then.EndPos, "the then branch")
		}
	case untypedBranch(els):
		if then = c.settle(then, e.Then.EndPos); !isInvalid(then) {
			els = c.coerce(els, then.Type(), e.Else.EndPos, "the else branch")
		}
	default:
		then, els = c.settle(then, e.Then.EndPos), c.settle(els, e.Else.EndPos)
	}
	if isInvalid(then) || isInvalid(els) {
		return invalid(e.Pos)
	}
	return c.condType(&ir.Cond{ExprBase: base(nil, e.Pos), Cond: cond, Then: then, Else: els}, e.Pos, e.EndPos)
}

// untypedBranch reports whether e takes its type from its context: a bare
// name that may be an enum value, an untyped list or map literal, or a
// conditional of such branches.
func untypedBranch(e ir.Expr) bool {
	if _, ok := untypedEnum(e); ok {
		return true
	}
	return untypedComposite(e) || untypedCond(e)
}

// untypedCond reports whether e is a conditional typed by its context:
// each branch is one (untypedBranch) or null, and one is not null.
func untypedCond(e ir.Expr) bool {
	x, ok := e.(*ir.Cond)
	if !ok {
		return false
	}
	then, els := untypedBranch(x.Then), untypedBranch(x.Else)
	return (then || els) && (then || isNullLit(x.Then)) && (els || isNullLit(x.Else))
}

// condType gives x, whose branches are typed, the type both have: the
// type of both; a number of the mix of the two kinds (money, then
// decimal, then int, an int branch converted); a string for a string and
// a text; a ref for a record and a ref of one entity; and optional when
// either is optional or null.
func (c *checker) condType(x *ir.Cond, pos, end dsl.Pos) ir.Expr {
	lt, rt := x.Then.Type(), x.Else.Type()
	opt := lt.Optional || rt.Optional
	var t ir.Type
	switch {
	case lt.Kind == ir.KindNull && rt.Kind == ir.KindNull:
		c.errorf(diag.TypeMismatch, pos, end, "both branches of if … then … else are null: the value has no type")
		return invalid(pos)
	case lt.Kind == ir.KindNull:
		t = *rt
	case rt.Kind == ir.KindNull:
		t = *lt
	case lt.Kind.Numeric() && rt.Kind.Numeric():
		t = ir.Type{Kind: numericResult(lt.Kind, rt.Kind)}
		x.Then, x.Else = convertTo(x.Then, t.Kind), convertTo(x.Else, t.Kind)
	case lt.Kind.Textual() && rt.Kind.Textual():
		t = ir.Type{Kind: ir.KindString}
		if lt.Kind == rt.Kind {
			t.Kind = lt.Kind
		}
	case lt.Kind == ir.KindEnum && rt.Kind.Textual() && isStringLit(x.Else):
		x.Else = c.coerce(x.Else, nonOptional(lt), end, "the else branch")
		t = *lt
	case rt.Kind == ir.KindEnum && lt.Kind.Textual() && isStringLit(x.Then):
		x.Then = c.coerce(x.Then, nonOptional(rt), end, "the then branch")
		t = *rt
	case (lt.Kind == ir.KindRecord || lt.Kind == ir.KindRef) && (rt.Kind == ir.KindRecord || rt.Kind == ir.KindRef) && lt.Entity == rt.Entity:
		t = *lt
		if lt.Kind != rt.Kind {
			x.Then, x.Else = toRef(x.Then), toRef(x.Else)
			t = ir.Type{Kind: ir.KindRef, Entity: lt.Entity}
		}
	case sameType(nonOptional(lt), nonOptional(rt)) && lt.Kind != ir.KindSet:
		t = *lt
	default:
		c.errorf(diag.TypeMismatch, pos, end, "the branches of if … then … else have different types: %s and %s", lt, rt)
		return invalid(pos)
	}
	if isInvalid(x.Then) || isInvalid(x.Else) {
		return invalid(pos)
	}
	t.Optional = opt
	x.T = &t
	return x
}

// convertTo converts an int e to the numeric kind k (an optional int stays
// optional).
func convertTo(e ir.Expr, k ir.Kind) ir.Expr {
	t := e.Type()
	if t.Kind != ir.KindInt || k == ir.KindInt {
		return e
	}
	return &ir.Convert{ExprBase: ir.ExprBase{T: &ir.Type{Kind: k, Optional: t.Optional}, Pos: e.Position()}, X: e}
}

func isStringLit(e ir.Expr) bool {
	l, ok := e.(*ir.Lit)
	return ok && l.Value != nil && l.Value.Kind == ir.KindString
}

// coerceCond coerces both branches of a conditional typed by its context
// to want.
func (c *checker) coerceCond(x *ir.Cond, want *ir.Type, end dsl.Pos, what string) ir.Expr {
	then := c.coerce(x.Then, want, end, what)
	els := c.coerce(x.Else, want, end, what)
	if isInvalid(then) || isInvalid(els) {
		return invalid(x.Pos)
	}
	return c.condType(&ir.Cond{ExprBase: ir.ExprBase{Pos: x.Pos}, Cond: x.Cond, Then: then, Else: els}, dsl.Pos(x.Pos), end)
}

// settleCond settles a conditional typed by its context where there is
// none: a branch that tells its type on its own (a literal with elements)
// is settled, and the other takes its type.
func (c *checker) settleCond(x *ir.Cond, end dsl.Pos) ir.Expr {
	then, els := x.Then, x.Else
	switch {
	case !emptyLit(then):
		if then = c.settle(then, end); !isInvalid(then) {
			els = c.coerce(els, then.Type(), end, "the else branch")
		} else if !emptyLit(els) {
			els = c.settle(els, end) // its own mistakes too
		}
	case !emptyLit(els):
		if els = c.settle(els, end); !isInvalid(els) {
			then = c.coerce(then, els.Type(), end, "the then branch")
		}
	default:
		then, els = c.settle(then, end), c.settle(els, end)
	}
	if isInvalid(then) || isInvalid(els) {
		return invalid(x.Pos)
	}
	return c.condType(&ir.Cond{ExprBase: ir.ExprBase{Pos: x.Pos}, Cond: x.Cond, Then: then, Else: els}, dsl.Pos(x.Pos), end)
}

// emptyLit reports whether e is null or an empty list or map literal: a
// value that does not tell its type.
func emptyLit(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.ListLit:
		return len(x.Elems) == 0
	case *ir.MapLit:
		return len(x.Entries) == 0
	}
	return isNullLit(e)
}
