package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// fieldNeedsCheck reports whether writes of f must be checked: enum values,
// finite numbers, bounds and uniqueness (refs are checked where they come
// in: ref arguments are looked up).
func (g *generator) fieldNeedsCheck(f *ir.Field) bool {
	k := f.Type.Kind
	return f.Unique || len(f.Bounds) > 0 || k == ir.KindEnum || (k == ir.KindDecimal || k == ir.KindMoney) && !g.exact() ||
		f == f.Entity.Key || isComposite(f.Type) && g.valueNeedsCheck(f.Type, f)
}

func (g *generator) checkFieldName(f *ir.Field) string {
	name, ok := g.ents[f.Entity].checks[f]
	if !ok {
		panic(unexpectedAt(f.Pos, "no check method for field %s.%s", f.Entity.Name, f.Name))
	}
	return name
}

func (g *generator) stateFile(f *goFile) {
	fields := []jen.Code{
		jen.Id("j").Op("*").Qual(rt, "Journal"),
		jen.Comment("fault is the first error met while evaluating an expression (a"),
		jen.Comment("missing record behind a ref); statements check it after expressions"),
		jen.Comment("that can fail."),
		jen.Id("fault").Error(),
		jen.Line(),
	}
	if g.taskClocks {
		fields = append(fields,
			jen.Comment("today and now are the clock of the episodes in this state: the"),
			jen.Comment("world's, or the task's own (`today`, `now` in the task)."),
			jen.Id("today").Qual(rt, "Date"),
			jen.Id("now").Qual(rt, "DateTime"),
			jen.Line())
	}
	for _, e := range g.w.Entities {
		ei := g.ents[e]
		fields = append(fields, jen.Id(ei.table).Op("*").Qual(rt, "Table").Types(jen.Op("*").Id(ei.typ)).Tag(map[string]string{"json": e.Name}))
	}
	f.Comment("State is the state of the world: one table per entity, sharing one")
	f.Comment("undo journal so that every tool call is atomic. Tables are")
	f.Comment("copy-on-write: Clone is cheap, whatever the size of the state.")
	f.Type().Id("State").Struct(fields...)
	f.Line()

	var inits []jen.Code
	var clones []jen.Code
	for _, e := range g.w.Entities {
		ei := g.ents[e]
		inits = append(inits, jen.Id("s").Dot(ei.table).Op("=").Qual(rt, "NewTable").Call(jen.Lit(e.Name), jen.Parens(jen.Op("*").Id(ei.typ)).Dot("recordID"), jen.Parens(jen.Op("*").Id(ei.typ)).Dot("clone"), jen.Id("s").Dot("j")))
		clones = append(clones, jen.Id(ei.table).Op(":").Id("s").Dot(ei.table).Dot("Clone").Call(jen.Id("j")).Op(","))
	}
	newState := jen.Dict{jen.Id("j"): jen.Qual(rt, "NewJournal").Call()}
	if g.taskClocks {
		newState[jen.Id("today")], newState[jen.Id("now")] = jen.Id("today"), jen.Id("now")
	}
	f.Comment("NewState returns an empty state.")
	f.Func().Id("NewState").Params().Op("*").Id("State").Block(append(append([]jen.Code{
		jen.Id("s").Op(":=").Op("&").Id("State").Values(newState),
	}, inits...), jen.Return(jen.Id("s")))...)
	f.Line()
	f.Comment("Journal is the undo journal shared by the tables (runtime.Stateful).")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Journal").Params().Op("*").Qual(rt, "Journal").Block(jen.Return(jen.Id("s").Dot("j")))
	f.Line()
	f.Comment("Clone returns an independent copy of the state. It costs O(rows changed")
	f.Comment("since the last Freeze), not O(rows).")
	cl := []jen.Code{jen.Id("j").Op(":=").Qual(rt, "NewJournal").Call()}
	dict := jen.Dict{jen.Id("j"): jen.Id("j")}
	if g.taskClocks {
		dict[jen.Id("today")], dict[jen.Id("now")] = jen.Id("s").Dot("today"), jen.Id("s").Dot("now")
	}
	for _, e := range g.w.Entities {
		ei := g.ents[e]
		dict[jen.Id(ei.table)] = jen.Id("s").Dot(ei.table).Dot("Clone").Call(jen.Id("j"))
	}
	cl = append(cl, jen.Return(jen.Op("&").Id("State").Values(dict)))
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Clone").Params().Op("*").Id("State").Block(cl...)
	f.Line()
	f.Comment("Freeze folds every table's changes into its shared base, so that later")
	f.Comment("clones cost O(1). It costs O(rows).")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Freeze").Params().Block(jen.Id("s").Dot("j").Dot("Freeze").Call())
	f.Line()
	f.Comment("Hash is the canonical SHA-256 of the state: equal states (same rows in")
	f.Comment("the same order, same id sequences) hash the same.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Hash").Params().String().Block(
		jen.Id("h").Op(":=").Qual(rt, "NewHasher").Call(),
		jen.Id("s").Dot("j").Dot("HashTo").Call(jen.Id("h")),
		jen.Return(jen.Id("h").Dot("Sum").Call()))
	f.Line()
	f.Comment("Snapshot is the state as JSON: an object keyed by entity name whose")
	f.Comment("values are the rows in insertion order, each with its id first and then")
	f.Comment("its fields in declaration order.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Snapshot").Params().Qual("encoding/json", "RawMessage").Block(
		jen.Return(jen.Id("s").Dot("j").Dot("Snapshot").Call()))
	f.Line()
	f.Comment("Call runs a tool by name with JSON arguments, atomically, and returns")
	f.Comment("its observation. It never panics. A fault left by a call that ended")
	f.Comment("beyond its budget (runtime.Journal.Tick) is cleared first.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Call").Params(jen.Id("tool").String(), jen.Id("args").Qual("encoding/json", "RawMessage")).Qual(rt, "Observation").Block(
		jen.Id("s").Dot("fault").Op("=").Nil(),
		jen.Return(jen.Id("registry").Dot("Call").Call(jen.Id("s"), jen.Id("tool"), jen.Id("args"))),
	)
	f.Line()
	f.Comment("takeFault returns and clears the first evaluation fault.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("takeFault").Params().Error().Block(
		jen.Id("err").Op(":=").Id("s").Dot("fault"),
		jen.Id("s").Dot("fault").Op("=").Nil(),
		jen.Return(jen.Id("err")),
	)
	f.Line()
	if g.needMod {
		f.Comment("mod is a % b on integers; a zero divisor is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("mod").Params(jen.List(jen.Id("a"), jen.Id("b")).Int64()).Int64().Block(
			jen.If(jen.Id("b").Op("==").Lit(0)).Block(
				jen.If(jen.Id("s").Dot("fault").Op("==").Nil()).Block(
					jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit(runtime.MsgModuloByZero))),
				jen.Return(jen.Lit(0)),
			),
			jen.Return(jen.Id("a").Op("%").Id("b")),
		)
		f.Line()
	}
	if g.needDiv {
		f.Comment("div is a / b on exact decimals, rounded half away from zero to")
		f.Comment("18 decimals; a zero divisor is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("div").Params(jen.List(jen.Id("a"), jen.Id("b")).Qual(rt, "Decimal")).Qual(rt, "Decimal").Block(
			jen.List(jen.Id("q"), jen.Id("ok")).Op(":=").Id("a").Dot("Div").Call(jen.Id("b")),
			jen.If(jen.Op("!").Id("ok").Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit(runtime.MsgDivisionByZero))),
			jen.Return(jen.Id("q")),
		)
		f.Line()
	}
	if g.needCalendar {
		var hol []jen.Code
		for _, h := range g.w.Holidays {
			hol = append(hol, dateLit(h).c)
		}
		f.Comment("calendar is the world's working days: Monday to Friday but its holidays.")
		f.Var().Id("calendar").Op("=").Qual(rt, "NewCalendar").Call(hol...)
		f.Line()
		f.Comment("addWorkingDays is add_working_days(d, n) (runtime.Calendar); an n beyond")
		f.Comment("runtime.MaxWorkingDays is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("addWorkingDays").Params(jen.Id("d").Qual(rt, "Date"), jen.Id("n").Int64()).Qual(rt, "Date").Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("calendar").Dot("AddWorkingDays").Call(jen.Id("d"), jen.Id("n")),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Err())),
			jen.Return(jen.Id("r")),
		)
		f.Line()
	}
	if g.needRange {
		f.Comment("intRange is the ints of a range loop, for i in a..b (runtime.IntRange);")
		f.Comment("one longer than runtime.MaxRange is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("intRange").Params(jen.List(jen.Id("a"), jen.Id("b")).Int64()).Index().Int64().Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Qual(rt, "IntRange").Call(jen.Id("a"), jen.Id("b")),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Err())),
			jen.Return(jen.Id("r")),
		)
		f.Line()
	}
	if g.needPow {
		f.Comment("pow is pow(x, n) on exact decimals (runtime.Decimal.Pow); 0 to a")
		f.Comment("negative power is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("pow").Params(jen.Id("x").Qual(rt, "Decimal"), jen.Id("n").Int64()).Qual(rt, "Decimal").Block(
			jen.List(jen.Id("p"), jen.Id("ok")).Op(":=").Id("x").Dot("Pow").Call(jen.Id("n")),
			jen.If(jen.Op("!").Id("ok").Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit(runtime.MsgDivisionByZero))),
			jen.Return(jen.Id("p")),
		)
		f.Line()
	}
	if g.needRoundTo {
		f.Comment("roundTo is round_to(x, step) on exact decimals (runtime.Decimal.RoundTo);")
		f.Comment("a step that is not positive is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("roundTo").Params(jen.List(jen.Id("x"), jen.Id("step")).Qual(rt, "Decimal")).Qual(rt, "Decimal").Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Id("x").Dot("RoundTo").Call(jen.Id("step")),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Err())),
			jen.Return(jen.Id("r")),
		)
		f.Line()
	}
	if g.needRoundToInt {
		f.Comment("roundToInt is round_to(n, step) on ints (runtime.RoundToInt); a step")
		f.Comment("that is not positive, or a result beyond the int range, is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("roundToInt").Params(jen.List(jen.Id("n"), jen.Id("step")).Int64()).Int64().Block(
			jen.List(jen.Id("r"), jen.Err()).Op(":=").Qual(rt, "RoundToInt").Call(jen.Id("n"), jen.Id("step")),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Err())),
			jen.Return(jen.Id("r")),
		)
		f.Line()
	}
	if g.needCalc {
		f.Comment("calc is calc(expr): Python's float(eval(expr)) on its arithmetic")
		f.Comment("(runtime.Calc); a failure (Python's message, precondition_failed) is a")
		f.Comment("fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("calc").Params(jen.Id("expr").String()).Float64().Block(
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(rt, "Calc").Call(jen.Id("expr")),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Err()),
			jen.Return(jen.Id("v")),
		)
		f.Line()
	}
	if g.needDate {
		f.Comment("date is date(year, month, day); a day that does not exist (or a year")
		f.Comment("outside 1..9999) is a fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("date").Params(jen.List(jen.Id("year"), jen.Id("month"), jen.Id("day")).Int64()).Qual(rt, "Date").Block(
			jen.List(jen.Id("d"), jen.Err()).Op(":=").Qual(rt, "NewDate").Call(jen.Int().Call(jen.Id("year")), jen.Int().Call(jen.Id("month")), jen.Int().Call(jen.Id("day"))),
			jen.If(jen.Err().Op("!=").Nil().Op("&&").Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "Internal").Call(jen.Lit(runtime.MsgInvalidDate), jen.Id("year"), jen.Id("month"), jen.Id("day"), jen.Err())),
			jen.Return(jen.Id("d")),
		)
		f.Line()
	}
	g.compositeHelpers(f)
	for _, e := range g.w.Entities {
		g.entityHelpers(f, e)
	}
	g.validate(f)
}

