package gen

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// This file renders what a world with always-invariants (`always
// invariant`) adds to its Episode: after every tool call that succeeds,
// checkAlways re-checks each always-invariant on the records whose verdict
// the call may have changed, as ir.InvariantReads derives them from what
// the invariant reads:
//
//   - the records of its entity the call wrote (runtime.Journal.Changes);
//   - for a keyed read of an entity the call wrote (`x.customer`, or an
//     aggregate whose where clause says `r.order == x`), the records whose
//     key matches the written rows' before or after the call — directly
//     when the key is the record's id, else through an index of the
//     records by the field;
//   - every record, when the call wrote an entity the invariant reads
//     without a key (the check then runs on all the records, with the
//     indexes its aggregates read built up front, as CheckInvariants does);
//   - the records that broke it in the task's start state.
//
// The indexes are runtime.IDIndex values: an index of the start state's
// records, built once on first need and shared by its episodes
// (startIndexes), and the rows the episode wrote since. The same indexes
// serve the aggregates of the checks (`r.order == x` reads the receipts
// of x), so that re-checking a record costs what it reads, not a scan.
//
// A record already reported is not re-checked: its first violation is
// known (runtime.Trace). A world without always-invariants gets none of
// this, so its code is as it was.

// alwaysPlan is how checkAlways re-checks one always-invariant.
type alwaysPlan struct {
	inv *ir.Invariant
	// global are the entities a change to which re-checks every record.
	global []*ir.Entity
	// values are the written rows' keys that are ids of records to
	// re-check; via the indexes whose records are to be re-checked when
	// a written row's key names them.
	values []valueKey
	via    []indexKey
}

// valueKey names the values of Field (nil: the id) of the rows of Entity a
// call wrote, before and after it.
type valueKey struct {
	e *ir.Entity
	f *ir.Field
}

// alwaysInfo is what the files of a world with always-invariants share.
type alwaysInfo struct {
	plans []alwaysPlan
	// indexes are every index the episode keeps, in first-met order: those
	// looked up to find the records to re-check, and those the checks'
	// aggregates read; lookups are the values looked up in the first.
	indexes []indexKey
	lookups map[indexKey][]valueKey
	// reads are, by invariant, the indexes its check's aggregates read
	// (ir.CollectIndexes order): parameters of its checker on some
	// records.
	reads map[*ir.Invariant][]indexKey

	// Names: of the Episode's fields and methods (index: its IDIndex,
	// ids: the method returning the ids of a key, rows: the records in
	// insertion order); of the start state's shared indexes.
	index, ids, rows map[indexKey]string
	startField       map[indexKey]string
	seedStart        string // the world seed's start state
	startIndexes     string // the type of a start state's indexes
	newStartIndexes  string
}

// episodeMembers are the fields and methods of Episode.
var episodeMembers = []string{"state", "task", "start", "calls", "checked", "trace", "checkAlways", "alwaysHeld",
	"State", "Call", "StateHash", "Violations", "Snapshot", "Grade"}

