package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// indexKey names an index of an entity's records by one of its fields.
type indexKey struct {
	e *ir.Entity
	f *ir.Field
}

// indexable is ir.IndexedAggregate, with the index it reads named by
// entity and field.
func indexable(x *ir.Aggregate) (key indexKey, k ir.Expr, rest ir.Expr, ok bool) {
	f, k, rest, ok := ir.IndexedAggregate(x)
	if !ok {
		return key, nil, nil, false
	}
	return indexKey{x.Entity, f}, k, rest, true
}

// mentions reports whether e reads the variable v.
func mentions(e ir.Expr, v *ir.Var) bool { return ir.Mentions(e, v) }

// collectIndexes lists the indexes worth building for e (ir.CollectIndexes).
func collectIndexes(e ir.Expr, inLoop bool, seen map[indexKey]bool, out *[]indexKey) {
	var keys []ir.IndexKey
	irSeen := map[ir.IndexKey]bool{}
	for k := range seen {
		irSeen[ir.IndexKey{Entity: k.e, Field: k.f}] = true
	}
	ir.CollectIndexes(e, inLoop, irSeen, &keys)
	for _, k := range keys {
		seen[indexKey{k.Entity, k.Field}] = true
		*out = append(*out, indexKey{k.Entity, k.Field})
	}
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

// aggregate compiles count/exists/forall/sum/min/max/first/index/list as an immediately
// called function literal looping over the table (or over an index bucket).
func (sc *scope) aggregate(x *ir.Aggregate) code {
	g := sc.g
	var loop *jen.Statement
	if x.Source != nil {
		// Over the elements of a list, or the values of a map in key order.
		src := sc.exprNonNull(x.Source, runtime.MsgIterateNull)
		v := sc.bind(x.Var)
		if !mentions(x.Where, x.Var) && !mentions(x.Value, x.Var) && x.Op != "first" {
			v = "_"
		}
		pos := "_"
		if x.Op == "index" {
			pos = sc.temp("i")
		}
		switch {
		case v == "_" && pos == "_" && x.Source.Type().Kind == ir.KindMap:
			loop = jen.For(jen.Range().Qual(rt, "InKeyOrder").Call(src))
		case v == "_" && pos == "_":
			loop = jen.For(jen.Range().Add(src))
		case x.Source.Type().Kind == ir.KindMap:
			loop = jen.For(jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Qual(rt, "InKeyOrder").Call(src))
		default:
			loop = jen.For(jen.List(jen.Id(pos), jen.Id(v)).Op(":=").Range().Add(src))
		}
		return sc.aggregateLoop(x, v, pos, loop, x.Where)
	}
	ei := g.ents[x.Entity]
	v := sc.bind(x.Var)
	where := x.Where
	// The records to visit: the table, or the bucket of an index.
	records := jen.Id("s").Dot(ei.table).Dot("All").Call()
	size := jen.Id("s").Dot(ei.table).Dot("Len").Call()
	if key, k, rest, ok := indexable(x); ok && sc.readOnly {
		if idx, have := sc.indexes[key]; have {
			where = rest
			kc := sc.valueAs(k, key.f.Type).c
			records = jen.Id(idx).Index(kc)
			if sc.indexCalls {
				records = jen.Id(idx).Call(kc)
			}
			size = jen.Len(records.Clone())
			loop = jen.For(jen.List(jen.Id("_"), jen.Id(v)).Op(":=").Range().Add(records))
		}
	}
	if where == nil {
		// Every record counts: the number of records says it all.
		switch x.Op {
		case "count":
			return primary(jen.Int64().Call(size))
		case "exists":
			return code{c: size.Op(">").Lit(0), prec: precCmp}
		}
	}
	if x.Op != "first" && !mentions(where, x.Var) && !mentions(x.Value, x.Var) {
		// The variable is not read: a Go loop variable would be unused.
		v = "_"
		loop = jen.For(jen.Range().Add(records))
	}
	if loop == nil {
		loop = jen.For(jen.Id(v).Op(":=").Range().Add(records))
	}
	return sc.aggregateLoop(x, v, "", loop, where)
}

// aggregateLoop compiles the aggregate's body inside loop, which binds the
// aggregate's variable to v (and, for index, the element's position to
// pos).
func (sc *scope) aggregateLoop(x *ir.Aggregate, v, pos string, loop *jen.Statement, where ir.Expr) code {
	var body []jen.Code
	if sc.budget {
		body = append(body, tick())
	}
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
	case "list":
		// The elements in order; an element costs a step as it is kept, as
		// in compiler/eval, so the lists a call builds are bounded by its
		// steps.
		out := sc.temp("out")
		if sc.budget {
			body = append(body, tick())
		}
		body = append(body, jen.Id(out).Op("=").Append(jen.Id(out), sc.valueAs(x.Value, x.T.Elem).c))
		return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
			jen.Id(out).Op(":=").Add(sc.g.goType(x.T)).Values(),
			loop.Block(body...),
			jen.Return(jen.Id(out)),
		).Call())
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
		acc = sc.g.numType()
	}
	exact := isFloat(vt) && sc.g.exact()
	val := sc.expr(x.Value)
	item := sc.temp("x")
	if optional(vt) {
		p := sc.temp("p")
		body = append(body,
			jen.Id(p).Op(":=").Add(val.c),
			jen.If(jen.Id(p).Op("==").Nil()).Block(jen.Continue()),
			jen.Id(item).Op(":=").Op("*").Id(p),
		)
	} else if untypedConst(x.Value) {
		// A constant is untyped in Go: give it the accumulator's type.
		body = append(body, jen.Var().Id(item).Add(acc).Op("=").Add(val.c))
	} else {
		body = append(body, jen.Id(item).Op(":=").Add(val.c))
	}
	result := sc.temp("acc")
	var final *jen.Statement = jen.Id(result)
	switch {
	case isFloat(x.T) && !isFloat(vt):
		final = sc.g.intToDecimal(jen.Id(result))
	case !isFloat(x.T) && exact:
		final = jen.Id(result).Dot("Int64").Call()
	case !isFloat(x.T) && isFloat(vt):
		final = jen.Qual(rt, "FloatToInt").Call(jen.Id(result))
	}
	if x.Op == "sum" {
		add := jen.Id(result).Op("+=").Id(item)
		if exact {
			add = jen.Id(result).Op("=").Id(result).Dot("Add").Call(jen.Id(item))
		}
		body = append(body, add)
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
	if exact {
		pick = jen.Qual(rt, map[string]string{"min": "MinDecimal", "max": "MaxDecimal"}[x.Op]).Call(jen.Id(result), jen.Id(item))
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

// tick counts an iteration of a loop of a tool body (runtime.Journal.Tick).
func tick() jen.Code { return jen.Id("s").Dot("j").Dot("Tick").Call() }
