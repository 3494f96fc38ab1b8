package gen

import (
	"fmt"
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
		return jen.Float64()
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
	}
	return jen.Any()
}

// goType is the Go type of a value of t: optional values are pointers
// (a record already is one).
func (g *generator) goType(t *ir.Type) *jen.Statement {
	if t.Optional && t.Kind != ir.KindRecord && t.Kind != ir.KindList {
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

// typesFile renders the enum types and the entity structs.
func (g *generator) typesFile(f *jen.File) {
	for _, e := range g.w.Entities {
		for _, fl := range e.Fields {
			if fl.Type.Kind == ir.KindEnum && g.enums[fl.Type.Enum] != nil && g.enums[fl.Type.Enum].def.Field == fl {
				g.enumType(f, g.enums[fl.Type.Enum], fl)
			}
		}
		g.entityType(f, e)
	}
}

func (g *generator) enumType(f *jen.File, ei *enumInfo, fl *ir.Field) {
	ent := g.ents[fl.Entity]
	f.Add(doc(fmt.Sprintf("%s is the %s of a %s.", ei.typ, fl.Name, ent.typ), fl.Doc))
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

func (g *generator) entityType(f *jen.File, e *ir.Entity) {
	ei := g.ents[e]
	what := sentence(e.Doc)
	if what == "" {
		f.Add(doc(fmt.Sprintf("%s is a record of the %s service.", ei.typ, e.Service.Name), ""))
	} else {
		f.Add(doc(fmt.Sprintf("%s is %s", ei.typ, articled(what)), ""))
	}
	fields := []jen.Code{jen.Id("ID").String().Tag(map[string]string{"json": "id"})}
	for _, fl := range e.Fields {
		c := jen.Null()
		if lines := commentLines(fl.Doc); len(lines) > 0 {
			c = comment(fl.Doc).Line()
		}
		fields = append(fields, c.Id(ei.fields[fl]).Add(g.goType(fl.Type)).Tag(map[string]string{"json": fl.Name}))
	}
	f.Type().Id(ei.typ).Struct(fields...)
	f.Line()
	f.Comment("recordID is the row's id, for its table.")
	f.Func().Params(jen.Id("r").Op("*").Id(ei.typ)).Id("recordID").Params().String().Block(jen.Return(jen.Id("r").Dot("ID")))
	f.Line()
	f.Comment("clone copies the row before it is modified; optional values are")
	f.Comment("never modified in place, so a shallow copy is enough.")
	f.Func().Params(jen.Id("r").Op("*").Id(ei.typ)).Id("clone").Params().Op("*").Id(ei.typ).Block(
		jen.Id("c").Op(":=").Op("*").Id("r"),
		jen.Return(jen.Op("&").Id("c")),
	)
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
