package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// Answers as graded outcomes (ir.AssertAnswer): each answer assertion has
// a function computing, on the final state, the value the agent's final
// message must state (runtime.Expected); Episode.GradeAnswer grades a
// message with runtime.AnswerMatches, which compiler/eval calls too.

// usesAnswers reports whether a rubric of the world expects an answer.
func (g *generator) usesAnswers() bool {
	for _, t := range g.w.Tasks {
		for _, a := range t.Assertions {
			if a.Kind == ir.AssertAnswer {
				return true
			}
		}
	}
	return false
}

// answerFunc renders the function of an answer assertion: the expected
// value on s, or the fault that stopped its evaluation.
func (g *generator) answerFunc(f *goFile, t *ir.Task, ai int, a *ir.Assertion) string {
	name := fmt.Sprintf("answer%s%d", exported(t.Name), ai+1)
	name = g.pkgNames.name([2]any{a, "answer"}, lowerFirst(name))
	sc := g.newScope("out", "v")
	sc.readOnly = true
	sc.constPrefix, sc.constOwner = name, fmt.Sprintf("assertion %d of task %s", ai+1, t.Name)
	var keys []indexKey
	collectIndexes(a.Expr, false, map[indexKey]bool{}, &keys)
	body := sc.buildIndexes(keys)
	typ := a.Expr.Type()
	elem := typ
	if typ.Kind == ir.KindList {
		elem = typ.Elem
	}
	body = append(body, jen.Id("v").Op(":=").Add(sc.expr(a.Expr).c))
	if canFault(a.Expr) {
		body = append(body, jen.If(jen.Err().Op(":=").Id("s").Dot("takeFault").Call(), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Qual(rt, "Expected").Values(), jen.Err())))
	}
	body = append(body, jen.Id("out").Op(":=").Qual(rt, "Expected").Values(jen.Dict{
		jen.Id("Kind"):   jen.Lit(g.answerKind(elem)),
		jen.Id("Values"): jen.Index().String().Values(),
	}))
	add := func(x *jen.Statement, t *ir.Type) jen.Code {
		text := g.answerText(x, t)
		return jen.Id("out").Dot("Values").Op("=").Append(jen.Id("out").Dot("Values"), text)
	}
	each := func(x *jen.Statement, t *ir.Type) jen.Code {
		if optional(t) {
			base := *t
			base.Optional = false
			if pointerOpt(t) {
				return jen.If(jen.Add(x).Op("!=").Nil()).Block(add(jen.Op("*").Add(x), &base))
			}
			return jen.If(jen.Add(x).Op("!=").Nil()).Block(add(x, &base))
		}
		return add(x, t)
	}
	if typ.Kind == ir.KindList {
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("x")).Op(":=").Range().Id("v")).Block(each(jen.Id("x"), elem)))
	} else {
		body = append(body, each(jen.Id("v"), typ))
	}
	body = append(body, jen.Return(jen.Id("out"), jen.Nil()))
	f.Add(doc(fmt.Sprintf("%s is the value assertion %d of task %s asks the final answer to state:", name, ai+1, t.Name), abridged(a.Text)))
	f.Func().Id(name).Params(jen.Id("s").Op("*").Id("State")).Parens(jen.List(jen.Qual(rt, "Expected"), jen.Error())).Block(body...)
	f.Line()
	return name
}

// answerKind is how runtime.AnswerMatches compares an answer of type t
// (compiler/eval's answerKind).
func (g *generator) answerKind(t *ir.Type) string {
	switch {
	case t.Kind.Numeric():
		return "number"
	case t.Kind == ir.KindDate:
		return "date"
	case t.Kind == ir.KindBool:
		return "bool"
	}
	return "text"
}

