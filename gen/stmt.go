package gen

import (
	"maps"
	"math"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// body compiles the statements of one custom tool.
type body struct {
	sc      *scope
	tool    *ir.Tool
	zero    *jen.Statement // the zero result, nil for a tool returning null
	usesErr bool           // some statement assigns the function-level err
	recVars []*ir.Var      // record variables in scope, innermost last

	// owned holds the row variables (by Go name) that hold the private
	// copy of their row: Table.Mut returned it, or Insert took it, earlier
	// in this call, and nothing since can have replaced the row (a delete
	// can, and so can a loop's earlier iterations). A write into an owned
	// row needs no Mut: one Mut per record per tool, not one per set.
	owned map[string]bool
	// disowned counts the times owned was cleared, so that a nested block
	// that cleared it clears it after the block too.
	disowned int
	// notes are the comments of statement lists (see note).
	notes map[*jen.Statement]bool
}

// mutRow makes the record in the row variable row (of entity ei) private
// before a write: `if row, err = s.Table.Mut(row.ID); …`, unless it
// already is (see owned).
func (b *body) mutRow(ei *entityInfo, row string) []jen.Code {
	if b.owned[row] {
		return nil
	}
	if b.owned == nil {
		b.owned = map[string]bool{}
	}
	b.owned[row] = true
	b.usesErr = true
	return []jen.Code{jen.If(jen.List(jen.Id(row), jen.Err()).Op("=").Id("s").Dot(ei.table).Dot("Mut").Call(jen.Id(row).Dot(ei.id)), jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err()))}
}

// disown forgets every owned row: after a statement that may replace
// rows (a delete), or rebind a row variable.
func (b *body) disown() {
	clear(b.owned)
	b.disowned++
}

// nested compiles a nested block (a branch, a loop body) with fresh as the
// owned rows it starts with, and returns the owned rows to continue with
// after it: those before it, unless the block may have replaced rows.
func (b *body) nested(fresh map[string]bool, compile func() []jen.Code) []jen.Code {
	saved, disowned := b.owned, b.disowned
	b.owned = fresh
	out := compile()
	b.owned = saved
	if b.disowned != disowned {
		b.disown()
	}
	return out
}

// note is a comment on a line of its own in a statement list: an item of
// the list that is no Go statement (see goStmts).
func (b *body) note(text string) *jen.Statement {
	c := jen.Comment(text)
	if b.notes == nil {
		b.notes = map[*jen.Statement]bool{}
	}
	b.notes[c] = true
	return c
}

// goStmts is how many Go statements the items of a statement list are:
// every item is one, but a note. (The position map counts statements of
// tool bodies; it checks the total against the parsed body.)
func (b *body) goStmts(items []jen.Code) int {
	n := 0
	for _, c := range items {
		if s, ok := c.(*jen.Statement); !ok || !b.notes[s] {
			n++
		}
	}
	return n
}

// fail is `return <zero>, err`.
func (b *body) fail(err jen.Code) *jen.Statement {
	if b.zero == nil {
		return jen.Return(err)
	}
	return jen.Return(jen.Add(b.zero), err)
}

// checked returns err-checking code: `if err := call; err != nil { return … }`.
func (b *body) checked(call *jen.Statement) *jen.Statement {
	return jen.If(jen.Err().Op(":=").Add(call), jen.Err().Op("!=").Nil()).Block(b.fail(jen.Err()))
}

// faultCheck returns the check of s.fault after evaluating an expression
// that may fault, or nil.
func (b *body) faultCheck(exprs ...ir.Expr) []jen.Code {
	for _, e := range exprs {
		if e != nil && canFault(e) {
			return []jen.Code{b.checked(jen.Id("s").Dot("takeFault").Call())}
		}
	}
	return nil
}

// value evaluates e for a destination of type to. When e may fault (or
// asLocal is set) it is stored in a fresh local first and the fault
// checked; the returned code reads the local.
func (b *body) value(e ir.Expr, to *ir.Type, asLocal bool) ([]jen.Code, code) {
	c := b.sc.valueAs(e, to)
	if !canFault(e) && !asLocal {
		return nil, c
	}
	v := b.sc.temp("v")
	out := []jen.Code{jen.Id(v).Op(":=").Add(c.c)}
	out = append(out, b.faultCheck(e)...)
	return out, primary(jen.Id(v))
}

