package gen

import (
	"fmt"
	"go/token"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// This file compiles the expressions of composite values: fields of value
// records, list and map indexing, record, list and map literals, and the
// built-in functions over lists and maps.

// idField is the Go field holding the id of records of t's entity.
func (g *generator) idField(t *ir.Type) string {
	if t != nil && t.Entity != nil {
		return g.ents[t.Entity].id
	}
	return "ID"
}

// faultsNull reports whether e reads a field of, indexes or iterates a
// composite value that may be null, which records a fault.
func faultsNull(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.FieldRef:
		return x.Field != nil && x.Field.Entity == nil && x.X.Type().Optional
	case *ir.Index:
		return true
	case *ir.Aggregate:
		return x.Source != nil && x.Source.Type().Optional
	case *ir.Call:
		switch x.Func {
		case "len", "keys", "sorted", "append":
			return len(x.Args) > 0 && isComposite(x.Args[0].Type()) && x.Args[0].Type().Optional
		}
	}
	return false
}

// structField reads a field of a value record. A null record (an optional
// one) records compiler/eval's fault and reads a zero record.
func (sc *scope) structField(x *ir.FieldRef) code {
	g := sc.g
	rec := sc.expr(x.X)
	name := g.structs[x.Field.Struct].fields[x.Field]
	if x.X.Type().Optional {
		g.need["present"] = true
		return primary(jen.Id("present").Call(jen.Id("s"), rec.c, jen.Lit(x.Field.Name)).Dot(name))
	}
	return primary(rec.at(precPrimary).Dot(name))
}

// index is xs[i] of a list or m[k] of a map; out of range, a missing key
// and a null container record compiler/eval's faults.
func (sc *scope) index(x *ir.Index) code {
	g := sc.g
	c := sc.expr(x.X)
	if x.X.Type().Kind == ir.KindMap {
		g.need["mapAt"] = true
		return primary(jen.Id("mapAt").Call(jen.Id("s"), c.c, sc.asString(x.Key).c))
	}
	g.need["listAt"] = true
	return primary(jen.Id("listAt").Call(jen.Id("s"), c.c, sc.expr(x.Key).c))
}

// elemValue compiles e for a slot of type to inside a composite value (a
// list element, a map value, a record field): converted, and wrapped in a
// pointer when to is optional and e is not.
func (sc *scope) elemValue(e ir.Expr, to *ir.Type) code {
	if isNull(e) {
		return primary(jen.Nil())
	}
	if pointerOpt(to) && !mayBeNull(e) {
		base := *to
		base.Optional = false
		v := sc.valueAs(e, &base)
		if untypedConst(e) {
			return primary(newOf(sc.g.baseGoType(&base), v.c))
		}
		return primary(jen.New(v.c))
	}
	return sc.valueAs(e, to)
}

// stored compiles e for storing in a place of type to that outlives the
// expression (a field, a local, a list element of a stored value): a copy,
// unless the value was just built.
func (sc *scope) stored(e ir.Expr, to *ir.Type) code {
	c := sc.elemValue(e, to)
	if sc.g.fresh(e) || !sc.g.deep(to) {
		return c
	}
	return primary(sc.g.cloneOf(to, c.c))
}

// cast is `x as T`: the string x as a value of the enum type T, checked
// by castEnum (a value T does not have records compiler/eval's
// constraint_violation fault).
func (sc *scope) cast(x *ir.Cast) code {
	g := sc.g
	g.need["castEnum"] = true
	return primary(jen.Id("castEnum").Types(jen.Id(g.enums[x.T.Enum].typ)).Call(
		jen.Id("s"), sc.asString(x.X).c, jen.Lit(x.T.String()), jen.Lit(strings.Join(x.T.Enum.Values, ", "))))
}

// structLit is a value record: its tag, the given fields in order, the
// defaults of the fields of its case that are not given.
func (sc *scope) structLit(x *ir.StructLit) code {
	g := sc.g
	si := g.structs[x.Struct]
	given := map[*ir.Field]ir.Expr{}
	for _, fi := range x.Fields {
		given[fi.Field] = fi.Value
	}
	var items []jen.Code
	for _, f := range x.Struct.AllFields() {
		t := g.storedType(f)
		if f == x.Struct.Tag {
			if x.Case != nil {
				items = append(items, jen.Id(si.fields[f]).Op(":").Id(g.enums[f.Type.Enum].consts[x.Case.Name]))
			}
			continue
		}
		if v, ok := given[f]; ok {
			if !isNull(v) {
				items = append(items, jen.Id(si.fields[f]).Op(":").Add(sc.elemValue(v, t).c))
			}
			continue
		}
		if c := g.caseOf(f); c != nil && c != x.Case {
			continue
		}
		if f.Default != nil && f.Default.Kind != ir.KindNull {
			base := *t
			base.Optional = false
			val := sc.lit(f.Default, &base).c
			if pointerOpt(t) {
				val = newOf(g.baseGoType(&base), val)
			}
			items = append(items, jen.Id(si.fields[f]).Op(":").Add(val))
		}
	}
	lit := jen.Id(si.typ).Values(items...)
	if x.T.Optional {
		return primary(jen.Op("&").Add(lit))
	}
	return primary(lit)
}