// compositeHelpers renders the generic helpers of composite values that
// record compiler/eval's faults, those the compiled code uses.
func (g *generator) compositeHelpers(f *goFile) {
	T, V := jen.Id("T"), jen.Id("V")
	setFault := func(err jen.Code) *jen.Statement {
		return jen.If(jen.Id("s").Dot("fault").Op("==").Nil()).Block(jen.Id("s").Dot("fault").Op("=").Add(err))
	}
	if g.need["listAt"] {
		f.Comment("listAt is xs[i]; out of range (or a null list) records a fault and")
		f.Comment("yields the zero value.")
		f.Func().Id("listAt").Types(jen.Id("T").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("xs").Index().Add(T), jen.Id("i").Int64()).Add(T).Block(
			jen.If(jen.Id("xs").Op("==").Nil()).Block(
				setFault(jen.Qual(rt, "Internal").Call(jen.Lit(runtime.MsgIndexNull))),
				jen.Var().Id("zero").Add(T),
				jen.Return(jen.Id("zero")),
			),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(rt, "At").Call(jen.Id("xs"), jen.Id("i")),
			jen.If(jen.Err().Op("!=").Nil()).Block(setFault(jen.Err())),
			jen.Return(jen.Id("v")),
		)
		f.Line()
	}
	if g.need["mapAt"] {
		f.Comment("mapAt is m[k]; a missing key (or a null map) records a fault and")
		f.Comment("yields the zero value.")
		f.Func().Id("mapAt").Types(jen.Id("V").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("m").Map(jen.String()).Add(V), jen.Id("k").String()).Add(V).Block(
			jen.If(jen.Id("m").Op("==").Nil()).Block(
				setFault(jen.Qual(rt, "Internal").Call(jen.Lit(runtime.MsgIndexNull))),
				jen.Var().Id("zero").Add(V),
				jen.Return(jen.Id("zero")),
			),
			jen.List(jen.Id("v"), jen.Err()).Op(":=").Qual(rt, "Lookup").Call(jen.Id("m"), jen.Id("k")),
			jen.If(jen.Err().Op("!=").Nil()).Block(setFault(jen.Err())),
			jen.Return(jen.Id("v")),
		)
		f.Line()
	}
	if g.need["present"] {
		f.Comment("present is the optional record p, for reading its field; null records")
		f.Comment("a fault and yields an empty record.")
		f.Func().Id("present").Types(jen.Id("T").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("p").Op("*").Add(T), jen.Id("field").String()).Op("*").Add(T).Block(
			jen.If(jen.Id("p").Op("==").Nil()).Block(
				setFault(jen.Qual(rt, "Internal").Call(jen.Lit(runtime.MsgFieldOfNull), jen.Id("field"))),
				jen.Return(jen.New(T)),
			),
			jen.Return(jen.Id("p")),
		)
		f.Line()
	}
	if g.need["notNull"] {
		f.Comment("notNull is p, an optional value the checker proved not null; null")
		f.Comment("records a fault and yields a pointer to a zero value.")
		f.Func().Id("notNull").Types(jen.Id("T").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("p").Op("*").Add(T)).Op("*").Add(T).Block(
			jen.If(jen.Id("p").Op("==").Nil()).Block(
				setFault(jen.Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Lit(ir.MsgNotNull))),
				jen.Return(jen.New(T)),
			),
			jen.Return(jen.Id("p")),
		)
		f.Line()
	}
	if g.need["castEnum"] {
		f.Comment("castEnum is `v as E`: the string v as a value of the enum type E (typ as")
		f.Comment("the spec names it, values its values); a value E does not have records a")
		f.Comment("constraint_violation fault.")
		f.Func().Id("castEnum").Types(jen.Id("E").Interface(jen.Op("~").String(), jen.Id("Valid").Params().Bool())).Params(
			jen.Id("s").Op("*").Id("State"), jen.Id("v").String(), jen.List(jen.Id("typ"), jen.Id("values")).String()).Id("E").Block(
			jen.If(jen.Op("!").Id("E").Call(jen.Id("v")).Dot("Valid").Call()).Block(
				setFault(jen.Qual(rt, "NotInEnum").Call(jen.Id("v"), jen.Id("typ"), jen.Id("values")))),
			jen.Return(jen.Id("E").Call(jen.Id("v"))),
		)
		f.Line()
	}
	if g.need["nonNullList"] {
		f.Comment("nonNullList is xs; a null list records the fault msg.")
		f.Func().Id("nonNullList").Types(jen.Id("T").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("xs").Index().Add(T), jen.Id("msg").String()).Index().Add(T).Block(
			jen.If(jen.Id("xs").Op("==").Nil()).Block(setFault(jen.Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Id("msg")))),
			jen.Return(jen.Id("xs")),
		)
		f.Line()
	}
	if g.need["nonNullMap"] {
		f.Comment("nonNullMap is m; a null map records the fault msg.")
		f.Func().Id("nonNullMap").Types(jen.Id("V").Any()).Params(jen.Id("s").Op("*").Id("State"), jen.Id("m").Map(jen.String()).Add(V), jen.Id("msg").String()).Map(jen.String()).Add(V).Block(
			jen.If(jen.Id("m").Op("==").Nil()).Block(setFault(jen.Qual(rt, "Internal").Call(jen.Lit("%s"), jen.Id("msg")))),
			jen.Return(jen.Id("m")),
		)
		f.Line()
	}
}

