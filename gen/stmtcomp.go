package gen

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// This file compiles the statements of composite values and mutable
// locals: var, set through paths, fail, messages built from values, and
// for loops over lists and maps.

// failure is the statements ending the call with precondition_failed: the
// spec's message, or the value of msgExpr.
func (b *body) failure(msg string, msgExpr ir.Expr) []jen.Code {
	if msgExpr == nil {
		return []jen.Code{b.fail(jen.Qual(rt, "PreconditionFailed").Call(jen.Lit(msg)))}
	}
	// The message ends the call: built once, it cannot grow in a loop.
	budget := b.sc.budget
	b.sc.budget = false
	pre, m := b.value(msgExpr, &ir.Type{Kind: ir.KindString}, false)
	b.sc.budget = budget
	return append(pre, b.fail(jen.Qual(rt, "PreconditionFailed").Call(m.c)))
}

// reads reports whether the tool's body reads the local v: every mention
// but being the whole target of `set v = …`.
func (b *body) reads(v *ir.Var) bool {
	found := false
	check := func(e ir.Expr) {
		if e != nil && mentions(e, v) {
			found = true
		}
	}
	ir.WalkStmts(b.tool.Body, func(st ir.Stmt) {
		switch x := st.(type) {
		case *ir.Assign:
			if vr, ok := x.Root.(*ir.VarRef); !ok || vr.Var != v || len(x.Path) > 0 {
				check(x.Root)
			}
			for _, p := range x.Path {
				check(p.Index)
			}
			check(x.Value)
		case *ir.Require:
			check(x.Cond)
			check(x.MessageExpr)
		case *ir.Fail:
			check(x.MessageExpr)
		case *ir.VarDecl:
			check(x.Value)
		case *ir.Let:
			check(x.Value)
		case *ir.Set:
			check(x.Target)
			check(x.Value)
		case *ir.Insert:
			for _, f := range x.Fields {
				check(f.Value)
			}
		case *ir.Delete:
			check(x.Target)
		case *ir.Return:
			check(x.Value)
		case *ir.If:
			check(x.Cond)
		case *ir.For:
			check(x.Source)
			check(x.Where)
		}
	}, nil)
	return found
}

// varDecl declares a mutable local holding a copy of its value.
func (b *body) varDecl(x *ir.VarDecl) []jen.Code {
	sc := b.sc
	g := sc.g
	val := sc.stored(x.Value, x.Var.Type)
	faulty := canFault(x.Value)
	name := sc.bind(x.Var)
	var out []jen.Code
	if untypedConst(x.Value) || isNull(x.Value) {
		out = append(out, jen.Var().Id(name).Add(g.goType(x.Var.Type)).Op("=").Add(val.c))
	} else {
		out = append(out, jen.Id(name).Op(":=").Add(val.c))
	}
	if faulty {
		out = append(out, b.faultCheck(x.Value)...)
	}
	if !b.reads(x.Var) {
		out = append(out, jen.Id("_").Op("=").Id(name))
	}
	return out
}

// hasWrites reports whether statements write the state or a local.
func hasWrites(stmts []ir.Stmt) bool {
	found := false
	ir.WalkStmts(stmts, func(st ir.Stmt) {
		switch st.(type) {
		case *ir.Assign, *ir.Set, *ir.Insert, *ir.Delete:
			found = true
		}
	}, nil)
	return found
}

// pathType is the type of the value at the end of steps from a value of t.
func (g *generator) pathType(t *ir.Type, steps []ir.PathStep) *ir.Type {
	for _, st := range steps {
		if st.Field != nil {
			t = g.storedType(st.Field)
		} else {
			t = t.Elem
		}
	}
	return t
}

