package gen

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/templates"
)

// policy renders policy.md: the world's policy document as it is, or,
// without one, templates/policy.md.tmpl with the invariants' policy texts.
// The file is embedded in the package (go:embed), never written into Go
// source, so no document can break or inject code.
func (g *generator) policy() ([]byte, error) {
	if g.w.PolicyFile != "" {
		return []byte(g.w.Policy), nil
	}
	tmpl, err := template.New("policy").Funcs(template.FuncMap{"inc": func(i int) int { return i + 1 }}).Parse(templates.Policy)
	if err != nil {
		return nil, fmt.Errorf("gen: policy template: %w", err)
	}
	var rules []string
	for _, inv := range g.w.Invariants {
		// One list item per rule: continuation lines indented under it.
		rules = append(rules, strings.Join(commentLines(inv.Policy), "\n   "))
	}
	for _, r := range g.w.Rules {
		rules = append(rules, strings.Join(commentLines(r.Policy), "\n   "))
	}
	title := oneLine(g.w.Title)
	if title == "" {
		title = g.w.Name
	}
	data := struct {
		Title, Name, Industry, Country, Currency, Today string
		Rules                                           []string
	}{title, g.w.Name, oneLine(g.w.Industry), oneLine(g.w.Country), oneLine(g.w.Currency), g.w.Today, rules}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("gen: policy template: %w", err)
	}
	return b.Bytes(), nil
}

