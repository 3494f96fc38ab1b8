package gen

// The encoders of records without reflection: every value record and
// entity gets AppendJSON, writing exactly the bytes encoding/json writes
// for it without HTML escaping (the encoding of observations), and
// HashFields, writing its fields into a runtime.FieldHasher in the
// canonical form of state hashes (see runtime/hash.go). Both are straight
// code over the fields in declaration order; lists, maps and optional
// values go through small generic helpers of the runtime, given the
// encoder of their elements as a function value.

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// jsonKey is the literal that starts the member name of an object: `{"name":`
// for the first member, `,"name":` for the others.
func jsonKey(name string, first bool) string {
	b := []byte{','}
	if first {
		b[0] = '{'
	}
	b = runtime.AppendString(b, name)
	return string(append(b, ':'))
}

// A writer is one of the two ways generated code writes a value: its JSON
// (runtime.Append…, the AppendJSON method) or its canonical form into a
// state hash (runtime.Hash…, the HashFields method). Both have a runtime
// function per scalar kind and a generic helper for optional values,
// lists and maps, given the writer of their elements as a function value.
type writer struct {
	prefix string                          // of the runtime's functions: "Append", "Hash"
	method string                          // of dates, records and entities
	lit    func(t *ir.Type) *jen.Statement // a function literal writing a T
}

func (g *generator) jsonWriter() writer {
	return writer{prefix: "Append", method: "AppendJSON",
		lit: func(t *ir.Type) *jen.Statement {
			return jen.Func().Params(jen.Id("dst").Index().Byte(), jen.Id("v").Add(g.goType(t))).Index().Byte().Block(
				jen.Return(g.appendOf(t, jen.Id("dst"), jen.Id("v"))))
		}}
}

func (g *generator) hashWriter() writer {
	return writer{prefix: "Hash", method: "HashFields",
		lit: func(t *ir.Type) *jen.Statement {
			return jen.Func().Params(jen.Id("w").Op("*").Qual(rt, "FieldHasher"), jen.Id("v").Add(g.goType(t))).Block(
				g.hashOf(t, jen.Id("w"), jen.Id("v")))
		}}
}

// appendOf appends the JSON of x, a value of type t, to dst.
func (g *generator) appendOf(t *ir.Type, dst, x jen.Code) *jen.Statement {
	return g.writeOf(g.jsonWriter(), t, dst, x)
}

// appendFunc is a function value appending the JSON of a value of type t:
// func(dst []byte, v T) []byte.
func (g *generator) appendFunc(t *ir.Type) *jen.Statement {
	return g.writeFunc(g.jsonWriter(), t)
}

// hashOf writes x, a value of type t, to the FieldHasher w.
func (g *generator) hashOf(t *ir.Type, w, x jen.Code) *jen.Statement {
	return g.writeOf(g.hashWriter(), t, w, x)
}

// hashFunc is a function value writing a value of type t to a
// FieldHasher: func(w *runtime.FieldHasher, v T).
func (g *generator) hashFunc(t *ir.Type) *jen.Statement {
	return g.writeFunc(g.hashWriter(), t)
}

// writeOf writes x, a value of type t, with wr to dst (a buffer or a
// hasher).
func (g *generator) writeOf(wr writer, t *ir.Type, dst, x jen.Code) *jen.Statement {
	fn := func(name string) *jen.Statement { return jen.Qual(rt, wr.prefix+name) }
	if pointerOpt(t) {
		return fn("Optional").Call(dst, x, g.writeFunc(wr, baseType(t)))
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		return fn("String").Call(dst, x)
	case ir.KindEnum:
		return fn("String").Call(dst, jen.String().Call(x))
	case ir.KindInt:
		return fn("Int").Call(dst, x)
	case ir.KindDecimal, ir.KindMoney:
		return fn(g.numName()).Call(dst, x)
	case ir.KindBool:
		return fn("Bool").Call(dst, x)
	case ir.KindList:
		return fn("List").Call(dst, x, g.writeFunc(wr, t.Elem))
	case ir.KindMap:
		if stringMap(t) {
			return fn("StringMap").Call(dst, x)
		}
		return fn("Map").Call(dst, x, g.writeFunc(wr, t.Elem))
	}
	// dates, date-times, value records, entities
	return jen.Add(x).Dot(wr.method).Call(dst)
}