// fieldValue evaluates e for storing in field f: an optional field takes a
// pointer, so a plain value goes through a local; a composite value is a
// copy unless it was just built.
func (b *body) fieldValue(e ir.Expr, f *ir.Field) ([]jen.Code, code) {
	if isNull(e) {
		return nil, primary(jen.Nil())
	}
	if isComposite(f.Type) {
		c := b.sc.stored(e, f.Type)
		if !canFault(e) {
			return nil, c
		}
		v := b.sc.temp("v")
		return append([]jen.Code{jen.Id(v).Op(":=").Add(c.c)}, b.faultCheck(e)...), primary(jen.Id(v))
	}
	if id, ok := e.(*ir.IDOf); ok && f.Type.Optional && b.nullable(id.X) {
		e = id.X // the id of a record that may be null: a *string
	}
	if f.Type.Optional && e.Type().Kind == ir.KindRecord {
		t := *e.Type()
		t.Optional = true
		return b.value(&ir.VarRef{ExprBase: ir.ExprBase{T: &t}, Var: vrVar(e)}, f.Type, false)
	}
	if f.Type.Optional && !mayBeNull(e) {
		base := *f.Type
		base.Optional = false
		pre, c := b.value(e, &base, true)
		if len(pre) > 0 {
			// The local was declared with :=; give it the field's type when
			// the value is an untyped constant.
			if l, isLit := e.(*ir.Lit); isLit && l.Value != nil || !isLit && untypedConst(e) {
				pre[0] = jen.Var().Add(c.c).Add(b.sc.g.baseGoType(&base)).Op("=").Add(b.sc.valueAs(e, &base).c)
			}
		}
		return pre, primary(jen.Op("&").Add(c.c))
	}
	return b.value(e, f.Type, false)
}

// nullable reports whether e is a record that may be null: an optional
// ref parameter left out.
func (b *body) nullable(e ir.Expr) bool {
	if optional(e.Type()) {
		return true
	}
	v := vrVar(e)
	if v == nil {
		return false
	}
	for _, p := range b.tool.Params {
		if p.Var == v && p.Type.Optional {
			return true
		}
	}
	return false
}

// stmts compiles a statement list.
func (b *body) stmts(list []ir.Stmt) []jen.Code { return b.stmtsEach(list, nil) }

// stmtsEach is stmts, calling each, when not nil, with every statement
// compiled and its code.
func (b *body) stmtsEach(list []ir.Stmt, each func(st ir.Stmt, code []jen.Code)) []jen.Code {
	var out []jen.Code
	scopeLen := len(b.recVars)
	for _, st := range list {
		code := b.stmt(st)
		if each != nil {
			each(st, code)
		}
		out = append(out, code...)
		if terminates([]ir.Stmt{st}) {
			break // what follows is unreachable
		}
	}
	b.recVars = b.recVars[:scopeLen]
	return out
}