// planAlways derives g.alw from the always-invariants, and names what it
// adds. It runs after every other name of the package and of State is
// taken, so that adding an always-invariant renames nothing.
func (g *generator) planAlways() {
	a := &alwaysInfo{lookups: map[indexKey][]valueKey{}, reads: map[*ir.Invariant][]indexKey{},
		index: map[indexKey]string{}, ids: map[indexKey]string{}, rows: map[indexKey]string{}, startField: map[indexKey]string{}}
	addIndex := func(k indexKey) {
		if !containsIndex(a.indexes, k) {
			a.indexes = append(a.indexes, k)
		}
	}
	for _, inv := range g.always {
		p := alwaysPlan{inv: inv}
		for _, r := range ir.InvariantReads(inv) {
			switch {
			case !r.Keyed:
				if !containsEntity(p.global, r.Entity) {
					p.global = append(p.global, r.Entity)
				}
			case r.Via == nil:
				if k := (valueKey{r.Entity, r.Field}); !containsValue(p.values, k) {
					p.values = append(p.values, k)
				}
			default:
				ix := indexKey{inv.Entity, r.Via}
				addIndex(ix)
				if k := (valueKey{r.Entity, r.Field}); !containsValue(a.lookups[ix], k) {
					a.lookups[ix] = append(a.lookups[ix], k)
				}
				if !containsIndex(p.via, ix) {
					p.via = append(p.via, ix)
				}
			}
		}
		a.plans = append(a.plans, p)
		var keys []indexKey
		seen := map[indexKey]bool{}
		collectIndexes(inv.Where, true, seen, &keys)
		collectIndexes(inv.Check, true, seen, &keys)
		a.reads[inv] = keys
		for _, k := range keys {
			addIndex(k)
		}
	}
	ns := newNamespace(episodeMembers...)
	fs := newNamespace()
	for _, k := range a.indexes {
		ei := g.ents[k.e]
		stem := lowerFirst(ei.table) + "By" + ei.fields[k.f]
		a.index[k] = ns.name([2]any{k, "index"}, stem)
		a.ids[k] = ns.name([2]any{k, "ids"}, stem+"IDs")
		a.rows[k] = ns.name([2]any{k, "rows"}, stem+"Rows")
		a.startField[k] = fs.name(k, stem)
	}
	a.seedStart = g.pkgNames.name("seedStart", "seedStart")
	if len(a.indexes) > 0 {
		a.startIndexes = g.pkgNames.name("startIndexes", "startIndexes")
		a.newStartIndexes = g.pkgNames.name("newStartIndexes", "newStartIndexes")
	}
	g.alw = a
}

// needsRows reports whether an index is read by an aggregate of a check.
func (a *alwaysInfo) needsRows(k indexKey) bool {
	for _, keys := range a.reads {
		if containsIndex(keys, k) {
			return true
		}
	}
	return false
}

func containsEntity(xs []*ir.Entity, e *ir.Entity) bool {
	for _, x := range xs {
		if x == e {
			return true
		}
	}
	return false
}

func containsValue(xs []valueKey, k valueKey) bool {
	for _, x := range xs {
		if x == k {
			return true
		}
	}
	return false
}

// containsValueIn reports whether one of the indexes looks up k.
func containsValueIn(a *alwaysInfo, via []indexKey, k valueKey) bool {
	for _, ix := range via {
		if containsValue(a.lookups[ix], k) {
			return true
		}
	}
	return false
}

func containsIndex(xs []indexKey, k indexKey) bool {
	for _, x := range xs {
		if x == k {
			return true
		}
	}
	return false
}

// fieldValue renders the value of field f (nil: the id) of the record r
// of e as a string, and the condition under which it has one (nil: it
// always has; an optional field may be null).
func (g *generator) fieldValue(e *ir.Entity, f *ir.Field, r *jen.Statement) (val, has *jen.Statement) {
	ei := g.ents[e]
	if f == nil {
		return r.Clone().Dot(ei.id), nil
	}
	v := r.Clone().Dot(ei.fields[f])
	if pointerOpt(f.Type) {
		return jen.Op("*").Add(v), v.Clone().Op("!=").Nil()
	}
	return v, nil
}

