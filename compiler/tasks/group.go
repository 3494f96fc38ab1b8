package tasks

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A group is a set of records the agent lists with one call of a search
// tool: those a ref filter ties to one anchor record (the claims of a
// policy), those with one value of an enum or bool filter (the submitted
// claims), or both. Programs decide on each member, solvers choose among
// them, questions count, total or compare them. The search's results are
// the group exactly: a ref, enum or bool filter matches by equality, and
// a group holds fewer records than a page.
type group struct {
	e      *ir.Entity
	finder *toolFacts
	list   *call // the search's call, a lookup of the solution
	// anchor is the record the ref filter names, as the words identify
	// it (its lookups are in the solution before list); nil without one.
	anchor   *desc
	anchorP  *ir.Param
	anchorID string
	// kind is the enum or bool filter's value; nil without one.
	kind    *fact
	kindP   *ir.Param
	members []map[string]any // the records found, in the search's order
}

// groupSearches are the search tools of e whose filters can make a group:
// a ref, enum or bool field of e.
func (x *synth) groupSearches(e *ir.Entity) []*toolFacts {
	var out []*toolFacts
	for _, f := range x.finders[e] {
		if f.tool.Kind != ir.ToolSearch || f.tool.Entity != e {
			continue
		}
		refs, kinds := groupFilters(f)
		if len(refs)+len(kinds) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// groupFilters are a search's filters by a ref field (naming a record)
// and by an enum or bool field.
func groupFilters(f *toolFacts) (refs, kinds []*ir.Param) {
	for _, p := range f.tool.Params {
		if p.Field == nil || p.Type.Kind == ir.KindList {
			continue
		}
		switch p.Field.Type.Kind {
		case ir.KindRef:
			if f.names[p] != nil && !p.Field.Type.Optional {
				refs = append(refs, p)
			}
		case ir.KindEnum, ir.KindBool:
			kinds = append(kinds, p)
		}
	}
	return refs, kinds
}

// drawGroup draws a group of e's records in the start state, of 2 to 49
// records (min of them at least), and adds to g the lookups that ground
// its anchor and the search that lists it.
func (x *synth) drawGroup(e *ir.Entity, g *groundCtx, min int) (*group, string) {
	searches := x.groupSearches(e)
	if len(searches) == 0 {
		return nil, "no_group"
	}
	f := searches[x.rng.IntN(len(searches))]
	refs, kinds := groupFilters(f)
	gr := &group{e: e, finder: f}
	var args []arg
	var pool []map[string]any // records a kind value is drawn from
	// Only the ref filters some anchor has a group under.
	refs = slices.DeleteFunc(refs, func(p *ir.Param) bool { return len(x.groupAnchors(e, p.Field)) == 0 })
	if len(refs) > 0 && (len(kinds) == 0 || x.rng.IntN(3) > 0) {
		p := refs[x.rng.IntN(len(refs))]
		anchors := x.groupAnchors(e, p.Field)
		gr.anchorP, gr.anchorID = p, anchors[x.rng.IntN(len(anchors))]
		args = append(args, arg{p: p, v: gr.anchorID})
		if len(kinds) > 0 && x.rng.IntN(2) == 0 {
			recs, ok := x.search(f, args)
			if !ok {
				return nil, "no_group"
			}
			pool = recs
		}
	} else if len(kinds) > 0 {
		ids := x.startIDs(e)
		if len(ids) == 0 {
			return nil, "group_too_small"
		}
		for k := 0; k < 3; k++ {
			pool = append(pool, x.record(x.start, e, ids[x.rng.IntN(len(ids))]))
		}
	}
	if pool != nil {
		p := kinds[x.rng.IntN(len(kinds))]
		v := pool[x.rng.IntN(len(pool))][p.Field.Name]
		if v != nil {
			gr.kind, gr.kindP = &fact{field: p.Field.Name, v: v, t: p.Field.Type}, p
			args = append(args, arg{p: p, v: v})
		}
	}
	if len(args) == 0 {
		return nil, "no_group"
	}
	sortArgs(f.tool, args)
	data, terr, broke := x.call(x.start.Clone(), f.tool, args)
	if terr != nil || broke {
		return nil, "no_group"
	}
	obs := decode(data.JSON())
	gr.members = resultRecords(obs, e)
	if len(gr.members) < max(min, 2) && gr.kind != nil && gr.anchorP != nil {
		// The value leaves too few: the anchor's group alone.
		gr.kind, gr.kindP = nil, nil
		args = []arg{{p: gr.anchorP, v: gr.anchorID}}
		if data, terr, broke = x.call(x.start.Clone(), f.tool, args); terr != nil || broke {
			return nil, "no_group"
		}
		obs = decode(data.JSON())
		gr.members = resultRecords(obs, e)
	}
	if len(gr.members) < max(min, 2) || len(gr.members) >= ir.PageSize {
		return nil, "group_too_small"
	}
	if gr.anchorP != nil {
		gr.anchor = x.ground(x.start, gr.anchorP.Field.Type.Entity, gr.anchorID, g, false, 0)
		if gr.anchor == nil {
			return nil, "ungroundable"
		}
	}
	gr.list = &call{tool: f.tool, args: args, obs: obs, lookup: true}
	g.addCall(gr.list)
	g.lookups++
	return gr, ""
}

// search calls a finder on the start state and returns the records of
// its entity it found.
func (x *synth) search(f *toolFacts, args []arg) ([]map[string]any, bool) {
	data, terr, broke := x.call(x.start.Clone(), f.tool, args)
	if terr != nil || broke {
		return nil, false
	}
	return resultRecords(decode(data.JSON()), f.tool.Entity), true
}

// phrase is the group in words after its noun: "of the insurance policy
// POL-1 whose status is submitted".
func (x *synth) phrase(gr *group, wd *wording) string {
	var b strings.Builder
	if gr.anchor != nil {
		b.WriteString(" of " + x.descText(gr.anchor, wd))
	}
	if k := gr.kind; k != nil {
		b.WriteString(" " + x.qualifier(k.field, k.v, k.t, wd))
	}
	return b.String()
}

// where is the group's filter as a condition of the language on the
// variable v: `v.policy == policy_admin.InsurancePolicy["pol_1"] and
// v.status == submitted`.
func (x *synth) where(gr *group, v string) string {
	var cs []string
	if gr.anchorP != nil {
		a := gr.anchorP.Field.Type.Entity
		cs = append(cs, v+"."+gr.anchorP.Field.Name+" == "+a.Service.Name+"."+a.Name+"["+strconv.Quote(gr.anchorID)+"]")
	}
	if k := gr.kind; k != nil {
		cs = append(cs, v+"."+k.field+" == "+exprLit(k.v, k.t))
	}
	return strings.Join(cs, " and ")
}

// exprLit is a scalar as a literal of an expression: an enum value by its
// name, a bool, a number, a date or a string.
func exprLit(v any, t *ir.Type) string {
	switch y := v.(type) {
	case bool:
		if y {
			return "true"
		}
		return "false"
	case string:
		if t.Kind == ir.KindEnum && isIdent(y) {
			return y
		}
		if t.Kind == ir.KindDate {
			return y
		}
		return strconv.Quote(y)
	}
	s, _ := atom(v)
	return s
}

// plural is an entity's name in words, plural: claims, policies, boxes.
func plural(e *ir.Entity) string { return pluralWords(humanize(e.Name)) }

// pluralWords is words (a name humanized) in the plural: the last word's.
func pluralWords(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// numeric reports whether a field holds a number (int, decimal, money).
func numeric(f *ir.Field) bool {
	return f.Type.Kind == ir.KindInt || f.Type.Kind == ir.KindDecimal || f.Type.Kind == ir.KindMoney
}

// number is a decoded JSON number as a float, for ordering.
func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(n), 64)
	return f, err == nil
}

// orderKey orders the values of a numeric or date field: numbers by
// value, dates (YYYY-MM-DD) as text.
func orderKey(v any, f *ir.Field) (float64, string, bool) {
	if numeric(f) {
		n, ok := number(v)
		return n, "", ok
	}
	s, ok := v.(string)
	return 0, s, ok && f.Type.Kind == ir.KindDate
}

// compareValues compares two values of a numeric or date field.
func compareValues(a, b any, f *ir.Field) int {
	na, sa, _ := orderKey(a, f)
	nb, sb, _ := orderKey(b, f)
	switch {
	case numeric(f) && na < nb, !numeric(f) && sa < sb:
		return -1
	case numeric(f) && na > nb, !numeric(f) && sa > sb:
		return 1
	}
	return 0
}

// distinctSorted are the distinct values of field f among recs, in
// order; ok is false when a record has none.
func distinctSorted(recs []map[string]any, f *ir.Field) ([]any, bool) {
	var out []any
	for _, r := range recs {
		v := r[f.Name]
		if _, _, ok := orderKey(v, f); !ok {
			return nil, false
		}
		if !slices.ContainsFunc(out, func(o any) bool { return compareValues(o, v, f) == 0 }) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b any) int { return compareValues(a, b, f) })
	return out, true
}
