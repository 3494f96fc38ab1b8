package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// baseGoType is the Go type of a value of t, ignoring optionality.
func (g *generator) baseGoType(t *ir.Type) *jen.Statement {
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		return jen.String()
	case ir.KindInt:
		return jen.Int64()
	case ir.KindDecimal, ir.KindMoney:
		return g.numType()
	case ir.KindBool:
		return jen.Bool()
	case ir.KindDate:
		return jen.Qual(rt, "Date")
	case ir.KindDateTime:
		return jen.Qual(rt, "DateTime")
	case ir.KindEnum:
		if ei := g.enums[t.Enum]; ei != nil {
			return jen.Id(ei.typ)
		}
		return jen.String()
	case ir.KindRecord:
		return jen.Op("*").Id(g.ents[t.Entity].typ)
	case ir.KindList:
		return jen.Index().Add(g.goType(t.Elem))
	case ir.KindMap:
		return jen.Map(jen.String()).Add(g.goType(t.Elem))
	case ir.KindStruct:
		return jen.Id(g.structs[t.Struct].typ)
	}
	return jen.Any()
}

// goType is the Go type of a value of t: optional values are pointers
// (a record already is one; an optional list or map is nil when null).
func (g *generator) goType(t *ir.Type) *jen.Statement {
	if pointerOpt(t) {
		return jen.Op("*").Add(g.baseGoType(t))
	}
	return g.baseGoType(t)
}

// kindWords describes a type for docs and schemas.
func kindWords(t *ir.Type) string {
	switch t.Kind {
	case ir.KindString:
		return "string"
	case ir.KindText:
		return "text"
	case ir.KindInt:
		return "integer"
	case ir.KindDecimal:
		return "number"
	case ir.KindMoney:
		return "amount of money"
	case ir.KindBool:
		return "boolean"
	case ir.KindDate:
		return "date (YYYY-MM-DD)"
	case ir.KindDateTime:
		return "date-time (RFC 3339, UTC)"
	case ir.KindEnum:
		return "one of " + strings.Join(t.Enum.Values, ", ")
	case ir.KindRef:
		return "id of a " + t.Entity.Name
	}
	return t.String()
}

// typesFile renders the value records, the enum types and the entity
// structs.
func (g *generator) typesFile(f *goFile) {
	emitted := map[*ir.EnumDef]bool{}
	enums := func(fl *ir.Field, owner string) {
		eachEnum(fl.Type, func(def *ir.EnumDef) {
			if ei := g.enums[def]; ei != nil && !emitted[def] && (def.Field == fl || def.Field == nil) {
				emitted[def] = true
				g.enumType(f, ei, fl, owner)
			}
		})
	}
	for _, sd := range g.w.Structs {
		for _, fl := range sd.AllFields() {
			enums(fl, g.structs[sd].typ)
		}
		g.structType(f, sd)
	}
	for _, e := range g.w.Entities {
		for _, fl := range e.Fields {
			enums(fl, g.ents[e].typ)
		}
		g.entityType(f, e)
	}
}

func (g *generator) enumType(f *goFile, ei *enumInfo, fl *ir.Field, owner string) {
	defer g.at(fieldOrigin(fl))()
	what := fl.Name
	if fl.Struct != nil && fl == fl.Struct.Tag {
		what = "case"
	}
	f.Add(doc(fmt.Sprintf("%s is the %s of a %s.", ei.typ, what, owner), fl.Doc))
	f.Type().Id(ei.typ).String()
	f.Line()
	f.Commentf("The values of %s.", ei.typ)
	consts := make([]jen.Code, 0, len(ei.def.Values))
	lits := make([]jen.Code, 0, len(ei.def.Values))
	for _, v := range ei.def.Values {
		consts = append(consts, jen.Id(ei.consts[v]).Id(ei.typ).Op("=").Lit(v))
		lits = append(lits, jen.Lit(v))
	}
	f.Const().Defs(consts...)
	f.Line()
	f.Var().Id(ei.values).Op("=").Index().String().Values(lits...)
	f.Line()
	recv := "v"
	f.Commentf("Valid reports whether %s is one of the values of %s.", recv, ei.typ)
	cases := make([]jen.Code, 0, len(ei.def.Values))
	for _, v := range ei.def.Values {
		cases = append(cases, jen.Id(ei.consts[v]))
	}
	f.Func().Params(jen.Id(recv).Id(ei.typ)).Id("Valid").Params().Bool().Block(
		jen.Switch(jen.Id(recv)).Block(jen.Case(cases...).Block(jen.Return(jen.True()))),
		jen.Return(jen.False()),
	)
	f.Line()
	f.Commentf("UnmarshalJSON accepts only the values of %s.", ei.typ)
	f.Func().Params(jen.Id(recv).Op("*").Id(ei.typ)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Return(jen.Qual(rt, "UnmarshalEnum").Call(jen.Id("data"), jen.Parens(jen.Op("*").String()).Parens(jen.Id(recv)), jen.Id(ei.values))),
	)
	f.Line()
}