// wrapped renders text (generated from names, which are identifiers) as
// line comments of at most 76 columns.
func wrapped(text string) *jen.Statement {
	var lines []string
	line := ""
	for _, w := range strings.Fields(oneLine(text)) {
		if line != "" && len(line)+1+len(w) > 76 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return comment(strings.Join(lines, "\n"))
}

// okAnd is the condition `ok`, and has when it is not nil.
func okAnd(has *jen.Statement) jen.Code {
	if has == nil {
		return jen.Id("ok")
	}
	return jen.Id("ok").Op("&&").Add(has)
}

// indexParams are the parameters of an always-invariant's checker on some
// records: a function per index its aggregates read, returning the
// records holding a key in insertion order.
func (g *generator) indexParams(inv *ir.Invariant) []jen.Code {
	var out []jen.Code
	for _, k := range g.alw.reads[inv] {
		out = append(out, jen.Id(g.alw.startField[k]).Func().Params(jen.String()).Index().Op("*").Id(g.ents[k.e].typ))
	}
	return out
}

// alwaysChecker renders an always-invariant's two checkers: checkX on
// every record (CheckInvariants, graders), which builds the indexes its
// aggregates read, and checkXIn on the records a call may have changed the
// verdict of, which reads the episode's indexes. body is the check of the
// records rows yields, sc the scope it was compiled in, keys the indexes
// it reads (by the names of indexParams).
func (g *generator) alwaysChecker(f *goFile, inv *ir.Invariant, body []jen.Code, keys []indexKey) {
	ei := g.ents[inv.Entity]
	in := g.alwaysIn[inv]
	sc := g.newScope("rows")
	var build []jen.Code
	args := []jen.Code{jen.Id("s").Dot(ei.table).Dot("All").Call()}
	for _, k := range keys {
		m := sc.temp(g.alw.startField[k])
		ki := g.ents[k.e]
		r := sc.temp("r")
		build = append(build,
			jen.Id(m).Op(":=").Make(jen.Map(jen.String()).Index().Op("*").Id(ki.typ)),
			jen.For(jen.Id(r).Op(":=").Range().Id("s").Dot(ki.table).Dot("All").Call()).Block(
				jen.Id(m).Index(jen.Id(r).Dot(ki.fields[k.f])).Op("=").Append(jen.Id(m).Index(jen.Id(r).Dot(ki.fields[k.f])), jen.Id(r)),
			))
		args = append(args, jen.Func().Params(jen.Id("k").String()).Index().Op("*").Id(ki.typ).Block(jen.Return(jen.Id(m).Index(jen.Id("k")))))
	}
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(g.invs[inv]).Params().Index().Qual(rt, "Violation").Block(
		append(build, jen.Return(jen.Id("s").Dot(in).Call(args...)))...)
	f.Line()
	f.Commentf("%s checks the always-invariant %s on the %s records rows yields, in", in, inv.Name, inv.Entity.Name)
	f.Comment("their order: on all of them, or on those a tool call may have changed the")
	if len(keys) > 0 {
		f.Comment("verdict of. Its aggregates read the records holding a key through the")
		f.Comment("functions given.")
	} else {
		f.Comment("verdict of.")
	}
	params := append([]jen.Code{jen.Id("rows").Qual("iter", "Seq").Index(jen.Op("*").Id(ei.typ))}, g.indexParams(inv)...)
	f.Func().Params(jen.Id("s").Op("*").Id("State")).Id(in).Params(params...).Index().Qual(rt, "Violation").Block(body...)
	f.Line()
}

// alwaysFields are the Episode's fields for the always-invariants.
func (g *generator) alwaysFields() []jen.Code {
	out := []jen.Code{
		jen.Line(),
		jen.Comment("calls counts the calls of the episode, failed ones included: the"),
		jen.Comment("step of a call is its number."),
		jen.Id("calls").Int(),
		jen.Comment("checked is set once a call has succeeded: the always-invariants are"),
		jen.Comment("then known to hold, or their violations reported, in the state."),
		jen.Id("checked").Bool(),
		jen.Comment("trace keeps the first violation of each always-invariant by each"),
		jen.Comment("record."),
		jen.Id("trace").Qual(rt, "Trace"),
	}
	for _, k := range g.alw.indexes {
		out = append(out,
			wrapped(fmt.Sprintf("%s indexes the %s records by %s.", g.alw.index[k], k.e.Name, k.f.Name)),
			jen.Id(g.alw.index[k]).Qual(rt, "IDIndex"))
	}
	return out
}

// startFields are the fields of startState for the always-invariants.
func (g *generator) startFields() []jen.Code {
	out := []jen.Code{
		jen.Comment("broken lists, for each always-invariant in declaration order, the"),
		jen.Comment("records that break it in the start state: the task's job, re-checked"),
		jen.Comment("after every call that succeeds and not reported until a call has"),
		jen.Comment("left them keeping it (runtime.Trace.ReportChecked)."),
		jen.Id("broken").Index(jen.Lit(len(g.always))).Index().String(),
	}
	if len(g.alw.indexes) > 0 {
		out = append(out,
			jen.Comment("indexes are the indexes of the state the episodes read, shared."),
			jen.Id("indexes").Op("*").Id(g.alw.startIndexes))
	}
	return out
}

// alwaysStart renders, after a start state s is built, the statements that
// complete st, its startState: the records that break an always-invariant,
// the shared indexes.
func (g *generator) alwaysStart(brokenToo bool) []jen.Code {
	var out []jen.Code
	if brokenToo {
		for i, inv := range g.always {
			out = append(out, jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("s").Dot(g.invs[inv]).Call()).Block(
				jen.Id("st").Dot("broken").Index(jen.Lit(i)).Op("=").Append(jen.Id("st").Dot("broken").Index(jen.Lit(i)), jen.Id("v").Dot("ID")),
			))
		}
	}
	if len(g.alw.indexes) > 0 {
		out = append(out, jen.Id("st").Dot("indexes").Op("=").Id(g.alw.newStartIndexes).Call(jen.Id("s")))
	}
	return out
}

