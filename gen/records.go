package gen

import (
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// structType renders a value record: its struct, and its methods clone
// (a deep copy), equal (==, when used), check (constraints), the encoders
// AppendJSON and HashFields (encode.go) and the JSON methods: strict
// decoding, and for a variant an encoding with only the fields of its
// case.
func (g *generator) structType(f *goFile, sd *ir.StructDef) {
	defer g.at(recordOrigin(sd))()
	si := g.structs[sd]
	what := sentence(sd.Doc)
	if what == "" {
		f.Add(doc(fmt.Sprintf("%s is a value record, stored inside records of the world.", si.typ), ""))
	} else {
		f.Add(doc(fmt.Sprintf("%s is %s", si.typ, articled(what)), ""))
	}
	if sd.Tag != nil {
		f.Commentf("It is a variant: %s says which of its cases it is, and only the", si.fields[sd.Tag])
		f.Comment("fields of that case are set (the others are nil).")
	}
	var fields []jen.Code
	field := func(fl *ir.Field, lead jen.Code) {
		c := jen.Null()
		if lead != nil {
			c.Add(lead)
		}
		if lines := commentLines(fl.Doc); len(lines) > 0 {
			c.Add(comment(fl.Doc)).Line()
		}
		fields = append(fields, c.Id(si.fields[fl]).Add(g.goType(g.storedType(fl))).Tag(map[string]string{"json": fl.Name}))
	}
	if sd.Tag != nil {
		field(sd.Tag, comment(fmt.Sprintf("%s is the case of the record.", si.fields[sd.Tag])).Line())
	}
	for _, fl := range sd.Fields {
		field(fl, nil)
	}
	for _, c := range sd.Cases {
		for i, fl := range c.Fields {
			var lead jen.Code
			if i == 0 {
				lead = jen.Line().Add(comment(fmt.Sprintf("Case %s:", c.Name))).Line()
			}
			field(fl, lead)
		}
	}
	f.Type().Id(si.typ).Struct(fields...)
	f.Line()

	g.cloneMethod(f, sd)
	if g.needEqual[sd] {
		g.equalMethod(f, sd)
	}
	if g.structNeedsCheck(sd, map[*ir.StructDef]bool{}) {
		g.checkMethod(f, sd)
	}
	g.structEncoders(f, sd)
	g.recordDecoder(f, sd)
	if sd.Tag != nil {
		g.marshalVariant(f, sd)
	}
	g.unmarshalRecord(f, sd)
}

// cloneMethod renders clone: a deep copy of the record.
func (g *generator) cloneMethod(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	var body []jen.Code
	for _, fl := range sd.AllFields() {
		t := g.storedType(fl)
		if g.deep(t) {
			body = append(body, jen.Id("v").Dot(si.fields[fl]).Op("=").Add(g.cloneOf(t, jen.Id("v").Dot(si.fields[fl]))))
		}
	}
	if len(body) == 0 {
		f.Commentf("clone returns a copy of v: a %s holds no list, map or record,", si.typ)
		f.Comment("so the copy made by passing it is already deep.")
	} else {
		f.Comment("clone returns a deep copy of v: the copy shares no list, map or")
		f.Comment("record with v.")
	}
	f.Func().Params(jen.Id("v").Id(si.typ)).Id("clone").Params().Id(si.typ).Block(append(body, jen.Return(jen.Id("v")))...)
	f.Line()
}

// equalMethod renders equal: the language's == on records of the type.
func (g *generator) equalMethod(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	var conds []jen.Code
	for i, fl := range sd.AllFields() {
		t := g.storedType(fl)
		c := g.eqOf(t, jen.Id("v").Dot(si.fields[fl]), jen.Id("w").Dot(si.fields[fl]))
		if i > 0 {
			c = jen.Op("&&").Line().Add(c)
		}
		conds = append(conds, c)
	}
	ret := jen.Return(jen.True())
	if len(conds) > 0 {
		ret = jen.Return(jen.Add(conds...))
	}
	f.Comment("equal is the language's == on records: field by field, lists and")
	f.Comment("maps element by element, null equal only to null.")
	f.Func().Params(jen.Id("v").Id(si.typ)).Id("equal").Params(jen.Id("w").Id(si.typ)).Bool().Block(ret)
	f.Line()
}

// checkMethod renders check: the record's constraints, in field order,
// with compiler/eval's messages naming the value by path.
func (g *generator) checkMethod(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	c := &checker{g: g, fail: func(err jen.Code) jen.Code { return jen.Return(err) }}
	var body []jen.Code
	fieldPath := func(fl *ir.Field) *jen.Statement { return jen.Id("path").Op("+").Lit("." + fl.Name) }
	if sd.Tag != nil {
		body = append(body, c.value(sd.Tag.Type, sd.Tag, jen.Id("v").Dot(si.fields[sd.Tag]), fieldPath(sd.Tag))...)
	}
	for _, fl := range sd.Fields {
		body = append(body, c.value(fl.Type, fl, jen.Id("v").Dot(si.fields[fl]), fieldPath(fl))...)
	}
	for _, cs := range sd.Cases {
		tagEnum := g.enums[sd.Tag.Type.Enum]
		for _, fl := range cs.Fields {
			x := jen.Id("v").Dot(si.fields[fl])
			var inCase []jen.Code
			if !fl.Type.Optional {
				inCase = append(inCase, jen.If(jen.Add(x).Op("==").Nil()).Block(
					jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit("%s is required"), fieldPath(fl)))))
			}
			if fl.Type.Optional {
				inCase = append(inCase, c.value(g.storedType(fl), fl, x, fieldPath(fl))...)
			} else {
				inCase = append(inCase, c.present(g.storedType(fl), fl, x, fieldPath(fl))...)
			}
			other := jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit("%s belongs to case %s, not %s"), fieldPath(fl), jen.Lit(cs.Name), jen.String().Call(jen.Id("v").Dot(si.fields[sd.Tag]))))
			body = append(body, jen.If(jen.Id("v").Dot(si.fields[sd.Tag]).Op("==").Id(tagEnum.consts[cs.Name])).Block(inCase...).
				Else().If(jen.Add(x).Op("!=").Nil()).Block(other))
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Commentf("check checks the constraints of the %s named path in messages:", sd.Name)
	if sd.Tag != nil {
		f.Comment("its case, then each field in order (a field of another case must be")
		f.Comment("null), the values inside lists, maps and records included.")
	} else {
		f.Comment("each field in order, the values inside lists, maps and records included.")
	}
	f.Func().Params(jen.Id("v").Op("*").Id(si.typ)).Id("check").Params(jen.Id("path").String()).Error().Block(body...)
	f.Line()
}

