package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// This file compiles ir.Match: a whole record compared with an entity
// literal (`x == E { … }`) and matches(x, { f: v, … }). compiler/eval
// evaluates x, then the expected id and values in field order, and only
// then compares; so does the code below (a value that can fault is bound
// before the comparisons, whose && must not skip it).

// match compiles m to a bool expression.
func (sc *scope) match(m *ir.Match) code {
	if m.Whole {
		x := sc.expr(m.X)
		return primary(x.at(precPrimary).Dot("equal").Call(sc.wholeRecord(m).c))
	}
	p := sc.partialMatch(m, false)
	if len(p.body) == 0 {
		return p.ok
	}
	return primary(jen.Func().Params().Bool().Block(append(p.body, jen.Return(p.ok.c))...).Call())
}

// wholeRecord is the expected record of a whole-record comparison, a
// *Entity: embedded JSON decoded once when it is a large constant of a
// grader, else a composite literal.
func (sc *scope) wholeRecord(m *ir.Match) code {
	g := sc.g
	ent := m.Entity()
	ei := g.ents[ent]
	g.markEntityEqual(ent)
	if j, ok := g.matchJSON(m); ok {
		if c, ok := sc.constantJSON(m, j, jen.Op("*").Id(ei.typ)); ok {
			return c
		}
	}
	var items []jen.Code
	if m.ID != nil {
		items = append(items, jen.Id(ei.id).Op(":").Add(sc.asString(m.ID).c))
	}
	for _, fi := range m.Fields {
		if isNull(fi.Value) {
			continue
		}
		items = append(items, jen.Id(ei.fields[fi.Field]).Op(":").Add(sc.elemValue(fi.Value, fi.Field.Type).c))
	}
	return primary(jen.Op("&").Id(ei.typ).Values(items...))
}

// markEntityEqual records that e needs an equal method, and so do the
// value records its fields hold (types.go renders them after this).
func (g *generator) markEntityEqual(e *ir.Entity) {
	g.needEntityEqual[e] = true
	for _, f := range e.Fields {
		for t := f.Type; t != nil; t = t.Elem {
			if t.Kind == ir.KindStruct {
				g.markEqual(t.Struct)
			}
		}
	}
}

// matchJSON renders the expected record of a whole-record comparison as
// the JSON of the entity's Go type, when every value is a constant.
func (g *generator) matchJSON(m *ir.Match) ([]byte, bool) {
	b := []byte{'{'}
	n := 0
	member := func(name string, v ir.Expr, t *ir.Type) bool {
		j, ok := g.constJSON(v, t)
		if !ok {
			return false
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		k, _ := jsonMarshal(name)
		b = append(append(append(b, k...), ':'), j...)
		return true
	}
	if m.ID != nil && !member("id", m.ID, m.ID.Type()) {
		return nil, false
	}
	for _, fi := range m.Fields {
		if !member(fi.Field.Name, fi.Value, fi.Field.Type) {
			return nil, false
		}
	}
	return append(b, '}'), true
}

// matchParts is a compiled matches(x, { … }): statements binding x and
// the values, the comparison, and, for a grader's report, the bound
// record and the expected values by field name in field order.
type matchParts struct {
	body  []jen.Code
	ok    code
	x     *jen.Statement
	names []string
	want  []jen.Code
}

// partialMatch compiles matches(x, { … }): x bound once (unless it is
// simple), the values that can fault bound in order (and, for a report,
// every value that is not simple), then the listed fields compared.
func (sc *scope) partialMatch(m *ir.Match, report bool) matchParts {
	g := sc.g
	var p matchParts
	x := sc.expr(m.X)
	if !simple(m.X) || report {
		name := sc.temp("x")
		p.body = append(p.body, jen.Id(name).Op(":=").Add(x.c))
		x = primary(jen.Id(name))
	}
	p.x = x.c
	value := func(e ir.Expr, v code) code {
		if isNull(e) || !canFault(e) && (!report || simple(e)) {
			return v
		}
		name := sc.temp("v")
		p.body = append(p.body, jen.Id(name).Op(":=").Add(v.c))
		return primary(jen.Id(name))
	}
	var eqs []code
	add := func(name string, t *ir.Type, got *jen.Statement, e ir.Expr, want code) {
		eq := g.eqOf(t, got, want.c)
		if isNull(e) {
			eq = jen.Add(got).Op("==").Nil()
		}
		eqs = append(eqs, code{c: eq, prec: precCmp})
		p.names = append(p.names, name)
		p.want = append(p.want, want.c)
	}
	if m.ID != nil {
		add("id", stringType, x.at(precPrimary).Dot(g.idField(m.X.Type())), m.ID, value(m.ID, sc.asString(m.ID)))
	}
	for _, fi := range m.Fields {
		f := fi.Field
		if e := f.Entity; e != nil {
			add(f.Name, f.Type, x.at(precPrimary).Dot(g.ents[e].fields[f]), fi.Value, value(fi.Value, sc.elemValue(fi.Value, f.Type)))
			continue
		}
		t := g.storedType(f)
		add(f.Name, t, x.at(precPrimary).Dot(g.structs[f.Struct].fields[f]), fi.Value, value(fi.Value, sc.elemValue(fi.Value, t)))
	}
	p.ok = sc.chain("&&", eqs...)
	return p
}

// stringType is the spec type string.
var stringType = &ir.Type{Kind: ir.KindString}

// matchGrader is the body of a grader whose assertion is a match: it
// reports the fields that differ when the match fails.
func (sc *scope) matchGrader(m *ir.Match) []jen.Code {
	g := sc.g
	g.need["matched"] = true
	if m.Whole {
		l, r := sc.temp("l"), sc.temp("r")
		return []jen.Code{
			jen.Id(l).Op(":=").Add(sc.expr(m.X).c),
			jen.Id(r).Op(":=").Add(sc.wholeRecord(m).c),
			jen.Return(jen.Id("s").Dot("matched").Call(jen.Id(l).Dot("equal").Call(jen.Id(r)), jen.Id(l), jen.Id(r))),
		}
	}
	p := sc.partialMatch(m, true)
	want := jen.Dict{}
	args := []jen.Code{p.ok.c, p.x, nil}
	for i, n := range p.names {
		want[jen.Lit(n)] = p.want[i]
		args = append(args, jen.Lit(n))
	}
	args[2] = jen.Map(jen.String()).Any().Values(want)
	return append(p.body, jen.Return(jen.Id("s").Dot("matched").Call(args...)))
}
