package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// conformanceFile renders Checks and Conformance: the seed checks, one
// check per tool that it succeeds on arguments found from its probe
// (probes.json, see probesJSON), and the runtime's conformance checks
// (tool descriptions, tasks, solutions, determinism, isolation, bad
// arguments), all run by runtime.WorldChecks.
func (g *generator) conformanceFile(f *goFile) {
	f.Anon("embed")
	f.Comment("probesJSON holds the tool probes: where to look for arguments each")
	f.Comment("tool accepts (candidate values per parameter taken from the seed,")
	f.Comment("enums and simple defaults), and each tool's require messages.")
	f.Comment("")
	f.Comment("//go:embed probes.json")
	f.Var().Id("probesJSON").String()
	f.Line()

	f.Comment("checkSeed checks that the world seed satisfies its types, refs,")
	f.Comment("constraints and invariants, and that every task's start state builds")
	f.Comment("and satisfies its constraints and refs.")
	f.Func().Id("checkSeed").Params().Error().Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("worldSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("errs").Op(":=").Id("s").Dot("Validate").Call(),
		jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("s").Dot("CheckInvariants").Call()).Block(
			jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("the seed breaks an invariant: %s"), jen.Id("v")))),
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks").Call()).Block(
			jen.List(jen.Id("st"), jen.Err()).Op(":=").Id("t").Dot("start").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()),
				jen.Continue(),
			),
			jen.For(jen.List(jen.Id("_"), jen.Err()).Op(":=").Range().Id("st").Dot("state").Dot("Validate").Call()).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("task %s: %w"), jen.Id("t").Dot("info").Dot("ID"), jen.Err()))),
		),
		jen.Return(jen.Qual(rt, "Join").Call(jen.Id("errs"))),
	)
	f.Line()
	f.Comment("Checks are the world's conformance checks, each named for the report:")
	f.Comment("the seed, each tool on arguments found from its probe, and the")
	f.Comment("runtime's checks (see runtime.WorldChecks).")
	f.Func().Id("Checks").Params().Index().Qual(rt, "Check").Block(
		jen.Return(jen.Qual(rt, "WorldChecks").Call(jen.Id("World").Values(), jen.Id("checkSeed"), jen.Qual(rt, "DecodeProbes").Call(jen.Id("probesJSON")))),
	)
	f.Line()
	f.Comment("Conformance runs every check and returns the failures, each naming its")
	f.Comment("check (and the task, step, tool or assertion concerned).")
	f.Func().Id(ir.EntryPoint).Params().Index().Error().Block(jen.Return(jen.Qual(rt, "RunChecks").Call(jen.Id("Checks").Call())))
	f.Line()
}

// testFile renders world_test.go: one subtest per conformance check.
func (g *generator) testFile(f *goFile) {
	f.Comment("TestConformance runs the world's conformance checks, one subtest each.")
	f.Func().Id("TestConformance").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("Checks").Call()).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("c").Dot("Name"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
				jen.If(jen.Err().Op(":=").Id("c").Dot("Run").Call(), jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Error").Call(jen.Err())),
			)),
		),
	)
}

