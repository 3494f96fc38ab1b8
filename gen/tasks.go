package gen

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// tasksFile renders the tasks: their descriptions, golden solutions and
// rubrics as data (tasks.json, see taskdata.go), decoded once, with the
// graders of the assertions that are expressions, and start states built
// once.
func (g *generator) tasksFile(f *goFile) {
	f.Comment("assertion is one rubric item: check reports whether it holds on s,")
	f.Comment("whose task started in the state start, and why not.")
	fields := []jen.Code{
		jen.Id("kind").String(),
		jen.Id("text").String(),
		jen.Id("check").Func().Params(jen.Id("s").Op("*").Id("State"), jen.Id("start").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())),
	}
	if g.traced() {
		fields = append(fields,
			jen.Comment("always names the always-invariant (or the rule on actions) of"),
			jen.Comment("`invariant NAME`, which must also have held along the episode (see"),
			jen.Comment("Episode.Grade)."),
			jen.Id("always").String())
	}
	if g.usesAnswers() {
		fields = append(fields,
			jen.Comment("answer, for `answer EXPR`, computes the value the final message must"),
			jen.Comment("state (check is then nil; see Episode.GradeAnswer)."),
			jen.Id("answer").Func().Params(jen.Op("*").Id("State")).Parens(jen.List(jen.Qual(rt, "Expected"), jen.Error())))
	}
	f.Type().Id("assertion").Struct(fields...)
	f.Line()
	f.Comment("task is a task with its start state, built once, and its rubric.")
	f.Type().Id("task").Struct(
		jen.Id("info").Qual(rt, "TaskInfo"),
		jen.Id("start").Func().Params().Parens(jen.List(jen.Op("*").Id("startState"), jen.Error())),
		jen.Id("rubric").Index().Id("assertion"),
	)
	f.Line()
	rows := g.taskRows(f)
	g.taskData = rows
	g.flushConstants(f)
	if g.need["verdict"] {
		f.Comment("verdict is the result of an assertion whose expression evaluated to ok;")
		f.Comment("a fault met on the way fails it with the fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("verdict").Params(jen.Id("ok").Bool()).Parens(jen.List(jen.Bool(), jen.String())).Block(
			jen.If(jen.Err().Op(":=").Id("s").Dot("takeFault").Call(), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.False(), jen.Err().Dot("Error").Call())),
			jen.Return(jen.Id("ok"), jen.Lit("")),
		)
		f.Line()
		f.Comment("compared is the result of a comparison assertion: verdict, and when")
		f.Comment("the comparison does not hold, its two sides l and r.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("compared").Params(jen.Id("ok").Bool(), jen.List(jen.Id("l"), jen.Id("r")).Any()).Parens(jen.List(jen.Bool(), jen.String())).Block(
			jen.If(jen.List(jen.Id("ok"), jen.Id("why")).Op(":=").Id("s").Dot("verdict").Call(jen.Id("ok")), jen.Id("ok").Op("||").Id("why").Op("!=").Lit("")).Block(jen.Return(jen.Id("ok"), jen.Id("why"))),
			jen.Return(jen.False(), jen.Lit("left side is ").Op("+").Qual(rt, "ValueText").Call(jen.Id("l")).Op("+").Lit(", right side is ").Op("+").Qual(rt, "ValueText").Call(jen.Id("r"))),
		)
		f.Line()
	}
	if g.need["matched"] {
		f.Comment("matched is the result of a match assertion (a record compared with")
		f.Comment("a literal, or matches): verdict, and when it does not hold, the")
		f.Comment("fields of got that differ from want (those named, or all of want's).")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("matched").Params(jen.Id("ok").Bool(), jen.List(jen.Id("got"), jen.Id("want")).Any(), jen.Id("names").Op("...").String()).Parens(jen.List(jen.Bool(), jen.String())).Block(
			jen.If(jen.List(jen.Id("ok"), jen.Id("why")).Op(":=").Id("s").Dot("verdict").Call(jen.Id("ok")), jen.Id("ok").Op("||").Id("why").Op("!=").Lit("")).Block(jen.Return(jen.Id("ok"), jen.Id("why"))),
			jen.Return(jen.False(), jen.Qual(rt, "FieldDiff").Call(jen.Id("got"), jen.Id("want"), jen.Id("names").Op("..."))),
		)
		f.Line()
	}
	g.rubricTables(f, rows)
	f.Anon("embed")
	f.Comment("tasksJSON holds the tasks, one a line: each task's description (a")
	f.Comment("runtime.TaskInfo) and its rubric as data (runtime.AssertionData). The")
	f.Comment("assertions that are expressions of their own are graded by the")
	f.Comment("functions above, named there; every other by its data (rubricOf).")
	f.Comment("")
	f.Comment("//go:embed tasks.json")
	f.Var().Id("tasksJSON").String()
	f.Line()
	startArgs := []jen.Code{jen.Id("d").Dot("ID")}
	var clock []jen.Code
	if g.taskClocks {
		// A task's own clock is its TaskInfo.Now, on its date.
		startArgs = append(startArgs, jen.Id("day"), jen.Id("clock"))
		clock = []jen.Code{
			jen.List(jen.Id("day"), jen.Id("clock")).Op(":=").List(jen.Id("today"), jen.Id("now")),
			jen.If(jen.Id("d").Dot("Now").Op("!=").Nil()).Block(
				jen.List(jen.Id("day"), jen.Id("clock")).Op("=").List(jen.Id("d").Dot("Now").Dot("Date").Call(), jen.Op("*").Id("d").Dot("Now"))),
		}
	}
	f.Comment("tasks are the world's tasks in declaration order, decoded once.")
	f.Var().Id("tasks").Op("=").Qual("sync", "OnceValue").Call(jen.Func().Params().Index().Op("*").Id("task").Block(
		jen.Id("data").Op(":=").Qual(rt, "DecodeTasks").Call(jen.Id("tasksJSON")),
		jen.Id("out").Op(":=").Make(jen.Index().Op("*").Id("task"), jen.Len(jen.Id("data"))),
		jen.For(jen.List(jen.Id("i"), jen.Id("d")).Op(":=").Range().Id("data")).Block(append(clock,
			jen.Id("t").Op(":=").Op("&").Id("task").Values(jen.Dict{
				jen.Id("info"):  jen.Id("d").Dot("TaskInfo"),
				jen.Id("start"): jen.Id("taskStart").Call(startArgs...),
			}),
			jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id("d").Dot("Rubric")).Block(
				jen.Id("t").Dot("rubric").Op("=").Append(jen.Id("t").Dot("rubric"), jen.Id("rubricOf").Call(jen.Id("d").Dot("ID"), jen.Id("a"))),
			),
			jen.Id("out").Index(jen.Id("i")).Op("=").Id("t"),
		)...),
		jen.Return(jen.Id("out")),
	))
	f.Line()
	startFields := []jen.Code{jen.Id("state").Op("*").Id("State"), jen.Id("hash").String()}
	if len(g.always) > 0 {
		startFields = append(startFields, g.startFields()...)
	}
	f.Comment("startState is a task's start state, frozen, and its hash.")
	f.Type().Id("startState").Struct(startFields...)
	f.Line()
	fail := func(err jen.Code) *jen.Statement { return jen.Return(jen.Nil(), err) }
	params := []jen.Code{jen.Id("name").String()}
	var setClock []jen.Code
	if g.taskClocks {
		params = append(params, jen.Id("today").Qual(rt, "Date"), jen.Id("now").Qual(rt, "DateTime"))
		setClock = []jen.Code{jen.If(jen.Id("s").Dot("today").Op("!=").Id("today").Op("||").Id("s").Dot("now").Op("!=").Id("now")).Block(
			jen.If(jen.Id("s").Op("==").Id("base")).Block(jen.Id("s").Op("=").Id("base").Dot("Clone").Call()),
			jen.List(jen.Id("s").Dot("today"), jen.Id("s").Dot("now")).Op("=").List(jen.Id("today"), jen.Id("now")),
		)}
	}
	f.Comment("taskStart returns the start state of a task (the world seed plus the")
	f.Comment("task's seed records), computed once and frozen. (A pointer: OnceValues")
	f.Comment("of a pointer shares its compiled code with the seed's.)")
	if g.taskClocks {
		f.Comment("Its episodes' clock is today and now: the world's, or the task's own.")
	}
	f.Func().Id("taskStart").Params(params...).Func().Params().Parens(jen.List(jen.Op("*").Id("startState"), jen.Error())).Block(
		jen.Return(jen.Qual("sync", "OnceValues").Call(jen.Func().Params().Parens(jen.List(jen.Op("*").Id("startState"), jen.Error())).Block(append([]jen.Code{
			jen.List(jen.Id("base"), jen.Err()).Op(":=").Id("worldSeed").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(fail(jen.Err())),
			jen.List(jen.Id("sd"), jen.Err()).Op(":=").Id("loadSeed").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(fail(jen.Err())),
			jen.Id("s").Op(":=").Id("base"),
			jen.If(jen.List(jen.Id("extra"), jen.Id("ok")).Op(":=").Id("sd").Dot("Tasks").Index(jen.Id("name")), jen.Id("ok")).Block(
				jen.Id("s").Op("=").Id("base").Dot("Clone").Call(),
				jen.If(jen.Err().Op(":=").Id("s").Dot("insert").Call(jen.Op("&").Id("extra")), jen.Err().Op("!=").Nil()).Block(
					fail(jen.Qual("fmt", "Errorf").Call(jen.Lit(g.pkg+": task %s seed: %w"), jen.Id("name"), jen.Err()))),
				jen.Id("s").Dot("Freeze").Call(),
			),
		}, append(setClock, g.returnStart()...)...)...))),
	)
	f.Line()
	if len(g.always) > 0 {
		g.seedStartVar(f)
	}
}

