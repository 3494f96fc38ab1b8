package gen

// A world's tasks are data to the Go compiler: tasks.json (embedded)
// holds each task's description (runtime.TaskInfo) and its rubric
// (runtime.AssertionData), and the package decodes it once. A synthesis
// writes hundreds of tasks per world, alike in shape: as composite
// literals and one Go function per assertion they were most of what the
// compiler and the type-checker spent on a world, and the gate's time
// grew with them. Only the assertions that are expressions of their own
// are compiled, each to a grader function that tasks.json names; the
// shapes a rubric from a state diff is made of — a record equal to a
// constant record, `unchanged` (except some records), an invariant, a
// rule on actions — are graded by code written once per world (rubricOf)
// from their data.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// rubricRows is what the tasks' rubrics need of the generated code, and
// tasks.json's lines.
type rubricRows struct {
	lines     [][]byte
	graders   []string        // expression graders, in task order
	answers   []string        // answer functions, in task order
	records   []*ir.Entity    // entities of record assertions, first use first
	invs      []*ir.Invariant // invariants of invariant assertions
	except    bool            // an `unchanged except` of constant records
	rule      bool            // an assertion of a rule on actions
	unchanged bool            // a plain `unchanged`
}

// taskLine is one line of tasks.json: runtime.TaskData as the runtime
// decodes it, with the solution a pointer (shadowing TaskInfo's) so that
// an empty solution block (a solution of no call) stays distinct from
// none.
type taskLine struct {
	runtime.TaskInfo
	Solution *[]runtime.Call         `json:"solution,omitempty"`
	Rubric   []runtime.AssertionData `json:"rubric"`
}

