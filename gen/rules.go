package gen

import (
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// Rules on actions (ir.Rule): before a call, the Episode asks
// State.checkRules which rules of the tool the call would break, on the
// state before it; when the call succeeds, it reports them in its trace
// at the call's step, as it does the always-invariants' violations after
// it. Nothing refuses the call: the rule is the agent's to keep.

// rulesByTool lists the tools with rules, in tool order, and their rules
// in declaration order.
func (g *generator) rulesByTool() (tools []*ir.Tool, rules map[*ir.Tool][]*ir.Rule) {
	rules = map[*ir.Tool][]*ir.Rule{}
	for _, r := range g.w.Rules {
		rules[r.Tool] = append(rules[r.Tool], r)
	}
	for _, t := range g.w.Tools {
		if len(rules[t]) > 0 {
			tools = append(tools, t)
		}
	}
	return tools, rules
}

// traced reports whether the episode keeps a trace of violations along
// its calls: for always-invariants or rules on actions.
func (g *generator) traced() bool { return len(g.always) > 0 || len(g.w.Rules) > 0 }

// rulesFile renders checkRules and one checker per tool with rules.
func (g *generator) rulesFile(f *goFile) {
	tools, rules := g.rulesByTool()
	if len(tools) == 0 {
		return
	}
	var cases []jen.Code
	for _, t := range tools {
		name := g.stateNames.name([2]any{t, "rules"}, "rulesOf"+g.tools[t].method)
		cases = append(cases, jen.Case(jen.Lit(t.Name)).Block(jen.Return(jen.Id("s").Dot(name).Call(jen.Id("raw")))))
		g.toolRules(f, t, rules[t], name)
	}
	f.Comment("checkRules returns the rules on actions that a call of tool with the")
	f.Comment("JSON arguments raw breaks on the state before it, in declaration order:")
	f.Comment("none for arguments the call refuses (a call that fails breaks no rule).")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("checkRules").Params(jen.Id("tool").String(), jen.Id("raw").Qual("encoding/json", "RawMessage")).Index().Qual(rt, "Violation").Block(
		jen.Switch(jen.Id("tool")).Block(cases...),
		jen.Return(jen.Nil()),
	)
	f.Line()
}

// toolRules renders the checker of the rules of one tool: its arguments
// decoded and its ref parameters looked up as the tool does, then each
// rule's check; a fault in a check is a violation with the fault's
// message, a false check one with the rule's policy text.
func (g *generator) toolRules(f *goFile, t *ir.Tool, rules []*ir.Rule, name string) {
	ti := g.tools[t]
	sc := g.newScope("out", "args", "raw", "slow", "err")
	sc.readOnly = true
	var body []jen.Code
	var required []jen.Code
	required = append(required, jen.Id("raw"), jen.Op("&").Id("slow"))
	for _, p := range t.Params {
		if p.Required() {
			required = append(required, jen.Lit(p.Name))
		}
	}
	if len(t.Params) > 0 {
		body = append(body,
			jen.Var().Id("args").Id(ti.args),
			jen.If(jen.Op("!").Id("args").Dot("decode").Call(jen.Qual(rt, "ArgsView").Call(jen.Id("raw")))).Block(
				jen.Var().Id("slow").Id(ti.args),
				jen.If(jen.Qual(rt, "DecodeArgs").Call(required...).Op("!=").Nil()).Block(jen.Return(jen.Nil())),
				jen.Id("args").Op("=").Id("slow"),
			))
	}
	// The violations name the record of the first ref parameter.
	entity, id, named := jen.Lit(""), jen.Lit(""), false
	for _, p := range t.Params {
		if p.Var == nil {
			continue
		}
		field := ti.fields[p]
		if p.Type.Kind != ir.KindRef {
			sc.vars[p.Var] = func() *jen.Statement { return jen.Id("args").Dot(field) }
			continue
		}
		// A ref no check reads and that names no violation is not looked
		// up: Go refuses a variable never used, and a call whose ref is
		// missing fails, which breaks no rule.
		if named || p.Type.Optional {
			if !slices.ContainsFunc(rules, func(r *ir.Rule) bool { return mentions(r.Check, p.Var) }) {
				continue
			}
		}
		v := sc.bind(p.Var)
		find := jen.Id("s").Dot("find" + g.ents[p.Type.Entity].typ)
		if p.Type.Optional {
			body = append(body,
				jen.Var().Id(v).Op("*").Id(g.ents[p.Type.Entity].typ),
				jen.If(jen.Id("args").Dot(field).Op("!=").Nil()).Block(
					jen.Var().Err().Error(),
					jen.If(jen.List(jen.Id(v), jen.Err()).Op("=").Add(find).Call(jen.Op("*").Id("args").Dot(field)), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil()))))
			continue
		}
		body = append(body, jen.List(jen.Id(v), jen.Err()).Op(":=").Add(find).Call(jen.Id("args").Dot(field)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil())))
		if !named {
			entity, id, named = jen.Lit(p.Type.Entity.Name), jen.Id(v).Dot(g.ents[p.Type.Entity].id), true
		}
	}
	body = append(body, jen.Var().Id("out").Index().Qual(rt, "Violation"))
	violation := func(rule string, msg jen.Code) *jen.Statement {
		return jen.Id("out").Op("=").Append(jen.Id("out"), jen.Qual(rt, "Violation").Values(jen.Dict{
			jen.Id("Invariant"): jen.Lit(rule),
			jen.Id("Entity"):    entity,
			jen.Id("ID"):        id,
			jen.Id("Message"):   msg,
			jen.Id("Rule"):      jen.True(),
		}))
	}
	for _, r := range rules {
		ok := sc.temp("ok")
		body = append(body, jen.Id(ok).Op(":=").Add(sc.expr(r.Check).c))
		broken := jen.If(jen.Op("!").Id(ok)).Block(violation(r.Name, jen.Lit(oneLine(r.Policy))))
		if canFault(r.Check) {
			body = append(body, jen.If(jen.Err().Op(":=").Id("s").Dot("takeFault").Call(), jen.Err().Op("!=").Nil()).Block(
				violation(r.Name, jen.Err().Dot("Error").Call())).Else().Add(broken))
		} else {
			body = append(body, broken)
		}
	}
	body = append(body, jen.Return(jen.Id("out")))
	f.Commentf("%s checks the rules on actions of the tool %s before a call with the", name, t.Name)
	f.Comment("JSON arguments raw. Their policies read:")
	for _, r := range rules {
		f.Comment("  - " + oneLine(r.Policy))
	}
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(name).Params(jen.Id("raw").Qual("encoding/json", "RawMessage")).Index().Qual(rt, "Violation").Block(body...)
	f.Line()
}

