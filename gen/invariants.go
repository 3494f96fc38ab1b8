package gen

import (
	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// invariantsFile renders one checker per invariant, a plain loop over the
// trigger entity's rows with indexes built up front, and CheckInvariants.
func (g *generator) invariantsFile(f *goFile) {
	var all []jen.Code
	var parts []part
	all = append(all, jen.Var().Id("out").Index().Qual(rt, "Violation"))
	for _, inv := range g.w.Invariants {
		restore := g.at(invariantOrigin(inv))
		g.named(ir.Named{Kind: "invariant", Name: inv.Name}, invariantOrigin(inv))
		g.invariantChecker(f, inv)
		restore()
		parts = append(parts, part{first: len(all), n: 1, from: invariantOrigin(inv)})
		all = append(all, jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("s").Dot(g.invs[inv]).Call().Op("...")))
	}
	all = append(all, jen.Return(jen.Id("out")))
	g.flushConstants(f)
	f.Comment("CheckInvariants runs every invariant check and returns the records that")
	f.Comment("break them, in invariant order and then insertion order.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("CheckInvariants").Params().Index().Qual(rt, "Violation").Block(all...)
	if len(parts) > 0 {
		f.bodyParts(len(all), parts...)
	}
	f.Line()
	g.rulesFile(f)
}

func (g *generator) invariantChecker(f *goFile, inv *ir.Invariant) {
	ei := g.ents[inv.Entity]
	reserved := []string{"out"}
	if inv.Always {
		reserved = append(reserved, "rows")
		for _, k := range g.alw.reads[inv] {
			reserved = append(reserved, g.alw.startField[k])
		}
	}
	sc := g.newScope(reserved...)
	sc.readOnly = true
	sc.constPrefix, sc.constOwner = g.invs[inv], "the invariant "+inv.Name
	var keys []indexKey
	seen := map[indexKey]bool{}
	collectIndexes(inv.Where, true, seen, &keys)
	collectIndexes(inv.Check, true, seen, &keys)
	body := []jen.Code{jen.Var().Id("out").Index().Qual(rt, "Violation")}
	if inv.Always {
		// The indexes are the checker's parameters (see alwaysChecker).
		for _, k := range keys {
			sc.indexes[k] = g.alw.startField[k]
		}
		sc.indexCalls = true
	} else {
		body = append(body, sc.buildIndexes(keys)...)
	}
	v := sc.bind(inv.Var)
	violation := func(msg jen.Code) *jen.Statement {
		return jen.Id("out").Op("=").Append(jen.Id("out"), jen.Qual(rt, "Violation").Values(jen.Dict{
			jen.Id("Invariant"): jen.Lit(inv.Name),
			jen.Id("Entity"):    jen.Lit(inv.Entity.Name),
			jen.Id("ID"):        jen.Id(v).Dot(ei.id),
			jen.Id("Message"):   msg,
		}))
	}
	var loop []jen.Code
	faulty := (inv.Where != nil && canFault(inv.Where)) || canFault(inv.Check)
	if inv.Where != nil {
		loop = append(loop, jen.If(jen.Op("!").Add(sc.expr(inv.Where).at(precUnary))).Block(jen.Continue()))
	}
	ok := sc.temp("ok")
	loop = append(loop, jen.Id(ok).Op(":=").Add(sc.expr(inv.Check).c))
	if faulty {
		loop = append(loop, jen.If(jen.Err().Op(":=").Id("s").Dot("takeFault").Call(), jen.Err().Op("!=").Nil()).Block(
			violation(jen.Err().Dot("Error").Call()), jen.Continue()))
	}
	loop = append(loop, jen.If(jen.Op("!").Id(ok)).Block(violation(jen.Lit(oneLine(inv.Policy)))))
	rows := jen.Id("s").Dot(ei.table).Dot("All").Call()
	if inv.Always {
		rows = jen.Id("rows")
	}
	body = append(body, jen.For(jen.Id(v).Op(":=").Range().Add(rows)).Block(loop...))
	body = append(body, jen.Return(jen.Id("out")))
	f.Add(doc(g.invs[inv]+" checks the invariant "+inv.Name+": every "+inv.Entity.Name+" record it applies to must satisfy its check. The policy reads:", inv.Policy))
	if !inv.Always {
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(g.invs[inv]).Params().Index().Qual(rt, "Violation").Block(body...)
		f.Line()
		return
	}
	// An always-invariant is also checked on some records only, after a
	// tool call (see checkAlways).
	g.alwaysChecker(f, inv, body, keys)
}
