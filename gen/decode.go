package gen

// The decoders of records and arguments without reflection: a function per
// value record and entity reading it from a runtime.JSONReader, used by the
// seed at start-up and by the tools' arguments on every call, and a decode
// method per argument struct. They are the fast path of the
// reflection-based decoders (runtime.DecodeArgs, encoding/json with the
// records' UnmarshalJSON methods): they accept only input those accept,
// with every member present (so that no default applies), and produce the
// same values; on anything else the reader fails and the caller decodes
// again with the reflection-based decoder, whose error is the one
// reported.

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// maxFastFields bounds the members a generated decoder tracks (the bits of
// a uint64); records and tools with more decode by reflection only.
const maxFastFields = 64

// decoderName is the package-level function decoding a value record or an
// entity: decodeOrderItem.
func (g *generator) decoderName(key any, typ string) string {
	return g.pkgNames.name([2]any{key, "decode"}, "decode"+typ)
}

// readOf reads a value of type t from the reader r (optional values may
// be null).
func (g *generator) readOf(t *ir.Type, r jen.Code) *jen.Statement {
	if pointerOpt(t) {
		return jen.Qual(rt, "ReadOptional").Call(r, g.readFunc(baseType(t)))
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		return jen.Add(r).Dot("String").Call()
	case ir.KindEnum:
		return jen.Qual(rt, "Enum").Call(r, jen.Id(g.enums[t.Enum].typ).Dot("Valid"))
	case ir.KindInt:
		return jen.Add(r).Dot("Int").Call()
	case ir.KindDecimal, ir.KindMoney:
		return jen.Add(r).Dot(g.numName()).Call()
	case ir.KindBool:
		return jen.Add(r).Dot("Bool").Call()
	case ir.KindDate:
		return jen.Add(r).Dot("Date").Call()
	case ir.KindDateTime:
		return jen.Add(r).Dot("DateTime").Call()
	case ir.KindList:
		return jen.Qual(rt, "ReadList").Call(r, jen.Lit(t.Optional), g.readFunc(t.Elem))
	case ir.KindMap:
		if stringMap(t) {
			return jen.Qual(rt, "ReadStringMap").Call(r, jen.Lit(t.Optional))
		}
		return jen.Qual(rt, "ReadMap").Call(r, jen.Lit(t.Optional), g.readFunc(t.Elem))
	case ir.KindStruct:
		return jen.Id(g.decoderName(t.Struct, g.structs[t.Struct].typ)).Call(r)
	case ir.KindRecord:
		return jen.Id(g.decoderName(t.Entity, g.ents[t.Entity].typ)).Call(r)
	}
	return jen.Func().Params().Add(g.goType(t)).Block(jen.Add(r).Dot("Fail").Call(), jen.Return(jen.Nil())).Call()
}

// readFunc is a function value reading a value of type t:
// func(r *runtime.JSONReader) T.
func (g *generator) readFunc(t *ir.Type) *jen.Statement {
	if !pointerOpt(t) {
		switch t.Kind {
		case ir.KindString, ir.KindText, ir.KindRef:
			return jen.Qual(rt, "ReadString")
		case ir.KindInt:
			return jen.Qual(rt, "ReadInt")
		case ir.KindDecimal, ir.KindMoney:
			return jen.Qual(rt, "Read"+g.numName())
		case ir.KindBool:
			return jen.Qual(rt, "ReadBool")
		case ir.KindDate:
			return jen.Qual(rt, "ReadDate")
		case ir.KindDateTime:
			return jen.Qual(rt, "ReadDateTime")
		case ir.KindStruct:
			return jen.Id(g.decoderName(t.Struct, g.structs[t.Struct].typ))
		case ir.KindRecord:
			return jen.Id(g.decoderName(t.Entity, g.ents[t.Entity].typ))
		}
	}
	return jen.Func().Params(jen.Id("r").Op("*").Qual(rt, "JSONReader")).Add(g.goType(t)).Block(
		jen.Return(g.readOf(t, jen.Id("r"))))
}

// decField is one member a decoder reads.
type decField struct {
	name   string
	t      *ir.Type       // its type as stored
	x      *jen.Statement // where it goes
	noNull bool           // null is not accepted (it would take the field's default)
}

// memberCases are the cases of the switch on a member's name: each marks
// the member seen (a second time fails) and reads it.
func (g *generator) memberCases(fields []decField) []jen.Code {
	var cases []jen.Code
	for i, fl := range fields {
		read := g.readOf(fl.t, jen.Id("r"))
		if fl.noNull && fl.t.Optional {
			if pointerOpt(fl.t) {
				read = jen.New(g.readOf(baseType(fl.t), jen.Id("r")))
			} else {
				read = g.readOf(baseType(fl.t), jen.Id("r"))
			}
		}
		cases = append(cases, jen.Case(jen.Lit(fl.name)).Block(
			jen.Id("r").Dot("Seen").Call(jen.Op("&").Id("seen"), jen.Lit(i)),
			jen.Add(fl.x).Op("=").Add(read),
		))
	}
	return append(cases, jen.Default().Block(jen.Id("r").Dot("Fail").Call()))
}