// assign compiles `set root.path = value`, with compiler/eval's order: the
// root, the path's keys left to right, the value; then the path is followed
// and the write made. A record root is copied (Mut) before anything is
// written into it, and the written field's constraints are checked after.
func (b *body) assign(x *ir.Assign) []jen.Code {
	sc := b.sc
	g := sc.g
	vr, isVar := x.Root.(*ir.VarRef)
	local := isVar && (len(x.Path) == 0 || (vr.Var.Type.Kind != ir.KindRecord && vr.Var.Type.Kind != ir.KindRef))
	if !local && len(x.Path) == 1 {
		return b.stmt(&ir.Set{Target: x.Root, Field: x.Path[0].Field, Value: x.Value, Pos: x.Pos})
	}
	var out []jen.Code
	var faulty []ir.Expr
	// The root record.
	var row string
	var e *ir.Entity
	if !local {
		e = x.Path[0].Field.Entity
		if isVar && vr.Var.Type.Kind == ir.KindRecord {
			row = sc.names[vr.Var]
		} else {
			row = sc.temp("rec")
			out = append(out, jen.Id(row).Op(":=").Add(sc.record(x.Root).c))
			faulty = append(faulty, x.Root)
		}
	}
	// The keys, then the value.
	keys := make([]*jen.Statement, len(x.Path))
	for i, st := range x.Path {
		if st.Index == nil {
			continue
		}
		var k code
		if st.Index.Type().Kind == ir.KindEnum {
			k = sc.asString(st.Index)
		} else {
			k = sc.expr(st.Index)
		}
		if simple(st.Index) {
			keys[i] = k.c
			continue
		}
		t := sc.temp("k")
		out = append(out, jen.Id(t).Op(":=").Add(k.c))
		faulty = append(faulty, st.Index)
		keys[i] = jen.Id(t)
	}
	var rootT *ir.Type
	var target *jen.Statement
	steps := x.Path
	if local {
		rootT = vr.Var.Type
		target = sc.expr(x.Root).c
	} else {
		f := x.Path[0].Field
		rootT = f.Type
		target = jen.Id(row).Dot(g.ents[e].fields[f])
		steps, keys = x.Path[1:], keys[1:]
	}
	leaf := g.pathType(rootT, steps)
	val := sc.stored(x.Value, leaf)
	if canFault(x.Value) || len(faulty) > 0 {
		v := sc.temp("v")
		if untypedConst(x.Value) {
			// A constant (1, null) bound by := would be an int or an
			// untyped nil, not a value of the leaf's type.
			out = append(out, jen.Var().Id(v).Add(g.goType(leaf)).Op("=").Add(val.c))
		} else {
			out = append(out, jen.Id(v).Op(":=").Add(val.c))
		}
		val = primary(jen.Id(v))
		faulty = append(faulty, x.Value)
	}
	out = append(out, b.faultCheck(faulty...)...)
	if !local {
		ei := g.ents[e]
		out = append(out, b.mutRow(ei, row)...)
		target = jen.Id(row).Dot(ei.fields[x.Path[0].Field])
	} else if k := vr.Var.Type.Kind; len(x.Path) == 0 && (k == ir.KindRecord || k == ir.KindRef) {
		// The variable now holds another record (or id).
		b.disown()
	}
	write := b.pathWrite(target, rootT, steps, keys, val.c)
	if local && len(write) == 0 {
		// `set x = x`: nothing to write, but x is read.
		write = []jen.Code{jen.Id("_").Op("=").Add(target)}
	}
	out = append(out, write...)
	if !local {
		f := x.Path[0].Field
		if g.fieldNeedsCheck(f) {
			out = append(out, b.checked(jen.Id("s").Dot(g.checkFieldName(f)).Call(jen.Id(row))))
		}
		var except *ir.Var
		if isVar {
			except = vr.Var
		}
		out = append(out, b.refresh(e, row, except)...)
	}
	return out
}

// assignment is `lhs = rhs`, or nothing when rhs is lhs itself: writing
// a value back where it was read changes nothing (and go vet rejects a
// self-assignment).
func assignment(lhs, rhs *jen.Statement) []jen.Code {
	if goText(lhs) == goText(rhs) {
		return nil
	}
	return []jen.Code{jen.Add(lhs).Op("=").Add(rhs)}
}