// mapLit is a map value, its entries in key order.
func (sc *scope) mapLit(x *ir.MapLit) code {
	var items []jen.Code
	for _, e := range x.Entries {
		items = append(items, jen.Lit(e.Key).Op(":").Add(sc.elemValue(e.Value, x.T.Elem).c))
	}
	return primary(jen.Add(sc.g.goType(x.T)).Values(items...))
}

// nonNullArg is the argument i of a built-in function, recording
// compiler/eval's fault when it is null.
func (sc *scope) nonNullArg(x *ir.Call, i int) code {
	return primary(sc.exprNonNull(x.Args[i], fmt.Sprintf(runtime.MsgNullArgument, x.Func, i+1)))
}

// compositeCall compiles the built-in functions over lists and maps; ok is
// false for any other call.
func (sc *scope) compositeCall(x *ir.Call) (code, bool) {
	if len(x.Args) == 0 || !isComposite(x.Args[0].Type()) {
		return code{}, false
	}
	switch x.Func {
	case "len":
		return primary(jen.Int64().Call(jen.Len(sc.nonNullArg(x, 0).c))), true
	case "keys":
		return primary(jen.Qual(rt, "SortedKeys").Call(sc.counted(sc.nonNullArg(x, 0), x.Args[0]).c)), true
	case "sorted":
		return primary(jen.Qual(rt, "Sorted").Call(sc.counted(sc.nonNullArg(x, 0), x.Args[0]).c)), true
	case "append":
		return primary(jen.Qual(rt, "Appended").Call(sc.counted(sc.nonNullArg(x, 0), x.Args[0]).c, sc.elemValue(x.Args[1], x.T.Elem).c)), true
	case "coalesce":
		a, d := x.Args[0], x.Args[1]
		if !a.Type().Optional {
			return sc.valueAs(a, x.T), true
		}
		p := sc.temp("p")
		val := primary(jen.Id(p))
		if pointerOpt(a.Type()) && !x.T.Optional {
			val = primary(jen.Op("*").Id(p))
		}
		return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
			jen.If(jen.Id(p).Op(":=").Add(sc.expr(a).c), jen.Id(p).Op("!=").Nil()).Block(jen.Return(val.c)),
			jen.Return(sc.valueAs(d, x.T).c),
		).Call()), true
	}
	return code{}, false
}

// counted is c, the list or map operand e of an operation whose work grows
// with its size (a copy, a sort, a scan), counted as that many steps in a
// tool body (runtime.Counted).
func (sc *scope) counted(c code, e ir.Expr) code {
	if !sc.budget {
		return c
	}
	fn := "Counted"
	if e.Type().Kind == ir.KindMap {
		fn = "CountedMap"
	}
	return primary(jen.Qual(rt, fn).Call(jen.Id("s").Dot("j"), c.c))
}

// compositeEquality is == (or !=) on lists, maps and value records.
func (sc *scope) compositeEquality(l, r ir.Expr, negate bool) code {
	t := l.Type()
	if !isComposite(t) {
		t = r.Type()
	}
	// Compare as the optional type if either side is optional.
	ct := *t
	ct.Optional = l.Type().Optional || r.Type().Optional
	lc, rc := sc.elemValue(l, &ct), sc.elemValue(r, &ct)
	eq := code{c: sc.g.eqOf(&ct, lc.c, rc.c), prec: precPrimary}
	if negate {
		return code{c: jen.Op("!").Add(eq.c), prec: precUnary}
	}
	return eq
}