// returnStart returns the start state s of a task, with, in a world with
// always-invariants, the records of s that break them.
func (g *generator) returnStart() []jen.Code {
	if len(g.always) == 0 {
		return []jen.Code{jen.Return(jen.Op("&").Id("startState").Values(jen.Id("s"), jen.Id("s").Dot("Hash").Call()), jen.Nil())}
	}
	body := []jen.Code{jen.Id("st").Op(":=").Op("&").Id("startState").Values(jen.Dict{jen.Id("state"): jen.Id("s"), jen.Id("hash"): jen.Id("s").Dot("Hash").Call()})}
	body = append(body, g.alwaysStart(true)...)
	return append(body, jen.Return(jen.Id("st"), jen.Nil()))
}

// seedStartVar renders, in a world with always-invariants, the world
// seed's start state, for the episodes of no task.
func (g *generator) seedStartVar(f *goFile) {
	f.Commentf("%s is the world seed as the start state of the episodes of no task,", g.alw.seedStart)
	f.Comment("built once. It breaks no invariant (the checker proves it, W012), and no")
	f.Comment("rubric compares with it: its hash is not computed.")
	body := []jen.Code{
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("worldSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("startState").Values(), jen.Err())),
		jen.Id("st").Op(":=").Id("startState").Values(jen.Dict{jen.Id("state"): jen.Id("s")}),
	}
	body = append(body, g.alwaysStart(false)...)
	body = append(body, jen.Return(jen.Id("st"), jen.Nil()))
	f.Var().Id(g.alw.seedStart).Op("=").Qual("sync", "OnceValues").Call(jen.Func().Params().Parens(jen.List(jen.Id("startState"), jen.Error())).Block(body...))
	f.Line()
	g.startIndexesType(f)
}

// taskInfoData is a task's description as tasks.json holds it.
func (g *generator) taskInfoData(t *ir.Task) runtime.TaskInfo {
	info := runtime.TaskInfo{
		ID: t.Name, Persona: t.Persona, Instruction: t.Instruction,
		Tags: runtime.TaskTags{Domain: t.Domain, Capabilities: nonNil(t.Capabilities), Difficulty: nonNil(t.Difficulty)},
	}
	for _, e := range t.Meta {
		switch e.Value.(type) {
		case string, int64, bool, float64, []string:
		default:
			panic(unexpectedAt(e.Pos, "meta %s: a value of type %T", e.Key, e.Value))
		}
		info.Meta = append(info.Meta, runtime.MetaEntry{Key: e.Key, Value: e.Value})
	}
	if t.Now != "" {
		// The task's own clock; its date is Today (the checker sets both).
		now, err := runtime.ParseDateTime(t.Now)
		today, terr := runtime.ParseDate(t.Today)
		if err != nil || terr != nil || now.Date() != today {
			panic(unexpectedAt(t.Pos, "task %s: clock today %q, now %q", t.Name, t.Today, t.Now))
		}
		info.Now = &now
	}
	for _, a := range t.Assertions {
		if a.Kind == ir.AssertAnswer {
			info.Answer = true
			break
		}
	}
	if t.Solution != nil {
		info.Solution = []runtime.Call{}
		for _, st := range t.Solution {
			info.Solution = append(info.Solution, g.solutionCall(st))
		}
	}
	return info
}

// nonNil is xs, or an empty list for none (a JSON array, not null).
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// solutionCall is one golden step as data: the tool, its constant
// arguments as JSON, and bound arguments resolved at replay time.
func (g *generator) solutionCall(st *ir.Step) runtime.Call {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	c := runtime.Call{Tool: st.Tool.Name}
	for _, a := range st.Args {
		if a.Bound != "" {
			c.Uses = append(c.Uses, runtime.BoundArg{Arg: a.Param.Name, Name: a.Bound})
			continue
		}
		v, err := valueJSON(a.Value, a.Param.Type)
		if err != nil {
			panic(unexpectedAt(a.Pos, "solution of %s: %v", st.Tool.Name, err))
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(a.Param.Name)
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	c.Args = json.RawMessage(b.Bytes())
	if st.Bind != "" {
		c.Bind = st.Bind
		if r := st.Tool.Returns; r != nil && r.Entity != nil && r.Entity.Key != nil {
			c.BindKey = r.Entity.Key.Name
		}
	}
	if st.Fails != nil {
		c.Fails = *st.Fails
	}
	return c
}

// exprGrader renders the grader of an assertion that is an expression
// and returns its name.
func (g *generator) exprGrader(f *goFile, t *ir.Task, ai int, a *ir.Assertion) string {
	name := fmt.Sprintf("assert%s%d", exported(t.Name), ai+1)
	name = g.pkgNames.name(a, lowerFirst(name))
	sc := g.newScope("start")
	sc.readOnly = true
	sc.constPrefix, sc.constOwner = name, fmt.Sprintf("assertion %d of task %s", ai+1, t.Name)
	var keys []indexKey
	collectIndexes(a.Expr, false, map[indexKey]bool{}, &keys)
	body := sc.buildIndexes(keys)
	g.need["verdict"] = true
	if m, isMatch := a.Expr.(*ir.Match); isMatch {
		body = append(body, sc.matchGrader(m)...)
	} else if b, isBin := a.Expr.(*ir.Binary); isBin && comparisonOps[b.Op] {
		// Each side is evaluated once; both are reported when the
		// comparison fails. (Constants stay inline: they are cheap, and an
		// untyped Go constant bound to a local would change its type.)
		side := func(e ir.Expr, name string) ir.Expr {
			switch e.(type) {
			case *ir.Lit, *ir.Handle:
				return e
			}
			if c, ok := sc.constant(e); ok {
				_ = c
				return e
			}
			v := &ir.Var{Name: name, Type: e.Type()}
			c := sc.expr(e)
			body = append(body, jen.Id(sc.bind(v)).Op(":=").Add(c.c))
			return &ir.VarRef{ExprBase: ir.ExprBase{T: e.Type(), Pos: e.Position()}, Var: v}
		}
		l := side(b.L, "l")
		r := side(b.R, "r")
		cmp := &ir.Binary{ExprBase: b.ExprBase, Op: b.Op, L: l, R: r}
		body = append(body, jen.Return(jen.Id("s").Dot("compared").Call(sc.expr(cmp).c, sc.expr(l).c, sc.expr(r).c)))
	} else {
		body = append(body, jen.Return(jen.Id("s").Dot("verdict").Call(sc.expr(a.Expr).c)))
	}
	f.Add(doc(fmt.Sprintf("%s grades assertion %d of task %s:", name, ai+1, t.Name), abridged(a.Text)))
	f.Func().Id(name).Params(jen.Id("s").Op("*").Id("State"), jen.Id("_").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(body...)
	f.Line()
	return name
}

// unchangedExceptFunc renders the grader of `unchanged except E[k], …`
// whose keys are not all constants (those are data: rubricOf) and returns
// its name: every record but the listed ones equals its start state,
// compared row by row (runtime.Journal.ChangedExcept).
func (g *generator) unchangedExceptFunc(f *goFile, t *ir.Task, ai int, a *ir.Assertion) string {
	g.need["unchangedExcept"] = true
	name := g.pkgNames.name(a, lowerFirst(fmt.Sprintf("assert%s%d", exported(t.Name), ai+1)))
	sc := g.newScope("start", "except")
	sc.readOnly = true
	var body []jen.Code
	byEntity := map[*ir.Entity][]jen.Code{}
	var order []*ir.Entity
	constant := true
	listed := map[*ir.Entity]map[string]bool{} // constant keys, as Go text
	for _, l := range a.Except {
		if byEntity[l.Entity] == nil {
			order = append(order, l.Entity)
			listed[l.Entity] = map[string]bool{}
		}
		key := sc.asString(l.Key).c
		switch l.Key.(type) {
		case *ir.Handle, *ir.Lit:
			// A record listed twice (E[h], E["h"]) would be a duplicate
			// key of the map literal.
			text := goText(key)
			if listed[l.Entity][text] {
				continue
			}
			listed[l.Entity][text] = true
		default:
			constant = false
		}
		byEntity[l.Entity] = append(byEntity[l.Entity], jen.Add(key).Op(":").True())
	}
	var entries []jen.Code
	for _, e := range order {
		entries = append(entries, jen.Lit(e.Name).Op(":").Values(byEntity[e]...))
	}
	except := jen.Map(jen.String()).Map(jen.String()).Bool().Values(entries...)
	if !constant {
		body = append(body, jen.Id("except").Op(":=").Add(except))
		var exprs []ir.Expr
		for _, l := range a.Except {
			exprs = append(exprs, l.Key)
		}
		for _, e := range exprs {
			if canFault(e) {
				body = append(body, jen.If(jen.Err().Op(":=").Id("s").Dot("takeFault").Call(), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.False(), jen.Err().Dot("Error").Call())))
				break
			}
		}
		except = jen.Id("except")
	}
	body = append(body, jen.Return(jen.Id("unchangedExcept").Call(jen.Id("s"), jen.Id("start"), except)))
	f.Add(doc(fmt.Sprintf("%s grades assertion %d of task %s:", name, ai+1, t.Name), abridged(a.Text)))
	f.Func().Id(name).Params(jen.Id("s").Op("*").Id("State"), jen.Id("start").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(body...)
	f.Line()
	return name
}

// maxDocText bounds the assertion text quoted in a grader's doc comment;
// the whole text is in the task's rubric (and its report).
const maxDocText = 240

// abridged is text cut to maxDocText runes.
func abridged(text string) string {
	r := []rune(oneLine(text))
	if len(r) <= maxDocText {
		return text
	}
	return string(r[:maxDocText]) + " …"
}

// comparisonOps are the operators whose assertions report both sides.
var comparisonOps = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}
