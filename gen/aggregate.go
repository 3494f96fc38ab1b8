package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// indexKey names an index of an entity's records by one of its fields.
type indexKey struct {
	e *ir.Entity
	f *ir.Field
}

// indexable reports whether the aggregate's where clause is a conjunction
// holding `v.f == k` with v the aggregate's variable, f a non-optional
// string-valued field (a ref, string or text) and k not depending on v. Such
// an aggregate can look its candidates up in an index of the entity by f
// instead of scanning the table. rest is the where clause without that
// conjunct (nil when nothing remains).
func indexable(x *ir.Aggregate) (key indexKey, k ir.Expr, rest ir.Expr, ok bool) {
	var conj []ir.Expr
	var split func(e ir.Expr)
	split = func(e ir.Expr) {
		if b, isBin := e.(*ir.Binary); isBin && b.Op == "and" {
			split(b.L)
			split(b.R)
			return
		}
		conj = append(conj, e)
	}
	if x.Where == nil || x.Source != nil {
		return key, nil, nil, false
	}
	split(x.Where)
	for i, c := range conj {
		b, isBin := c.(*ir.Binary)
		if !isBin || b.Op != "==" {
			continue
		}
		for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
			fr, isField := side[0].(*ir.FieldRef)
			if !isField || fr.Field == nil || fr.Field.Type.Optional {
				continue
			}
			if vr, isVar := fr.X.(*ir.VarRef); !isVar || vr.Var != x.Var {
				continue
			}
			switch fr.Field.Type.Kind {
			case ir.KindRef, ir.KindString, ir.KindText:
			default:
				continue
			}
			other := side[1]
			switch ot := other.Type(); {
			case ot.Optional:
				continue
			case ot.Kind == ir.KindRef || ot.Kind == ir.KindString || ot.Kind == ir.KindText || ot.Kind == ir.KindRecord:
			default:
				continue
			}
			if mentions(other, x.Var) {
				continue
			}
			for j, d := range conj {
				if j == i {
					continue
				}
				if rest == nil {
					rest = d
				} else {
					rest = &ir.Binary{ExprBase: ir.ExprBase{T: x.Where.Type()}, Op: "and", L: rest, R: d}
				}
			}
			return indexKey{x.Entity, fr.Field}, other, rest, true
		}
	}
	return key, nil, nil, false
}

// mentions reports whether e reads the variable v.
func mentions(e ir.Expr, v *ir.Var) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) bool {
		if r, ok := x.(*ir.VarRef); ok && r.Var == v {
			found = true
		}
		return !found
	})
	return found
}

// collectIndexes lists the indexes worth building for e: those of
// indexable aggregates evaluated once per row of an enclosing loop (inLoop
// is true inside an invariant's row loop and inside another aggregate).
func collectIndexes(e ir.Expr, inLoop bool, seen map[indexKey]bool, out *[]indexKey) {
	if e == nil {
		return
	}
	switch x := e.(type) {
	case *ir.Aggregate:
		if key, _, _, ok := indexable(x); ok && inLoop && !seen[key] {
			seen[key] = true
			*out = append(*out, key)
		}
		collectIndexes(x.Where, true, seen, out)
		collectIndexes(x.Value, true, seen, out)
		return
	}
	ir.WalkExpr(e, func(sub ir.Expr) bool {
		if sub == e {
			return true
		}
		collectIndexes(sub, inLoop, seen, out)
		return false
	})
}