// entityHelpers renders the per-entity helpers the compiled code needs:
// following refs, id snapshots, constraint checks and delete.
func (g *generator) entityHelpers(f *goFile, e *ir.Entity) {
	defer g.at(entityOrigin(e))()
	ei := g.ents[e]
	f.Commentf("find%s is the %s with the id, or a not_found error.", ei.typ, ei.typ)
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("find"+ei.typ).Params(jen.Id("id").String()).Parens(jen.List(jen.Op("*").Id(ei.typ), jen.Error())).Block(
		jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("s").Dot(ei.table).Dot("Get").Call(jen.Id("id")), jen.Id("ok")).Block(jen.Return(jen.Id("r"), jen.Nil())),
		jen.Return(jen.Nil(), jen.Qual(rt, "NotFound").Call(jen.Lit(e.Name), jen.Id("id"))),
	)
	f.Line()
	if g.needAt[e] {
		f.Commentf("%s is the %s with the id, for following a ref inside an", g.atName(e), ei.typ)
		f.Comment("expression. A missing record records a not_found fault and yields an")
		f.Comment("empty record, so that evaluation can finish; the caller checks the fault.")
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(g.atName(e)).Params(jen.Id("id").String()).Op("*").Id(ei.typ).Block(
			jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("s").Dot(ei.table).Dot("Get").Call(jen.Id("id")), jen.Id("ok")).Block(jen.Return(jen.Id("r"))),
			jen.If(jen.Id("s").Dot("fault").Op("==").Nil()).Block(
				jen.Id("s").Dot("fault").Op("=").Qual(rt, "NotFound").Call(jen.Lit(e.Name), jen.Id("id"))),
			jen.Return(jen.Op("&").Id(ei.typ).Values(jen.Dict{jen.Id(ei.id): jen.Id("id")})),
		)
		f.Line()
	}
	if g.needIDs[e] {
		f.Commentf("%sIDs is a snapshot of the %s ids in insertion order.", ei.lower, ei.typ)
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(ei.lower+"IDs").Params().Index().String().Block(
			jen.Id("ids").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Id("s").Dot(ei.table).Dot("Len").Call()),
			jen.For(jen.Id("r").Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(
				jen.Id("ids").Op("=").Append(jen.Id("ids"), jen.Id("r").Dot(ei.id))),
			jen.Return(jen.Id("ids")),
		)
		f.Line()
	}
	// Field checks.
	var all []jen.Code
	for _, fl := range e.Fields {
		if !g.fieldNeedsCheck(fl) {
			continue
		}
		name := g.checkFieldName(fl)
		all = append(all, jen.If(jen.Err().Op(":=").Id("s").Dot(name).Call(jen.Id("r")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		g.fieldCheck(f, e, fl)
	}
	f.Commentf("%s checks the constraints of every field of a %s about to be", ei.check, ei.typ)
	f.Comment("written, in field order.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(ei.check).Params(jen.Id("r").Op("*").Id(ei.typ)).Error().Block(append(all, jen.Return(jen.Nil()))...)
	f.Line()
	g.deleteHelper(f, e)
}

// fieldCheck renders check<Entity><Field>: finite number, enum value,
// bounds, uniqueness, with compiler/eval's messages.
func (g *generator) fieldCheck(f *goFile, e *ir.Entity, fl *ir.Field) {
	defer g.at(fieldOrigin(fl))()
	ei := g.ents[e]
	name := e.Name + "." + fl.Name
	val := jen.Id("r").Dot(ei.fields[fl])
	if isComposite(fl.Type) || fl == e.Key {
		var body []jen.Code
		if isComposite(fl.Type) {
			c := &checker{g: g, fail: func(err jen.Code) jen.Code { return jen.Return(err) }}
			body = c.value(fl.Type, fl, val, jen.Lit(name))
		}
		if fl.Unique && isComposite(fl.Type) {
			same := g.eqOf(fl.Type, jen.Id("o").Dot(ei.fields[fl]), val)
			if fl.Type.Optional {
				same = jen.Add(val).Op("!=").Nil().Op("&&").Add(same)
			}
			body = append(body, jen.For(jen.Id("o").Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(
				jen.If(jen.Id("o").Dot(ei.id).Op("!=").Id("r").Dot(ei.id).Op("&&").Add(same)).Block(
					jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit(runtime.MsgNotUnique), jen.Lit(name), jen.Qual(rt, "ValueText").Call(val), jen.Lit(e.Name), jen.Id("o").Dot(ei.id))))))
		}
		if fl == e.Key {
			// The key is the id: unique, by a lookup instead of a scan.
			body = append(body, jen.If(jen.List(jen.Id("o"), jen.Id("ok")).Op(":=").Id("s").Dot(ei.table).Dot("Get").Call(val), jen.Id("ok").Op("&&").Id("o").Op("!=").Id("r")).Block(
				jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit(runtime.MsgNotUnique), jen.Lit(name), jen.Qual(rt, "ValueText").Call(val), jen.Lit(e.Name), jen.Id("o").Dot(ei.id)))))
		}
		body = append(body, jen.Return(jen.Nil()))
		f.Commentf("%s checks %s of a record about to be written.", g.checkFieldName(fl), name)
		f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(g.checkFieldName(fl)).Params(jen.Id("r").Op("*").Id(ei.typ)).Error().Block(body...)
		f.Line()
		return
	}
	var body []jen.Code
	v := jen.Id("v")
	if fl.Type.Optional {
		body = append(body,
			jen.If(jen.Add(val).Op("==").Nil()).Block(jen.Return(jen.Nil())),
			jen.Id("v").Op(":=").Op("*").Id("r").Dot(ei.fields[fl]))
	} else {
		body = append(body, jen.Id("v").Op(":=").Id("r").Dot(ei.fields[fl]))
	}
	k := fl.Type.Kind
	if (k == ir.KindDecimal || k == ir.KindMoney) && !g.exact() {
		body = append(body, jen.If(jen.Qual("math", "IsNaN").Call(v).Op("||").Qual("math", "IsInf").Call(v, jen.Lit(0))).Block(
			jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit("%s must be a finite number, got %v"), jen.Lit(name), v))))
	}
	if k == ir.KindEnum {
		body = append(body, jen.If(jen.Op("!").Id("v").Dot("Valid").Call()).Block(
			jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit("%s must be one of %s, got %q"), jen.Lit(name), jen.Lit(strings.Join(fl.Type.Enum.Values, ", ")), jen.String().Call(v)))))
	}
	base := *fl.Type
	base.Optional = false
	sc := g.newScope()
	for _, b := range fl.Bounds {
		bound := sc.lit(b.Value, &base)
		holds := jen.Id("v").Op(b.Op).Add(bound.c)
		if isDec(&base) && g.exact() {
			holds = jen.Id("v").Dot("Cmp").Call(bound.c).Op(b.Op).Lit(0)
		}
		body = append(body, jen.If(jen.Op("!").Parens(holds)).Block(
			jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit(runtime.MsgOutOfBounds), jen.Lit(name), jen.Lit(b.Op), jen.Lit(valueText(b.Value, &base)), jen.Qual(rt, "ValueText").Call(v)))))
	}
	if fl.Unique {
		other := jen.Id("o").Dot(ei.fields[fl])
		same := jen.Add(other).Op("==").Id("v")
		if fl.Type.Optional {
			same = jen.Add(jen.Id("o").Dot(ei.fields[fl])).Op("!=").Nil().Op("&&").Op("*").Id("o").Dot(ei.fields[fl]).Op("==").Id("v")
		}
		body = append(body, jen.For(jen.Id("o").Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(
			jen.If(jen.Id("o").Dot(ei.id).Op("!=").Id("r").Dot(ei.id).Op("&&").Add(same)).Block(
				jen.Return(jen.Qual(rt, "ConstraintViolation").Call(jen.Lit(runtime.MsgNotUnique), jen.Lit(name), jen.Qual(rt, "ValueText").Call(v), jen.Lit(e.Name), jen.Id("o").Dot(ei.id))))))
	}
	body = append(body, jen.Return(jen.Nil()))
	f.Commentf("%s checks %s of a record about to be written.", g.checkFieldName(fl), name)
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(g.checkFieldName(fl)).Params(jen.Id("r").Op("*").Id(ei.typ)).Error().Block(body...)
	f.Line()
}