// worldFile renders the World and Episode types and the package's entry
// points.
func (g *generator) worldFile(f *goFile) {
	w := g.w
	today := g.today
	f.Anon("embed")
	f.Commentf("today is the world's date: %s.", today)
	f.Const().Id("today").Qual(rt, "Date").Op("=").Lit(int(today))
	f.Line()
	if g.taskClocks {
		now := g.now
		f.Commentf("now is the world's date-time: %s. A task may set its own", now)
		f.Comment("clock: its episodes' states hold theirs (State.today, State.now).")
		f.Const().Id("now").Qual(rt, "DateTime").Op("=").Lit(int(now))
		f.Line()
	}
	f.Comment("policyText is the visible policy document.")
	f.Comment("")
	f.Comment("//go:embed policy.md")
	f.Var().Id("policyText").String()
	f.Line()
	f.Comment("World is the world; its zero value is ready to use and safe for")
	f.Comment("concurrent use. It implements runtime.World.")
	f.Type().Id("World").Struct()
	f.Line()
	f.Var().Id("_").Qual(rt, "World").Op("=").Id("World").Values()
	f.Line()
	f.Comment("New returns the world as a runtime.World.")
	f.Func().Id("New").Params().Qual(rt, "World").Block(jen.Return(jen.Id("World").Values()))
	f.Line()
	// The world's descriptions are methods of World only: package-level
	// functions would take names (Policy, Tools, …) that specs want for
	// entities.
	worldNow := jen.Qual(rt, "DateTime").Call(jen.Lit(int(g.now))).Comment("/* " + g.now.String() + " */")
	if g.taskClocks {
		worldNow = jen.Id("now")
	}
	f.Comment("Info describes the world.")
	f.Func().Params(jen.Id("World")).Id("Info").Params().Qual(rt, "WorldInfo").Block(jen.Return(jen.Qual(rt, "WorldInfo").Values(jen.Dict{
		jen.Id("Name"):     jen.Lit(w.Name),
		jen.Id("Title"):    jen.Lit(w.Title),
		jen.Id("Industry"): jen.Lit(w.Industry),
		jen.Id("Country"):  jen.Lit(w.Country),
		jen.Id("Currency"): jen.Lit(w.Currency),
		jen.Id("Today"):    jen.Id("today"),
		jen.Id("Now"):      worldNow,
	})))
	f.Line()
	f.Comment("Tools describes the tools in declaration order, with their JSON schemas.")
	f.Func().Params(jen.Id("World")).Id("Tools").Params().Index().Qual(rt, "ToolInfo").Block(jen.Return(jen.Id("registry").Dot("Tools").Call()))
	f.Line()
	copies := []jen.Code{
		jen.Id("out").Index(jen.Id("i")).Op("=").Id("t").Dot("info"),
		jen.Id("out").Index(jen.Id("i")).Dot("Solution").Op("=").Qual("slices", "Clone").Call(jen.Id("t").Dot("info").Dot("Solution")),
	}
	if g.taskClocks {
		copies = append(copies, jen.If(jen.Id("t").Dot("info").Dot("Now").Op("!=").Nil()).Block(
			jen.Id("out").Index(jen.Id("i")).Dot("Now").Op("=").New(jen.Op("*").Id("t").Dot("info").Dot("Now"))))
	}
	for _, t := range w.Tasks {
		if len(t.Meta) > 0 {
			copies = append(copies, jen.Id("out").Index(jen.Id("i")).Dot("Meta").Op("=").Id("t").Dot("info").Dot("Meta").Dot("Clone").Call())
			break
		}
	}
	f.Comment("Tasks lists the tasks in declaration order.")
	f.Func().Params(jen.Id("World")).Id("Tasks").Params().Index().Qual(rt, "TaskInfo").Block(
		jen.Id("out").Op(":=").Make(jen.Index().Qual(rt, "TaskInfo"), jen.Len(jen.Id("tasks").Call())),
		jen.For(jen.List(jen.Id("i"), jen.Id("t")).Op(":=").Range().Id("tasks").Call()).Block(copies...),
		jen.Return(jen.Id("out")),
	)
	f.Line()
	f.Comment("Policy is the visible policy document (markdown) shown to agents.")
	f.Func().Params(jen.Id("World")).Id("Policy").Params().String().Block(jen.Return(jen.Id("policyText")))
	f.Line()
	f.Comment("NewEpisode starts an episode in a fresh copy of the task's start state")
	f.Comment("(the world seed for task \"\").")
	f.Func().Params(jen.Id("World")).Id("NewEpisode").Params(jen.Id("task").String()).Parens(jen.List(jen.Qual(rt, "Episode"), jen.Error())).Block(
		jen.List(jen.Id("e"), jen.Err()).Op(":=").Id("NewEpisode").Call(jen.Id("task")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("e"), jen.Nil()),
	)
	f.Line()
	always := len(g.always) > 0
	episodeFields := []jen.Code{
		jen.Id("state").Op("*").Id("State"),
		jen.Id("task").Op("*").Id("task"),
		jen.Id("start").Id("startState"),
	}
	if always {
		episodeFields = append(episodeFields, g.alwaysFields()...)
	} else if g.traced() {
		episodeFields = append(episodeFields,
			jen.Line(),
			jen.Comment("calls counts the calls of the episode, failed ones included: the"),
			jen.Comment("step of a call is its number."),
			jen.Id("calls").Int(),
			jen.Comment("trace keeps the first violation of each rule on actions by each"),
			jen.Comment("record."),
			jen.Id("trace").Qual(rt, "Trace"))
	}
	f.Comment("Episode is one agent's run: a private state, and the task it grades.")
	f.Comment("It implements runtime.Episode; it is not safe for concurrent use.")
	f.Type().Id("Episode").Struct(episodeFields...)
	f.Line()
	// newEpisode returns the episode of the values in d; with
	// always-invariants, its state's journal tracks the rows each call
	// writes.
	newEpisode := func(d jen.Dict) []jen.Code {
		if !always {
			return []jen.Code{jen.Return(jen.Op("&").Id("Episode").Values(d), jen.Nil())}
		}
		return []jen.Code{
			jen.Id("e").Op(":=").Op("&").Id("Episode").Values(d),
			jen.Id("e").Dot("state").Dot("j").Dot("TrackChanges").Call(),
			jen.Return(jen.Id("e"), jen.Nil()),
		}
	}
	seed := []jen.Code{
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("worldSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	seed = append(seed, newEpisode(jen.Dict{jen.Id("state"): jen.Id("s").Dot("Clone").Call()})...)
	if always {
		// The world seed has a start state too: its indexes are shared.
		seed = []jen.Code{
			jen.List(jen.Id("st"), jen.Err()).Op(":=").Id(g.alw.seedStart).Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		}
		seed = append(seed, newEpisode(jen.Dict{jen.Id("state"): jen.Id("st").Dot("state").Dot("Clone").Call(), jen.Id("start"): jen.Id("st")})...)
	}
	f.Comment("NewEpisode starts an episode of the task (\"\": the world seed alone).")
	f.Func().Id("NewEpisode").Params(jen.Id("task").String()).Parens(jen.List(jen.Op("*").Id("Episode"), jen.Error())).Block(
		jen.If(jen.Id("task").Op("==").Lit("")).Block(seed...),
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks").Call()).Block(
			jen.If(jen.Id("t").Dot("info").Dot("ID").Op("==").Id("task")).Block(append([]jen.Code{
				jen.List(jen.Id("st"), jen.Err()).Op(":=").Id("t").Dot("start").Call(),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			}, newEpisode(jen.Dict{jen.Id("state"): jen.Id("st").Dot("state").Dot("Clone").Call(), jen.Id("task"): jen.Id("t"), jen.Id("start"): jen.Op("*").Id("st")})...)...),
		),
		jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit(g.pkg+": unknown task %q"), jen.Id("task"))),
	)
	f.Line()
	recv := jen.Id("e").Op("*").Id("Episode")
	f.Comment("State is the episode's state, for typed access.")
	f.Func().Params(recv.Clone()).Id("State").Params().Op("*").Id("State").Block(jen.Return(jen.Id("e").Dot("state")))
	f.Line()
	if g.traced() {
		rules := len(g.w.Rules) > 0
		var call, after []jen.Code
		if rules {
			call = append(call, jen.Id("broken").Op(":=").Id("e").Dot("state").Dot("checkRules").Call(jen.Id("tool"), jen.Id("args")))
			after = append(after, jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("broken")).Block(
				jen.Id("e").Dot("trace").Dot("Report").Call(jen.Index().Qual(rt, "Violation").Values(jen.Id("v")), jen.Id("e").Dot("calls"), jen.Id("tool"))))
		}
		if always {
			after = append(after, jen.Id("e").Dot("checkAlways").Call(jen.Id("tool")))
		}
		call = append(call,
			jen.Id("obs").Op(":=").Id("e").Dot("state").Dot("Call").Call(jen.Id("tool"), jen.Id("args")),
			jen.Id("e").Dot("calls").Op("++"),
			jen.If(jen.Id("obs").Dot("OK")).Block(after...),
			jen.Return(jen.Id("obs")))
		f.Comment("Call runs a tool atomically and returns its observation.")
		if rules {
			f.Comment("Before it, the rules on the tool are checked on the state as it is")
			f.Comment("(see checkRules); when it succeeds, those it broke are reported at its")
			f.Comment("step.")
		}
		if always {
			f.Comment("After a call that succeeds, the always-invariants are checked (see")
			f.Comment("checkAlways).")
		}
		f.Func().Params(recv.Clone()).Id("Call").Params(jen.Id("tool").String(), jen.Id("args").Qual("encoding/json", "RawMessage")).Qual(rt, "Observation").Block(call...)
		f.Line()
		if always {
			g.alwaysEpisode(f)
		} else {
			g.ruleHeld(f)
		}
	} else {
		f.Comment("Call runs a tool atomically and returns its observation.")
		f.Func().Params(recv.Clone()).Id("Call").Params(jen.Id("tool").String(), jen.Id("args").Qual("encoding/json", "RawMessage")).Qual(rt, "Observation").Block(
			jen.Return(jen.Id("e").Dot("state").Dot("Call").Call(jen.Id("tool"), jen.Id("args"))))
		f.Line()
	}
	f.Comment("StateHash is the canonical hash of the current state.")
	f.Func().Params(recv.Clone()).Id("StateHash").Params().String().Block(jen.Return(jen.Id("e").Dot("state").Dot("Hash").Call()))
	f.Line()
	f.Comment("Violations runs the hidden invariant checks.")
	f.Func().Params(recv.Clone()).Id("Violations").Params().Index().Qual(rt, "Violation").Block(jen.Return(jen.Id("e").Dot("state").Dot("CheckInvariants").Call()))
	f.Line()
	f.Comment("Snapshot is the full state as JSON.")
	f.Func().Params(recv.Clone()).Id("Snapshot").Params().Qual("encoding/json", "RawMessage").Block(jen.Return(jen.Id("e").Dot("state").Dot("Snapshot").Call()))
	f.Line()
	grade := []jen.Code{
		jen.List(jen.Id("ok"), jen.Id("detail")).Op(":=").Id("a").Dot("check").Call(jen.Id("e").Dot("state"), jen.Id("e").Dot("start")),
	}
	answers := g.usesAnswers()
	if answers {
		grade = []jen.Code{
			jen.Var().Id("ok").Bool(),
			jen.Var().Id("detail").String(),
			jen.If(jen.Id("a").Dot("answer").Op("!=").Nil()).Block(
				jen.List(jen.Id("ok"), jen.Id("detail")).Op("=").Id("gradeAnswer").Call(jen.Id("a").Dot("answer"), jen.Id("e").Dot("state"), jen.Id("answer")),
			).Else().Block(
				jen.List(jen.Id("ok"), jen.Id("detail")).Op("=").Id("a").Dot("check").Call(jen.Id("e").Dot("state"), jen.Id("e").Dot("start")),
			),
		}
	}
	gradeArgs := []jen.Code{jen.Id("results"), jen.Id("e").Dot("state").Dot("CheckInvariants").Call()}
	if g.traced() {
		grade = append(grade, jen.If(jen.Id("a").Dot("always").Op("!=").Lit("")).Block(
			jen.List(jen.Id("ok"), jen.Id("detail")).Op("=").Id("e").Dot("alwaysHeld").Call(jen.Id("a").Dot("always"), jen.Id("ok"), jen.Id("detail"))))
		gradeArgs = append(gradeArgs, jen.Id("e").Dot("trace").Dot("Violations").Call().Op("..."))
	}
	grade = append(grade, jen.Id("results").Op("=").Append(jen.Id("results"), jen.Qual(rt, "AssertionResult").Values(jen.Dict{
		jen.Id("Kind"): jen.Id("a").Dot("kind"), jen.Id("Text"): jen.Id("a").Dot("text"), jen.Id("Passed"): jen.Id("ok"), jen.Id("Detail"): jen.Id("detail"),
	})))
	f.Comment("Grade grades the current state against the task's rubric, with the")
	if g.traced() {
		f.Comment("invariant violations beside it: the current state's, and those of the")
		f.Comment("always-invariants after each call.")
	} else {
		f.Comment("invariant violations beside it.")
	}
	gradeName, gradeParams := "Grade", []jen.Code{}
	if answers {
		f.Comment("An answer assertion fails: Grade is given no answer (see GradeAnswer).")
		f.Func().Params(recv.Clone()).Id("Grade").Params().Qual(rt, "Grade").Block(jen.Return(jen.Id("e").Dot("grade").Call(jen.Nil())))
		f.Line()
		g.answerEpisode(f)
		f.Comment("grade is Grade with the agent's final message (nil: none).")
		gradeName, gradeParams = "grade", []jen.Code{jen.Id("answer").Op("*").String()}
	}
	f.Func().Params(recv.Clone()).Id(gradeName).Params(gradeParams...).Qual(rt, "Grade").Block(
		jen.Var().Id("results").Index().Qual(rt, "AssertionResult"),
		jen.If(jen.Id("e").Dot("task").Op("!=").Nil()).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("a")).Op(":=").Range().Id("e").Dot("task").Dot("rubric")).Block(grade...),
		),
		jen.Return(jen.Qual(rt, "NewGrade").Call(gradeArgs...)),
	)
	f.Line()
	f.Comment("assertUnchanged grades `unchanged`: the state equals the task's start state.")
	f.Func().Id("assertUnchanged").Params(jen.Id("s").Op("*").Id("State"), jen.Id("start").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.If(jen.Id("s").Dot("Hash").Call().Op("==").Id("start").Dot("hash")).Block(jen.Return(jen.True(), jen.Lit(""))),
		jen.Return(jen.False(), jen.Lit("the state differs from the task's start state")),
	)
	f.Line()
	if g.need["unchangedExcept"] {
		f.Comment("unchangedExcept grades `unchanged except …`: every record but those in")
		f.Comment("except (by entity, then id) equals its start state; the id sequence of")
		f.Comment("a table with exceptions is not compared.")
		f.Func().Id("unchangedExcept").Params(jen.Id("s").Op("*").Id("State"), jen.Id("start").Id("startState"), jen.Id("except").Map(jen.String()).Map(jen.String()).Bool()).Parens(jen.List(jen.Bool(), jen.String())).Block(
			jen.Id("changed").Op(":=").Id("s").Dot("j").Dot("ChangedExcept").Call(jen.Id("start").Dot("state").Dot("j"), jen.Id("except")),
			jen.If(jen.Len(jen.Id("changed")).Op("==").Lit(0)).Block(jen.Return(jen.True(), jen.Lit(""))),
			jen.Return(jen.False(), jen.Lit("changed: ").Op("+").Qual("strings", "Join").Call(jen.Id("changed"), jen.Lit(", "))),
		)
		f.Line()
	}
	f.Comment("holds grades `invariant NAME` with the invariant's checker.")
	f.Func().Id("holds").Params(jen.Id("check").Func().Params(jen.Op("*").Id("State")).Index().Qual(rt, "Violation")).Func().Params(jen.Op("*").Id("State"), jen.Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.Return(jen.Func().Params(jen.Id("s").Op("*").Id("State"), jen.Id("_").Id("startState")).Parens(jen.List(jen.Bool(), jen.String())).Block(
			jen.Id("vs").Op(":=").Id("check").Call(jen.Id("s")),
			jen.If(jen.Len(jen.Id("vs")).Op("==").Lit(0)).Block(jen.Return(jen.True(), jen.Lit(""))),
			jen.Id("msgs").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Lit(3)),
			jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("vs")).Block(
				jen.If(jen.Len(jen.Id("msgs")).Op("==").Lit(3)).Block(jen.Id("msgs").Op("=").Append(jen.Id("msgs"), jen.Qual("fmt", "Sprintf").Call(jen.Lit("and %d more"), jen.Len(jen.Id("vs")).Op("-").Lit(3))), jen.Break()),
				jen.Id("msgs").Op("=").Append(jen.Id("msgs"), jen.Id("v").Dot("String").Call()),
			),
			jen.Return(jen.False(), jen.Qual("strings", "Join").Call(jen.Id("msgs"), jen.Lit("; "))),
		)),
	)
	f.Line()
	if g.usesRuleAssertion() {
		g.ruleHoldsFunc(f)
	}
}

// worldNow is the world's date-time: its now, or today at 00:00 UTC.
func (g *generator) worldNow() string {
	if g.w.Now != "" {
		return g.w.Now
	}
	return g.w.Today + "T00:00:00Z"
}