// startIndexesType renders the type of a start state's shared indexes and
// its constructor.
func (g *generator) startIndexesType(f *goFile) {
	a := g.alw
	if len(a.indexes) == 0 {
		return
	}
	var fields []jen.Code
	dict := jen.Dict{}
	for _, k := range a.indexes {
		ei := g.ents[k.e]
		fields = append(fields, jen.Id(a.startField[k]).Func().Params().Op("*").Qual(rt, "IndexBase"))
		val, has := g.fieldValue(k.e, k.f, jen.Id("r"))
		add := jen.Id("b").Dot("Add").Call(val, jen.Id("r").Dot(ei.id))
		if has != nil {
			add = jen.If(has).Block(add)
		}
		dict[jen.Id(a.startField[k])] = jen.Qual("sync", "OnceValue").Call(jen.Func().Params().Op("*").Qual(rt, "IndexBase").Block(
			jen.Id("b").Op(":=").Qual(rt, "NewIndexBase").Call(),
			jen.For(jen.Id("r").Op(":=").Range().Id("s").Dot(ei.table).Dot("All").Call()).Block(add),
			jen.Return(jen.Id("b")),
		))
	}
	f.Commentf("%s are indexes of a start state's records by a field that the", a.startIndexes)
	f.Comment("always-invariants read, each built on first need and shared by the")
	f.Comment("episodes that start there (see runtime.IDIndex).")
	f.Type().Id(a.startIndexes).Struct(fields...)
	f.Line()
	f.Commentf("%s returns the indexes of the start state s, unbuilt.", a.newStartIndexes)
	f.Func().Id(a.newStartIndexes).Params(jen.Id("s").Op("*").Id("State")).Op("*").Id(a.startIndexes).Block(
		jen.Return(jen.Op("&").Id(a.startIndexes).Values(dict)))
	f.Line()
}