// ruleHeld renders alwaysHeld for a world with rules on actions and no
// always-invariant (gen/always.go renders it otherwise): `invariant NAME`
// of a rule holds only if no call of the episode broke it.
func (g *generator) ruleHeld(f *goFile) {
	f.Comment("alwaysHeld grades `invariant NAME` of a rule on actions: it holds only")
	f.Comment("if no call broke it (ok and detail: its verdict on the current state).")
	f.Func().Params(jen.Id("e").Op("*").Id("Episode")).Id("alwaysHeld").Params(jen.Id("name").String(), jen.Id("ok").Bool(), jen.Id("detail").String()).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.Id("vs").Op(":=").Id("e").Dot("trace").Dot("Broken").Call(jen.Id("name")),
		jen.If(jen.Len(jen.Id("vs")).Op("==").Lit(0)).Block(jen.Return(jen.Id("ok"), jen.Id("detail"))),
		jen.Id("why").Op(":=").Id("vs").Index(jen.Lit(0)).Dot("String").Call(),
		jen.If(jen.Len(jen.Id("vs")).Op(">").Lit(1)).Block(jen.Id("why").Op("+=").Qual("fmt", "Sprintf").Call(jen.Lit(" (and %d more)"), jen.Len(jen.Id("vs")).Op("-").Lit(1))),
		jen.Return(jen.False(), jen.Id("why")),
	)
	f.Line()
}

// ruleHoldsFunc renders ruleHolds, the check of `invariant NAME` of a rule
// on actions on a state: it always holds there (the trace has the calls
// that broke it).
func (g *generator) ruleHoldsFunc(f *goFile) {
	f.Comment("ruleHolds is the verdict of `invariant NAME` of a rule on actions on a")
	f.Comment("state, which holds: the calls that broke the rule are in the trace.")
	f.Func().Id("ruleHolds").Params(jen.Op("*").Id("State"), jen.Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.Return(jen.True(), jen.Lit("")))
	f.Line()
}

// usesRuleAssertion reports whether a rubric says `invariant NAME` of a
// rule on actions.
func (g *generator) usesRuleAssertion() bool {
	for _, t := range g.w.Tasks {
		for _, a := range t.Assertions {
			if a.Kind == ir.AssertRule {
				return true
			}
		}
	}
	return false
}