// valueText renders a constant as compiler/eval's messages do (JSON).
func valueText(v *ir.Value, t *ir.Type) string {
	switch t.Kind {
	case ir.KindInt:
		if v.Kind == ir.KindInt {
			return fmt.Sprint(v.Int)
		}
		return fmt.Sprint(int64(v.Num))
	case ir.KindDecimal, ir.KindMoney:
		if v.Dec != "" {
			return v.Dec
		}
		n := v.Num
		if v.Kind == ir.KindInt {
			n = float64(v.Int)
		}
		b, _ := jsonMarshal(n)
		return string(b)
	}
	b, _ := jsonMarshal(v.Str)
	return string(b)
}

// deleteHelper renders delete<Entity>: refused while another record refers
// to the record (the first referrer in entity, field and insertion order,
// as compiler/eval reports it).
func (g *generator) deleteHelper(f *goFile, e *ir.Entity) {
	ei := g.ents[e]
	used := false
	for _, t := range g.w.Tools {
		if t.Kind == ir.ToolDelete && t.Entity == e {
			used = true
		}
		ir.WalkStmts(t.Body, func(st ir.Stmt) {
			if d, ok := st.(*ir.Delete); ok && d.Target.Type().Entity == e {
				used = true
			}
		}, nil)
	}
	if !used {
		return
	}
	var body []jen.Code
	for _, other := range g.w.Entities {
		oi := g.ents[other]
		for _, fl := range other.Fields {
			if fl.Type.Kind != ir.KindRef && refsIn(fl.Type, e, map[*ir.StructDef]bool{}) {
				// A ref inside a list, map or record.
				c := &checker{g: g}
				refused := jen.Return(jen.Qual(rt, "ConstraintViolation").Call(
					jen.Lit(runtime.MsgStillReferenced), jen.Lit(e.Name), jen.Id("id"), jen.Lit(other.Name), jen.Id("q").Dot(oi.id), jen.Lit(fl.Name)))
				walk := c.eachRef(fl.Type, jen.Id("q").Dot(oi.fields[fl]), nil, func(id *jen.Statement, to *ir.Entity, _ *jen.Statement) []jen.Code {
					if to != e {
						return nil
					}
					return []jen.Code{jen.If(jen.Add(id).Op("==").Id("id")).Block(refused)}
				})
				loop := walk
				if other == e {
					loop = []jen.Code{jen.If(jen.Id("q").Dot(oi.id).Op("!=").Id("id")).Block(walk...)}
				}
				body = append(body, jen.For(jen.Id("q").Op(":=").Range().Id("s").Dot(oi.table).Dot("All").Call()).Block(loop...))
				continue
			}
			if fl.Type.Kind != ir.KindRef || fl.Type.Entity != e {
				continue
			}
			match := jen.Id("q").Dot(oi.fields[fl]).Op("==").Id("id")
			if fl.Type.Optional {
				match = jen.Id("q").Dot(oi.fields[fl]).Op("!=").Nil().Op("&&").Op("*").Id("q").Dot(oi.fields[fl]).Op("==").Id("id")
			}
			if other == e {
				match = jen.Id("q").Dot(oi.id).Op("!=").Id("id").Op("&&").Add(match)
			}
			body = append(body, jen.For(jen.Id("q").Op(":=").Range().Id("s").Dot(oi.table).Dot("All").Call()).Block(
				jen.If(match).Block(jen.Return(jen.Qual(rt, "ConstraintViolation").Call(
					jen.Lit(runtime.MsgStillReferenced), jen.Lit(e.Name), jen.Id("id"), jen.Lit(other.Name), jen.Id("q").Dot(oi.id), jen.Lit(fl.Name))))))
		}
	}
	body = append(body, jen.Return(jen.Id("s").Dot(ei.table).Dot("Delete").Call(jen.Id("id"))))
	f.Commentf("delete%s deletes the %s with the id unless another record refers to it.", ei.typ, ei.typ)
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("delete" + ei.typ).Params(jen.Id("id").String()).Error().Block(body...)
	f.Line()
}

