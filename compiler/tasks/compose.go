package tasks

import (
	"fmt"
	"slices"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// clause is one write the words ask for (or the policy implies).
type clause struct {
	c *call
	// descs are the records each naming parameter gets, as the words
	// identify them.
	descs map[*ir.Param][]*desc
	// silent marks a write the policy implies whose values the agent
	// can all take from observations: the words need not ask for it.
	silent bool
	// inner are, for parameters passing inner ids (an order's item),
	// the words for each value.
	inner map[*ir.Param][]*inner
}

// compose turns a chain of writes into a task: it grounds every record
// the writes act on (adding the lookups before the write that needs
// them), writes the words, derives the rubric from the state diff and
// measures the difficulty. withheld marks a refusal whose request is not
// made in the solution (the policy forbids it).
func (x *synth) compose(origin string, steps []step, end *eval.State, created []recKey) (*task, string) {
	return x.composeWith(origin, steps, end, created, false)
}

func (x *synth) composeWith(origin string, steps []step, end *eval.State, created []recKey, withheld bool) (*task, string) {
	g := newCtx()
	var clauses []clause
	var records []string
	for _, s := range steps {
		c := s.c
		f := x.byTool[c.tool]
		cl := clause{c: c, descs: map[*ir.Param][]*desc{}}
		silent := c.implied && !c.spell
		for i := range c.args {
			a := &c.args[i]
			e := f.names[a.p]
			if e == nil {
				if at, ok := atom(a.v); !ok || !g.obs[at] {
					silent = false
				}
				continue
			}
			_, isList := a.v.([]any)
			for _, id := range stringsIn(a.v) {
				records = append(records, e.Name+":"+id)
				if _, ok := g.created[id]; !ok && !x.startHas(e, id) {
					// Created by a call that did not return it: the
					// solution has no name for it.
					return nil, "created_unbound"
				}
				if k, ok := g.created[id]; ok {
					if isList {
						return nil, "created_unbound"
					}
					if g.calls[k].bind == "" {
						g.calls[k].bind = x.bindName(g.calls)
					}
					a.bound = g.calls[k].bind
					cl.descs[a.p] = append(cl.descs[a.p], &desc{e: e, id: id, kind: "created"})
					continue
				}
				d := x.ground(s.before, e, id, g, c.implied, 0)
				if d == nil {
					return nil, "ungroundable"
				}
				if d.kind == "found" || d.kind == "key" {
					silent = false
				}
				cl.descs[a.p] = append(cl.descs[a.p], d)
			}
		}
		x.describeInner(s.before, c, &cl, g)
		cl.silent = silent && len(cl.inner) == 0
		if !cl.silent {
			// The words ask for this write: a record only an observation
			// showed must be named after all.
			for _, a := range c.args {
				ds := cl.descs[a.p]
				for i, d := range ds {
					if d.kind != "seen" {
						continue
					}
					nd := x.ground(s.before, d.e, d.id, g, false, 0)
					if nd == nil {
						return nil, "ungroundable"
					}
					ds[i] = nd
				}
			}
		}
		clauses = append(clauses, cl)
		if withheld {
			continue
		}
		g.addCall(c)
		if c.id != "" && slices.Contains(created, recKey{recordEntity(c.tool.Returns), c.id}) {
			g.created[c.id] = len(g.calls) - 1
		}
	}
	t := &task{origin: origin, calls: g.calls, records: records, start: x.start, end: end}
	t.persona = x.persona()
	t.instruction, t.facts = x.words(origin, clauses, withheld)
	if origin == OriginRefusal {
		t.assertions = []string{"unchanged"}
	} else {
		as, reason := x.rubric(x.start, end, t.calls)
		if reason != "" {
			return nil, reason
		}
		t.assertions = as
	}
	t.profile = x.measure(t, clauses, g)
	return t, ""
}

// describeInner finds the arguments of c that pass inner ids and, when
// the records holding them can be read, describes them and adds the reads.
func (x *synth) describeInner(st *eval.State, c *call, cl *clause, g *groundCtx) {
	f := x.byTool[c.tool]
	var named []recKey
	for _, a := range c.args {
		if e := f.names[a.p]; e != nil {
			for _, id := range stringsIn(a.v) {
				named = append(named, recKey{e, id})
			}
		}
	}
	if len(named) == 0 {
		return
	}
	related := x.relatedKeys(st, named)
	for _, a := range c.args {
		t := a.p.Type
		if t.Kind == ir.KindList {
			t = t.Elem
		}
		if f.names[a.p] != nil || t.Kind != ir.KindString || freeText(a.p, t) {
			continue
		}
		var ins []*inner
		for _, s := range stringsIn(a.v) {
			in := x.findInner(st, related, s, a.p.Name)
			if in == nil {
				ins = nil
				break
			}
			ins = append(ins, in)
		}
		if len(ins) == 0 {
			continue
		}
		// Read the call's records, then the holders.
		h := g.fork()
		ok := true
		for _, r := range named {
			if x.reader(r.e) != nil && !x.observe(st, r, h) {
				ok = false
			}
		}
		for _, in := range ins {
			if !x.observe(st, in.holder, h) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		*g = *h
		if cl.inner == nil {
			cl.inner = map[*ir.Param][]*inner{}
		}
		cl.inner[a.p] = ins
	}
}

// bindName is a name for a call's result that no earlier call of the
// solution binds and no seed record is called.
func (x *synth) bindName(calls []*call) string {
	for n := 1; ; n++ {
		name := fmt.Sprintf("new_%d", n)
		if x.handles[name] {
			continue
		}
		used := false
		for _, c := range calls {
			if c.bind == name {
				used = true
			}
		}
		if !used {
			return name
		}
	}
}

// persona is who asks: one of the world's own personas, or its staff.
func (x *synth) persona() string {
	if len(x.personas) > 0 {
		return x.personas[x.rng.IntN(len(x.personas))]
	}
	title := x.w.Title
	if title == "" {
		title = x.w.Name
	}
	return "Operations staff, " + title
}

// sampleRefusal draws a request that the world refuses (a require fails:
// the solution makes the call and expects the failure) or that its policy
// forbids (the call would succeed but break an invariant: the solution
// does not make it). Either way the right outcome is no change.
func (x *synth) sampleRefusal() (*task, string) {
	if len(x.writers) == 0 {
		return nil, "no_writing_tool"
	}
	tools := slices.Clone(x.writers)
	x.shuffle(tools)
	var focus []recKey
	if x.aim != nil {
		tools, focus = x.aimedTools(), []recKey{*x.aim}
	}
	for i, f := range tools {
		if i >= maxToolsTried {
			break
		}
		var refused, forbidden *call
		for _, args := range x.argSets(x.start, f.tool, focus, maxArgSets) {
			if x.aim != nil && !x.namesAim(f, args) {
				continue
			}
			next := x.start.Clone()
			data, terr, broke := x.call(next, f.tool, args)
			switch {
			case terr != nil && terr.Code == eval.CodePreconditionFailed && refused == nil:
				refused = &call{tool: f.tool, args: args, fails: terr.Message}
			case terr == nil && forbidden == nil && (broke || len(next.Violations()) > 0):
				forbidden = &call{tool: f.tool, args: args, obs: decode(data.JSON()), id: data.ID()}
			}
			if refused != nil && forbidden != nil {
				break
			}
		}
		c, withheld := refused, false
		if forbidden != nil && (refused == nil || x.rng.IntN(3) > 0) {
			c, withheld = forbidden, true
		}
		if c == nil {
			continue
		}
		t, reason := x.composeWith(OriginRefusal, []step{{c: c, before: x.start}}, x.start, nil, withheld)
		if t == nil {
			return nil, reason
		}
		t.profile.Refusal = true
		t.profile.InvariantSensitive = withheld
		if withheld {
			t.records = append(t.records, "policy")
		}
		t.profile.Level = level(t.profile)
		return t, ""
	}
	return nil, "no_refusal_found"
}

// sampleProgram draws a loop: every record of an entity that a ref field
// ties to one anchor record (the returns of an order, the appointments of
// a clinic), optionally only those whose enum or bool field has a value,
// gets the same write. The agent must list the group and decide on each
// record; the golden solution is the unrolled loop.
func (x *synth) sampleProgram() (*task, string) {
	type group struct {
		f      *toolFacts
		p      *ir.Param // the parameter taking each record
		via    *ir.Field // the record's ref field to the anchor
		finder *toolFacts
		fp     *ir.Param // the finder's filter by via
	}
	var groups []group
	for _, f := range x.writers {
		for _, p := range f.tool.Params {
			e := f.names[p]
			if e == nil || p.Type.Kind == ir.KindList || !p.Required() {
				continue
			}
			for _, fl := range e.Fields {
				if fl.Type.Kind != ir.KindRef || fl.Type.Optional {
					continue
				}
				for _, fd := range x.finders[e] {
					if fd.tool.Kind != ir.ToolSearch {
						continue
					}
					for _, fp := range fd.tool.Params {
						if fp.Field == fl {
							groups = append(groups, group{f, p, fl, fd, fp})
						}
					}
				}
			}
			break // the first naming parameter is the loop's
		}
	}
	if len(groups) == 0 {
		return nil, "no_program_shape"
	}
	gr := groups[x.rng.IntN(len(groups))]
	e := gr.f.names[gr.p]
	anchorE := gr.via.Type.Entity
	anchors := x.groupAnchors(e, gr.via)
	if len(anchors) == 0 {
		return nil, "group_too_small"
	}
	anchor := anchors[x.rng.IntN(len(anchors))]
	// The group, from the finder the agent would use.
	data, terr, broke := x.call(x.start.Clone(), gr.finder.tool, []arg{{p: gr.fp, v: anchor}})
	if terr != nil || broke {
		return nil, "no_program_shape"
	}
	members := resultRecords(decode(data.JSON()), e)
	if len(members) < 2 || len(members) >= 50 {
		return nil, "group_too_small"
	}
	// The other values of the write, from the first member it succeeds
	// on; then the members it succeeds on with them.
	var others []arg
	for _, m := range members {
		id := recordID(m, e)
		for _, args := range x.argSets(x.start, gr.f.tool, []recKey{{e, id}}, maxArgSets) {
			if a := argOf(args, gr.p); a == nil || a.v != id {
				continue
			}
			if x.programCall(x.start.Clone(), gr.f.tool, args) != nil {
				for _, a := range args {
					if a.p != gr.p {
						others = append(others, a)
					}
				}
				break
			}
		}
		if others != nil || len(gr.f.tool.Params) == 1 {
			break
		}
	}
	withID := func(id string) []arg {
		args := append([]arg{{p: gr.p, v: id}}, others...)
		sortArgs(gr.f.tool, args)
		return args
	}
	var ok []map[string]any
	for _, m := range members {
		if x.programCall(x.start.Clone(), gr.f.tool, withID(recordID(m, e))) != nil {
			ok = append(ok, m)
		}
	}
	if len(ok) == 0 {
		return nil, "program_call_failed"
	}
	// The condition that selects exactly those members: a value of an
	// enum or bool field they share and the others do not have. When the
	// write takes every member, none is needed.
	var cond *fact
	if len(ok) < len(members) {
		cond = programCondition(e, members, ok)
		if cond == nil {
			return nil, "no_program_condition"
		}
	}
	// The unrolled loop, in the group's order, each call on the state the
	// previous left.
	st := x.start.Clone()
	var steps []step
	for _, m := range ok {
		n := st.Clone()
		c := x.programCall(n, gr.f.tool, withID(recordID(m, e)))
		if c == nil {
			return nil, "program_call_failed"
		}
		steps = append(steps, step{c: c, before: st})
		st = n
	}
	if len(st.Violations()) > 0 {
		return nil, "invariant_unrepaired"
	}
	t, reason := x.composeProgram(steps, st, e, anchorE, anchor, gr.finder, gr.fp, members, cond)
	if t == nil {
		return nil, reason
	}
	return t, ""
}

// programCall calls tool with args on st (which it changes), and returns
// the call when it succeeded, changed the state and broke no
// always-invariant.
func (x *synth) programCall(st *eval.State, tool *ir.Tool, args []arg) *call {
	before := st.Clone()
	d, terr, broke := x.call(st, tool, args)
	if terr != nil || broke || x.alwaysBroken(st) || st.Equal(before) {
		return nil
	}
	return &call{tool: tool, args: args, obs: decode(d.JSON()), id: d.ID()}
}

// programCondition is a value of an enum or bool field of e that the
// records in ok have and the other members do not.
func programCondition(e *ir.Entity, members, ok []map[string]any) *fact {
	in := map[string]bool{}
	for _, m := range ok {
		in[recordID(m, e)] = true
	}
	for _, fl := range e.Fields {
		if fl.Type.Kind != ir.KindEnum && fl.Type.Kind != ir.KindBool {
			continue
		}
		v := ok[0][fl.Name]
		if v == nil {
			continue
		}
		exact := true
		for _, m := range members {
			if sameAtom(m[fl.Name], v) != in[recordID(m, e)] {
				exact = false
				break
			}
		}
		if exact {
			return &fact{field: fl.Name, v: v, t: fl.Type}
		}
	}
	return nil
}

func argOf(args []arg, p *ir.Param) *arg {
	for i := range args {
		if args[i].p == p {
			return &args[i]
		}
	}
	return nil
}

// composeProgram makes a loop a task: the anchor is grounded, the finder
// lists the group, and the writes follow.
func (x *synth) composeProgram(steps []step, end *eval.State, e, anchorE *ir.Entity, anchor string, finder *toolFacts, fp *ir.Param, members []map[string]any, cond *fact) (*task, string) {
	g := newCtx()
	ad := x.ground(x.start, anchorE, anchor, g, false, 0)
	if ad == nil {
		return nil, "ungroundable"
	}
	list := &call{tool: finder.tool, args: []arg{{p: fp, v: anchor}}, lookup: true}
	data, terr, broke := x.call(x.start.Clone(), finder.tool, list.args)
	if terr != nil || broke {
		return nil, "ungroundable"
	}
	list.obs = decode(data.JSON())
	g.addCall(list)
	g.lookups++
	var records []string
	for _, s := range steps {
		g.addCall(s.c)
		for _, a := range s.c.args {
			if x.byTool[s.c.tool].names[a.p] != nil {
				for _, id := range stringsIn(a.v) {
					records = append(records, a.p.Name+":"+id)
				}
			}
		}
	}
	t := &task{origin: OriginProgram, calls: g.calls, records: records, start: x.start, end: end}
	t.persona = x.persona()
	t.instruction, t.facts = x.programWords(steps[0].c, e, ad, cond, fp)
	as, reason := x.rubric(x.start, end, t.calls)
	if reason != "" {
		return nil, reason
	}
	t.assertions = as
	t.profile = x.measure(t, nil, g)
	t.profile.LoopIterations = len(steps)
	t.profile.Distractors = len(members) - len(steps)
	if cond != nil {
		t.profile.Branches = len(members)
	}
	t.profile.Level = level(t.profile)
	return t, ""
}

// groupAnchors are the records that at least two records of e refer to
// by the ref field via, in the start state, in the order first met.
func (x *synth) groupAnchors(e *ir.Entity, via *ir.Field) []string {
	if a, ok := x.anchors[via]; ok {
		return a
	}
	count := map[string]int{}
	var order []string
	for _, id := range x.start.IDs(e) {
		a, ok := x.record(x.start, e, id)[via.Name].(string)
		if !ok {
			continue
		}
		if count[a] == 0 {
			order = append(order, a)
		}
		count[a]++
	}
	var out []string
	for _, a := range order {
		if count[a] >= 2 {
			out = append(out, a)
		}
	}
	x.anchors[via] = out
	return out
}
