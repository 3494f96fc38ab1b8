package gen

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	toolprobe "github.com/worldc/worldc/internal/probe"
)

// The seed travels as data, not code: seed.json (embedded) holds the world
// seed and every task's seed, one record per line, in the Snapshot format.
// It is decoded once, on first use, into a frozen State that every episode
// clones in O(1). A seed of 10,000 records adds nothing to compile time.

// seedJSON renders seed.json.
func (g *generator) seedJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\n\"world\": ")
	if err := g.writeTables(&b, g.w.Seed); err != nil {
		return nil, err
	}
	b.WriteString(",\n\"tasks\": {")
	n := 0
	for _, t := range g.w.Tasks {
		if len(t.Seed) == 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(t.Name)
		b.WriteString("\n")
		b.Write(k)
		b.WriteString(": ")
		if err := g.writeTables(&b, t.Seed); err != nil {
			return nil, err
		}
	}
	b.WriteString("}\n}\n")
	return b.Bytes(), nil
}

func (g *generator) writeTables(b *bytes.Buffer, recs []*ir.Record) error {
	b.WriteString("{")
	n := 0
	for _, e := range g.w.Entities {
		var rows []*ir.Record
		for _, r := range recs {
			if r.Entity == e {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(e.Name)
		b.WriteString("\n  ")
		b.Write(k)
		b.WriteString(": [")
		for i, r := range rows {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString("\n    ")
			if err := g.writeRecord(b, r); err != nil {
				return err
			}
		}
		b.WriteString("\n  ]")
	}
	b.WriteString("\n}")
	return nil
}

func (g *generator) writeRecord(b *bytes.Buffer, r *ir.Record) error {
	if r.Entity.Key == nil {
		id, _ := json.Marshal(r.ID)
		b.WriteString(`{"id":`)
		b.Write(id)
	} else {
		b.WriteByte('{') // the key field is the id
	}
	if len(r.Values) != len(r.Entity.Fields) {
		return fmt.Errorf("gen: seed record %s %q: %d values for %d fields", r.Entity.Name, r.ID, len(r.Values), len(r.Entity.Fields))
	}
	for i, f := range r.Entity.Fields {
		k, _ := json.Marshal(f.Name)
		if i > 0 || r.Entity.Key == nil {
			b.WriteByte(',')
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := valueJSON(r.Values[i], f.Type)
		if err != nil {
			return fmt.Errorf("gen: seed record %s %q: field %s: %w", r.Entity.Name, r.ID, f.Name, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}

// valueJSON renders a constant as JSON for a slot of type t.
func valueJSON(v *ir.Value, t *ir.Type) ([]byte, error) { return toolprobe.ValueJSON(v, t) }

// seedFile renders the seed loader.
func (g *generator) seedFile(f *goFile) {
	f.Anon("embed")
	var fields []jen.Code
	var inserts []jen.Code
	for _, e := range g.w.Entities {
		ei := g.ents[e]
		fields = append(fields, jen.Id(ei.table).Index().Op("*").Id(ei.typ).Tag(map[string]string{"json": e.Name}))
		inserts = append(inserts,
			jen.If(jen.Err().Op(":=").Id("s").Dot(ei.table).Dot("InsertAll").Call(jen.Id("t").Dot(ei.table)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
	}
	f.Comment("seedJSON holds the world seed and the task seeds, in the Snapshot format.")
	f.Comment("")
	f.Comment("//go:embed seed.json")
	f.Var().Id("seedJSON").String()
	f.Line()
	f.Comment("seedTables are seed records by entity, in insertion order.")
	f.Type().Id("seedTables").Struct(fields...)
	f.Line()
	f.Comment("seedData is seed.json decoded.")
	f.Type().Id("seedData").Struct(
		jen.Id("World").Id("seedTables").Tag(map[string]string{"json": "world"}),
		jen.Id("Tasks").Map(jen.String()).Id("seedTables").Tag(map[string]string{"json": "tasks"}),
	)
	f.Line()
	var tableCases []jen.Code
	for i, e := range g.w.Entities {
		ei := g.ents[e]
		tableCases = append(tableCases, jen.Case(jen.Lit(e.Name)).Block(
			jen.Id("r").Dot("Seen").Call(jen.Op("&").Id("seen"), jen.Lit(i)),
			jen.Id("t").Dot(ei.table).Op("=").Qual(rt, "ReadList").Call(jen.Id("r"), jen.False(), jen.Id(g.decoderName(e, ei.typ))),
		))
	}
	tableCases = append(tableCases, jen.Default().Block(jen.Id("r").Dot("Fail").Call()))
	loop := func(cases ...jen.Code) jen.Code {
		return jen.For(jen.Id("first").Op(":=").True(), jen.Id("r").Dot("NextMember").Call(jen.Id("first")), jen.Id("first").Op("=").False()).Block(
			jen.Switch(jen.Id("r").Dot("Key").Call()).Block(cases...))
	}
	f.Comment("decodeSeedTables reads the seed tables of the world or of a task")
	f.Comment("without reflection; on input encoding/json would decode otherwise, r")
	f.Comment("fails.")
	f.Func().Id("decodeSeedTables").Params(jen.Id("r").Op("*").Qual(rt, "JSONReader")).Id("seedTables").Block(
		jen.Var().Id("t").Id("seedTables"),
		jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return(jen.Id("t"))),
		jen.Var().Id("seen").Uint64(),
		loop(tableCases...),
		jen.Return(jen.Id("t")),
	)
	f.Line()
	f.Comment("decodeSeed decodes seed.json without reflection and reports whether it")
	f.Comment("could. Its maps of scalars with the same text are one map (see")
	f.Comment("runtime.NewSeedReader): the seed's rows are never modified in place.")
	f.Func().Id("decodeSeed").Params().Parens(jen.List(jen.Op("*").Id("seedData"), jen.Bool())).Block(
		jen.Id("r").Op(":=").Qual(rt, "NewSeedReader").Call(jen.Id("seedJSON")),
		jen.Var().Id("sd").Id("seedData"),
		jen.If(jen.Op("!").Id("r").Dot("BeginObject").Call()).Block(jen.Return(jen.Nil(), jen.False())),
		jen.Var().Id("seen").Uint64(),
		loop(
			jen.Case(jen.Lit("world")).Block(
				jen.Id("r").Dot("Seen").Call(jen.Op("&").Id("seen"), jen.Lit(0)),
				jen.Id("sd").Dot("World").Op("=").Id("decodeSeedTables").Call(jen.Op("&").Id("r"))),
			jen.Case(jen.Lit("tasks")).Block(
				jen.Id("r").Dot("Seen").Call(jen.Op("&").Id("seen"), jen.Lit(1)),
				jen.Id("sd").Dot("Tasks").Op("=").Qual(rt, "ReadMap").Call(jen.Op("&").Id("r"), jen.True(), jen.Id("decodeSeedTables"))),
			jen.Default().Block(jen.Id("r").Dot("Fail").Call()),
		),
		jen.Return(jen.Op("&").Id("sd"), jen.Id("r").Dot("End").Call()),
	)
	f.Line()
	f.Comment("loadSeed decodes seed.json, strictly, once: by the generated decoders,")
	f.Comment("or, when they cannot, with encoding/json, for its error.")
	f.Var().Id("loadSeed").Op("=").Qual("sync", "OnceValues").Call(jen.Func().Params().Parens(jen.List(jen.Op("*").Id("seedData"), jen.Error())).Block(
		jen.If(jen.List(jen.Id("sd"), jen.Id("ok")).Op(":=").Id("decodeSeed").Call(), jen.Id("ok")).Block(jen.Return(jen.Id("sd"), jen.Nil())),
		jen.Var().Id("sd").Id("seedData"),
		jen.If(jen.Err().Op(":=").Qual(rt, "DecodeStrict").Call(jen.Id("seedJSON"), jen.Op("&").Id("sd")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(g.pkg+": seed.json: %w"), jen.Err()))),
		jen.Return(jen.Op("&").Id("sd"), jen.Nil()),
	))
	f.Line()
	f.Comment("insert adds seed records to the state, in order.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("insert").Params(jen.Id("t").Op("*").Id("seedTables")).Error().Block(append(inserts, jen.Return(jen.Nil()))...)
	f.Line()
	f.Comment("worldSeed is the world seed, built once and frozen: never modify it,")
	f.Comment("clone it.")
	f.Var().Id("worldSeed").Op("=").Qual("sync", "OnceValues").Call(jen.Func().Params().Parens(jen.List(jen.Op("*").Id("State"), jen.Error())).Block(
		jen.List(jen.Id("sd"), jen.Err()).Op(":=").Id("loadSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("s").Op(":=").Id("NewState").Call(),
		jen.If(jen.Err().Op(":=").Id("s").Dot("insert").Call(jen.Op("&").Id("sd").Dot("World")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(g.pkg+": world seed: %w"), jen.Err()))),
		jen.Id("s").Dot("Freeze").Call(),
		jen.Return(jen.Id("s"), jen.Nil()),
	))
	f.Line()
	f.Comment("Seed returns a fresh copy of the world seed (a copy-on-write clone).")
	f.Func().Id("Seed").Params().Parens(jen.List(jen.Op("*").Id("State"), jen.Error())).Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("worldSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("s").Dot("Clone").Call(), jen.Nil()),
	)
	f.Line()
}