// alwaysEpisode renders Episode.checkAlways, the index lookups and
// Episode.alwaysHeld.
func (g *generator) alwaysEpisode(f *goFile) {
	a := g.alw
	recv := jen.Id("e").Op("*").Id("Episode")
	sc := newNamespace("e", "s", "tool", "step", "c", "r", "ok", "ids", "k", "runtime")
	// The tables the plans and the indexes read.
	var tables []*ir.Entity
	need := func(e *ir.Entity) {
		if !containsEntity(tables, e) {
			tables = append(tables, e)
		}
	}
	for _, p := range a.plans {
		need(p.inv.Entity)
		for _, e := range p.global {
			need(e)
		}
		for _, k := range p.values {
			need(k.e)
		}
	}
	for _, k := range a.indexes {
		need(k.e)
		for _, v := range a.lookups[k] {
			need(v.e)
		}
	}
	changes := map[*ir.Entity]string{}
	var decl, cases []jen.Code
	for i, e := range g.w.Entities { // in table order: the order of the cases
		if !containsEntity(tables, e) {
			continue
		}
		n := sc.name([2]any{e, "changes"}, lowerFirst(g.ents[e].table))
		changes[e] = n
		decl = append(decl, jen.Id(n))
		cases = append(cases, jen.Case(jen.Lit(i)).Block(jen.Id(n).Op("=").Append(jen.Id(n), jen.Id("c"))))
	}
	body := []jen.Code{
		jen.Id("changes").Op(":=").Id("e").Dot("state").Dot("j").Dot("Changes").Call(),
		jen.If(jen.Len(jen.Id("changes")).Op("==").Lit(0).Op("&&").Id("e").Dot("checked")).Block(
			jen.Comment("The state is as it was after the last call checked."),
			jen.Return()),
		jen.Id("e").Dot("checked").Op("=").True(),
		jen.List(jen.Id("s"), jen.Id("step")).Op(":=").List(jen.Id("e").Dot("state"), jen.Id("e").Dot("calls")),
		jen.Comment("The rows the call wrote, by table."),
		jen.Var().List(decl...).Index().Qual(rt, "RowChange"),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("changes")).Block(
			jen.Switch(jen.Id("c").Dot("Table")).Block(cases...)),
	}
	if len(a.indexes) > 0 {
		body = append(body, jen.Comment("The indexes follow the rows written."))
	}
	for _, e := range g.w.Entities {
		var held, gone []jen.Code
		for _, k := range a.indexes {
			if k.e != e {
				continue
			}
			move := func(key jen.Code, has bool) jen.Code {
				return jen.Id("e").Dot(a.index[k]).Dot("Move").Call(jen.Id("c").Dot("ID"), key, jen.Lit(has))
			}
			val, has := g.fieldValue(k.e, k.f, jen.Id("r"))
			if has != nil {
				held = append(held, jen.If(has).Block(move(val, true)).Else().Block(move(jen.Lit(""), false)))
			} else {
				held = append(held, move(val, true))
			}
			gone = append(gone, move(jen.Lit(""), false))
		}
		if len(held) == 0 {
			continue
		}
		body = append(body, jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id(changes[e])).Block(
			jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("s").Dot(g.ents[e].table).Dot("Get").Call(jen.Id("c").Dot("ID")), jen.Id("ok")).
				Block(held...).Else().Block(gone...),
		))
	}
	// The ids of the rows written: of the invariants' entities, and of the
	// entities whose ids are the keys of keyed reads.
	idsOf := map[*ir.Entity]string{}
	wantIDs := func(e *ir.Entity) jen.Code { return jen.Id(idsOf[e]) }
	var idDecl []jen.Code
	declareIDs := func(e *ir.Entity) {
		if idsOf[e] == "" {
			n := sc.name([2]any{e, "ids"}, lowerFirst(g.ents[e].typ)+"IDs")
			idsOf[e] = n
			idDecl = append(idDecl, jen.Id(n).Op(":=").Qual(rt, "IDsOf").Call(jen.Id(changes[e])))
		}
	}
	for _, e := range g.w.Entities {
		for _, p := range a.plans {
			if p.inv.Entity == e || containsValue(p.values, valueKey{e, nil}) || containsValueIn(a, p.via, valueKey{e, nil}) {
				declareIDs(e)
			}
		}
	}
	body = append(body, jen.Comment("The ids of the rows written."))
	body = append(body, idDecl...)
	// The keys of the rows written, before and after the call.
	var values []valueKey
	for _, p := range a.plans {
		for _, k := range p.values {
			if !containsValue(values, k) {
				values = append(values, k)
			}
		}
		for _, ix := range p.via {
			for _, k := range a.lookups[ix] {
				if !containsValue(values, k) {
					values = append(values, k)
				}
			}
		}
	}
	valueOf := map[valueKey]func() jen.Code{}
	for _, k := range values {
		ch := changes[k.e]
		if k.f == nil {
			e := k.e
			valueOf[k] = func() jen.Code { return wantIDs(e) }
			continue
		}
		ei := g.ents[k.e]
		n := sc.name([2]any{k, "values"}, lowerFirst(ei.typ)+ei.fields[k.f]+"s")
		valueOf[k] = func() jen.Code { return jen.Id(n) }
		add := func(lookup jen.Code) jen.Code {
			val, has := g.fieldValue(k.e, k.f, jen.Id("r"))
			return jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Add(lookup), okAnd(has)).Block(
				jen.Id(n).Op("=").Append(jen.Id(n), val))
		}
		body = append(body,
			jen.Commentf("The %s of the %s records written, before and after the call.", k.f.Name, k.e.Name),
			jen.Var().Id(n).Index().String(),
			jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id(ch)).Block(
				add(jen.Id("c").Dot("Old").Assert(jen.Op("*").Id(ei.typ))),
				add(jen.Id("s").Dot(ei.table).Dot("Get").Call(jen.Id("c").Dot("ID"))),
			),
		)
	}
	// The records the written rows' keys name through an index.
	viaIDs := map[indexKey]string{}
	for _, p := range a.plans {
		for _, ix := range p.via {
			if viaIDs[ix] != "" {
				continue
			}
			n := sc.name([2]any{ix, "via"}, a.index[ix]+"Named")
			viaIDs[ix] = n
			var keys []jen.Code
			for _, k := range a.lookups[ix] {
				keys = append(keys, valueOf[k]())
			}
			keyList := keys[0]
			if len(keys) > 1 {
				keyList = jen.Qual("slices", "Concat").Call(keys...)
			}
			body = append(body,
				jen.Commentf("The %s records whose %s a written row's key names.", ix.e.Name, ix.f.Name),
				jen.Var().Id(n).Index().String(),
				jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Add(keyList)).Block(
					jen.Id(n).Op("=").Append(jen.Id(n), jen.Id("e").Dot(a.ids[ix]).Call(jen.Id("k")).Op("...")),
				))
		}
	}
	for i, p := range a.plans {
		inv := p.inv
		ei := g.ents[inv.Entity]
		body = append(body, wrapped(g.planComment(p)))
		pending := []jen.Code{jen.Lit(inv.Name), wantIDs(inv.Entity)}
		for _, k := range p.values {
			pending = append(pending, valueOf[k]())
		}
		for _, ix := range p.via {
			pending = append(pending, jen.Id(viaIDs[ix]))
		}
		broken := jen.Id("e").Dot("start").Dot("broken").Index(jen.Lit(i))
		pending = append(pending, broken.Clone())
		args := []jen.Code{jen.Qual(rt, "RowsOf").Call(jen.Id("s").Dot(ei.table), jen.Id("ids"))}
		for _, k := range a.reads[inv] {
			args = append(args, jen.Id("e").Dot(a.rows[k]))
		}
		some := jen.If(jen.Id("ids").Op(":=").Id("e").Dot("trace").Dot("Pending").Call(pending...), jen.Len(jen.Id("ids")).Op(">").Lit(0)).Block(
			jen.Id("e").Dot("trace").Dot("ReportChecked").Call(jen.Lit(inv.Name), jen.Id("s").Dot(g.alwaysIn[inv]).Call(args...), jen.Id("ids"), broken.Clone(), jen.Id("step"), jen.Id("tool")))
		if len(p.global) == 0 {
			body = append(body, some)
			continue
		}
		var cond *jen.Statement
		for _, e := range p.global {
			c := jen.Len(jen.Id(changes[e])).Op(">").Lit(0)
			if cond == nil {
				cond = c
			} else {
				cond = cond.Op("||").Add(c)
			}
		}
		body = append(body, jen.If(cond).Block(
			jen.Id("e").Dot("trace").Dot("ReportChecked").Call(jen.Lit(inv.Name), jen.Id("s").Dot(g.invs[inv]).Call(), jen.Nil(), broken.Clone(), jen.Id("step"), jen.Id("tool")),
		).Else().Add(some))
	}
	f.Comment("checkAlways checks the always-invariants after the call e.calls to tool,")
	f.Comment("which succeeded: on the records whose verdict the call may have changed")
	f.Comment("(those it wrote, and those whose check reads a row it wrote), or on all")
	f.Comment("the records of an invariant whose check reads a table the call wrote in")
	f.Comment("any other way. The trace keeps the first violation of each record.")
	f.Func().Params(recv.Clone()).Id("checkAlways").Params(jen.Id("tool").String()).Block(body...)
	f.Line()

	for _, k := range a.indexes {
		g.indexLookups(f, recv, k)
	}

	f.Comment("alwaysHeld grades `invariant NAME` of an always-invariant: it holds only")
	f.Comment("if no record broke it after any call (ok and detail: its verdict on the")
	f.Comment("current state).")
	f.Func().Params(recv.Clone()).Id("alwaysHeld").Params(jen.Id("name").String(), jen.Id("ok").Bool(), jen.Id("detail").String()).Parens(jen.List(jen.Bool(), jen.String())).Block(
		jen.Id("vs").Op(":=").Id("e").Dot("trace").Dot("Broken").Call(jen.Id("name")),
		jen.If(jen.Len(jen.Id("vs")).Op("==").Lit(0)).Block(jen.Return(jen.Id("ok"), jen.Id("detail"))),
		jen.Id("why").Op(":=").Id("vs").Index(jen.Lit(0)).Dot("String").Call(),
		jen.If(jen.Len(jen.Id("vs")).Op(">").Lit(1)).Block(
			jen.Id("why").Op("+=").Qual("fmt", "Sprintf").Call(jen.Lit(" (and %d more)"), jen.Len(jen.Id("vs")).Op("-").Lit(1))),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Id("why").Op("+=").Lit("; now: ").Op("+").Id("detail")),
		jen.Return(jen.False(), jen.Id("why")),
	)
	f.Line()
}

