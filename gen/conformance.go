package gen

import (
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// maxCandidates bounds the candidate values tried per parameter.
const maxCandidates = 16

// candidates lists values to try for a parameter when looking for
// arguments a tool accepts: for a ref the seed's ids of the entity, for an
// enum its values, for a scalar the seed's values of fields with the same
// name and then simple defaults; for a unique field a fresh value first; an
// optional parameter is first left out.
func (g *generator) candidates(t *ir.Tool, p *ir.Param) []json.RawMessage {
	var out []json.RawMessage
	seen := map[string]bool{}
	add := func(b []byte, err error) {
		if err != nil || len(out) >= maxCandidates || seen[string(b)] {
			return
		}
		seen[string(b)] = true
		out = append(out, json.RawMessage(b))
	}
	if p.Type.Optional {
		add([]byte("null"), nil)
	}
	kind := p.Type.Kind
	fresh := fmt.Sprintf("conformance %s %s", t.Name, p.Name)
	if p.Field != nil && p.Field.Unique && kind.Textual() {
		add(json.Marshal(fresh))
	}
	switch kind {
	case ir.KindRef:
		for _, r := range g.allSeedRecords() {
			if r.Entity == p.Type.Entity {
				add(json.Marshal(r.ID))
			}
		}
	case ir.KindEnum:
		for _, v := range p.Type.Enum.Values {
			add(json.Marshal(v))
		}
	case ir.KindBool:
		add([]byte("true"), nil)
		add([]byte("false"), nil)
	default:
		var variants [][]byte
		for _, r := range g.allSeedRecords() {
			for i, f := range r.Entity.Fields {
				if f.Name != p.Name || f.Type.Kind != kind {
					continue
				}
				if v := r.Values[i]; v != nil && v.Kind != ir.KindNull {
					add(valueJSON(v, f.Type))
					if kind.Textual() {
						if b, err := json.Marshal(variant(v.Str)); err == nil {
							variants = append(variants, b)
						}
					}
				}
			}
		}
		// Values of other fields of the same kind (an amount that must
		// equal a bill's total).
		if kind.Numeric() {
			for _, r := range g.allSeedRecords() {
				for i, f := range r.Entity.Fields {
					if f.Type.Kind == kind && f.Name != p.Name {
						if v := r.Values[i]; v != nil && v.Kind != ir.KindNull {
							add(valueJSON(v, f.Type))
						}
					}
				}
			}
		}
		// A seen value with its last digit or letter changed: fresh, and
		// still of the same shape (a reference number, a phone number).
		for _, b := range variants {
			add(b, nil)
		}
		switch kind {
		case ir.KindInt:
			for _, n := range []string{"1", "0", "10", "100"} {
				add([]byte(n), nil)
			}
		case ir.KindDecimal, ir.KindMoney:
			for _, n := range []string{"100", "1", "0", "1000"} {
				add([]byte(n), nil)
			}
		case ir.KindDate:
			if d, err := runtime.ParseDate(g.w.Today); err == nil {
				for _, off := range []int{0, 1, -1, 30} {
					add(json.Marshal(d.AddDays(off)))
				}
			}
		case ir.KindDateTime:
			if d, err := runtime.ParseDate(g.w.Today); err == nil {
				add(json.Marshal(runtime.Clock{Today: d}.Now()))
			}
		default:
			add(json.Marshal(fresh))
			add(json.Marshal("test"))
		}
	}
	return out
}

// allSeedRecords are the world seed's records, then the task seeds'.
func (g *generator) allSeedRecords() []*ir.Record {
	out := append([]*ir.Record(nil), g.w.Seed...)
	for _, t := range g.w.Tasks {
		out = append(out, t.Seed...)
	}
	return out
}

// variant changes the last digit or letter of s (9 → 0 → 1, z → a).
func variant(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c >= '0' && c <= '8', c >= 'a' && c <= 'y', c >= 'A' && c <= 'Y':
			b[i]++
			return string(b)
		case c == '9':
			b[i] = '0'
			return string(b)
		case c == 'z':
			b[i] = 'a'
			return string(b)
		case c == 'Z':
			b[i] = 'A'
			return string(b)
		}
	}
	return s + "2"
}

// requires lists a tool's require messages in statement order.
func requires(t *ir.Tool) []string {
	var out []string
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		if r, ok := st.(*ir.Require); ok {
			out = append(out, r.Message)
		}
	}, nil)
	return out
}

// conformanceFile renders Checks and Conformance: the seed checks, one
// check per tool that it succeeds on arguments taken from the seed, and
// the runtime's conformance checks (tool descriptions, tasks, solutions,
// determinism, isolation, bad arguments).
func (g *generator) conformanceFile(f *jen.File) {
	var probes []jen.Code
	for _, t := range g.w.Tools {
		var params []jen.Code
		for _, p := range t.Params {
			var cands []jen.Code
			for _, c := range g.candidates(t, p) {
				cands = append(cands, jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(c))))
			}
			params = append(params, jen.Values(jen.Dict{
				jen.Id("Name"):       jen.Lit(p.Name),
				jen.Id("Candidates"): jen.Index().Qual("encoding/json", "RawMessage").Values(cands...),
			}))
		}
		d := jen.Dict{
			jen.Id("Tool"):   jen.Lit(t.Name),
			jen.Id("Params"): jen.Index().Qual(rt, "ParamProbe").Values(params...),
		}
		if reqs := requires(t); len(reqs) > 0 {
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
	f.Func().Id("Conformance").Params().Index().Error().Block(jen.Return(jen.Qual(rt, "RunChecks").Call(jen.Id("Checks").Call())))
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