// buildIndexes declares the indexes (map from field value to the records
// holding it, in insertion order) before a read-only check runs, and makes
// them available to the scope's aggregates.
func (sc *scope) buildIndexes(keys []indexKey) []jen.Code {
	var out []jen.Code
	for _, k := range keys {
		ei := sc.g.ents[k.e]
		name := sc.temp(lowerFirst(ei.table) + "By" + ei.fields[k.f])
		sc.indexes[k] = name
		r := sc.temp("r")
		out = append(out,
			jen.Id(name).Op(":=").Make(jen.Map(jen.String()).Index().Op("*").Id(ei.typ)),
			jen.For(jen.Id(r).Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(
				jen.Id(name).Index(jen.Id(r).Dot(ei.fields[k.f])).Op("=").Append(jen.Id(name).Index(jen.Id(r).Dot(ei.fields[k.f])), jen.Id(r)),
			),
		)
	}
	return out
}

// aggregate compiles count/exists/forall/sum/min/max as an immediately
// called function literal looping over the table (or over an index bucket).
func (sc *scope) aggregate(x *ir.Aggregate) code {
	g := sc.g
	var loop *jen.Statement
	if x.Source != nil {
		// Over the elements of a list, or the values of a map in key order.
		src := sc.exprNonNull(x.Source, "cannot iterate over null")
		v := sc.bind(x.Var)
		if !mentions(x.Where, x.Var) && !mentions(x.Value, x.Var) && x.Op != "first" {
			v = "_"
		}
		pos := "_"
		if x.Op == "index" {
			pos = sc.temp("i")
		}
		if x.Source.Type().Kind == ir.KindMap {
			loop = jen.For(jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Qual(rt, "InKeyOrder").Call(src))
		} else {
			loop = jen.For(jen.List(jen.Id(pos), jen.Id(v)).Op(":=").Range().Add(src))
		}
		return sc.aggregateLoop(x, v, pos, loop, x.Where)
	}
	ei := g.ents[x.Entity]
	v := sc.bind(x.Var)
	where := x.Where
	if key, k, rest, ok := indexable(x); ok && sc.readOnly {
		if idx, have := sc.indexes[key]; have {
			where = rest
			bucket := jen.Id(idx).Index(sc.valueAs(k, key.f.Type).c)
			if !mentions(rest, x.Var) && !mentions(x.Value, x.Var) && x.Op != "first" {
				// exists(i in E where i.f == k): i is not read.
				loop = jen.For(jen.Range().Add(bucket))
			} else {
				loop = jen.For(jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Add(bucket))
			}
		}
	}
	if loop == nil {
		loop = jen.For(jen.Id(v).Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call())
	}
	return sc.aggregateLoop(x, v, "", loop, where)
}

// aggregateLoop compiles the aggregate's body inside loop, which binds the
// aggregate's variable to v (and, for index, the element's position to
// pos).
func (sc *scope) aggregateLoop(x *ir.Aggregate, v, pos string, loop *jen.Statement, where ir.Expr) code {
	var body []jen.Code
	if where != nil {
		body = append(body, jen.If(jen.Op("!").Add(sc.expr(where).at(precUnary))).Block(jen.Continue()))
	}
	isFloat := func(t *ir.Type) bool { return t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney }
	switch x.Op {
	case "count":
		n := sc.temp("n")
		body = append(body, jen.Id(n).Op("++"))
		return primary(jen.Func().Params().Int64().Block(
			jen.Var().Id(n).Int64(),
			loop.Block(body...),
			jen.Return(jen.Id(n)),
		).Call())
	case "exists":
		body = append(body, jen.Return(jen.True()))
		return primary(jen.Func().Params().Bool().Block(loop.Block(body...), jen.Return(jen.False())).Call())
	case "forall":
		body = append(body, jen.If(jen.Op("!").Add(sc.expr(x.Value).at(precUnary))).Block(jen.Return(jen.False())))
		return primary(jen.Func().Params().Bool().Block(loop.Block(body...), jen.Return(jen.True())).Call())
	case "index":
		body = append(body, jen.Return(jen.Int64().Call(jen.Id(pos))))
		return primary(jen.Func().Params().Int64().Block(loop.Block(body...), jen.Return(jen.Lit(-1))).Call())
	case "first":
		// No match records compiler/eval's fault and yields an empty value
		// (an empty record, so that reading its fields cannot panic).
		what := "element"
		var none *jen.Statement
		if x.Entity != nil {
			what = x.Entity.Name
			none = jen.Return(jen.Op("&").Id(sc.g.ents[x.Entity].typ).Values())
		} else {
			z := sc.temp("zero")
			none = jen.Var().Id(z).Add(sc.g.goType(x.T)).Line().Return(jen.Id(z))
		}
		body = append(body, jen.Return(jen.Id(v)))
		return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
			loop.Block(body...),
			jen.If(jen.Id("s").Dot("fault").Op("==").Nil()).Block(jen.Id("s").Dot("fault").Op("=").Qual(rt, "NoMatch").Call(jen.Lit(what))),
			none,
		).Call())
	}
	// sum, min, max over the values (unset optional values do not count).
	vt := x.Value.Type()
	acc := jen.Int64()
	if isFloat(vt) {
		acc = jen.Float64()
	}
	val := sc.expr(x.Value)
	item := sc.temp("x")
	if optional(vt) {
		p := sc.temp("p")
		body = append(body,
			jen.Id(p).Op(":=").Add(val.c),
			jen.If(jen.Id(p).Op("==").Nil()).Block(jen.Continue()),
			jen.Id(item).Op(":=").Op("*").Id(p),
		)
	} else {
		body = append(body, jen.Id(item).Op(":=").Add(val.c))
	}
	result := sc.temp("acc")
	var final *jen.Statement = jen.Id(result)
	switch {
	case isFloat(x.T) && !isFloat(vt):
		final = jen.Float64().Call(jen.Id(result))
	case !isFloat(x.T) && isFloat(vt):
		final = jen.Qual(rt, "FloatToInt").Call(jen.Id(result))
	}
	if x.Op == "sum" {
		body = append(body, jen.Id(result).Op("+=").Id(item))
		return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
			jen.Var().Id(result).Add(acc),
			loop.Block(body...),
			jen.Return(final),
		).Call())
	}
	found := sc.temp("found")
	pick := jen.Min(jen.Id(result), jen.Id(item))
	if x.Op == "max" {
		pick = jen.Max(jen.Id(result), jen.Id(item))
	}
	body = append(body,
		jen.If(jen.Op("!").Id(found)).Block(
			jen.List(jen.Id(result), jen.Id(found)).Op("=").List(jen.Id(item), jen.True()),
			jen.Continue(),
		),
		jen.Id(result).Op("=").Add(pick),
	)
	return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
		jen.Var().Defs(jen.Id(result).Add(acc), jen.Id(found).Bool()),
		loop.Block(body...),
		jen.Return(final),
	).Call())
}