// indexLookups renders the Episode's lookups in the index of k: the ids
// of the records holding a key, and when an invariant needs them, the
// records.
func (g *generator) indexLookups(f *goFile, recv *jen.Statement, k indexKey) {
	defer g.at(fieldOrigin(k.f))()
	a := g.alw
	ei := g.ents[k.e]
	x := jen.Id("e").Dot(a.index[k])
	f.Add(wrapped(fmt.Sprintf("%s returns the ids of the %s records whose %s is k: the index of the start state, built on first need, and the rows written since.", a.ids[k], k.e.Name, k.f.Name)))
	f.Func().Params(recv.Clone()).Id(a.ids[k]).Params(jen.Id("k").String()).Index().String().Block(
		jen.If(jen.Op("!").Add(x.Clone()).Dot("HasBase").Call()).Block(
			x.Clone().Dot("SetBase").Call(jen.Id("e").Dot("start").Dot("indexes").Dot(a.startField[k]).Call())),
		jen.Return(x.Clone().Dot("IDs").Call(jen.Id("k"))),
	)
	f.Line()
	if !a.needsRows(k) {
		return
	}
	pos := 0
	for i, e := range g.w.Entities {
		if e == k.e {
			pos = i
		}
	}
	f.Add(wrapped(fmt.Sprintf("%s returns the %s records whose %s is k, in insertion order.", a.rows[k], k.e.Name, k.f.Name)))
	f.Func().Params(recv.Clone()).Id(a.rows[k]).Params(jen.Id("k").String()).Index().Op("*").Id(ei.typ).Block(
		jen.Id("ids").Op(":=").Id("e").Dot(a.ids[k]).Call(jen.Id("k")),
		jen.Id("e").Dot("state").Dot("j").Dot("InInsertionOrder").Call(jen.Lit(pos), jen.Id("ids")),
		jen.Id("rows").Op(":=").Make(jen.Index().Op("*").Id(ei.typ), jen.Lit(0), jen.Len(jen.Id("ids"))),
		jen.For(jen.Id("r").Op(":=").Range().Qual(rt, "RowsOf").Call(jen.Id("e").Dot("state").Dot(ei.table), jen.Id("ids"))).Block(
			jen.Id("rows").Op("=").Append(jen.Id("rows"), jen.Id("r"))),
		jen.Return(jen.Id("rows")),
	)
	f.Line()
}

// planComment says what checkAlways re-checks for one invariant.
func (g *generator) planComment(p alwaysPlan) string {
	x := p.inv.Entity.Name
	c := p.inv.Name + ": the " + x + " records written"
	key := func(f *ir.Field) string {
		if f == nil {
			return "id"
		}
		return f.Name
	}
	for _, k := range p.values {
		c += ", the " + x + " named by the " + key(k.f) + " of a " + k.e.Name + " written"
	}
	for _, ix := range p.via {
		c += ", the " + x + " records whose " + ix.f.Name + " a written row names"
	}
	for i, e := range p.global {
		if i == 0 {
			c += "; every " + x + " when a " + e.Name
		} else {
			c += " or a " + e.Name
		}
	}
	if len(p.global) > 0 {
		c += " is written"
	}
	return c + "."
}