// marshalVariant renders MarshalJSON of a variant record: the tag, the
// common fields and the fields of the record's case, in declaration order.
func (g *generator) marshalVariant(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	tag := sd.Tag
	tagEnum := g.enums[tag.Type.Enum]
	var cases []jen.Code
	for _, cs := range sd.Cases {
		var fields, vals []jen.Code
		add := func(fl *ir.Field) {
			fields = append(fields, jen.Id(si.fields[fl]).Add(g.goType(g.storedType(fl))).Tag(map[string]string{"json": fl.Name}))
			vals = append(vals, jen.Id("v").Dot(si.fields[fl]))
		}
		add(tag)
		for _, fl := range sd.Fields {
			add(fl)
		}
		for _, fl := range cs.Fields {
			add(fl)
		}
		cases = append(cases, jen.Case(jen.Id(tagEnum.consts[cs.Name])).Block(
			jen.Return(jen.Qual(rt, "MarshalJSON").Call(jen.Struct(fields...).Values(vals...)))))
	}
	f.Commentf("MarshalJSON writes the %s, the common fields and the fields of the", tag.Name)
	f.Comment("record's case only.")
	f.Func().Params(jen.Id("v").Id(si.typ)).Id("MarshalJSON").Params().Parens(jen.List(jen.Index().Byte(), jen.Error())).Block(
		jen.Switch(jen.Id("v").Dot(si.fields[tag])).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(sd.Name+": %q is not a case"), jen.String().Call(jen.Id("v").Dot(si.fields[tag])))),
	)
	f.Line()
}