func (b *body) stmt(st ir.Stmt) []jen.Code {
	sc := b.sc
	g := sc.g
	switch x := st.(type) {
	case *ir.Require:
		fail := b.failure(x.Message, x.MessageExpr)
		if !canFault(x.Cond) {
			return []jen.Code{jen.If(sc.negated(x.Cond)).Block(fail...)}
		}
		ok := sc.temp("ok")
		out := []jen.Code{jen.Id(ok).Op(":=").Add(sc.expr(x.Cond).c)}
		out = append(out, b.faultCheck(x.Cond)...)
		return append(out, jen.If(jen.Op("!").Id(ok)).Block(fail...))

	case *ir.Fail:
		return b.failure(x.Message, x.MessageExpr)

	case *ir.VarDecl:
		return b.varDecl(x)

	case *ir.Assign:
		return b.assign(x)

	case *ir.Let:
		val := sc.valueAs(x.Value, x.Var.Type)
		if isComposite(x.Var.Type) {
			val = sc.stored(x.Value, x.Var.Type) // a copy: later writes do not change it
		}
		name := sc.bind(x.Var)
		var out []jen.Code
		if untypedConst(x.Value) {
			out = append(out, jen.Var().Id(name).Add(g.goType(x.Var.Type)).Op("=").Add(val.c))
		} else {
			out = append(out, jen.Id(name).Op(":=").Add(val.c))
		}
		out = append(out, b.faultCheck(x.Value)...)
		if !b.used(x.Var) {
			out = append(out, jen.Id("_").Op("=").Id(name))
		}
		if x.Var.Type.Kind == ir.KindRecord {
			b.recVars = append(b.recVars, x.Var)
		}
		return out

	case *ir.Set:
		ei := g.ents[x.Field.Entity]
		var out []jen.Code
		var target string
		vr, isVar := x.Target.(*ir.VarRef)
		if isVar {
			target = sc.names[vr.Var]
		} else {
			target = sc.temp("rec")
			out = append(out, jen.Id(target).Op(":=").Add(sc.record(x.Target).c))
			out = append(out, b.faultCheck(x.Target)...)
		}
		pre, val := b.fieldValue(x.Value, x.Field)
		out = append(out, pre...)
		row := target
		if x.Field == x.Field.Entity.Key {
			// compiler/eval: the key of a record cannot change.
			out = append(out, jen.If(jen.Add(val.c).Op("!=").Id(row).Dot(ei.id)).Block(
				b.fail(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit(runtime.MsgKeyChanged), jen.Lit(x.Field.Entity.Name), jen.Lit(x.Field.Name), jen.Lit(x.Field.Entity.Name), jen.Id(row).Dot(ei.id)))))
		}
		out = append(out, b.mutRow(ei, row)...)
		out = append(out, assignment(jen.Id(row).Dot(ei.fields[x.Field]), val.c)...)
		if g.fieldNeedsCheck(x.Field) && !constantMeetsField(x.Value, x.Field) {
			out = append(out, b.checked(jen.Id("s").Dot(g.checkFieldName(x.Field)).Call(jen.Id(row))))
		}
		out = append(out, b.refresh(x.Field.Entity, row, vrVar(x.Target))...)
		return out

	case *ir.Insert:
		ei := g.ents[x.Entity]
		var out []jen.Code
		name := ""
		if x.Var != nil {
			name = sc.bind(x.Var)
		} else {
			name = sc.temp(ei.lower)
		}
		given := map[*ir.Field]code{}
		for _, fi := range x.Fields {
			pre, val := b.fieldValue(fi.Value, fi.Field)
			out = append(out, pre...)
			given[fi.Field] = val
		}
		dict := jen.Dict{}
		if x.Entity.Key == nil {
			dict[jen.Id("ID")] = jen.Id("s").Dot(ei.table).Dot("NextID").Call(jen.Lit(ei.snake))
		}
		for _, f := range x.Entity.Fields {
			if v, ok := given[f]; ok {
				dict[jen.Id(ei.fields[f])] = v.c
				continue
			}
			if f.Default != nil && f.Default.Kind != ir.KindNull {
				if f.Type.Optional {
					tmp := sc.temp("def")
					base := *f.Type
					base.Optional = false
					out = append(out, jen.Var().Id(tmp).Add(g.baseGoType(&base)).Op("=").Add(sc.lit(f.Default, &base).c))
					dict[jen.Id(ei.fields[f])] = jen.Op("&").Id(tmp)
				} else {
					dict[jen.Id(ei.fields[f])] = sc.lit(f.Default, f.Type).c
				}
			}
		}
		out = append(out,
			jen.Id(name).Op(":=").Op("&").Id(ei.typ).Values(dict),
			b.checked(jen.Id("s").Dot(ei.check).Call(jen.Id(name))),
			b.checked(jen.Id("s").Dot(ei.table).Dot("Insert").Call(jen.Id(name))),
		)
		if x.Var != nil {
			if !b.used(x.Var) {
				out = append(out, jen.Id("_").Op("=").Id(name))
			}
			b.recVars = append(b.recVars, x.Var)
			// The table took the record itself: it is this call's.
			if b.owned == nil {
				b.owned = map[string]bool{}
			}
			b.owned[name] = true
		}
		return out

	case *ir.Delete:
		e := x.Target.Type().Entity
		var out []jen.Code
		target := sc.record(x.Target)
		if canFault(x.Target) {
			t := sc.temp("rec")
			out = append(out, jen.Id(t).Op(":=").Add(target.c))
			out = append(out, b.faultCheck(x.Target)...)
			target = primary(jen.Id(t))
		}
		b.disown()
		return append(out, b.checked(jen.Id("s").Dot("delete"+g.ents[e].typ).Call(target.at(precPrimary).Dot(g.ents[e].id))))

	case *ir.Return:
		if b.zero == nil {
			return []jen.Code{jen.Return(jen.Nil())}
		}
		ret := b.tool.Returns
		if x.Value == nil {
			return []jen.Code{jen.Return(jen.Add(b.zero), jen.Nil())}
		}
		var pre []jen.Code
		var val code
		if ret.Optional && !optional(x.Value.Type()) && ret.Kind != ir.KindRecord && !isNull(x.Value) {
			base := *ret
			base.Optional = false
			pre, val = b.value(x.Value, &base, true)
			val = primary(jen.Op("&").Add(val.c))
		} else {
			pre, val = b.value(x.Value, ret, false)
		}
		return append(pre, jen.Return(val.c, jen.Nil()))

	case *ir.If:
		var out []jen.Code
		cond := sc.expr(x.Cond)
		if canFault(x.Cond) {
			c := sc.temp("cond")
			out = append(out, jen.Id(c).Op(":=").Add(cond.c))
			out = append(out, b.faultCheck(x.Cond)...)
			cond = primary(jen.Id(c))
		}
		// Each branch starts with the rows owned before the if.
		st := jen.If(cond.c).Block(b.nested(maps.Clone(b.owned), func() []jen.Code { return b.stmts(x.Then) })...)
		if len(x.Else) == 1 {
			if elif, ok := x.Else[0].(*ir.If); ok && !canFault(elif.Cond) {
				return append(out, st.Else().Add(b.nested(maps.Clone(b.owned), func() []jen.Code { return b.stmt(elif) })[0]))
			}
		}
		if len(x.Else) > 0 {
			st.Else().Block(b.nested(maps.Clone(b.owned), func() []jen.Code { return b.stmts(x.Else) })...)
		}
		return append(out, st)

	case *ir.For:
		if x.Source != nil {
			return b.forValues(x)
		}
		ei := g.ents[x.Entity]
		name := sc.bind(x.Var)
		readOnly := !writesTables(x.Body)
		var inner []jen.Code
		var id string
		if !readOnly {
			g.needIDs[x.Entity] = true
			id = sc.temp("id")
			ok := sc.temp("ok")
			inner = append(inner,
				jen.List(jen.Id(name), jen.Id(ok)).Op(":=").Id("s").Dot(ei.table).Dot("Get").Call(jen.Id(id)),
				jen.If(jen.Op("!").Id(ok)).Block(jen.Comment("deleted by an earlier iteration"), jen.Continue()),
			)
		}
		// A step per record visited, as compiler/eval counts it.
		inner = append(inner, tick())
		if !readOnly {
			if !mentionsStmts(x, x.Var) {
				inner = append(inner, jen.Id("_").Op("=").Id(name))
			}
		}
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
		// The loop variable names a record only inside the loop: statements
		// after it must not refresh it (it is out of scope in Go).
		scopeLen := len(b.recVars)
		b.recVars = append(b.recVars, x.Var)
		// The body owns nothing when it starts: an earlier iteration may
		// have replaced any row.
		inner = append(inner, b.nested(nil, func() []jen.Code { return b.stmts(x.Body) })...)
		b.recVars = b.recVars[:scopeLen]
		if readOnly {
			// The body writes no table: the records it visits are those of
			// a snapshot without taking one.
			if !mentionsStmts(x, x.Var) {
				return []jen.Code{jen.For(jen.Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(inner...)}
			}
			return []jen.Code{jen.For(jen.Id(name).Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(inner...)}
		}
		return []jen.Code{
			b.note("Iterate over a snapshot of the ids: records inserted by the body are not visited."),
			jen.For(jen.List(jen.Id("_"), jen.Id(id)).Op(":=").Range().Id("s").Dot(ei.lower + "IDs").Call()).Block(inner...),
		}
	}
	panic(unexpectedAt(ir.Pos{}, "unsupported statement %T", st))
}

// constantMeetsField reports whether writing e into field f needs no check
// of f's constraints because the checker has proven them: e is a constant
// (null, an enum value, a finite number) and f has no constraint beyond
// those of its type (no bounds, not unique, not the key, not composite),
// which a constant of its type meets. `set claim.status = approved`
// compiles to the write alone.
func constantMeetsField(e ir.Expr, f *ir.Field) bool {
	if f.Unique || len(f.Bounds) > 0 || f == f.Entity.Key || isComposite(f.Type) {
		return false
	}
	l, ok := e.(*ir.Lit)
	if !ok || l.Value == nil {
		return false
	}
	v := l.Value
	switch {
	case v.Kind == ir.KindNull:
		return f.Type.Optional
	case f.Type.Kind == ir.KindEnum:
		return v.Kind == ir.KindEnum && f.Type.Enum != nil && f.Type.Enum.Has(v.Str)
	case f.Type.Kind == ir.KindDecimal || f.Type.Kind == ir.KindMoney:
		return v.Kind == ir.KindInt || (v.Kind == ir.KindDecimal || v.Kind == ir.KindMoney) && !math.IsNaN(v.Num) && !math.IsInf(v.Num, 0)
	}
	return false
}

func vrVar(e ir.Expr) *ir.Var {
	if v, ok := e.(*ir.VarRef); ok {
		return v.Var
	}
	return nil
}

// refresh points the other record variables in scope that hold the record
// just modified (by id) at its new private copy, so that every name of a
// record reads its current values, as in compiler/eval where records are
// live.
func (b *body) refresh(e *ir.Entity, row string, except *ir.Var) []jen.Code {
	var out []jen.Code
	seen := map[*ir.Var]bool{}
	for _, v := range b.recVars {
		if v == except || seen[v] || v.Type.Entity != e {
			continue
		}
		seen[v] = true
		name := b.sc.names[v]
		if name == row {
			continue
		}
		id := b.sc.g.ents[e].id
		out = append(out, jen.If(jen.Id(name).Op("!=").Nil().Op("&&").Id(name).Dot(id).Op("==").Id(row).Dot(id)).Block(
			jen.Id(name).Op("=").Id(row),
		))
	}
	return out
}

// used reports whether v is read anywhere in the tool's body.
func (b *body) used(v *ir.Var) bool {
	found := false
	ir.WalkStmts(b.tool.Body, nil, func(e ir.Expr) bool {
		if r, ok := e.(*ir.VarRef); ok && r.Var == v {
			found = true
		}
		return !found
	})
	return found
}

// mentionsStmts reports whether the loop's where clause or body reads v.
func mentionsStmts(f *ir.For, v *ir.Var) bool {
	if f.Where != nil && mentions(f.Where, v) {
		return true
	}
	found := false
	ir.WalkStmts(f.Body, nil, func(e ir.Expr) bool {
		if r, ok := e.(*ir.VarRef); ok && r.Var == v {
			found = true
		}
		return !found
	})
	return found
}

// terminates reports whether the statement list always ends in a return,
// by Go's rules for terminating statements (a return, or an if/else whose
// branches both terminate).
func terminates(list []ir.Stmt) bool {
	if len(list) == 0 {
		return false
	}
	switch x := list[len(list)-1].(type) {
	case *ir.Return, *ir.Fail:
		return true
	case *ir.If:
		return len(x.Else) > 0 && terminates(x.Then) && terminates(x.Else)
	}
	return false
}

// negated compiles `not e` as an if condition, without a double negation
// for `require not x` and `require k not in E`.
func (sc *scope) negated(e ir.Expr) *jen.Statement {
	switch x := e.(type) {
	case *ir.Unary:
		if x.Op == "not" {
			return sc.expr(x.X).c
		}
	case *ir.KeyIn:
		y := *x
		y.Not = !y.Not
		return sc.expr(&y).c
	}
	return jen.Op("!").Add(sc.expr(e).at(precUnary))
}

// writesTables reports whether statements may change a table: a set,
// insert or delete, or a write through a path rooted at a record (a write
// to a local is not one).
func writesTables(stmts []ir.Stmt) bool {
	writes := false
	ir.WalkStmts(stmts, func(st ir.Stmt) {
		switch x := st.(type) {
		case *ir.Set, *ir.Insert, *ir.Delete:
			writes = true
		case *ir.Assign:
			if k := x.Root.Type().Kind; k == ir.KindRecord || k == ir.KindRef {
				writes = true
			}
		}
	}, nil)
	return writes
}
