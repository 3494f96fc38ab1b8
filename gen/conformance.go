package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	toolprobe "github.com/worldc/worldc/compiler/probe"
)

// conformanceFile renders Checks and Conformance: the seed checks, one
// check per tool that it succeeds on arguments taken from the seed, and
// the runtime's conformance checks (tool descriptions, tasks, solutions,
// determinism, isolation, bad arguments).
func (g *generator) conformanceFile(f *jen.File) {
	var probes []jen.Code
	for _, tp := range toolprobe.Probes(g.w) {
		var params []jen.Code
		for _, p := range tp.Params {
			var cands []jen.Code
			for _, c := range p.Candidates {
				cands = append(cands, jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(c))))
			}
			params = append(params, jen.Values(jen.Dict{
				jen.Id("Name"):       jen.Lit(p.Name),
				jen.Id("Candidates"): jen.Index().Qual("encoding/json", "RawMessage").Values(cands...),
			}))
		}
		d := jen.Dict{
			jen.Id("Tool"):   jen.Lit(tp.Tool),
			jen.Id("Params"): jen.Index().Qual(rt, "ParamProbe").Values(params...),
		}
		if ex := tp.Examples; len(ex) > 0 {
			var xs []jen.Code
			for _, e := range ex {
				xs = append(xs, jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(e))))
			}
			d[jen.Id("Examples")] = jen.Index().Qual("encoding/json", "RawMessage").Values(xs...)
		}
		if reqs := tp.Requires; len(reqs) > 0 {
			var rs []jen.Code
			for _, r := range reqs {
				rs = append(rs, jen.Lit(r))
			}
			d[jen.Id("Requires")] = jen.Index().String().Values(rs...)
		}
		probes = append(probes, jen.Values(d))
	}
	f.Comment("toolProbes say where to look for arguments each tool accepts: candidate")
	f.Comment("values per parameter taken from the seed, enums and simple defaults.")
	f.Var().Id("toolProbes").Op("=").Index().Qual(rt, "ToolProbe").Values(probes...)
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
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks")).Block(
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
	f.Comment("Checks are the world's conformance checks, each named for the report.")
	f.Func().Id("Checks").Params().Index().Qual(rt, "Check").Block(
		jen.Id("w").Op(":=").Id("World").Values(),
		jen.Id("starts").Op(":=").Index().String().Values(jen.Lit("")),
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks")).Block(
			jen.Id("starts").Op("=").Append(jen.Id("starts"), jen.Id("t").Dot("info").Dot("ID"))),
		jen.Id("checks").Op(":=").Index().Qual(rt, "Check").Values(jen.Values(jen.Dict{jen.Id("Name"): jen.Lit("seed"), jen.Id("Run"): jen.Id("checkSeed")})),
		jen.Id("probe").Op(":=").Qual("sync", "OnceValue").Call(jen.Func().Params().Index().Error().Block(
			jen.Return(jen.Qual(rt, "ProbeTools").Call(jen.Id("w"), jen.Id("starts"), jen.Id("toolProbes"))))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Id("toolProbes")).Block(
			jen.Id("checks").Op("=").Append(jen.Id("checks"), jen.Qual(rt, "Check").Values(jen.Dict{
				jen.Id("Name"): jen.Lit("tool/").Op("+").Id("p").Dot("Tool"),
				jen.Id("Run"):  jen.Func().Params().Error().Block(jen.Return(jen.Id("probe").Call().Index(jen.Id("i")))),
			})),
		),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Index().Struct(
			jen.Id("name").String(),
			jen.Id("run").Func().Params(jen.Qual(rt, "World")).Index().Error(),
		).Values(
			jen.Values(jen.Lit("tools"), jen.Qual(rt, "CheckTools")),
			jen.Values(jen.Lit("tasks"), jen.Qual(rt, "CheckTasks")),
			jen.Values(jen.Lit("solutions"), jen.Qual(rt, "CheckSolutions")),
			jen.Values(jen.Lit("determinism"), jen.Qual(rt, "CheckDeterminism")),
			jen.Values(jen.Lit("isolation"), jen.Qual(rt, "CheckIsolation")),
			jen.Values(jen.Lit("bad-arguments"), jen.Qual(rt, "CheckBadArguments")),
		)).Block(
			jen.Id("run").Op(":=").Id("c").Dot("run"),
			jen.Id("checks").Op("=").Append(jen.Id("checks"), jen.Qual(rt, "Check").Values(jen.Dict{
				jen.Id("Name"): jen.Id("c").Dot("name"),
				jen.Id("Run"):  jen.Func().Params().Error().Block(jen.Return(jen.Qual(rt, "Join").Call(jen.Id("run").Call(jen.Id("w"))))),
			})),
		),
		jen.Return(jen.Id("checks")),
	)
	f.Line()
	f.Comment("Conformance runs every check and returns the failures, each naming its")
	f.Comment("check (and the task, step, tool or assertion concerned).")
	f.Func().Id(ir.EntryPoint).Params().Index().Error().Block(jen.Return(jen.Qual(rt, "RunChecks").Call(jen.Id("Checks").Call())))
	f.Line()
}

// testFile renders world_test.go: one subtest per conformance check.
func (g *generator) testFile(f *jen.File) {
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
func (g *generator) decoderTests(f *jen.File) {
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
		jen.Id("d").Op(":=").Qual("encoding/json", "NewDecoder").Call(jen.Qual("strings", "NewReader").Call(jen.Id("seedJSON"))),
		jen.Id("d").Dot("DisallowUnknownFields").Call(),
		jen.Var().Id("slow").Id("seedData"),
		jen.If(jen.Err().Op(":=").Id("d").Dot("Decode").Call(jen.Op("&").Id("slow")), jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err())),
		jen.If(jen.Op("!").Qual("reflect", "DeepEqual").Call(jen.Id("fast"), jen.Op("&").Id("slow"))).Block(
			jen.Id("t").Dot("Error").Call(jen.Lit("the generated decoders read seed.json otherwise than encoding/json"))),
	)
}