// containsOf is `x in xs` of a list that is not a literal, or `k in m` of
// a map: a key of the map, or an element of the list equal to x.
func (sc *scope) containsOf(x *ir.Binary) code {
	g := sc.g
	if canFault(x.L) && canFault(x.R) && !simple(x.L) {
		// compiler/eval evaluates x first: its fault is the one reported.
		v := &ir.Var{Name: "x", Type: x.L.Type()}
		lhs := sc.expr(x.L)
		name := sc.bind(v)
		in := sc.containsOf(&ir.Binary{ExprBase: x.ExprBase, Op: x.Op, L: &ir.VarRef{ExprBase: ir.ExprBase{T: v.Type}, Var: v}, R: x.R})
		return primary(jen.Func().Params().Bool().Block(jen.Id(name).Op(":=").Add(lhs.c), jen.Return(in.c)).Call())
	}
	rtyp := x.R.Type()
	var res code
	if rtyp.Kind == ir.KindMap {
		m := sc.exprNonNull(x.R, "in: null is not a list or a map")
		if pointerOpt(x.L.Type()) {
			// A null key is in no map.
			k := sc.temp("k")
			key := jen.Op("*").Id(k)
			if x.L.Type().Kind == ir.KindEnum {
				key = jen.String().Call(key)
			}
			res = primary(jen.Func().Params().Bool().Block(
				jen.Id(k).Op(":=").Add(sc.expr(x.L).c),
				jen.Return(jen.Id(k).Op("!=").Nil().Op("&&").Qual(rt, "HasKey").Call(m, key))).Call())
		} else {
			res = primary(jen.Qual(rt, "HasKey").Call(m, sc.asString(x.L).c))
		}
	} else {
		elem := rtyp.Elem
		lt := x.L.Type()
		switch {
		case comparableElem(elem) && !lt.Optional && (lt.Kind == elem.Kind || lt.Kind == ir.KindRecord) && !(lt.Kind == ir.KindEnum && elem.Kind == ir.KindEnum && lt.Enum != elem.Enum):
			res = primary(jen.Qual("slices", "Contains").Call(sc.counted(primary(sc.exprNonNull(x.R, "in: null is not a list or a map")), x.R).c, sc.valueAs(x.L, elem).c))
		default:
			v := sc.temp("x")
			ct := *elem
			ct.Optional = elem.Optional || lt.Optional
			lc := sc.elemValue(x.L, &ct)
			e := sc.temp("e")
			ev := jen.Id(e)
			if ct.Optional && !elem.Optional && pointerOpt(&ct) {
				ev = jen.Op("&").Id(e)
			}
			res = primary(jen.Func().Params().Bool().Block(
				jen.Id(v).Op(":=").Add(lc.c),
				jen.Return(jen.Qual("slices", "ContainsFunc").Call(sc.counted(primary(sc.exprNonNull(x.R, "in: null is not a list or a map")), x.R).c, jen.Func().Params(jen.Id(e).Add(g.goType(elem))).Bool().Block(
					jen.Return(g.eqOf(&ct, jen.Id(v), ev)))))).Call())
		}
	}
	if x.Op == "notin" {
		return code{c: jen.Op("!").Add(res.c), prec: precUnary}
	}
	return res
}

// condExpr is `if C then A else B`: a function literal called in place
// that evaluates only the branch C selects (so a fault of the other never
// happens), each converted to the conditional's type.
func (sc *scope) condExpr(x *ir.Cond) code {
	return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
		jen.If(sc.expr(x.Cond).c).Block(jen.Return(sc.elemValue(x.Then, x.T).c)),
		jen.Return(sc.elemValue(x.Else, x.T).c),
	).Call())
}

// notNull is an optional value the checker proved not null (narrowing):
// its value, a null recording compiler/eval's fault (ir.MsgNotNull) and
// yielding a zero value.
func (sc *scope) notNull(x *ir.NotNull) code {
	t := x.X.Type()
	switch t.Kind {
	case ir.KindList, ir.KindMap:
		return primary(sc.exprNonNull(x.X, ir.MsgNotNull))
	}
	sc.g.need["notNull"] = true
	c := jen.Id("notNull").Call(jen.Id("s"), sc.expr(x.X).c)
	if t.Kind == ir.KindRecord {
		return primary(c) // a record is a pointer, optional or not
	}
	return code{c: jen.Op("*").Add(c), prec: precUnary}
}

// exprNonNull compiles a list or map operand that must not be null: when
// its type is optional, null records the fault msg (compiler/eval's).
func (sc *scope) exprNonNull(e ir.Expr, msg string) *jen.Statement {
	c := sc.expr(e)
	if !e.Type().Optional {
		return c.c
	}
	helper := "nonNullList"
	if e.Type().Kind == ir.KindMap {
		helper = "nonNullMap"
	}
	sc.g.need[helper] = true
	return jen.Id(helper).Call(jen.Id("s"), c.c, jen.Lit(msg))
}

// Constants in rubrics and invariants. A record, list or map literal made
// of constants only is, in a grader, the same value every time: a large one
// (tau2's rubrics compare whole orders) is embedded as JSON and decoded
// once, on first use (runtime.Constant), instead of being compiled as a Go
// composite literal, which costs compile time and binary size in
// proportion to its size. Only read-only scopes use them: the value is
// shared.

// minConstJSON is the size from which a constant composite is embedded as
// JSON rather than written as a Go literal.
const minConstJSON = 96