// allSeen is the mask of n members.
func allSeen(n int) jen.Code {
	if n == maxFastFields {
		return jen.Op("^").Uint64().Call(jen.Lit(0))
	}
	return maskLit(uint64(1)<<n - 1)
}

// maskLit is a mask of members as an untyped constant.
func maskLit(m uint64) *jen.Statement {
	if m < 1<<62 {
		return jen.Lit(int(m))
	}
	return jen.Lit(m)
}

// recordDecoder renders the decoder of a value record: every member
// present (a variant: its tag, its common fields and its case's fields,
// the required ones not null).
func (g *generator) recordDecoder(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	name := g.decoderName(sd, si.typ)
	all := sd.AllFields()
	var fields []decField
	for _, fl := range all {
		hasDefault := fl.Default != nil && fl.Default.Kind != ir.KindNull
		fields = append(fields, decField{fl.Name, g.storedType(fl), jen.Id("v").Dot(si.fields[fl]), hasDefault})
	}
	var body []jen.Code
	if len(fields) > maxFastFields {
		body = []jen.Code{jen.Id("r").Dot("Fail").Call(), jen.Return(jen.Id(si.typ).Values())}
	} else {
		body = []jen.Code{
			jen.Var().Id("v").Id(si.typ),
			jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return(jen.Id("v"))),
			jen.Var().Id("seen").Uint64(),
			jen.For(jen.Id("first").Op(":=").True(), jen.Id("r").Dot("NextMember").Call(jen.Id("first")), jen.Id("first").Op("=").False()).Block(
				jen.Switch(jen.Id("r").Dot("Key").Call()).Block(g.memberCases(fields)...),
			),
		}
		if sd.Tag == nil {
			body = append(body, jen.If(jen.Id("seen").Op("!=").Add(allSeen(len(fields)))).Block(jen.Id("r").Dot("Fail").Call()))
		} else {
			// the members of the record's case: its tag, the common fields
			// and the case's own; required case fields not null
			tagEnum := g.enums[sd.Tag.Type.Enum]
			var cases []jen.Code
			for _, cs := range sd.Cases {
				var mask uint64
				var nulls []jen.Code
				for i, fl := range all {
					if fl == sd.Tag || g.caseOf(fl) == nil || g.caseOf(fl) == cs {
						mask |= 1 << i
					}
					if g.caseOf(fl) == cs && !fl.Type.Optional {
						nulls = append(nulls, jen.Id("v").Dot(si.fields[fl]).Op("==").Nil())
					}
				}
				cond := jen.Id("seen").Op("!=").Add(maskLit(mask))
				for _, n := range nulls {
					cond = cond.Op("||").Add(n)
				}
				cases = append(cases, jen.Case(jen.Id(tagEnum.consts[cs.Name])).Block(jen.If(cond).Block(jen.Id("r").Dot("Fail").Call())))
			}
			cases = append(cases, jen.Default().Block(jen.Id("r").Dot("Fail").Call()))
			body = append(body, jen.Switch(jen.Id("v").Dot(si.fields[sd.Tag])).Block(cases...))
		}
		body = append(body, jen.Return(jen.Id("v")))
	}
	f.Commentf("%s reads a %s, every member present, as its UnmarshalJSON", name, sd.Name)
	f.Comment("would decode it; on any other input r fails.")
	f.Func().Id(name).Params(jen.Id("r").Op("*").Qual(rt, "JSONReader")).Id(si.typ).Block(body...)
	f.Line()
}

// entityDecoder renders the decoder of an entity's rows (the seed's
// records): the id and every field present.
func (g *generator) entityDecoder(f *goFile, e *ir.Entity) {
	ei := g.ents[e]
	name := g.decoderName(e, ei.typ)
	var fields []decField
	if e.Key == nil {
		fields = append(fields, decField{"id", &ir.Type{Kind: ir.KindString}, jen.Id("v").Dot("ID"), false})
	}
	for _, fl := range e.Fields {
		fields = append(fields, decField{fl.Name, fl.Type, jen.Id("v").Dot(ei.fields[fl]), false})
	}
	var body []jen.Code
	if len(fields) > maxFastFields {
		body = []jen.Code{jen.Id("r").Dot("Fail").Call(), jen.Return(jen.Nil())}
	} else {
		body = []jen.Code{
			jen.If(jen.Id("r").Dot("Null").Call()).Block(jen.Return(jen.Nil())),
			jen.Id("v").Op(":=").Op("&").Id(ei.typ).Values(),
			jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return(jen.Id("v"))),
			jen.Var().Id("seen").Uint64(),
			jen.For(jen.Id("first").Op(":=").True(), jen.Id("r").Dot("NextMember").Call(jen.Id("first")), jen.Id("first").Op("=").False()).Block(
				jen.Switch(jen.Id("r").Dot("Key").Call()).Block(g.memberCases(fields)...),
			),
			jen.If(jen.Id("seen").Op("!=").Add(allSeen(len(fields)))).Block(jen.Id("r").Dot("Fail").Call()),
			jen.Return(jen.Id("v")),
		}
	}
	f.Commentf("%s reads a %s record, every field present, as encoding/json", name, e.Name)
	f.Comment("would decode it; on any other input r fails.")
	f.Func().Id(name).Params(jen.Id("r").Op("*").Qual(rt, "JSONReader")).Op("*").Id(ei.typ).Block(body...)
	f.Line()
}