// writeFunc is a function value writing a value of type t with wr: the
// runtime's function for a scalar, else a literal calling writeOf.
func (g *generator) writeFunc(wr writer, t *ir.Type) *jen.Statement {
	if !pointerOpt(t) {
		fn := func(name string) *jen.Statement { return jen.Qual(rt, wr.prefix+name) }
		switch t.Kind {
		case ir.KindString, ir.KindText, ir.KindRef:
			return fn("String")
		case ir.KindEnum:
			return fn("Enum").Types(g.goType(t))
		case ir.KindInt:
			return fn("Int")
		case ir.KindDecimal, ir.KindMoney:
			return fn(g.numName())
		case ir.KindBool:
			return fn("Bool")
		case ir.KindDate, ir.KindDateTime, ir.KindStruct, ir.KindRecord:
			return fn("Value").Types(g.goType(t))
		}
	}
	return wr.lit(t)
}

// keyedAppend is the runtime function appending the key and the value of
// a member of type t in one call (runtime.AppendKeyString…) and the value
// it takes, or "" when t is not a scalar that has one.
func (g *generator) keyedAppend(t *ir.Type, x *jen.Statement) (string, *jen.Statement) {
	if pointerOpt(t) {
		return "", nil
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		return "AppendKeyString", x
	case ir.KindEnum:
		return "AppendKeyString", jen.String().Call(x)
	case ir.KindInt:
		return "AppendKeyInt", x
	case ir.KindDecimal, ir.KindMoney:
		return "AppendKey" + g.numName(), x
	case ir.KindBool:
		return "AppendKeyBool", x
	}
	return "", nil
}

// stringMap reports whether t, a map, is a map[string]string in Go (values
// string, text or ref, not optional), which the runtime reads, writes and
// hashes without generic code (runtime.ReadStringMap, AppendStringMap,
// HashStringMap).
func stringMap(t *ir.Type) bool {
	switch e := t.Elem; e.Kind {
	case ir.KindString, ir.KindText, ir.KindRef:
		return !e.Optional
	}
	return false
}

// baseType is t without its optionality.
func baseType(t *ir.Type) *ir.Type {
	b := *t
	b.Optional = false
	return &b
}

// encField is one member of a record's encoding.
type encField struct {
	name string
	t    *ir.Type
	x    *jen.Statement // the Go value
}

// appendBody is the statements appending the members of a record, in
// order, to dst, and returning it.
func (g *generator) appendBody(fields []encField) []jen.Code {
	var body []jen.Code
	if len(fields) == 0 {
		return []jen.Code{jen.Return(jen.Append(jen.Id("dst"), jen.Lit("{}").Op("...")))}
	}
	for i, fl := range fields {
		key := jen.Lit(jsonKey(fl.name, i == 0))
		if fn, x := g.keyedAppend(fl.t, fl.x); fn != "" {
			// a scalar member: its key and value in one call
			body = append(body, jen.Id("dst").Op("=").Qual(rt, fn).Call(jen.Id("dst"), key, x))
			continue
		}
		body = append(body,
			jen.Id("dst").Op("=").Add(g.appendOf(fl.t, jen.Qual(rt, "AppendKey").Call(jen.Id("dst"), key), fl.x)))
	}
	return append(body, jen.Return(jen.Qual(rt, "AppendKey").Call(jen.Id("dst"), jen.Lit("}"))))
}

// hashBody is the statements writing a record's fields, in order, to w.
func (g *generator) hashBody(fields []encField) []jen.Code {
	body := []jen.Code{jen.Id("w").Dot("Begin").Call(jen.Lit(len(fields)))}
	for _, fl := range fields {
		body = append(body, g.hashOf(fl.t, jen.Id("w"), fl.x))
	}
	return body
}

