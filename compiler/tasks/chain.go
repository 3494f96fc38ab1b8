package tasks

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// A chain is drawn from the start state: a first write (tools no task
// covers yet drawn more often), then writes that depend on what came
// before — a tool taking a record the chain touched or created, or one
// whose requires read a field the chain wrote — with arguments from the
// state. A write that breaks an always-invariant is not taken; one that
// leaves a plain invariant broken must be followed by writes that repair
// it (tools writing what the invariant checks, on the violating record
// first), which the policy asks for without the words saying so. The
// chain is kept only when every call succeeded and every invariant holds
// at the end.

// step is one write of a chain, with the state before it.
type step struct {
	c      *call
	before *eval.State
}

// lengths are the weights of chain lengths 1, 2, 3, …
var lengths = []int{6, 5, 4, 2, 1}

func (x *synth) drawLength() int {
	ws := lengths
	switch x.opts.Level {
	case "easy":
		ws = []int{1}
	case "medium":
		ws = []int{3, 4, 2}
	case "hard":
		ws = []int{0, 2, 4, 4, 3}
	}
	total := 0
	for _, w := range ws {
		total += w
	}
	r := x.rng.IntN(total)
	for i, w := range ws {
		if r < w {
			return i + 1
		}
		r -= w
	}
	return 1
}

// sampleChain draws a chain and makes it a task.
func (x *synth) sampleChain() (*task, string) {
	if len(x.writers) == 0 {
		return nil, "no_writing_tool"
	}
	st := x.start.Clone()
	var steps []step
	var touched []recKey
	var created []recKey
	want := x.drawLength()
	// Now and then, aim at a writing tool no kept task covers yet, after
	// a write that enables it (one writing a field its requires read).
	var target *toolFacts
	var enablers []*toolFacts
	if x.aim == nil && x.rng.IntN(4) == 0 {
		target, enablers = x.enabled()
	}
	// Repairs that only bring a violation closer (one payment of the
	// several a closed loan needs) lengthen the chain, maxCloser at most.
	// The words ask for each of them, and for the repair that ends the
	// violation they approached, which the agent could not tell from
	// others that would (the last payment: any of the instalments left).
	closer := 0
	var approached []eval.Violation
	for len(steps) < want+3+closer {
		pending := x.plainViolations(st)
		if len(pending) == 0 && len(steps) >= want {
			break
		}
		var tools []*toolFacts
		var focus []recKey
		implied := false
		switch {
		case len(pending) > 0:
			tools, focus = x.repairTools(pending, touched, st)
			implied = true
		case len(steps) == 0 && target != nil:
			tools = enablers
		case len(steps) == 1 && target != nil:
			tools = []*toolFacts{target}
			focus = reversed(touched)
		case len(steps) == 0 && x.aim != nil:
			tools, focus = x.aimedTools(), []recKey{*x.aim}
		case len(steps) == 0:
			tools = x.firstTools()
		default:
			tools = x.nextTools(steps, touched)
			focus = reversed(touched)
		}
		// A chain's first write from the world's start state that the
		// last draws made no new task of is not made again (spentFirst).
		x.firstStep = len(steps) == 0 && x.baseCache == nil
		c, next, near := x.tryTools(st, tools, focus, pending, steps)
		x.firstStep = false
		if c == nil && len(pending) > 0 && len(steps) > 0 {
			// The repair may have to come first: the last write's
			// requires can forbid it after (a delivery is booked in
			// before its order is closed as delivered).
			last := steps[len(steps)-1]
			if r, mid, _ := x.tryTools(last.before, tools, focus, nil, nil); r != nil {
				again := mid.Clone()
				data, terr, broke := x.call(again, last.c.tool, last.c.args)
				if terr == nil && !broke && !x.alwaysBroken(again) && !again.Equal(mid) && repairs(again, pending) {
					r.implied = true
					redo := &call{tool: last.c.tool, args: last.c.args, obs: decode(data.JSON()), id: data.ID(), implied: last.c.implied, spell: last.c.spell}
					steps = append(steps[:len(steps)-1], step{c: r, before: last.before}, step{c: redo, before: mid})
					st = again
					touched = x.touch(x.touch(touched, mid, r), again, redo)
					x.noteCreated(&created, r)
					x.noteCreated(&created, redo)
					continue
				}
			}
		}
		if c == nil && near != nil && closer < maxCloser {
			c, next = near.c, near.next
			c.spell = true
			closer++
			approached = append(approached, pending[0])
		} else if c != nil && len(pending) > 0 && slices.Contains(approached, pending[0]) {
			c.spell = true
		}
		if c == nil {
			if len(pending) > 0 {
				return nil, "invariant_unrepaired"
			}
			if len(steps) == 0 {
				if x.skippedFirst {
					return nil, "writes_spent"
				}
				return nil, "no_call_succeeded"
			}
			break
		}
		c.implied = implied
		steps = append(steps, step{c: c, before: st})
		st = next
		touched = x.touch(touched, st, c)
		x.noteCreated(&created, c)
	}
	if len(x.plainViolations(st)) > 0 {
		return nil, "invariant_unrepaired"
	}
	return x.compose(OriginDAG, steps, st, created)
}

