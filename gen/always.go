package gen

import (
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
//     records by the field (runtime.IDIndex), built on first need and then
//     kept up to date with every call's writes;
//   - every record, when the call wrote an entity the invariant reads
//     without a key (the check then runs on all the records, with the
//     indexes its aggregates use built up front, as CheckInvariants does);
//   - the records that broke it in the task's start state.
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
	// re-check; indexes those looked up through an index.
	values  []valueKey
	indexes []indexOn
}

// valueKey names the values of Field (nil: the id) of the rows of Entity a
// call wrote, before and after it.
type valueKey struct {
	e *ir.Entity
	f *ir.Field
}

// indexOn names an index of the records of e by its field f.
type indexOn struct {
	e *ir.Entity
	f *ir.Field
}

// alwaysPlans derives the plans of the always-invariants, in order, and
// the indexes they need with the values looked up in each.
func (g *generator) alwaysPlans() (plans []alwaysPlan, indexes []indexOn, lookups map[indexOn][]valueKey) {
	lookups = map[indexOn][]valueKey{}
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
				ix := indexOn{inv.Entity, r.Via}
				if _, known := lookups[ix]; !known {
					indexes = append(indexes, ix)
				}
				if k := (valueKey{r.Entity, r.Field}); !containsValue(lookups[ix], k) {
					lookups[ix] = append(lookups[ix], k)
				}
				if !containsIndex(p.indexes, ix) {
					p.indexes = append(p.indexes, ix)
				}
			}
		}
		plans = append(plans, p)
	}
	return plans, indexes, lookups
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

func containsIndex(xs []indexOn, k indexOn) bool {
	for _, x := range xs {
		if x == k {
			return true
		}
	}
	return false
}

// alwaysNames are the names checkAlways and the indexes take among the
// Episode's fields and methods.
type alwaysNames struct {
	ns      *namespace
	index   map[indexOn]string // Episode field: ordersByUserID
	lookup  map[indexOn]string // Episode method: ordersWithUserID
	changes map[*ir.Entity]string
	values  map[valueKey]func() jen.Code // the keys of written rows (see checkAlways)
}

// episodeMembers are the fields and methods of Episode.
var episodeMembers = []string{"state", "task", "start", "calls", "trace", "checkAlways", "alwaysHeld",
	"State", "Call", "StateHash", "Violations", "Snapshot", "Grade"}