func (g *generator) entityType(f *goFile, e *ir.Entity) {
	defer g.at(entityOrigin(e))()
	ei := g.ents[e]
	what := sentence(e.Doc)
	if what == "" {
		f.Add(doc(fmt.Sprintf("%s is a record of the %s service.", ei.typ, e.Service.Name), ""))
	} else {
		f.Add(doc(fmt.Sprintf("%s is %s", ei.typ, articled(what)), ""))
	}
	var fields []jen.Code
	if e.Key == nil {
		fields = append(fields, jen.Id("ID").String().Tag(map[string]string{"json": "id"}))
	}
	for _, fl := range e.Fields {
		c := jen.Null()
		if lines := commentLines(fl.Doc); len(lines) > 0 {
			c = comment(fl.Doc).Line()
		}
		fields = append(fields, c.Id(ei.fields[fl]).Add(g.goType(fl.Type)).Tag(map[string]string{"json": fl.Name}))
	}
	f.Type().Id(ei.typ).Struct(fields...)
	f.Line()
	if e.Key != nil {
		f.Commentf("recordID is the row's id, its key %s, for its table.", e.Key.Name)
	} else {
		f.Comment("recordID is the row's id, for its table.")
	}
	f.Func().Params(jen.Id("r").Op("*").Id(ei.typ)).Id("recordID").Params().String().Block(jen.Return(jen.Id("r").Dot(ei.id)))
	f.Line()
	var deepCopies []jen.Code
	for _, fl := range e.Fields {
		if g.deep(fl.Type) {
			deepCopies = append(deepCopies, jen.Id("c").Dot(ei.fields[fl]).Op("=").Add(g.cloneOf(fl.Type, jen.Id("c").Dot(ei.fields[fl]))))
		}
	}
	if len(deepCopies) == 0 {
		f.Comment("clone copies the row before it is modified; optional values are")
		f.Comment("never modified in place, so a shallow copy is enough.")
	} else {
		f.Comment("clone copies the row before it is modified, deeply: the copy shares")
		f.Comment("no list, map or record with the row, so that it may be written")
		f.Comment("through paths. Optional scalars are never modified in place and")
		f.Comment("are shared.")
	}
	body := append([]jen.Code{jen.Id("c").Op(":=").Op("*").Id("r")}, deepCopies...)
	f.Func().Params(jen.Id("r").Op("*").Id(ei.typ)).Id("clone").Params().Op("*").Id(ei.typ).Block(append(body,
		jen.Return(jen.Op("&").Id("c")),
	)...)
	f.Line()
	if g.needEntityEqual[e] {
		g.entityEqualMethod(f, e)
	}
	g.entityEncoders(f, e)
	g.entityDecoder(f, e)
}

// entityEqualMethod renders equal: a whole record compared with a literal
// (`x == Order { … }`), the id and every field with the language's ==.
func (g *generator) entityEqualMethod(f *goFile, e *ir.Entity) {
	ei := g.ents[e]
	var conds []jen.Code
	if e.Key == nil {
		conds = append(conds, jen.Id("r").Dot("ID").Op("==").Id("o").Dot("ID"))
	}
	for _, fl := range e.Fields {
		c := g.eqOf(fl.Type, jen.Id("r").Dot(ei.fields[fl]), jen.Id("o").Dot(ei.fields[fl]))
		if len(conds) > 0 {
			c = jen.Op("&&").Line().Add(c)
		}
		conds = append(conds, c)
	}
	ret := jen.Return(jen.True())
	if len(conds) > 0 {
		ret = jen.Return(jen.Add(conds...))
	}
	f.Commentf("equal is the language's == on whole records (a record compared with a")
	f.Commentf("literal, x == %s { … }): the id and every field, lists and maps element", e.Name)
	f.Comment("by element, null equal only to null.")
	f.Func().Params(jen.Id("r").Op("*").Id(ei.typ)).Id("equal").Params(jen.Id("o").Op("*").Id(ei.typ)).Bool().Block(ret)
	f.Line()
}

// articled turns "A company we bill." into "a company we bill." and
// "Customer accounts." into "a record: Customer accounts." when it does not
// read as a noun phrase with an article.
func articled(s string) string {
	low := strings.ToLower(s)
	for _, a := range []string{"a ", "an ", "the ", "one "} {
		if strings.HasPrefix(low, a) {
			return lowerFirst(s)
		}
	}
	return "a record: " + s
}

// exact reports whether the world's decimals and money are exact
// (runtime.Decimal) rather than floats (`numbers "float"`).
func (g *generator) exact() bool { return !g.w.FloatNumbers }

// numType is the Go type of a decimal or money: runtime.Decimal, or
// float64 in a world of float numbers.
func (g *generator) numType() *jen.Statement {
	if g.exact() {
		return jen.Qual(rt, "Decimal")
	}
	return jen.Float64()
}

// decimalLit is the exact decimal constant dec (its canonical text):
// runtime.DecimalOf(coefficient, scale) when the coefficient fits an
// int64, runtime.MustDecimal("…") otherwise.
func decimalLit(dec string) *jen.Statement {
	neg := strings.HasPrefix(dec, "-")
	digits := strings.TrimPrefix(dec, "-")
	whole, frac, _ := strings.Cut(digits, ".")
	if n, err := strconv.ParseInt(whole+frac, 10, 64); err == nil {
		if neg {
			n = -n
		}
		if frac == "" {
			return jen.Qual(rt, "DecimalFromInt").Call(jen.Lit(int(n)))
		}
		return jen.Qual(rt, "DecimalOf").Call(jen.Lit(int(n)), jen.Lit(len(frac)))
	}
	return jen.Qual(rt, "MustDecimal").Call(jen.Lit(dec))
}

// intToDecimal converts the int64 code c to a decimal of the world's kind.
func (g *generator) intToDecimal(c *jen.Statement) *jen.Statement {
	if g.exact() {
		return jen.Qual(rt, "DecimalFromInt").Call(c)
	}
	return jen.Float64().Call(c)
}

// numName names the runtime's functions of the world's numbers:
// AppendDecimal, HashDecimal, ReadDecimal… or their Float forms.
func (g *generator) numName() string {
	if g.exact() {
		return "Decimal"
	}
	return "Float"
}