// call makes a call on st and says whether it broke a rule on actions
// (checked on st before the call, as the graders do; a failed call breaks
// none).
func (x *synth) call(st *eval.State, t *ir.Tool, args []arg) (eval.Data, *eval.ToolError, bool) {
	x.executed++
	broke := false
	if x.ruled[t] {
		if vals, err := eval.ArgsFromJSON(argsJSON(args)); err == nil {
			broke = len(st.RuleViolations(t, vals)) > 0
		}
	}
	data, terr := st.CallJSON(t.Name, argsJSON(args))
	return data, terr, broke && terr == nil
}

// repairs reports whether st no longer has the first of the pending
// violations (others may have come: a port-out completed, the line is
// released, and now its plan must end too; the chain's length bounds
// that).
func repairs(st *eval.State, pending []eval.Violation) bool {
	first := pending[0]
	for _, v := range st.Violations() {
		if v.Invariant == first.Invariant && v.ID == first.ID {
			return false
		}
	}
	return true
}

// noteCreated adds the record c created and returned to created.
func (x *synth) noteCreated(created *[]recKey, c *call) {
	if c.id == "" {
		return
	}
	if e := recordEntity(c.tool.Returns); e != nil && slices.Contains(x.byTool[c.tool].creates, e) && !x.startHas(e, c.id) {
		*created = append(*created, recKey{e, c.id})
	}
}

func reversed(rs []recKey) []recKey {
	out := slices.Clone(rs)
	slices.Reverse(out)
	return out
}

func (x *synth) startHas(e *ir.Entity, id string) bool {
	return x.record(x.start, e, id) != nil
}

// plainViolations are the violations of st (always-invariants included:
// a chain never takes a write that breaks one).
func (x *synth) plainViolations(st *eval.State) []eval.Violation {
	return st.Violations()
}

// alwaysBroken reports whether st breaks an always-invariant.
func (x *synth) alwaysBroken(st *eval.State) bool {
	for _, inv := range x.w.Invariants {
		if inv.Always && len(st.InvariantViolations(inv)) > 0 {
			return true
		}
	}
	return false
}

// enabled is a writing tool no kept task covers and the writes that
// enable it: those writing a field its requires read; nil when there is
// none.
func (x *synth) enabled() (*toolFacts, []*toolFacts) {
	var open []*toolFacts
	for _, f := range x.writers {
		if !x.covered[f.tool] {
			open = append(open, f)
		}
	}
	x.shuffle(open)
	for _, t := range open {
		var en []*toolFacts
		for _, w := range x.writers {
			if w == t {
				continue
			}
			for _, r := range t.reads {
				if slices.Contains(w.writes, r) {
					en = append(en, w)
					break
				}
			}
		}
		if len(en) > 0 {
			x.shuffle(en)
			return t, en
		}
	}
	return nil, nil
}