func (g *generator) alwaysNaming(indexes []indexOn) *alwaysNames {
	n := &alwaysNames{ns: newNamespace(episodeMembers...), index: map[indexOn]string{}, lookup: map[indexOn]string{},
		changes: map[*ir.Entity]string{}, values: map[valueKey]func() jen.Code{}}
	for _, ix := range indexes {
		ei := g.ents[ix.e]
		n.index[ix] = n.ns.name([2]any{ix, "index"}, lowerFirst(ei.table)+"By"+ei.fields[ix.f])
		n.lookup[ix] = n.ns.name([2]any{ix, "lookup"}, lowerFirst(ei.table)+"With"+ei.fields[ix.f])
	}
	return n
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

// alwaysFields are the Episode's fields for the always-invariants.
func (g *generator) alwaysFields(names *alwaysNames, indexes []indexOn) []jen.Code {
	out := []jen.Code{
		jen.Line(),
		jen.Comment("calls counts the calls of the episode, failed ones included: the"),
		jen.Comment("step of a call is its number."),
		jen.Id("calls").Int(),
		jen.Comment("trace keeps the first violation of each always-invariant by each"),
		jen.Comment("record."),
		jen.Id("trace").Qual(rt, "Trace"),
	}
	for _, ix := range indexes {
		out = append(out,
			jen.Commentf("%s indexes the %s records by %s (see %s).", names.index[ix], ix.e.Name, ix.f.Name, names.lookup[ix]),
			jen.Id(names.index[ix]).Qual(rt, "IDIndex"))
	}
	return out
}

// alwaysEpisode renders Episode.checkAlways, Episode.alwaysHeld and the
// index lookups.
func (g *generator) alwaysEpisode(f *jen.File, plans []alwaysPlan, indexes []indexOn, lookups map[indexOn][]valueKey, names *alwaysNames) {
	recv := jen.Id("e").Op("*").Id("Episode")
	sc := newNamespace("e", "s", "tool", "step", "c", "r", "ok", "ids", "runtime")
	// The rows the call wrote, by table: those of the tables the plans read.
	var tables []*ir.Entity
	need := func(e *ir.Entity) {
		if !containsEntity(tables, e) {
			tables = append(tables, e)
		}
	}
	for _, p := range plans {
		need(p.inv.Entity)
		for _, e := range p.global {
			need(e)
		}
		for _, k := range p.values {
			need(k.e)
		}
		for _, ix := range p.indexes {
			for _, k := range lookups[ix] {
				need(k.e)
			}
		}
	}
	// In the world's entity order: the order of the switch's cases.
	var ordered []*ir.Entity
	for _, e := range g.w.Entities {
		if containsEntity(tables, e) {
			ordered = append(ordered, e)
		}
	}
	pos := map[*ir.Entity]int{}
	for i, e := range g.w.Entities {
		pos[e] = i
	}
	var body []jen.Code
	body = append(body, jen.List(jen.Id("s"), jen.Id("step")).Op(":=").List(jen.Id("e").Dot("state"), jen.Id("e").Dot("calls")))
	var decl []jen.Code
	var cases []jen.Code
	for _, e := range ordered {
		n := sc.name([2]any{e, "changes"}, lowerFirst(g.ents[e].table))
		names.changes[e] = n
		decl = append(decl, jen.Id(n))
		cases = append(cases, jen.Case(jen.Lit(pos[e])).Block(jen.Id(n).Op("=").Append(jen.Id(n), jen.Id("c"))))
	}
	body = append(body,
		jen.Comment("The rows the call wrote, by table."),
		jen.Var().List(decl...).Index().Qual(rt, "RowChange"),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("s").Dot("j").Dot("Changes").Call()).Block(
			jen.Switch(jen.Id("c").Dot("Table")).Block(cases...)),
	)
	// The keys of the rows written, before and after the call.
	var values []valueKey
	for _, p := range plans {
		for _, k := range p.values {
			if !containsValue(values, k) {
				values = append(values, k)
			}
		}
		for _, ix := range p.indexes {
			for _, k := range lookups[ix] {
				if !containsValue(values, k) {
					values = append(values, k)
				}
			}
		}
	}
	for _, k := range values {
		changes := names.changes[k.e]
		if k.f == nil {
			names.values[k] = func() jen.Code { return jen.Qual(rt, "IDsOf").Call(jen.Id(changes)) }
			continue
		}
		ei := g.ents[k.e]
		n := sc.name([2]any{k, "values"}, lowerFirst(ei.typ)+ei.fields[k.f]+"s")
		names.values[k] = func() jen.Code { return jen.Id(n) }
		add := func(lookup jen.Code) jen.Code {
			val, has := g.fieldValue(k.e, k.f, jen.Id("r"))
			return jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Add(lookup), okAnd(has)).Block(
				jen.Id(n).Op("=").Append(jen.Id(n), val))
		}
		body = append(body,
			jen.Commentf("The %s of the %s records written, before and after the call.", k.f.Name, k.e.Name),
			jen.Var().Id(n).Index().String(),
			jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id(changes)).Block(
				add(jen.Id("c").Dot("Old").Assert(jen.Op("*").Id(ei.typ))),
				add(jen.Id("s").Dot(ei.table).Dot("Get").Call(jen.Id("c").Dot("ID"))),
			),
		)
	}
	// The records found through the indexes (each index sees every call).
	idxIDs := map[indexOn]string{}
	for _, ix := range indexes {
		n := sc.name([2]any{ix, "ids"}, lowerFirst(g.ents[ix.e].table)+"By"+g.ents[ix.e].fields[ix.f])
		idxIDs[ix] = n
		var keys []jen.Code
		for _, k := range lookups[ix] {
			keys = append(keys, names.values[k]())
		}
		keyArg := keys[0]
		if len(keys) > 1 {
			keyArg = jen.Qual("slices", "Concat").Call(keys...)
		}
		body = append(body, jen.Id(n).Op(":=").Id("e").Dot(names.lookup[ix]).Call(jen.Id(names.changes[ix.e]), keyArg))
	}
	for i, p := range plans {
		inv := p.inv
		ei := g.ents[inv.Entity]
		body = append(body, comment(g.planComment(p)))
		pending := []jen.Code{jen.Lit(inv.Name), jen.Qual(rt, "IDsOf").Call(jen.Id(names.changes[inv.Entity]))}
		for _, k := range p.values {
			pending = append(pending, names.values[k]())
		}
		for _, ix := range p.indexes {
			pending = append(pending, jen.Id(idxIDs[ix]))
		}
		pending = append(pending, jen.Id("e").Dot("start").Dot("broken").Index(jen.Lit(i)))
		some := jen.If(jen.Id("ids").Op(":=").Id("e").Dot("trace").Dot("Pending").Call(pending...), jen.Len(jen.Id("ids")).Op(">").Lit(0)).Block(
			jen.Id("e").Dot("trace").Dot("Report").Call(jen.Id("s").Dot(g.alwaysIn[inv]).Call(jen.Qual(rt, "RowsOf").Call(jen.Id("s").Dot(ei.table), jen.Id("ids"))), jen.Id("step"), jen.Id("tool")))
		if len(p.global) == 0 {
			body = append(body, some)
			continue
		}
		var cond *jen.Statement
		for _, e := range p.global {
			c := jen.Len(jen.Id(names.changes[e])).Op(">").Lit(0)
			if cond == nil {
				cond = c
			} else {
				cond = cond.Op("||").Add(c)
			}
		}
		body = append(body, jen.If(cond).Block(
			jen.Id("e").Dot("trace").Dot("Report").Call(jen.Id("s").Dot(g.invs[inv]).Call(), jen.Id("step"), jen.Id("tool")),
		).Else().Add(some))
	}
	f.Comment("checkAlways checks the always-invariants after the call e.calls to tool,")
	f.Comment("which succeeded: on the records whose verdict the call may have changed")
	f.Comment("(those it wrote, and those whose check reads a row it wrote), or on all")
	f.Comment("the records of an invariant whose check reads a table the call wrote in")
	f.Comment("any other way. The trace keeps the first violation of each record.")
	f.Func().Params(recv.Clone()).Id("checkAlways").Params(jen.Id("tool").String()).Block(body...)
	f.Line()

	for _, ix := range indexes {
		ei := g.ents[ix.e]
		x := jen.Id("x")
		oldVal, oldHas := g.fieldValue(ix.e, ix.f, jen.Id("r"))
		curVal, curHas := g.fieldValue(ix.e, ix.f, jen.Id("r"))
		addVal, addHas := g.fieldValue(ix.e, ix.f, jen.Id("r"))
		add := x.Clone().Dot("Add").Call(addVal, jen.Id("r").Dot(ei.id))
		var build jen.Code = add
		if addHas != nil {
			build = jen.If(addHas).Block(add)
		}
		f.Commentf("%s returns the ids of the %s records whose %s is one of keys.", names.lookup[ix], ix.e.Name, ix.f.Name)
		f.Commentf("The index e.%s is built on first need, then kept up to date", names.index[ix])
		f.Commentf("with the %s rows every call writes (changes): checkAlways calls it", ix.e.Name)
		f.Comment("after every call that succeeds.")
		f.Func().Params(recv.Clone()).Id(names.lookup[ix]).Params(jen.Id("changes").Index().Qual(rt, "RowChange"), jen.Id("keys").Index().String()).Index().String().Block(
			x.Clone().Op(":=").Op("&").Id("e").Dot(names.index[ix]),
			jen.If(x.Clone().Dot("Built").Call()).Block(
				jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("changes")).Block(
					jen.Var().List(jen.Id("old"), jen.Id("cur")).String(),
					jen.Var().List(jen.Id("hadOld"), jen.Id("has")).Bool(),
					jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("c").Dot("Old").Assert(jen.Op("*").Id(ei.typ)), okAnd(oldHas)).Block(
						jen.List(jen.Id("old"), jen.Id("hadOld")).Op("=").List(oldVal, jen.True())),
					jen.If(jen.List(jen.Id("r"), jen.Id("ok")).Op(":=").Id("e").Dot("state").Dot(ei.table).Dot("Get").Call(jen.Id("c").Dot("ID")), okAnd(curHas)).Block(
						jen.List(jen.Id("cur"), jen.Id("has")).Op("=").List(curVal, jen.True())),
					x.Clone().Dot("Move").Call(jen.Id("c").Dot("ID"), jen.Id("old"), jen.Id("hadOld"), jen.Id("cur"), jen.Id("has")),
				),
			).Else().If(jen.Len(jen.Id("keys")).Op(">").Lit(0)).Block(
				jen.For(jen.Id("r").Op(":=").Range().Id("e").Dot("state").Dot(ei.table).Dot("All").Call()).Block(build),
				x.Clone().Dot("SetBuilt").Call(),
			),
			jen.Var().Id("ids").Index().String(),
			jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("keys")).Block(
				jen.Id("ids").Op("=").Append(jen.Id("ids"), x.Clone().Dot("IDs").Call(jen.Id("k")).Op("...")),
			),
			jen.Return(jen.Id("ids")),
		)
		f.Line()
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

// okAnd is the condition `ok`, and has when it is not nil.
func okAnd(has *jen.Statement) jen.Code {
	if has == nil {
		return jen.Id("ok")
	}
	return jen.Id("ok").Op("&&").Add(has)
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
	for _, ix := range p.indexes {
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