// structEncoders renders AppendJSON and HashFields of a value record; a
// variant's write its case's fields only, as its MarshalJSON does.
func (g *generator) structEncoders(f *goFile, sd *ir.StructDef) {
	si := g.structs[sd]
	v := func(fl *ir.Field) encField {
		return encField{fl.Name, g.storedType(fl), jen.Id("v").Dot(si.fields[fl])}
	}
	recv := jen.Id("v").Id(si.typ)
	if sd.Tag == nil {
		var fields []encField
		for _, fl := range sd.Fields {
			fields = append(fields, v(fl))
		}
		f.Commentf("AppendJSON appends the JSON of the %s to dst, as encoding/json writes", sd.Name)
		f.Comment("it (fields in declaration order, strings not HTML-escaped).")
		f.Func().Params(recv).Id("AppendJSON").Params(jen.Id("dst").Index().Byte()).Index().Byte().Block(g.appendBody(fields)...)
		f.Line()
		f.Commentf("HashFields writes the fields of the %s to w in the canonical form of", sd.Name)
		f.Comment("state hashes.")
		f.Func().Params(recv).Id("HashFields").Params(jen.Id("w").Op("*").Qual(rt, "FieldHasher")).Block(g.hashBody(fields)...)
		f.Line()
		return
	}
	tagEnum := g.enums[sd.Tag.Type.Enum]
	var appendCases, hashCases []jen.Code
	for _, cs := range sd.Cases {
		fields := []encField{v(sd.Tag)}
		for _, fl := range sd.Fields {
			fields = append(fields, v(fl))
		}
		for _, fl := range cs.Fields {
			fields = append(fields, v(fl))
		}
		appendCases = append(appendCases, jen.Case(jen.Id(tagEnum.consts[cs.Name])).Block(g.appendBody(fields)...))
		hashCases = append(hashCases, jen.Case(jen.Id(tagEnum.consts[cs.Name])).Block(g.hashBody(fields)...))
	}
	f.Commentf("AppendJSON appends the JSON of the %s to dst, as MarshalJSON writes", sd.Name)
	f.Commentf("it: the %s, the common fields and the fields of the record's case.", sd.Tag.Name)
	f.Comment("A record of no case has no encoding: AppendJSON panics (runtime.BadCase).")
	f.Func().Params(recv).Id("AppendJSON").Params(jen.Id("dst").Index().Byte()).Index().Byte().Block(
		jen.Switch(jen.Id("v").Dot(si.fields[sd.Tag])).Block(appendCases...),
		jen.Qual(rt, "BadCase").Call(jen.Lit(si.typ), jen.String().Call(jen.Id("v").Dot(si.fields[sd.Tag]))),
		jen.Return(jen.Id("dst")),
	)
	f.Line()
	f.Commentf("HashFields writes the %s, the common fields and the fields of the", sd.Tag.Name)
	f.Commentf("record's case to w, in the canonical form of state hashes; a record of")
	f.Comment("no case writes its tag alone.")
	f.Func().Params(recv).Id("HashFields").Params(jen.Id("w").Op("*").Qual(rt, "FieldHasher")).Block(
		jen.Switch(jen.Id("v").Dot(si.fields[sd.Tag])).Block(append(hashCases, jen.Default().Block(
			jen.Id("w").Dot("Begin").Call(jen.Lit(1)),
			jen.Qual(rt, "HashString").Call(jen.Id("w"), jen.String().Call(jen.Id("v").Dot(si.fields[sd.Tag]))),
		))...),
	)
	f.Line()
}

// entityEncoders renders AppendJSON and HashFields of an entity's rows:
// the id (for an entity without a key field) and every field.
func (g *generator) entityEncoders(f *goFile, e *ir.Entity) {
	ei := g.ents[e]
	var fields []encField
	if e.Key == nil {
		fields = append(fields, encField{"id", &ir.Type{Kind: ir.KindString}, jen.Id("r").Dot("ID")})
	}
	for _, fl := range e.Fields {
		fields = append(fields, encField{fl.Name, fl.Type, jen.Id("r").Dot(ei.fields[fl])})
	}
	recv := jen.Id("r").Op("*").Id(ei.typ)
	f.Commentf("AppendJSON appends the JSON of the %s to dst, as encoding/json writes", e.Name)
	f.Comment("it (fields in declaration order, strings not HTML-escaped); a nil")
	f.Comment("record is null.")
	f.Func().Params(recv).Id("AppendJSON").Params(jen.Id("dst").Index().Byte()).Index().Byte().Block(append([]jen.Code{
		jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Return(jen.Qual(rt, "AppendNull").Call(jen.Id("dst")))),
	}, g.appendBody(fields)...)...)
	f.Line()
	f.Commentf("HashFields writes the fields of the %s to w in the canonical form of", e.Name)
	f.Comment("state hashes; a nil record is null.")
	f.Func().Params(recv).Id("HashFields").Params(jen.Id("w").Op("*").Qual(rt, "FieldHasher")).Block(append([]jen.Code{
		jen.If(jen.Id("r").Op("==").Nil()).Block(jen.Id("w").Dot("Null").Call(), jen.Return()),
	}, g.hashBody(fields)...)...)
	f.Line()
}