// firstTools are the writing tools in a random order, those no kept task
// calls yet first.
func (x *synth) firstTools() []*toolFacts {
	var fresh, old []*toolFacts
	for _, f := range x.writers {
		if x.covered[f.tool] {
			old = append(old, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	x.shuffle(fresh)
	x.shuffle(old)
	if len(fresh) > 0 && x.rng.IntN(4) > 0 {
		return append(fresh, old...)
	}
	all := append(fresh, old...)
	x.shuffle(all)
	return all
}

// aimedTools are the writing tools that take a record of the aim's
// entity (a seeded draw's target), in a random order, those no kept task
// calls yet first.
func (x *synth) aimedTools() []*toolFacts {
	var out []*toolFacts
	for _, f := range x.firstTools() {
		for _, e := range f.names {
			if e == x.aim.e {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// namesAim reports whether args name the seeded draw's target or one of
// its copies.
func (x *synth) namesAim(f *toolFacts, args []arg) bool {
	for _, a := range args {
		if f.names[a.p] != x.aim.e {
			continue
		}
		for _, id := range stringsIn(a.v) {
			if id == x.aim.id || x.seeded[id] {
				return true
			}
		}
	}
	return false
}

func (x *synth) shuffle(fs []*toolFacts) {
	x.rng.Shuffle(len(fs), func(i, j int) { fs[i], fs[j] = fs[j], fs[i] })
}

// nextTools are the writes that depend on the chain so far: tools taking
// a record of an entity it touched, or reading a field it wrote; the
// uncovered first.
func (x *synth) nextTools(steps []step, touched []recKey) []*toolFacts {
	var wrote []*ir.Field
	for _, s := range steps {
		wrote = append(wrote, x.byTool[s.c.tool].writes...)
	}
	ents := map[*ir.Entity]bool{}
	for _, r := range touched {
		ents[r.e] = true
	}
	var fresh, old []*toolFacts
	for _, f := range x.writers {
		dep := false
		for _, e := range f.names {
			if ents[e] {
				dep = true
			}
		}
		for _, r := range f.reads {
			if slices.Contains(wrote, r) {
				dep = true
			}
		}
		if !dep {
			continue
		}
		if x.covered[f.tool] {
			old = append(old, f)
		} else {
			fresh = append(fresh, f)
		}
	}
	x.shuffle(fresh)
	x.shuffle(old)
	return append(fresh, old...)
}

// repairTools are the writes that may repair the violations: tools that
// write what a violated invariant's check reads, best first — those
// writing a field the check reads on another entity than the violating
// record's (writing the violating record itself tends to undo what was
// asked), and among them those taking one of the records involved —,
// with the violating records as focus.
func (x *synth) repairTools(vs []eval.Violation, touched []recKey, st *eval.State) ([]*toolFacts, []recKey) {
	var focus []recKey
	reads := map[*ir.Entity]bool{}
	fields := map[*ir.Field]bool{}
	trigger := map[*ir.Entity]bool{}
	for _, v := range vs {
		for _, inv := range x.w.Invariants {
			if inv.Name != v.Invariant {
				continue
			}
			trigger[inv.Entity] = true
			focus = append(focus, recKey{inv.Entity, v.ID})
			for _, e := range ir.Touches(inv.Check) {
				reads[e] = true
			}
			for _, f := range ir.FieldsRead(inv.Check) {
				fields[f] = true
			}
		}
	}
	focus = append(focus, reversed(touched)...)
	involved := map[*ir.Entity]bool{}
	for _, r := range x.relatedKeys(st, focus) {
		involved[r.e] = true
	}
	byScore := map[int][]*toolFacts{}
	for _, f := range x.writers {
		score := 0
		for _, fl := range f.writes {
			switch {
			case fields[fl] && !trigger[fl.Entity]:
				score = max(score, 4)
			case reads[fl.Entity] && !trigger[fl.Entity]:
				score = max(score, 3)
			case reads[fl.Entity]:
				score = max(score, 1)
			}
		}
		if score == 0 {
			continue
		}
		for _, e := range f.names {
			if involved[e] {
				score++
				break
			}
		}
		byScore[score] = append(byScore[score], f)
	}
	var out []*toolFacts
	for score := 5; score >= 1; score-- {
		fs := byScore[score]
		x.shuffle(fs)
		out = append(out, fs...)
	}
	return out, focus
}

// spentFirst is how many chains in a row drawn from the same first write
// (a tool and its arguments, on the world's start state) may make no new
// task before that write is not drawn again: the chains it begins are
// duplicates of tasks kept, or leave an invariant no drawn call repairs.
// Other first writes are drawn instead, and when every one is spent a
// chain is dropped as writes_spent before any call is made.
const spentFirst = 16

// maxToolsTried bounds the tools tried for one step of a chain.
const maxToolsTried = 6

// maxCloser bounds the repairs of a chain that bring a violation closer
// to holding without ending it.
const maxCloser = 6

// closerCall is a call that brings the first pending violation closer to
// holding (eval.State.InvariantGap), takes no sum past the value it must
// equal and makes no new violation, and the state after it.
type closerCall struct {
	c    *call
	next *eval.State
	gap  eval.Gap
}

// tryTools calls the tools on argument sets drawn from st until a call
// succeeds, changes the state, breaks no always-invariant and, when
// pending violations are to be repaired, repairs the first; it returns the
// call and the state after it. When none repairs it, the third result is
// the call tried that brings it closest to holding, if one brings it
// closer: a violation of a sum or a count may take several calls to end.
// Such a call is never one the steps made already (the same payment
// booked twice over).
func (x *synth) tryTools(st *eval.State, tools []*toolFacts, focus []recKey, pending []eval.Violation, steps []step) (*call, *eval.State, *closerCall) {
	limit, sets := maxToolsTried, maxArgSets
	var near *closerCall
	var gapBefore *eval.Gap // nil: no measure
	solved := map[*toolFacts]bool{}
	var inv *ir.Invariant
	if len(pending) > 0 {
		// A repair is worth more tries: the chain is lost without one.
		limit, sets = 2*maxToolsTried, 2*maxArgSets
		inv = x.invariant(pending[0].Invariant)
		if g, ok := st.InvariantGap(inv, pending[0].ID); ok && g.Distance > 0 {
			gapBefore = &g
		}
	}
	first := x.firstStep
	x.skippedFirst = false
	for i, f := range tools {
		if i >= limit {
			break
		}
		for _, args := range x.argSets(st, f.tool, focus, sets) {
			if x.aim != nil && len(focus) == 1 && focus[0] == *x.aim && !x.namesAim(f, args) {
				continue // a seeded draw's first write acts on its target
			}
			key := ""
			if first {
				key = f.tool.Name + string(argsJSON(args))
				if x.firstSpent[key] >= spentFirst {
					x.skippedFirst = true
					continue // known before it is made: nothing new follows it
				}
			}
			next := st.Clone()
			data, terr, broke := x.call(next, f.tool, args)
			if terr != nil {
				continue
			}
			x.succeeded[f.tool] = true
			if next.Equal(st) {
				continue // a write that changed nothing
			}
			x.changed[f.tool] = true
			if broke || x.alwaysBroken(next) {
				continue
			}
			x.safe[f.tool] = true
			if gapBefore != nil && madeCall(steps, f.tool, args) {
				continue // a sum's repair made twice (the same payment booked again)
			}
			if len(pending) > 0 && !repairs(next, pending) {
				// A repair must repair, or bring the violation closer.
				if gapBefore == nil {
					continue
				}
				g, ok := next.InvariantGap(inv, pending[0].ID)
				if !ok {
					continue
				}
				if !solved[f] {
					// The amount that repairs it, from what this one did.
					solved[f] = true
					for _, sargs := range x.solveArgs(args, *gapBefore, g) {
						again := st.Clone()
						data, terr, broke := x.call(again, f.tool, sargs)
						if terr == nil && !broke && !again.Equal(st) && !x.alwaysBroken(again) && repairs(again, pending) && !madeCall(steps, f.tool, sargs) {
							x.succeeded[f.tool], x.changed[f.tool], x.safe[f.tool] = true, true, true
							return &call{tool: f.tool, args: sargs, obs: decode(data.JSON()), id: data.ID()}, again, nil
						}
					}
				}
				if g.Distance < gapBefore.Distance && !g.Overshoots(*gapBefore) && (near == nil || g.Distance < near.gap.Distance) && !madeCall(steps, f.tool, args) && noNewViolation(st, next) {
					near = &closerCall{c: &call{tool: f.tool, args: args, obs: decode(data.JSON()), id: data.ID()}, next: next, gap: g}
				}
				continue
			}
			if first {
				x.firstKey = key
			}
			return &call{tool: f.tool, args: args, obs: decode(data.JSON()), id: data.ID()}, next, nil
		}
	}
	return nil, nil, near
}

// solveArgs are argument sets that may repair a violation of one ==
// that a call with args changed from before to after (the refund that a
// cancelled booking's sums need): for each number argument in turn, the
// value that makes the change exactly close the difference, were it in
// proportion to the argument (a refund's amount is added to the sum of
// refunds). Calling them tells whether it was.
func (x *synth) solveArgs(args []arg, before, after eval.Gap) [][]arg {
	if len(before.Sides) != 1 || len(after.Sides) != 1 {
		return nil
	}
	d0 := float64(before.Sides[0]) * before.Distance
	d1 := float64(after.Sides[0]) * after.Distance
	if d0 == d1 || d0 == 0 {
		return nil
	}
	var out [][]arg
	for i, a := range args {
		n, ok := a.v.(json.Number)
		if !ok || !a.p.Type.Kind.Numeric() || a.bound != "" {
			continue
		}
		v0, err := strconv.ParseFloat(string(n), 64)
		if err != nil || v0 == 0 {
			continue
		}
		v := v0 * d0 / (d0 - d1)
		var text string
		switch a.p.Type.Kind {
		case ir.KindInt:
			r := math.Round(v)
			if math.Abs(v-r) > 1e-6 {
				continue
			}
			text = strconv.FormatInt(int64(r), 10)
		case ir.KindMoney:
			d := 2
			if x.money >= 0 {
				d = x.money
			}
			text = canonNumber(strconv.FormatFloat(v, 'f', d, 64))
		default:
			text = canonNumber(strconv.FormatFloat(v, 'f', 6, 64))
		}
		if text == string(n) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		solved := slices.Clone(args)
		solved[i].v = jsonNumber(text)
		out = append(out, solved)
	}
	return out
}

// madeCall reports whether one of the steps calls t with args.
func madeCall(steps []step, t *ir.Tool, args []arg) bool {
	key := string(argsJSON(args))
	for _, s := range steps {
		if s.c.tool == t && string(argsJSON(s.c.args)) == key {
			return true
		}
	}
	return false
}

// invariant is the world's invariant of that name, or nil.
func (x *synth) invariant(name string) *ir.Invariant {
	for _, inv := range x.w.Invariants {
		if inv.Name == name {
			return inv
		}
	}
	return nil
}

// noNewViolation reports whether every violation of next is one of st.
func noNewViolation(st, next *eval.State) bool {
	type key struct{ inv, id string }
	had := map[key]bool{}
	for _, v := range st.Violations() {
		had[key{v.Invariant, v.ID}] = true
	}
	for _, v := range next.Violations() {
		if !had[key{v.Invariant, v.ID}] {
			return false
		}
	}
	return true
}

// touch adds the records a call named, returned or created to touched.
func (x *synth) touch(touched []recKey, st *eval.State, c *call) []recKey {
	add := func(r recKey) {
		if !slices.Contains(touched, r) {
			touched = append(touched, r)
		}
	}
	f := x.byTool[c.tool]
	for _, a := range c.args {
		if e := f.names[a.p]; e != nil {
			for _, id := range stringsIn(a.v) {
				add(recKey{e, id})
			}
		}
	}
	if e := recordEntity(c.tool.Returns); e != nil && c.id != "" {
		add(recKey{e, c.id})
	}
	return touched
}

// stringsIn are the strings of a value that is a string or a list of them.
func stringsIn(v any) []string {
	switch y := v.(type) {
	case string:
		return []string{y}
	case []any:
		var out []string
		for _, e := range y {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