// argsDecoder renders the decode method of a tool's argument struct: the
// fast path of runtime.DecodeArgs.
func (g *generator) argsDecoder(f *goFile, t *ir.Tool) {
	ti := g.tools[t]
	var required uint64
	var cases []jen.Code
	for i, p := range t.Params {
		if p.Required() {
			required |= 1 << i
		}
		x := jen.Id("a").Dot(ti.fields[p])
		var read jen.Code
		switch {
		case pointerOpt(p.Type):
			read = jen.Add(x).Op("=").New(g.readOf(baseType(p.Type), jen.Id("r")))
		default:
			nb := *p.Type
			nb.Optional = false // null was read above
			read = jen.Add(x).Op("=").Add(g.readOf(&nb, jen.Id("r")))
		}
		cases = append(cases, jen.Case(jen.Lit(p.Name)).Block(
			jen.If(jen.Id("r").Dot("Arg").Call(jen.Lit(i))).Block(read),
		))
	}
	cases = append(cases, jen.Default().Block(jen.Id("r").Dot("Fail").Call()))
	f.Commentf("decode decodes the JSON arguments of %s without reflection, as", t.Name)
	f.Comment("runtime.DecodeArgs would, and reports whether it could: on false,")
	f.Comment("decode with runtime.DecodeArgs, whose error explains what is wrong.")
	recv := jen.Id("a").Op("*").Id(ti.args)
	if len(t.Params) > maxFastFields {
		f.Func().Params(recv).Id("decode").Params(jen.Id("text").String()).Bool().Block(jen.Return(jen.False()))
		f.Line()
		return
	}
	if allStrings(t.Params) {
		// the common case, decoded by the runtime: less code to compile
		names := []jen.Code{}
		dsts := []jen.Code{jen.Id("text"), nil, maskLit(required)}
		for _, p := range t.Params {
			names = append(names, jen.Lit(p.Name))
			dsts = append(dsts, jen.Op("&").Id("a").Dot(ti.fields[p]))
		}
		dsts[1] = jen.Index().String().Values(names...)
		f.Func().Params(recv).Id("decode").Params(jen.Id("text").String()).Bool().Block(
			jen.Return(jen.Qual(rt, "DecodeStringArgs").Call(dsts...)))
		f.Line()
		return
	}
	body := []jen.Code{
		jen.Id("rd").Op(":=").Qual(rt, "NewJSONReader").Call(jen.Id("text")),
		jen.Id("r").Op(":=").Op("&").Id("rd"),
		jen.If(jen.Id("r").Dot("Blank").Call()).Block(jen.Return(jen.Lit(required == 0))),
	}
	ret := jen.Return(jen.Id("r").Dot("ArgsEnd").Call(maskLit(required)))
	if len(t.Params) == 0 {
		body = append(body,
			jen.Return(jen.Id("r").Dot("BeginObject").Call().Op("&&").Op("!").Id("r").Dot("NextMember").Call(jen.True()).Op("&&").Id("r").Dot("End").Call()))
	} else {
		body = append(body,
			jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return(jen.False())),
			jen.For(jen.Id("first").Op(":=").True(), jen.Id("r").Dot("NextMember").Call(jen.Id("first")), jen.Id("first").Op("=").False()).Block(
				jen.Switch(jen.Id("r").Dot("Key").Call()).Block(cases...),
			),
			ret,
		)
	}
	f.Func().Params(recv).Id("decode").Params(jen.Id("text").String()).Bool().Block(body...)
	f.Line()
}

// allStrings reports whether every parameter is a string (string, text or
// ref) that is not optional: arguments runtime.DecodeStringArgs decodes.
func allStrings(params []*ir.Param) bool {
	if len(params) == 0 {
		return false
	}
	for _, p := range params {
		switch p.Type.Kind {
		case ir.KindString, ir.KindText, ir.KindRef:
			if p.Type.Optional {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// argsText is how a tool's handler gets the text of its arguments: a view
// of them for a tool that writes no table (nothing it decodes outlives
// the call), else a copy.
func (g *generator) argsText(t *ir.Tool) *jen.Statement {
	if t.Kind == ir.ToolCustom && !writesTables(t.Body) {
		return jen.Qual(rt, "ArgsView").Call(jen.Id("raw"))
	}
	if t.Kind == ir.ToolGet || t.Kind == ir.ToolList || t.Kind == ir.ToolSearch {
		return jen.Qual(rt, "ArgsView").Call(jen.Id("raw"))
	}
	return jen.Qual(rt, "ArgsText").Call(jen.Id("raw"))
}