// unmarshalRecord renders UnmarshalJSON: strict decoding of the record's
// JSON object (runtime.DecodeRecord): every required field present, no
// unknown field, and for a variant only the fields of the case its tag
// names.
func (g *generator) unmarshalRecord(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	required := func(fields []*ir.Field) []jen.Code {
		var out []jen.Code
		for _, fl := range fields {
			if !fl.Type.Optional && fl.Default == nil {
				out = append(out, jen.Lit(fl.Name))
			}
		}
		return out
	}
	names := func(fields []*ir.Field) []jen.Code {
		var out []jen.Code
		for _, fl := range fields {
			out = append(out, jen.Lit(fl.Name))
		}
		return out
	}
	// Decode into si.plain, the struct without this method, so that
	// DecodeRecord does not call it again.
	var body []jen.Code
	defaults := func(fields []*ir.Field) []jen.Code {
		var out []jen.Code
		sc := g.newScope()
		for _, fl := range fields {
			if fl.Default == nil || fl.Default.Kind == ir.KindNull {
				continue
			}
			// An absent field takes its default (compiler/eval's decodeStruct).
			x := jen.Id("v").Dot(si.fields[fl])
			t := g.storedType(fl)
			base := *t
			base.Optional = false
			val := sc.lit(fl.Default, &base).c
			if pointerOpt(t) {
				val = newOf(g.baseGoType(&base), val)
			}
			out = append(out, jen.If(jen.Op("!").Id("present").Index(jen.Lit(fl.Name))).Block(jen.Add(x).Op("=").Add(val)))
		}
		return out
	}
	if sd.Tag == nil {
		all := sd.Fields
		defs := defaults(all)
		if len(defs) == 0 {
			body = append(body, jen.Return(jen.Qual(rt, "DecodeRecord").Call(append([]jen.Code{jen.Id("data"), jen.Parens(jen.Op("*").Id(si.plain)).Parens(jen.Id("v")), jen.Nil()}, required(all)...)...)))
		} else {
			body = append(body,
				jen.If(jen.Err().Op(":=").Qual(rt, "DecodeRecord").Call(append([]jen.Code{jen.Id("data"), jen.Parens(jen.Op("*").Id(si.plain)).Parens(jen.Id("v")), jen.Nil()}, required(all)...)...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
				jen.Id("present").Op(":=").Qual(rt, "Members").Call(jen.Id("data")))
			body = append(body, defs...)
			body = append(body, jen.Return(jen.Nil()))
		}
	} else {
		tagEnum := g.enums[sd.Tag.Type.Enum]
		body = append(body,
			jen.List(jen.Id("c"), jen.Err()).Op(":=").Qual(rt, "VariantTag").Call(jen.Id("data"), jen.Lit(sd.Tag.Name), jen.Id(tagEnum.values)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			jen.Op("*").Id("v").Op("=").Id(si.typ).Values(),
		)
		var cases []jen.Code
		for _, cs := range sd.Cases {
			all := append(append([]*ir.Field{sd.Tag}, sd.Fields...), cs.Fields...)
			req := append([]jen.Code{jen.Lit(sd.Tag.Name)}, required(append(append([]*ir.Field{}, sd.Fields...), cs.Fields...))...)
			var caseBody []jen.Code
			caseBody = append(caseBody,
				jen.Err().Op("=").Qual(rt, "DecodeRecord").Call(append([]jen.Code{jen.Id("data"), jen.Parens(jen.Op("*").Id(si.plain)).Parens(jen.Id("v")), jen.Index().String().Values(names(all)...)}, req...)...))
			if defs := defaults(append(append([]*ir.Field{}, sd.Fields...), cs.Fields...)); len(defs) > 0 {
				caseBody = append(caseBody, jen.If(jen.Err().Op("==").Nil()).Block(append([]jen.Code{jen.Id("present").Op(":=").Qual(rt, "Members").Call(jen.Id("data"))}, defs...)...))
			}
			cases = append(cases, jen.Case(jen.Lit(cs.Name)).Block(caseBody...))
		}
		body = append(body, jen.Switch(jen.Id("c")).Block(cases...), jen.Return(jen.Err()))
	}
	f.Commentf("%sFields is %s without its methods, for decoding its fields.", unexported(si.typ), si.typ)
	f.Type().Id(si.plain).Id(si.typ)
	f.Line()
	if sd.Tag != nil {
		f.Commentf("UnmarshalJSON decodes a %s strictly: its %s first, then the", sd.Name, sd.Tag.Name)
		f.Comment("common fields and the fields of that case, each required field")
		f.Comment("present, no other field. Its errors are invalid_arguments.")
	} else {
		f.Commentf("UnmarshalJSON decodes a %s strictly: every required field present,", sd.Name)
		f.Comment("no unknown field. Its errors are invalid_arguments.")
	}
	f.Func().Params(jen.Id("v").Op("*").Id(si.typ)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(body...)
	f.Line()
}