// answerText is the canonical text of the value x of type t (not
// optional) in an answer, as compiler/eval's answerText writes it.
func (g *generator) answerText(x *jen.Statement, t *ir.Type) *jen.Statement {
	switch t.Kind {
	case ir.KindInt:
		return jen.Qual("strconv", "FormatInt").Call(x, jen.Lit(10))
	case ir.KindDecimal, ir.KindMoney:
		if g.exact() {
			return recv(x).Dot("String").Call()
		}
		return jen.Qual("strconv", "FormatFloat").Call(x, jen.LitRune('f'), jen.Lit(-1), jen.Lit(64))
	case ir.KindBool:
		return jen.Qual("strconv", "FormatBool").Call(x)
	case ir.KindEnum:
		return jen.String().Call(x)
	case ir.KindDate, ir.KindDateTime:
		return recv(x).Dot("String").Call()
	case ir.KindRecord:
		return recv(x).Dot(g.ents[t.Entity].id)
	}
	return x // string, text, ref (an id)
}

// answerEpisode renders the grading of answers: gradeAnswer,
// Episode.GradeAnswer and Episode.GoldenAnswer.
func (g *generator) answerEpisode(f *goFile) {
	recv := jen.Id("e").Op("*").Id("Episode")
	f.Comment("GradeAnswer grades the episode as Grade does, with the agent's final")
	f.Comment("message: an answer assertion holds when the message states the value it")
	f.Comment("expects on the current state (runtime.AnswerMatches). It implements")
	f.Comment("runtime.AnswerGrader.")
	f.Func().Params(recv.Clone()).Id("GradeAnswer").Params(jen.Id("answer").String()).Qual(rt, "Grade").Block(
		jen.Return(jen.Id("e").Dot("grade").Call(jen.Op("&").Id("answer"))))
	f.Line()
	f.Comment("GoldenAnswer is what a golden final message states on the current state:")
	f.Comment("the expected value of each answer assertion, one a line.")
	f.Func().Params(recv.Clone()).Id("GoldenAnswer").Params().String().Block(
		jen.If(jen.Id("e").Dot("task").Op("==").Nil()).Block(jen.Return(jen.Lit(""))),
		jen.Var().Id("lines").Index().String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id("e").Dot("task").Dot("rubric")).Block(
			jen.If(jen.Id("a").Dot("answer").Op("==").Nil()).Block(jen.Continue()),
			jen.If(jen.List(jen.Id("want"), jen.Err()).Op(":=").Id("a").Dot("answer").Call(jen.Id("e").Dot("state")), jen.Err().Op("==").Nil()).Block(
				jen.Id("lines").Op("=").Append(jen.Id("lines"), jen.Id("want").Dot("Text").Call())),
		),
		jen.Return(jen.Qual("strings", "Join").Call(jen.Id("lines"), jen.Lit("\n"))),
	)
	f.Line()
	f.Comment("gradeAnswer grades an answer assertion whose expected value expected")
	f.Comment("computes on s; a nil answer is none given.")
	f.Func().Id("gradeAnswer").Params(jen.Id("expected").Func().Params(jen.Op("*").Id("State")).Parens(jen.List(jen.Qual(rt, "Expected"), jen.Error())), jen.Id("s").Op("*").Id("State"), jen.Id("answer").Op("*").String()).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.List(jen.Id("want"), jen.Err()).Op(":=").Id("expected").Call(jen.Id("s")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.False(), jen.Err().Dot("Error").Call())),
		jen.If(jen.Id("answer").Op("==").Nil()).Block(jen.Return(jen.False(), jen.Lit("no answer given; expected one stating ").Op("+").Id("want").Dot("Text").Call())),
		jen.Return(jen.Qual(rt, "AnswerMatches").Call(jen.Op("*").Id("answer"), jen.Id("want"))),
	)
	f.Line()
}

// recv is x as the receiver of a method or field: parenthesised when it
// is a dereference (*p).
func recv(x *jen.Statement) *jen.Statement {
	if strings.HasPrefix(goText(x), "*") {
		return jen.Parens(x)
	}
	return jen.Add(x)
}
