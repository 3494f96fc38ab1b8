package tasks

import (
	"slices"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// Grounding: how the words let the agent find each record a write acts
// on, without its internal id. A record is
//
//   - created by an earlier call of the task ("the new …"; its id is in
//     that call's observation);
//   - named by a key users know (an order number that no tool finds from
//     other fields: it is what the customer quotes), or by its id when no
//     read tool finds records of its entity at all (the world gives users
//     nothing else to know it by);
//   - held by a ref field of a record the task already identified and
//     observed ("the customer of …");
//   - found by a read tool from values of its fields — the filters of a
//     search, the parameters of a custom finder — executed on the state
//     where the task needs it: the record must be among the results, and
//     when others are too (distractors), a field whose value only it has
//     among them tells it apart. A filter that names another record is
//     grounded the same way, first.
//
// A record a write the policy implies acts on (a repair) may also be one
// whose id an earlier observation showed.

// desc is how the words identify one record.
type desc struct {
	e    *ir.Entity
	id   string
	kind string // created, key, ref, found, seen
	// facts are the values a found record was found by (or its key).
	facts []fact
	// subs are the records its ref filters name.
	subs []*desc
	// extra are values that tell it apart from the others found.
	extra []fact
	// parent and field: a ref record is parent's field.
	parent *desc
	field  string
}

// fact is a user-known value of a field.
type fact struct {
	field string
	v     any
	t     *ir.Type
}

// groundCtx is what the task's words and calls identified so far.
type groundCtx struct {
	obs         map[string]bool // atoms of the observations so far
	created     map[string]int  // id → index of the call that created it
	descs       []*desc         // records identified, in order
	calls       []*call         // the solution so far
	distractors int
	lookups     int
	// seedSeen are the records of the task's seed that lookups returned
	// beside the record they found (distract.go).
	seedSeen []string
}

func newCtx() *groundCtx {
	return &groundCtx{obs: map[string]bool{}, created: map[string]int{}}
}

// addCall appends c to the solution and its observation to what is seen.
func (g *groundCtx) addCall(c *call) {
	g.calls = append(g.calls, c)
	atoms(c.obs, g.obs)
}

// maxGroundDepth bounds the chain of finders behind one record (a line
// found by its order, found by its customer's name, …).
const maxGroundDepth = 2

// ground finds how to identify record id of e in st, adding the lookups
// it needs to g; implied allows a record an observation showed.
func (x *synth) ground(st *eval.State, e *ir.Entity, id string, g *groundCtx, implied bool, depth int) *desc {
	if _, ok := g.created[id]; ok {
		return &desc{e: e, id: id, kind: "created"}
	}
	for _, d := range g.descs {
		if d.e == e && d.id == id {
			return d
		}
	}
	if implied && g.obs[id] {
		return &desc{e: e, id: id, kind: "seen"}
	}
	if x.keyKnown[e] {
		t := &ir.Type{Kind: ir.KindString}
		if e.Key != nil {
			t = e.Key.Type
		}
		d := &desc{e: e, id: id, kind: "key", facts: []fact{{field: e.IDName(), v: id, t: t}}}
		g.descs = append(g.descs, d)
		return d
	}
	if g.obs[id] {
		for _, p := range g.descs {
			prec := x.record(st, p.e, p.id)
			for _, fl := range p.e.Fields {
				if fl.Type.Kind == ir.KindRef && fl.Type.Entity == e && prec[fl.Name] == id {
					d := &desc{e: e, id: id, kind: "ref", parent: p, field: fl.Name}
					g.descs = append(g.descs, d)
					return d
				}
			}
		}
	}
	if depth > maxGroundDepth {
		return nil
	}
	rec := x.record(st, e, id)
	if rec == nil {
		return nil
	}
	finders := slices.Clone(x.finders[e])
	if n := len(finders); n > 1 {
		k := x.rng.IntN(n)
		finders = append(finders[k:], finders[:k]...)
	}
	// In a seeded draw, the filters whose results hold a seed record of
	// the same entity first: that is what the seed is for.
	passes := []bool{false}
	if x.seededOf(e) {
		passes = []bool{true, false}
	}
	for _, needSeed := range passes {
		for _, f := range finders {
			for _, subset := range x.filterSets(f, e, rec, x.members(st, recKey{e, id})) {
				if d := x.tryFinder(st, f, e, id, rec, subset, g, depth, needSeed); d != nil {
					g.descs = append(g.descs, d)
					return d
				}
			}
		}
	}
	return nil
}

// seededOf reports whether the draw's seed holds a record of e.
func (x *synth) seededOf(e *ir.Entity) bool {
	for id := range x.seeded {
		if x.record(x.start, e, id) != nil {
			return true
		}
	}
	return false
}

// filterSets are the parameter sets of finder f worth trying for rec:
// for a search, its filters whose field rec has a value for, alone, in
// pairs and in threes (values users know before ids); for a list, none;
// for a custom finder, its required parameters.
func (x *synth) filterSets(f *toolFacts, e *ir.Entity, rec map[string]any, idx map[string][]any) [][]*ir.Param {
	t := f.tool
	switch t.Kind {
	case ir.ToolList:
		return [][]*ir.Param{nil}
	case ir.ToolSearch:
		// Names and numbers users quote first, then the records a
		// filter names, then kinds and states.
		var texts, refs, kinds []*ir.Param
		for _, p := range t.Params {
			if rec[p.Name] == nil {
				continue
			}
			switch {
			case f.names[p] != nil:
				refs = append(refs, p)
			case p.Type.Kind.Textual():
				texts = append(texts, p)
			default:
				kinds = append(kinds, p)
			}
		}
		usable := append(append(texts, refs...), kinds...)
		var out [][]*ir.Param
		for _, p := range usable {
			out = append(out, []*ir.Param{p})
		}
		for i := range usable {
			for j := i + 1; j < len(usable); j++ {
				out = append(out, []*ir.Param{usable[i], usable[j]})
			}
		}
		for i := range usable {
			for j := i + 1; j < len(usable); j++ {
				for k := j + 1; k < len(usable); k++ {
					out = append(out, []*ir.Param{usable[i], usable[j], usable[k]})
				}
			}
		}
		if len(out) > 12 {
			out = out[:12]
		}
		return out
	case ir.ToolCustom:
		var set []*ir.Param
		for _, p := range t.Params {
			if !p.Required() {
				continue
			}
			if len(idx[p.Name]) == 0 {
				return nil
			}
			set = append(set, p)
		}
		return [][]*ir.Param{set}
	}
	return nil
}

// tryFinder calls finder f with the values of rec for the parameters of
// subset, grounding first the records ref filters name; it returns how the
// record is identified when the result holds it and, among the others it
// holds, some field tells it apart.
func (x *synth) tryFinder(st *eval.State, f *toolFacts, e *ir.Entity, id string, rec map[string]any, subset []*ir.Param, g *groundCtx, depth int, needSeed bool) *desc {
	// Work on a copy of the context: a finder that does not find the
	// record must leave no lookups behind.
	h := g.fork()
	d := &desc{e: e, id: id, kind: "found"}
	var args []arg
	for _, p := range subset {
		vs := x.members(st, recKey{e, id})[p.Name]
		if len(vs) == 0 || vs[0] == nil {
			return nil
		}
		v := vs[0]
		if e2 := f.names[p]; e2 != nil {
			s, ok := v.(string)
			if !ok {
				return nil
			}
			sd := x.ground(st, e2, s, h, false, depth+1)
			if sd == nil {
				return nil
			}
			d.subs = append(d.subs, sd)
		} else {
			if _, isScalar := atom(v); !isScalar {
				return nil
			}
			d.facts = append(d.facts, fact{field: p.Name, v: v, t: p.Type})
		}
		args = append(args, arg{p: p, v: v})
	}
	sortArgs(f.tool, args)
	data, terr, broke := x.call(st.Clone(), f.tool, args)
	if terr != nil || broke {
		return nil
	}
	obs := decode(data.JSON())
	recs := resultRecords(obs, e)
	found := false
	var others []map[string]any
	if s, ok := obs.(string); ok {
		found = s == id // a finder of keys
	}
	for _, r := range recs {
		if recordID(r, e) == id {
			found = true
		} else {
			others = append(others, r)
		}
	}
	if !found {
		return nil
	}
	var seedSeen []string
	for _, o := range others {
		if oid := recordID(o, e); x.seeded[oid] && !slices.Contains(h.seedSeen, oid) {
			seedSeen = append(seedSeen, oid)
		}
	}
	if needSeed && len(seedSeen) == 0 {
		return nil
	}
	if len(others) > 0 {
		if len(others) > 20 {
			return nil
		}
		ex := x.distinguish(e, rec, others, subset)
		if ex == nil {
			return nil
		}
		d.extra = []fact{*ex}
	}
	c := &call{tool: f.tool, args: args, obs: obs, lookup: true}
	h.addCall(c)
	h.distractors += len(others)
	h.lookups++
	h.seedSeen = append(h.seedSeen, seedSeen...)
	*g = *h
	return d
}

// fork is a copy of the context to try a lookup on: the caller keeps it
// (*g = *h) when the lookup is taken.
func (g *groundCtx) fork() *groundCtx {
	return &groundCtx{obs: cloneSet(g.obs), created: g.created, descs: slices.Clone(g.descs), calls: slices.Clone(g.calls),
		distractors: g.distractors, lookups: g.lookups, seedSeen: slices.Clone(g.seedSeen)}
}

func cloneSet(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// resultRecords are the records of e a result holds: the result itself,
// or the elements of a list.
func resultRecords(v any, e *ir.Entity) []map[string]any {
	var out []map[string]any
	switch y := v.(type) {
	case map[string]any:
		if isRecordOf(y, e) {
			out = append(out, y)
		}
	case []any:
		for _, el := range y {
			if m, ok := el.(map[string]any); ok && isRecordOf(m, e) {
				out = append(out, m)
			}
		}
	}
	return out
}

// isRecordOf reports whether a JSON object is a record of e: its id and
// exactly e's fields (an order, which names its user by user_id, is no
// user).
func isRecordOf(m map[string]any, e *ir.Entity) bool {
	n := len(e.Fields)
	if e.Key == nil {
		n++
	}
	if len(m) != n || recordID(m, e) == "" {
		return false
	}
	for _, f := range e.Fields {
		if _, ok := m[f.Name]; !ok {
			return false
		}
	}
	return true
}

// recordID is the id of a record of e rendered as JSON.
func recordID(m map[string]any, e *ir.Entity) string {
	s, _ := m[e.IDName()].(string)
	return s
}

// distinguish is a field of rec whose value none of the others has, not
// one of the filters: a name before a kind, a kind before a number, a
// unique value last.
func (x *synth) distinguish(e *ir.Entity, rec map[string]any, others []map[string]any, used []*ir.Param) *fact {
	rank := func(k ir.Kind) int {
		switch k {
		case ir.KindString:
			return 0
		case ir.KindEnum:
			return 1
		case ir.KindDate, ir.KindDateTime:
			return 2
		case ir.KindInt, ir.KindDecimal, ir.KindMoney:
			return 3
		}
		return -1
	}
	var best *fact
	bestRank := 99
	for _, fl := range e.Fields {
		r := rank(fl.Type.Kind)
		if fl.Unique && r >= 0 {
			// A unique value names the record outright: the field the
			// records differ in by nature (a city, a status) first.
			r += 4
		}
		if r < 0 || fl == e.Key || r >= bestRank {
			continue
		}
		if slices.ContainsFunc(used, func(p *ir.Param) bool { return p.Name == fl.Name }) {
			continue
		}
		v := rec[fl.Name]
		a, ok := atom(v)
		if !ok || v == nil || x.internal[a] {
			continue
		}
		unique := true
		for _, o := range others {
			if b, ok := atom(o[fl.Name]); ok && b == a {
				unique = false
				break
			}
		}
		if unique {
			best = &fact{field: fl.Name, v: v, t: fl.Type}
			bestRank = r
		}
	}
	return best
}