// taskRows renders the graders of the assertions that are code into f and
// returns tasks.json's lines with what rubricOf must handle.
func (g *generator) taskRows(f *goFile) *rubricRows {
	rows := &rubricRows{}
	for i, t := range g.w.Tasks {
		g.named(ir.Named{Kind: "task", Name: t.Name}, taskOrigin(t))
		for j, st := range t.Solution {
			g.named(ir.Named{Kind: "task", Name: t.Name, Step: j + 1}, stepOrigin(t, j, st))
		}
		line := taskLine{TaskInfo: g.taskInfoData(t), Rubric: []runtime.AssertionData{}}
		if t.Solution != nil {
			line.Solution = &line.TaskInfo.Solution
		}
		for j, a := range t.Assertions {
			restore := g.at(assertionOrigin(t, j, a))
			line.Rubric = append(line.Rubric, g.assertionData(f, rows, t, i, j, a))
			restore()
		}
		var b bytes.Buffer
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		if err := e.Encode(line); err != nil {
			panic(unexpectedAt(t.Pos, "task %s does not encode: %v", t.Name, err))
		}
		rows.lines = append(rows.lines, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	}
	return rows
}

// tasksJSON renders tasks.json: an array of the tasks, one a line.
func (rows *rubricRows) tasksJSON() []byte {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, l := range rows.lines {
		b.Write(l)
		if i < len(rows.lines)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]\n")
	return b.Bytes()
}

// assertionData is assertion ai of task t as data, its grader rendered
// into f when it is code.
func (g *generator) assertionData(f *goFile, rows *rubricRows, t *ir.Task, ti, ai int, a *ir.Assertion) runtime.AssertionData {
	d := runtime.AssertionData{Kind: string(a.Kind), Text: a.Text}
	if a.Kind == ir.AssertInvariant && a.Invariant != nil && a.Invariant.Always {
		d.Always = a.Invariant.Name
	}
	if a.Kind == ir.AssertRule && a.Rule != nil {
		d.Always = a.Rule.Name
	}
	switch a.Kind {
	case ir.AssertAnswer:
		d.Grader = g.answerFunc(f, t, ai, a)
		rows.answers = append(rows.answers, d.Grader)
		return d
	case ir.AssertUnchanged:
		if len(a.Except) == 0 {
			rows.unchanged = true
			return d
		}
		if except, ok := constantExcept(a.Except); ok {
			g.need["unchangedExcept"] = true
			d.Except = except
			rows.except = true
			return d
		}
		d.Grader = g.unchangedExceptFunc(f, t, ai, a)
	case ir.AssertInvariant:
		d.Invariant = a.Invariant.Name
		if !slices.Contains(rows.invs, a.Invariant) {
			rows.invs = append(rows.invs, a.Invariant)
		}
		return d
	case ir.AssertRule:
		rows.rule = true
		return d
	default:
		if r, e, ok := g.recordData(a); ok {
			// recordIs needs matched, and equal methods on e.
			g.need["matched"], g.need["verdict"] = true, true
			g.markEntityEqual(e)
			d.Record = r
			if !slices.Contains(rows.records, e) {
				rows.records = append(rows.records, e)
			}
			return d
		}
		d.Grader = g.exprGrader(f, t, ai, a)
	}
	rows.graders = append(rows.graders, d.Grader)
	return d
}

// constantExcept is the records of `unchanged except …` by entity name,
// each id once, when every key is a constant.
func constantExcept(except []*ir.Lookup) (map[string][]string, bool) {
	out := map[string][]string{}
	for _, l := range except {
		id, ok := constantKey(l.Key)
		if !ok {
			return nil, false
		}
		if !slices.Contains(out[l.Entity.Name], id) {
			out[l.Entity.Name] = append(out[l.Entity.Name], id)
		}
	}
	return out, true
}

// constantKey is the id a record key written as a constant names.
func constantKey(e ir.Expr) (string, bool) {
	switch x := e.(type) {
	case *ir.Handle:
		return x.ID, true
	case *ir.Lit:
		if v := x.Value; v != nil && (v.Kind == ir.KindString || v.Kind == ir.KindRef) {
			return v.Str, true
		}
	}
	return "", false
}

// recordData is `E[k] == E { … }` as data: the record of a constant id of
// E compared whole with a constant record (what a synthesised rubric
// asserts of each record its run created or changed).
func (g *generator) recordData(a *ir.Assertion) (*runtime.RecordData, *ir.Entity, bool) {
	m, ok := a.Expr.(*ir.Match)
	if !ok || !m.Whole || m.Entity() == nil {
		return nil, nil, false
	}
	var id string
	switch x := m.X.(type) {
	case *ir.Lookup:
		if id, ok = constantKey(x.Key); !ok || x.Entity != m.Entity() {
			return nil, nil, false
		}
	case *ir.Handle:
		if x.Entity != m.Entity() {
			return nil, nil, false
		}
		id = x.ID
	default:
		return nil, nil, false
	}
	j, ok := g.matchJSON(m)
	if !ok {
		return nil, nil, false
	}
	return &runtime.RecordData{Entity: m.Entity().Name, ID: id, Value: j}, m.Entity(), true
}

// rubricTables renders what rubricOf reads: the graders of the assertions
// that are code by name, the invariants by name, the graders of record
// assertions by entity; and rubricOf itself.
func (g *generator) rubricTables(f *goFile, rows *rubricRows) {
	gradeFunc := jen.Func().Params(jen.Op("*").Id("State"), jen.Id("startState")).Parens(jen.List(jen.Bool(), jen.String()))
	if len(rows.graders) > 0 {
		var d []jen.Code
		for _, n := range rows.graders {
			d = append(d, jen.Lit(n).Op(":").Id(n))
		}
		f.Comment("graders are the graders of the assertions that are expressions, by the")
		f.Comment("name tasks.json gives them.")
		f.Var().Id("graders").Op("=").Map(jen.String()).Add(gradeFunc).Values(d...)
		f.Line()
	}
	if len(rows.answers) > 0 {
		var d []jen.Code
		for _, n := range rows.answers {
			d = append(d, jen.Lit(n).Op(":").Id(n))
		}
		f.Comment("answers compute, by the name tasks.json gives them, the values the")
		f.Comment("final answers of `answer EXPR` assertions must state.")
		f.Var().Id("answers").Op("=").Map(jen.String()).Func().Params(jen.Op("*").Id("State")).Parens(jen.List(jen.Qual(rt, "Expected"), jen.Error())).Values(d...)
		f.Line()
	}
	if len(rows.invs) > 0 {
		var d []jen.Code
		for _, inv := range rows.invs {
			d = append(d, jen.Lit(inv.Name).Op(":").Parens(jen.Op("*").Id("State")).Dot(g.invs[inv]))
		}
		f.Comment("invariantChecks are the checkers of the invariants rubrics assert, by")
		f.Comment("name.")
		f.Var().Id("invariantChecks").Op("=").Map(jen.String()).Func().Params(jen.Op("*").Id("State")).Index().Qual(rt, "Violation").Values(d...)
		f.Line()
	}
	if len(rows.records) > 0 {
		g.recordIsFunc(f, rows.records)
	}
	g.rubricOfFunc(f, rows)
}

// recordIsFunc renders recordIs, the grader of `E[id] == E { … }` for the
// entities records are asserted of: the record equals the constant one
// (decoded on first use), or the fields that differ.
func (g *generator) recordIsFunc(f *goFile, ents []*ir.Entity) {
	var cases []jen.Code
	for _, e := range ents {
		sc := g.newScope("start", "r", "want", "l", "w")
		sc.readOnly = true
		at := sc.recordAt(e, primary(jen.Id("r").Dot("ID"))).c
		cases = append(cases, jen.Case(jen.Lit(e.Name)).Block(
			jen.Id("want").Op(":=").Qual(rt, "Constant").Types(jen.Op("*").Id(g.ents[e].typ)).Call(jen.String().Parens(jen.Id("r").Dot("Value"))),
			jen.Return(jen.Func().Params(jen.Id("s").Op("*").Id("State"), jen.Id("_").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
				jen.Id("l").Op(":=").Add(at),
				jen.Id("w").Op(":=").Id("want").Call(),
				jen.Return(jen.Id("s").Dot("matched").Call(jen.Id("l").Dot("equal").Call(jen.Id("w")), jen.Id("l"), jen.Id("w"))),
			)),
		))
	}
	f.Comment("recordIs grades `E[id] == E { … }`: the record of r.Entity with id r.ID")
	f.Comment("equals r.Value, decoded once, or the fields that differ; nil for an")
	f.Comment("entity no rubric asserts a record of.")
	f.Func().Id("recordIs").Params(jen.Id("r").Op("*").Qual(rt, "RecordData")).Func().Params(jen.Op("*").Id("State"), jen.Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.Switch(jen.Id("r").Dot("Entity")).Block(cases...),
		jen.Return(jen.Nil()),
	)
	f.Line()
}

// rubricOfFunc renders rubricOf: an assertion of tasks.json as the grader
// Episode.Grade runs, by the first of its grader, record, except or
// invariant that is set, else by its kind. Data that names no grader the
// package has is a generator's bug: it panics, when the tasks are first
// read.
func (g *generator) rubricOfFunc(f *goFile, rows *rubricRows) {
	d := jen.Dict{jen.Id("kind"): jen.Id("a").Dot("Kind"), jen.Id("text"): jen.Id("a").Dot("Text")}
	if g.traced() {
		d[jen.Id("always")] = jen.Id("a").Dot("Always")
	}
	var cases []jen.Code
	if len(rows.answers) > 0 {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Kind").Op("==").Lit(string(ir.AssertAnswer))).Block(
			jen.Id("out").Dot("answer").Op("=").Id("answers").Index(jen.Id("a").Dot("Grader")),
			jen.If(jen.Id("out").Dot("answer").Op("==").Nil()).Block(unknownGrader(g)),
		))
	}
	if len(rows.graders) > 0 {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Grader").Op("!=").Lit("")).Block(
			jen.Id("out").Dot("check").Op("=").Id("graders").Index(jen.Id("a").Dot("Grader"))))
	}
	if len(rows.records) > 0 {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Record").Op("!=").Nil()).Block(
			jen.Id("out").Dot("check").Op("=").Id("recordIs").Call(jen.Id("a").Dot("Record"))))
	}
	if rows.except {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Except").Op("!=").Nil()).Block(
			jen.Id("except").Op(":=").Qual(rt, "ExceptSet").Call(jen.Id("a").Dot("Except")),
			jen.Id("out").Dot("check").Op("=").Func().Params(jen.Id("s").Op("*").Id("State"), jen.Id("start").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
				jen.Return(jen.Id("unchangedExcept").Call(jen.Id("s"), jen.Id("start"), jen.Id("except"))),
			),
		))
	}
	if len(rows.invs) > 0 {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Invariant").Op("!=").Lit("")).Block(
			jen.If(jen.List(jen.Id("check"), jen.Id("ok")).Op(":=").Id("invariantChecks").Index(jen.Id("a").Dot("Invariant")), jen.Id("ok")).Block(
				jen.Id("out").Dot("check").Op("=").Id("holds").Call(jen.Id("check")))))
	}
	if rows.rule {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Kind").Op("==").Lit(string(ir.AssertRule))).Block(
			jen.Comment("The trace grades it (Episode.Grade): here it holds."),
			jen.Id("out").Dot("check").Op("=").Id("ruleHolds")))
	}
	if rows.unchanged {
		cases = append(cases, jen.Case(jen.Id("a").Dot("Kind").Op("==").Lit(string(ir.AssertUnchanged))).Block(
			jen.Id("out").Dot("check").Op("=").Id("assertUnchanged")))
	}
	body := []jen.Code{jen.Id("out").Op(":=").Id("assertion").Values(d)}
	if len(cases) > 0 {
		body = append(body, jen.Switch().Block(cases...))
	}
	body = append(body,
		jen.If(jen.Id("out").Dot("check").Op("==").Nil().Op("&&").Id("out").Dot("answer").Op("==").Nil()).Block(unknownGrader(g)),
		jen.Return(jen.Id("out")))
	if len(rows.answers) == 0 && g.usesAnswers() {
		panic(fmt.Sprintf("gen: world %s: answers without answer functions", g.w.Name))
	}
	if !g.usesAnswers() {
		// No answer field: the check alone.
		body[len(body)-2] = jen.If(jen.Id("out").Dot("check").Op("==").Nil()).Block(unknownGrader(g))
	}
	f.Comment("rubricOf is assertion a of the task named task, as tasks.json holds it,")
	f.Comment("with its grader: the function it names, or the one its data makes")
	f.Comment("(a record compared whole, the records that may change, an invariant),")
	f.Comment("or its kind's.")
	f.Func().Id("rubricOf").Params(jen.Id("task").String(), jen.Id("a").Qual(rt, "AssertionData")).Id("assertion").Block(body...)
	f.Line()
}

// unknownGrader panics on an assertion of tasks.json that names no grader
// of the package.
func unknownGrader(g *generator) jen.Code {
	return jen.Panic(jen.Qual("fmt", "Sprintf").Call(jen.Lit(g.pkg+": task %s: no grader for assertion %q"), jen.Id("task"), jen.Id("a").Dot("Text")))
}