// validate renders Validate: every record's field constraints and refs,
// in linear time (uniqueness through a map per unique field).
func (g *generator) validate(f *goFile) {
	var body []jen.Code
	var parts []part
	body = append(body, jen.Var().Id("errs").Index().Error())
	for _, e := range g.w.Entities {
		ei := g.ents[e]
		var pre, loop []jen.Code
		// The checks of each field: pre before the loop, loop inside.
		type checks struct {
			f                      *ir.Field
			pre, preN, loop, loopN int
		}
		var fieldChecks []checks
		for _, fl := range e.Fields {
			fc := checks{f: fl, pre: len(pre), loop: len(loop)}
			fname := ei.fields[fl]
			if g.fieldNeedsCheck(fl) && (!fl.Unique || isComposite(fl.Type)) {
				loop = append(loop, jen.If(jen.Err().Op(":=").Id("s").Dot(g.checkFieldName(fl)).Call(jen.Id("r")), jen.Err().Op("!=").Nil()).Block(
					jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s %q: %w"), jen.Lit(e.Name), jen.Id("r").Dot(ei.id), jen.Err()))))
			}
			if fl.Unique && !isComposite(fl.Type) {
				// Bounds and enum first (without the quadratic uniqueness scan).
				seen := unexported(fname) + "Seen"
				base := *fl.Type
				base.Optional = false
				pre = append(pre, jen.Id(seen).Op(":=").Map(g.baseGoType(&base)).String().Values())
				val := jen.Id("r").Dot(fname)
				get := []jen.Code{}
				if fl.Type.Optional {
					get = append(get, jen.If(jen.Id("r").Dot(fname).Op("!=").Nil()).Block(
						jen.If(jen.List(jen.Id("first"), jen.Id("dup")).Op(":=").Id(seen).Index(jen.Op("*").Add(val)), jen.Id("dup")).Block(
							jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s %q: "+runtime.MsgNotUnique), jen.Lit(e.Name), jen.Id("r").Dot(ei.id), jen.Lit(e.Name+"."+fl.Name), jen.Qual(rt, "ValueText").Call(jen.Op("*").Id("r").Dot(fname)), jen.Lit(e.Name), jen.Id("first"))),
						).Else().Block(jen.Id(seen).Index(jen.Op("*").Id("r").Dot(fname)).Op("=").Id("r").Dot(ei.id))))
				} else {
					get = append(get, jen.If(jen.List(jen.Id("first"), jen.Id("dup")).Op(":=").Id(seen).Index(val), jen.Id("dup")).Block(
						jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s %q: "+runtime.MsgNotUnique), jen.Lit(e.Name), jen.Id("r").Dot(ei.id), jen.Lit(e.Name+"."+fl.Name), jen.Qual(rt, "ValueText").Call(jen.Id("r").Dot(fname)), jen.Lit(e.Name), jen.Id("first"))),
					).Else().Block(jen.Id(seen).Index(jen.Id("r").Dot(fname)).Op("=").Id("r").Dot(ei.id)))
				}
				loop = append(loop, get...)
			}
			if fl.Type.Kind != ir.KindRef && refsIn(fl.Type, nil, map[*ir.StructDef]bool{}) {
				// Refs inside a list, map or record, named by path.
				c := &checker{g: g}
				loop = append(loop, c.eachRef(fl.Type, jen.Id("r").Dot(fname), jen.Lit(e.Name+"."+fl.Name), func(id *jen.Statement, to *ir.Entity, path *jen.Statement) []jen.Code {
					return []jen.Code{jen.If(jen.Op("!").Id("s").Dot(g.ents[to].table).Dot("Has").Call(id)).Block(
						jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s %q: %s refers to %s %q, which does not exist"), jen.Lit(e.Name), jen.Id("r").Dot(ei.id), path, jen.Lit(to.Name), id)))}
				})...)
			}
			if fl.Type.Kind == ir.KindRef {
				ri := g.ents[fl.Type.Entity]
				val := jen.Id("r").Dot(fname)
				cond := jen.Op("!").Id("s").Dot(ri.table).Dot("Has").Call(val)
				if fl.Type.Optional {
					cond = jen.Id("r").Dot(fname).Op("!=").Nil().Op("&&").Op("!").Id("s").Dot(ri.table).Dot("Has").Call(jen.Op("*").Id("r").Dot(fname))
					val = jen.Op("*").Id("r").Dot(fname)
				}
				loop = append(loop, jen.If(cond).Block(
					jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s %q: %s refers to %s %q, which does not exist"), jen.Lit(e.Name), jen.Id("r").Dot(ei.id), jen.Lit(fl.Name), jen.Lit(fl.Type.Entity.Name), val))))
			}
			fc.preN, fc.loopN = len(pre)-fc.pre, len(loop)-fc.loop
			fieldChecks = append(fieldChecks, fc)
		}
		if len(loop) == 0 {
			continue
		}
		// The entity's block: its checks before the loop, then the loop.
		k := len(body)
		parts = append(parts, part{first: k, n: 1, from: entityOrigin(e)})
		for _, fc := range fieldChecks {
			if fc.preN > 0 {
				parts = append(parts, part{in: []int{k}, first: fc.pre, n: fc.preN, from: fieldOrigin(fc.f)})
			}
			if fc.loopN > 0 {
				parts = append(parts, part{in: []int{k, len(pre)}, first: fc.loop, n: fc.loopN, from: fieldOrigin(fc.f)})
			}
		}
		body = append(body, jen.Block(append(pre, jen.For(jen.Id("r").Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(loop...))...))
	}
	body = append(body, jen.Return(jen.Id("errs")))
	f.Comment("Validate checks every record against its entity's constraints (enum")
	f.Comment("values, finite numbers, bounds, uniqueness) and every ref against its")
	f.Comment("table, in time linear in the rows. The seed must validate.")
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id("Validate").Params().Index().Error().Block(body...)
	if len(parts) > 0 {
		f.bodyParts(len(body), parts...)
	}
	f.Line()
}