// constJSON renders e, a constant composite expression or a constant, as
// the JSON of a value of type t, or reports that it is not constant.
func (g *generator) constJSON(e ir.Expr, t *ir.Type) ([]byte, bool) {
	var b []byte
	var ok = true
	var walk func(e ir.Expr, t *ir.Type)
	walk = func(e ir.Expr, t *ir.Type) {
		if !ok {
			return
		}
		switch x := e.(type) {
		case *ir.Convert:
			// An int constant where a decimal is expected.
			l, isLit := x.X.(*ir.Lit)
			if !isLit || l.Value == nil || l.Value.Kind != ir.KindInt || !(t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney) {
				ok = false
				return
			}
			j, err := valueJSON(l.Value, t)
			if err != nil {
				ok = false
				return
			}
			b = append(b, j...)
		case *ir.Lit:
			j, err := valueJSON(x.Value, t)
			if err != nil || t.Kind == ir.KindRecord {
				ok = false
				return
			}
			b = append(b, j...)
		case *ir.Handle:
			if x.T != nil && x.T.Kind == ir.KindRecord {
				ok = false
				return
			}
			j, _ := jsonMarshal(x.ID)
			b = append(b, j...)
		case *ir.ListLit:
			b = append(b, '[')
			for i, el := range x.Elems {
				if i > 0 {
					b = append(b, ',')
				}
				walk(el, t.Elem)
			}
			b = append(b, ']')
		case *ir.MapLit:
			b = append(b, '{')
			for i, en := range x.Entries {
				if i > 0 {
					b = append(b, ',')
				}
				k, _ := jsonMarshal(en.Key)
				b = append(b, k...)
				b = append(b, ':')
				walk(en.Value, t.Elem)
			}
			b = append(b, '}')
		case *ir.StructLit:
			given := map[*ir.Field]ir.Expr{}
			for _, fi := range x.Fields {
				given[fi.Field] = fi.Value
			}
			b = append(b, '{')
			n := 0
			member := func(f *ir.Field) {
				if n > 0 {
					b = append(b, ',')
				}
				n++
				k, _ := jsonMarshal(f.Name)
				b = append(b, k...)
				b = append(b, ':')
			}
			for _, f := range x.Struct.AllFields() {
				if c := g.caseOf(f); c != nil && c != x.Case {
					continue // a field of another case: not in the JSON
				}
				member(f)
				switch v, isGiven := given[f]; {
				case f == x.Struct.Tag:
					j, _ := jsonMarshal(x.Case.Name)
					b = append(b, j...)
				case isGiven:
					walk(v, f.Type)
				case f.Default != nil:
					j, err := valueJSON(f.Default, f.Type)
					if err != nil {
						ok = false
						return
					}
					b = append(b, j...)
				default:
					b = append(b, "null"...)
				}
			}
			b = append(b, '}')
		default:
			ok = false
		}
	}
	walk(e, t)
	return b, ok
}

// constant compiles the constant composite x of a read-only scope: a call
// of a package-level value decoded once from JSON, when it is large; ok is
// false when x is not constant or small (compile it as a literal).
func (sc *scope) constant(x ir.Expr) (code, bool) {
	g := sc.g
	if !sc.readOnly || sc.constPrefix == "" {
		return code{}, false
	}
	if name, ok := g.constNames[x]; ok {
		return primary(jen.Id(name).Call()), true
	}
	j, ok := g.constJSON(x, x.Type())
	if !ok {
		return code{}, false
	}
	return sc.constantJSON(x, j, g.goType(x.Type()))
}

// constantJSON is the constant of a read-only scope whose JSON is j,
// decoded once into a value of Go type typ and named after key; ok is
// false when it is small (compile it as a literal).
func (sc *scope) constantJSON(key ir.Expr, j []byte, typ *jen.Statement) (code, bool) {
	g := sc.g
	if !sc.readOnly || sc.constPrefix == "" || len(j) < minConstJSON {
		return code{}, false
	}
	if name, ok := g.constNames[key]; ok {
		return primary(jen.Id(name).Call()), true
	}
	name := g.pkgNames.name(key, sc.constPrefix+"Value")
	g.constNames[key] = name
	g.consts = append(g.consts, constDecl{jen.Commentf("%s is a constant of %s, decoded once.", name, sc.constOwner).Line().
		Var().Id(name).Op("=").Qual(rt, "Constant").Types(typ).Call(jen.Lit(string(j))), g.origin})
	return primary(jen.Id(name).Call()), true
}

// flushConstants renders the constants collected while building a file.
func (g *generator) flushConstants(f *goFile) {
	for _, c := range g.consts {
		f.addDecl(token.VAR, c.from, c.code)
		f.Line()
	}
	g.consts = nil
}