// pathWrite writes val at the end of steps inside target, a Go expression
// of a value of t (addressable, or a slice or map). Steps into lists check
// the index, steps into maps the key (the last step of a path into a map
// inserts the key), steps through null fail: compiler/eval's replaceAt.
func (b *body) pathWrite(target *jen.Statement, t *ir.Type, steps []ir.PathStep, keys []*jen.Statement, val *jen.Statement) []jen.Code {
	g := b.sc.g
	if len(steps) == 0 {
		return assignment(target, val)
	}
	st := steps[0]
	var out []jen.Code
	if st.Field != nil {
		if t.Optional {
			out = append(out, jen.If(jen.Add(target).Op("==").Nil()).Block(
				b.fail(jen.Qual(rt, "Internal").Call(jen.Lit(runtime.MsgFieldOfNull), jen.Lit(st.Field.Name)))))
		}
		return append(out, b.pathWrite(jen.Add(target).Dot(g.structs[st.Field.Struct].fields[st.Field]), g.storedType(st.Field), steps[1:], keys[1:], val)...)
	}
	if t.Optional {
		out = append(out, jen.If(jen.Add(target).Op("==").Nil()).Block(
			b.fail(jen.Qual(rt, "Internal").Call(jen.Lit(runtime.MsgIndexNull)))))
	}
	k := keys[0]
	if t.Kind == ir.KindList {
		out = append(out, jen.If(jen.Add(k).Op("<").Lit(0).Op("||").Add(k).Op(">=").Int64().Call(jen.Len(target))).Block(
			b.fail(jen.Qual(rt, "IndexError").Call(k, jen.Len(target)))))
		return append(out, b.pathWrite(jen.Add(target).Index(k), t.Elem, steps[1:], keys[1:], val)...)
	}
	if len(steps) == 1 {
		return append(out, jen.Add(target).Index(k).Op("=").Add(val))
	}
	// A value inside a map is not addressable: read it, write into it, put
	// it back.
	e := b.sc.temp("e")
	ok := b.sc.temp("ok")
	out = append(out,
		jen.List(jen.Id(e), jen.Id(ok)).Op(":=").Add(target).Index(k),
		jen.If(jen.Op("!").Id(ok)).Block(b.fail(jen.Qual(rt, "KeyError").Call(k))))
	out = append(out, b.pathWrite(jen.Id(e), t.Elem, steps[1:], keys[1:], val)...)
	return append(out, jen.Add(target).Index(k).Op("=").Id(e))
}

// forValues compiles `for v in xs` and `for k, v in m`: over a snapshot of
// the list or map taken when the loop starts (a deep copy when the body
// writes), the list in order with int indexes, the map in key order.
func (b *body) forValues(x *ir.For) []jen.Code {
	sc := b.sc
	g := sc.g
	st := x.Source.Type()
	var out []jen.Code
	src := sc.exprNonNull(x.Source, runtime.MsgIterateNull)
	comment := "Iterate over the list as it is when the loop starts."
	if hasWrites(x.Body) {
		snap := sc.temp("snapshot")
		out = append(out, jen.Id(snap).Op(":=").Add(g.cloneOf(st, src)))
		src = jen.Id(snap)
		comment = "Iterate over a copy of the list: the body's writes do not change it."
	}
	if canFault(x.Source) {
		out = append(out, b.faultCheck(x.Source)...)
	}
	name, key := "_", "_"
	if mentionsStmts(x, x.Var) {
		name = sc.bind(x.Var)
	} else {
		sc.bind(x.Var)
	}
	if x.Key != nil && mentionsStmts(x, x.Key) {
		key = sc.bind(x.Key)
	}
	inner := []jen.Code{tick()}
	if x.Where != nil {
		if canFault(x.Where) {
			c := sc.temp("match")
			inner = append(inner, jen.Id(c).Op(":=").Add(sc.expr(x.Where).c))
			inner = append(inner, b.faultCheck(x.Where)...)
			inner = append(inner, jen.If(jen.Op("!").Id(c)).Block(jen.Continue()))
		} else {
			inner = append(inner, jen.If(jen.Op("!").Add(sc.expr(x.Where).at(precUnary))).Block(jen.Continue()))
		}
	}
	inner = append(inner, b.nested(nil, func() []jen.Code { return b.stmts(x.Body) })...)
	var rng *jen.Statement
	switch {
	case st.Kind == ir.KindMap:
		comment = strings.Replace(comment, "list", "map", 1) + " In key order."
		rng = jen.Qual(rt, "InKeyOrder").Call(src)
	case key != "_":
		rng = jen.Qual(rt, "Indexed").Call(src)
	default:
		rng = src
	}
	if key == "_" && name == "_" {
		return append(out, b.note(comment), jen.For(jen.Range().Add(rng)).Block(inner...))
	}
	return append(out, b.note(comment), jen.For(jen.List(jen.Id(key), jen.Id(name)).Op(":=").Range().Add(rng)).Block(inner...))
}