// decoderTests renders decoders_test.go, the differential tests of the
// generated decoders: the argument decoders against
// runtime.DecodeArgs (samples from the golden solutions, and a fuzz
// target), the seed decoders against encoding/json.
func (g *generator) decoderTests(f *goFile) {
	var decs []jen.Code
	for _, t := range g.w.Tools {
		ti := g.tools[t]
		args := []jen.Code{jen.Id("raw"), jen.Op("&").Id("a")}
		for _, p := range t.Params {
			if p.Required() {
				args = append(args, jen.Lit(p.Name))
			}
		}
		decs = append(decs, jen.Values(jen.Dict{
			jen.Id("Tool"): jen.Lit(t.Name),
			jen.Id("Fast"): jen.Func().Params(jen.Id("raw").Index().Byte()).Parens(jen.List(jen.Any(), jen.Bool())).Block(
				jen.Var().Id("a").Id(ti.args),
				jen.Id("ok").Op(":=").Id("a").Dot("decode").Call(jen.String().Call(jen.Id("raw"))),
				jen.Return(jen.Id("a"), jen.Id("ok")),
			),
			jen.Id("Slow"): jen.Func().Params(jen.Id("raw").Index().Byte()).Parens(jen.List(jen.Any(), jen.Error())).Block(
				jen.Var().Id("a").Id(ti.args),
				jen.Err().Op(":=").Qual(rt, "DecodeArgs").Call(args...),
				jen.Return(jen.Id("a"), jen.Err()),
			),
		}))
	}
	f.Comment("argDecoders pairs the generated argument decoder of each tool with")
	f.Comment("runtime.DecodeArgs.")
	f.Func().Id("argDecoders").Params().Index().Qual(rt, "ArgDecoder").Block(
		jen.Return(jen.Index().Qual(rt, "ArgDecoder").Values(decs...)))
	f.Line()
	f.Comment("TestArgDecoders compares the generated argument decoders with")
	f.Comment("runtime.DecodeArgs on the golden solutions' arguments and variations.")
	f.Func().Id("TestArgDecoders").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Err()).Op(":=").Range().Qual(rt, "CheckArgDecoders").Call(jen.Id("New").Call(), jen.Id("argDecoders").Call())).Block(
			jen.Id("t").Dot("Error").Call(jen.Err())),
	)
	f.Line()
	f.Comment("FuzzArgDecoders compares the generated argument decoders with")
	f.Comment("runtime.DecodeArgs on any input.")
	f.Func().Id("FuzzArgDecoders").Params(jen.Id("f").Op("*").Qual("testing", "F")).Block(
		jen.Id("ds").Op(":=").Id("argDecoders").Call(),
		jen.If(jen.Len(jen.Id("ds")).Op("==").Lit(0)).Block(jen.Return()),
		jen.Id("samples").Op(":=").Qual(rt, "ArgSamples").Call(jen.Id("New").Call()),
		jen.For(jen.List(jen.Id("i"), jen.Id("d")).Op(":=").Range().Id("ds")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("raw")).Op(":=").Range().Id("samples").Index(jen.Id("d").Dot("Tool"))).Block(
				jen.Id("f").Dot("Add").Call(jen.Uint().Call(jen.Id("i")), jen.Id("raw")))),
		jen.Id("f").Dot("Fuzz").Call(jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T"), jen.Id("i").Uint(), jen.Id("raw").Index().Byte()).Block(
			jen.If(jen.Err().Op(":=").Qual(rt, "CheckArgDecoding").Call(jen.Id("ds").Index(jen.Id("i").Op("%").Uint().Call(jen.Len(jen.Id("ds")))), jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
				jen.Id("t").Dot("Fatal").Call(jen.Err())),
		)),
	)
	f.Line()
	f.Comment("TestSeedDecoders: the generated decoders read seed.json, and read it")
	f.Comment("as encoding/json does.")
	f.Func().Id("TestSeedDecoders").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("fast"), jen.Id("ok")).Op(":=").Id("decodeSeed").Call(),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Id("t").Dot("Fatal").Call(jen.Lit("the generated decoders cannot read seed.json"))),
		jen.Var().Id("slow").Id("seedData"),
		jen.If(jen.Err().Op(":=").Qual(rt, "DecodeStrict").Call(jen.Id("seedJSON"), jen.Op("&").Id("slow")), jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err())),
		jen.If(jen.Op("!").Qual("reflect", "DeepEqual").Call(jen.Id("fast"), jen.Op("&").Id("slow"))).Block(
			jen.Id("t").Dot("Error").Call(jen.Lit("the generated decoders read seed.json otherwise than encoding/json"))),
	)
}
