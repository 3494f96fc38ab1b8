package tasks

import (
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// Options configure a synthesis.
type Options struct {
	// N is the number of tasks wanted (default 100).
	N int
	// Seed makes the synthesis deterministic: the same spec and seed give
	// the same tasks, byte for byte.
	Seed uint64
	// Level, when set (easy, medium or hard), keeps only tasks of that
	// difficulty level, and draws chains of lengths that give it.
	Level string
	// Filename names the spec in the diagnostics of the final check.
	Filename string
	// Data holds the spec's data files (load … from, policy from), for
	// the final check of the written spec; nil: none.
	Data fs.FS
}

// Result is what a synthesis produced for one world.
type Result struct {
	// Spec is the world's spec with its own tasks and the synthesised
	// ones, in the canonical layout; it checks clean.
	Spec []byte
	// Tasks describes the synthesised tasks, in the order of the spec.
	Tasks   []Meta
	Summary Summary

	// x and kept are the synthesis and its tasks, in the order of Tasks,
	// for words written after it (Result.SetWords).
	x    *synth
	kept []*task
	src  []byte
}

// Summary counts what a synthesis kept and dropped.
type Summary struct {
	World    string `json:"world"`
	Wanted   int    `json:"wanted"`
	Kept     int    `json:"kept"`
	Attempts int    `json:"attempts"`
	// Dropped counts the candidates dropped, by reason: a call that never
	// succeeded, an invariant broken, a record the words cannot identify,
	// a failed dataflow check, a leaked id, a duplicate, a diagnostic of
	// the final check (check:CODE), …
	Dropped map[string]int `json:"dropped"`
	// WritingTools, Covered and Uncovered are the tools that write, those
	// some kept task calls, and the others.
	WritingTools int      `json:"writing_tools"`
	Covered      int      `json:"covered"`
	Uncovered    []string `json:"uncovered,omitempty"`
	// Why says, for each uncovered tool, why no task covers it.
	Why map[string]string `json:"why,omitempty"`
	// Origins and Levels count the kept tasks by origin and by difficulty
	// level; Calls by the number of calls of their golden solution.
	Origins map[string]int `json:"origins"`
	Levels  map[string]int `json:"levels"`
	Calls   map[int]int    `json:"calls"`
	// Note says why fewer tasks than wanted were kept, when they were.
	Note string `json:"note,omitempty"`
	// Words counts the words an LLM wrote, when one did (Result.SetWords).
	Words *WordsCount `json:"words,omitempty"`
	// Few says, for each of the origins program, solver and question
	// that has fewer than a tenth of the kept tasks, why the world gives
	// few: the reason most of its candidates were dropped for.
	Few map[string]string `json:"few,omitempty"`
}

// Coverage is the fraction of writing tools some kept task calls (1 for
// a world without writing tools).
func (s *Summary) Coverage() float64 {
	if s.WritingTools == 0 {
		return 1
	}
	return float64(s.Covered) / float64(s.WritingTools)
}

// synth is one world's synthesis.
type synth struct {
	w      *ir.World
	opts   Options
	rng    *rand.Rand
	facts  []*toolFacts
	byTool map[*ir.Tool]*toolFacts
	start  *eval.State
	money  int // decimals of money literals; -1: unchecked

	writers []*toolFacts
	finders map[*ir.Entity][]*toolFacts // read tools that find records of an entity
	// keyKnown marks entities whose ids a user knows: a key no read tool
	// finds from other fields (an order number), or the id of an entity
	// no read tool finds at all.
	keyKnown map[*ir.Entity]bool
	// toolVerbs are the first words of the tools' names (cancel, record):
	// the verbs of the world (verbPrep).
	toolVerbs map[string]bool
	// internal are the ids a user never knows: those of records without a
	// key, and keys that a tool finds from what users know.
	internal map[string]bool
	// inner are the ids of things inside records (an order's items, a
	// user's payment methods): a user does not quote them either.
	inner map[string]bool
	// values are the values of fields by name, over the start state's
	// records (nested fields included), for arguments.
	values map[string][]any
	// consts are, per tool parameter, the constants and the fields the
	// tool's body compares it with.
	consts   map[*ir.Param][]any
	compared map[*ir.Param][]string
	// fresh are the parameters whose value must be new: one stored in a
	// unique field, or looked for among the records (`not exists(s in
	// Subscriber where s.cpf == cpf)`).
	fresh    map[*ir.Param]bool
	handles  map[string]bool
	personas []string
	// recCache holds the start state's records, decoded.
	recCache   map[recKey]*recEntry
	stateCache []stateRecords
	anchors    map[*ir.Field][]string    // groupAnchors, by ref field
	ids        map[*ir.Entity][]string   // startIDs, by entity
	fieldVals  map[fieldRef][]keyedValue // fieldValues, by field
	formatted  []byte                    // the spec in the canonical layout (emit)

	covered map[*ir.Tool]bool
	// outcomes are the tools whose outcome the words say (words.go).
	outcomes map[*ir.Tool]*outcome
	// ruled marks the tools a rule on actions is about.
	ruled map[*ir.Tool]bool
	// succeeded and changed mark the tools some call of a chain succeeded
	// on, and changed the state with.
	changed map[*ir.Tool]bool
	// safe marks the tools some call of a chain changed the state with
	// and broke no always-invariant nor rule.
	safe      map[*ir.Tool]bool
	succeeded map[*ir.Tool]bool
	attempts  int
	dropped   map[string]int
	droppedBy map[string]map[string]int // by origin
	seen      map[string]bool           // canonical forms of kept tasks
	nearSeen  map[string]bool           // tool sequences over records
	// firstSpent counts, by a chain's first write on the world's start
	// state (tool and arguments), the chains in a row begun with it that
	// made no new task; firstKey is that of the chain being drawn,
	// firstStep whether it is being drawn, skippedFirst whether a spent
	// one was passed over (chain.go).
	firstSpent   map[string]int
	firstKey     string
	firstStep    bool
	skippedFirst bool
	// spentAll is set when the sampling stopped because every kind of
	// candidate was retired.
	spentAll bool
	// executed counts the tool calls the sampling made (synth.call): its
	// cost, in work rather than time.
	executed int

	// Seeded draws (distract.go): the entities whose records may be
	// copied, the world seed's records by entity and id, the handles,
	// ids and unique values task seeds took; during a seeded draw, the
	// ids of its seed records and the record its first write aims at.
	distract *[]*ir.Entity
	seedRecs map[*ir.Entity]map[string]*ir.Record
	usedIDs  map[string]bool
	seeded   map[string]bool
	aim      *recKey
	// baseCache is, during a seeded draw, the world start state's decoded
	// records, which the draw's start state shares for the entities
	// baseSkip does not hold.
	baseCache map[recKey]*recEntry
	baseSkip  map[*ir.Entity]bool
}

type recKey struct {
	e  *ir.Entity
	id string
}

// Synthesize makes up to opts.N tasks for w, whose spec source is src, and
// returns the spec with them appended, their metadata and a summary.
// Every task it returns checks clean as part of the spec (the final check
// is compiler.CheckSource of the whole result): its rubric is false at the
// start (or, for a refusal, is `unchanged`) and its golden solution reaches
// reward 1 with every invariant holding.
func Synthesize(w *ir.World, src []byte, opts Options) (*Result, error) {
	if opts.N <= 0 {
		opts.N = 100
	}
	switch opts.Level {
	case "", "easy", "medium", "hard":
	default:
		return nil, fmt.Errorf("tasks: level %q: want easy, medium or hard", opts.Level)
	}
	if opts.Filename == "" {
		opts.Filename = w.Name + ".world"
	}
	x, err := newSynth(w, opts)
	if err != nil {
		return nil, err
	}
	pristine := x.start.Clone() // shares the tables until one is written
	cands := x.sample()
	if !pristine.Equal(x.start) {
		return nil, fmt.Errorf("tasks: internal error: a call was made on the start state itself")
	}
	return x.finish(src, cands)
}

func newSynth(w *ir.World, opts Options) (*synth, error) {
	h := fnv.New64a()
	h.Write([]byte(w.Name))
	x := &synth{
		w: w, opts: opts,
		rng:        rand.New(rand.NewPCG(opts.Seed, h.Sum64())),
		byTool:     map[*ir.Tool]*toolFacts{},
		money:      moneyDecimals(w),
		finders:    map[*ir.Entity][]*toolFacts{},
		keyKnown:   map[*ir.Entity]bool{},
		internal:   map[string]bool{},
		inner:      map[string]bool{},
		values:     map[string][]any{},
		consts:     map[*ir.Param][]any{},
		compared:   map[*ir.Param][]string{},
		fresh:      map[*ir.Param]bool{},
		handles:    map[string]bool{},
		recCache:   map[recKey]*recEntry{},
		anchors:    map[*ir.Field][]string{},
		ids:        map[*ir.Entity][]string{},
		covered:    map[*ir.Tool]bool{},
		ruled:      map[*ir.Tool]bool{},
		succeeded:  map[*ir.Tool]bool{},
		changed:    map[*ir.Tool]bool{},
		safe:       map[*ir.Tool]bool{},
		dropped:    map[string]int{},
		droppedBy:  map[string]map[string]int{},
		seen:       map[string]bool{},
		nearSeen:   map[string]bool{},
		usedIDs:    map[string]bool{},
		firstSpent: map[string]int{},
	}
	st, err := eval.NewState(w, nil)
	if err != nil {
		return nil, err
	}
	x.start = st
	x.facts = analyze(w)
	for _, f := range x.facts {
		x.byTool[f.tool] = f
		if f.writer() {
			x.writers = append(x.writers, f)
		}
		x.harvestConsts(f.tool)
	}
	for _, e := range w.Entities {
		for _, f := range x.facts {
			if finds(f, e) {
				x.finders[e] = append(x.finders[e], f)
			}
		}
		switch {
		case e.Key != nil:
			x.keyKnown[e] = true
			for _, f := range x.finders[e] {
				if f.tool.Kind == ir.ToolCustom && returnsKey(f.tool, e) {
					x.keyKnown[e] = false
				}
			}
		case len(x.finders[e]) == 0:
			// No read finds its records from anything else: the world
			// gives its users the ids (a ticket number).
			x.keyKnown[e] = true
		}
	}
	for _, r := range w.Seed {
		x.handles[r.ID] = true
	}
	for _, r := range w.Rules {
		if r != nil {
			x.ruled[r.Tool] = true
		}
	}
	for _, t := range w.Tasks {
		if t.Persona != "" && !slices.Contains(x.personas, t.Persona) {
			x.personas = append(x.personas, t.Persona)
		}
	}
	// The start state's ids and values.
	for _, e := range w.Entities {
		for _, id := range st.IDs(e) {
			if !x.keyKnown[e] {
				x.internal[id] = true
			}
			rec := x.record(st, e, id)
			for _, k := range sortedKeys(rec) {
				if k == "id" || (e.Key != nil && k == e.Key.Name) {
					continue
				}
				x.collect(k, rec[k], 0)
				x.innerIDs(rec[k], 0)
			}
		}
	}
	return x, nil
}

// startIDs are the ids of e's records in the start state.
func (x *synth) startIDs(e *ir.Entity) []string {
	if ids, ok := x.ids[e]; ok {
		return ids
	}
	ids := x.start.IDs(e)
	x.ids[e] = ids
	return ids
}

// innerIDs adds to x.inner the ids of things inside a field's value: the
// keys of a map of objects, the `id` members of objects.
func (x *synth) innerIDs(v any, depth int) {
	if depth > 5 {
		return
	}
	switch y := v.(type) {
	case map[string]any:
		if id, ok := y["id"].(string); ok {
			x.inner[id] = true
		}
		for k, e := range y {
			if _, isObj := e.(map[string]any); isObj {
				x.inner[k] = true
			}
			x.innerIDs(e, depth+1)
		}
	case []any:
		for _, e := range y {
			x.innerIDs(e, depth+1)
		}
	}
}

// collect adds the values of a record's field k (and of the fields inside
// it) to x.values, at most 16 distinct per name.
func (x *synth) collect(k string, v any, depth int) {
	if depth > 4 {
		return
	}
	switch y := v.(type) {
	case []any:
		for _, e := range y {
			x.collect(k, e, depth+1)
		}
		return
	case map[string]any:
		for _, kk := range sortedKeys(y) {
			x.collect(kk, y[kk], depth+1)
		}
		return
	case nil:
		return
	}
	vs := x.values[k]
	if len(vs) >= 16 {
		return
	}
	a, _ := atom(v)
	for _, o := range vs {
		if b, _ := atom(o); b == a {
			return
		}
	}
	x.values[k] = append(vs, v)
}

// record is the record of e with the given id in st, decoded; nil when
// there is none. The start state's records are decoded once.
//
// States are never written once their records are read here (every call
// is made on a clone), so the records of the last few states read are
// kept too. Decoded records are never modified.
func (x *synth) record(st *eval.State, e *ir.Entity, id string) map[string]any {
	return x.entry(st, e, id).rec
}

// members are the values of the members of a record by name, at any
// depth (see memberValues), indexed once per record.
func (x *synth) members(st *eval.State, r recKey) map[string][]any {
	en := x.entry(st, r.e, r.id)
	if en.idx == nil {
		en.idx = index(en.rec)
	}
	return en.idx
}

func (x *synth) entry(st *eval.State, e *ir.Entity, id string) *recEntry {
	cache := x.recCache
	if st != x.start && x.start.SameRecord(st, e, id) {
		st = x.start // a record the state has not written since the start
	}
	if st != x.start {
		cache = nil
		for _, c := range x.stateCache {
			if c.st == st {
				cache = c.recs
			}
		}
		if cache == nil {
			cache = map[recKey]*recEntry{}
			x.stateCache = append(x.stateCache, stateRecords{st, cache})
			if len(x.stateCache) > 8 {
				x.stateCache = x.stateCache[1:]
			}
		}
	}
	if en, ok := cache[recKey{e, id}]; ok {
		return en
	}
	if st == x.start && x.baseCache != nil && !x.baseSkip[e] {
		if en, ok := x.baseCache[recKey{e, id}]; ok {
			return en
		}
	}
	en := &recEntry{}
	if b, ok := st.RecordJSON(e, id); ok {
		en.rec, _ = decode(b).(map[string]any)
	}
	cache[recKey{e, id}] = en
	return en
}

// recEntry is a decoded record and, once needed, its members' index.
type recEntry struct {
	rec map[string]any
	idx map[string][]any
}

// stateRecords are the decoded records of a state.
type stateRecords struct {
	st   *eval.State
	recs map[recKey]*recEntry
}

// harvestConsts records, for each parameter of a custom tool, the
// constants and the fields its body compares it with.
func (x *synth) harvestConsts(t *ir.Tool) {
	if t.Kind != ir.ToolCustom {
		return
	}
	byVar := map[*ir.Var]*ir.Param{}
	for _, p := range t.Params {
		if p.Var != nil {
			byVar[p.Var] = p
		}
	}
	param := func(e ir.Expr) *ir.Param {
		for {
			switch y := e.(type) {
			case *ir.Convert:
				e = y.X
				continue
			case *ir.Call:
				if len(y.Args) == 1 && (y.Func == "lower" || y.Func == "upper" || y.Func == "trim") {
					e = y.Args[0]
					continue
				}
			case *ir.VarRef:
				return byVar[y.Var]
			case *ir.Binary:
				// new_price * 10 <= unit_price * 13: the parameter
				// scaled by a constant.
				if y.Op == "*" || y.Op == "/" || y.Op == "+" || y.Op == "-" {
					if isConst(y.R) {
						e = y.L
						continue
					}
					if isConst(y.L) {
						e = y.R
						continue
					}
				}
			}
			return nil
		}
	}
	addConst := func(p *ir.Param, v *ir.Value) {
		if j := valueJSON(v); j != nil && !slices.ContainsFunc(x.consts[p], func(o any) bool { return sameAtom(o, j) }) {
			x.consts[p] = append(x.consts[p], j)
		}
	}
	// stored are the fields each parameter's value is stored in (an
	// insert's field, a set).
	stored := map[*ir.Field][]*ir.Param{}
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		switch st := st.(type) {
		case *ir.Insert:
			for _, fi := range st.Fields {
				if p := param(fi.Value); p != nil {
					if fi.Field.Unique {
						x.fresh[p] = true
					}
					stored[fi.Field] = append(stored[fi.Field], p)
				}
			}
		case *ir.Set:
			if p := param(st.Value); p != nil && st.Field != nil {
				stored[st.Field] = append(stored[st.Field], p)
			}
		}
	}, nil)
	compare := func(p *ir.Param, o ir.Expr) {
		for _, f := range ir.FieldsRead(o) {
			if !slices.Contains(x.compared[p], f.Name) {
				x.compared[p] = append(x.compared[p], f.Name)
			}
		}
	}
	// An invariant that compares a field the tool stores a parameter in
	// with other fields (an invoice's amount with its booking's quoted
	// price): the parameter is compared with those too.
	if len(stored) > 0 {
		for _, inv := range x.w.Invariants {
			ir.WalkExpr(inv.Check, func(e ir.Expr) bool {
				b, ok := e.(*ir.Binary)
				if !ok || !comparison(b.Op) {
					return true
				}
				for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
					fr, ok := side[0].(*ir.FieldRef)
					if !ok {
						continue
					}
					if v, ok := fr.X.(*ir.VarRef); !ok || v.Var != inv.Var {
						continue
					}
					for _, p := range stored[fr.Field] {
						compare(p, side[1])
					}
				}
				return true
			})
		}
	}
	exprs := func(e ir.Expr) bool {
		if ag, ok := e.(*ir.Aggregate); ok && ag.Entity != nil && ag.Where != nil {
			ir.WalkExpr(ag.Where, func(y ir.Expr) bool {
				if b, ok := y.(*ir.Binary); ok && b.Op == "==" {
					for _, side := range []ir.Expr{b.L, b.R} {
						if p := param(side); p != nil && !p.Type.Kind.Numeric() && p.Type.Kind != ir.KindRef && p.Type.Kind != ir.KindEnum {
							x.fresh[p] = true
						}
					}
				}
				return true
			})
		}
		b, ok := e.(*ir.Binary)
		if !ok || !comparison(b.Op) {
			// subtotal * 0.1 computes a tax; 0.1 is no value a user
			// would give for the subtotal.
			return true
		}
		for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
			p := param(side[0])
			if p == nil {
				continue
			}
			switch o := side[1].(type) {
			case *ir.Lit:
				addConst(p, o.Value)
			case *ir.ListLit:
				for _, el := range o.Elems {
					if l, ok := el.(*ir.Lit); ok {
						addConst(p, l.Value)
					}
				}
			default:
				compare(p, o)
			}
		}
		return true
	}
	ir.WalkStmts(t.Body, nil, exprs)
	// A rule on the tool binds its parameters as the body does.
	for _, r := range x.w.Rules {
		if r != nil && r.Tool == t {
			ir.WalkExpr(r.Check, exprs)
		}
	}
}

// comparison reports whether a binary operator compares its sides.
func comparison(op string) bool {
	switch op {
	case "==", "!=", "<", "<=", ">", ">=", "in", "notin":
		return true
	}
	return false
}

// isConst reports whether e is a literal (possibly converted).
func isConst(e ir.Expr) bool {
	for {
		switch y := e.(type) {
		case *ir.Lit:
			return true
		case *ir.Convert:
			e = y.X
		default:
			return false
		}
	}
}

// valueJSON is a scalar constant as decoded JSON, or nil.
func valueJSON(v *ir.Value) any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case ir.KindString, ir.KindText, ir.KindEnum, ir.KindDate, ir.KindDateTime, ir.KindRef:
		return v.Str
	case ir.KindInt:
		return jsonNumber(fmt.Sprint(v.Int))
	case ir.KindDecimal, ir.KindMoney:
		if v.Dec != "" {
			return jsonNumber(v.Dec)
		}
		return jsonNumber(canonNumber(fmt.Sprint(v.Num)))
	case ir.KindBool:
		return v.Bool
	}
	return nil
}

func sameAtom(a, b any) bool {
	x, ok1 := atom(a)
	y, ok2 := atom(b)
	return ok1 && ok2 && x == y
}

// maxStall is how many attempts in a row may keep nothing before the
// sampling stops: the world has given what it has.
const maxStall = 1500

// sample draws candidates until it has enough distinct tasks, every kind
// of candidate is spent (retired) or it has tried long enough. Candidates
// are verified as they are drawn (every call succeeds, invariants hold,
// the words are enough); the final check verifies them again as part of
// the spec.
func (x *synth) sample() []*task {
	want := x.opts.N + x.opts.N/10 + 2 // a margin for the final check
	maxAttempts := 60*x.opts.N + 200
	var out []*task
	attempts := 0
	lastKept := 0
	spent := map[string]int{}    // fruitless draws in a row, by kind
	byOrigin := map[string]int{} // candidates kept, by origin
	for attempts = 0; attempts < maxAttempts && len(out) < want && attempts-lastKept < maxStall; attempts++ {
		var t *task
		var reason string
		kind, ok := x.drawKind(spent, byOrigin, want)
		if !ok {
			x.spentAll = true
			break
		}
		origin := kind.origin
		t, reason = x.draw(kind)
		if x.firstKey != "" {
			if t == nil {
				x.firstSpent[x.firstKey]++
			} else {
				x.firstSpent[x.firstKey] = 0
			}
			x.firstKey = ""
		}
		if t == nil {
			x.drop(origin, reason)
			spent[kind.name]++
			continue
		}
		out = append(out, t)
		lastKept = attempts
		spent[kind.name] = 0
		byOrigin[origin]++
		for _, c := range t.calls {
			if x.byTool[c.tool].writer() && c.fails == "" {
				x.covered[c.tool] = true
			}
		}
	}
	x.attempts = attempts
	return out
}

// seedShare is the share, in percent, of the draws of chains and
// refusals that are seeded with distractors (distract.go); seedShareHard
// with --difficulty hard, where a distractor pair makes a task hard.
const (
	seedShare     = 35
	seedShareHard = 60
)

// draw draws a candidate of a kind and admits it, or says why not. Some
// chains and refusals are seeded draws: their task adds distractors to
// the world seed, and is drawn and checked on that start state.
func (x *synth) draw(k kind) (*task, string) {
	share := seedShare
	if x.opts.Level == "hard" {
		share = seedShareHard
	}
	// (A world without records to copy draws as it did before seeds:
	// the share is not drawn.)
	if (k.name == chainKind.name || k.name == "refusal") && len(x.distractable()) > 0 && x.rng.IntN(100) < share {
		if st, seed, aim, ok := x.drawDistractors(maxDistractors); ok {
			var t *task
			var reason string
			x.withStart(st, seed, &aim, func() {
				if t, reason = k.sample(x); t == nil {
					return
				}
				if t.seedSeen < len(seed) {
					t, reason = nil, "distractor_unused"
					return
				}
				t.seed = seed
				if reason = x.admit(t); reason != "" {
					t = nil
				}
			})
			return t, reason
		}
	}
	t, reason := k.sample(x)
	if t == nil {
		return nil, reason
	}
	if reason := x.admit(t); reason != "" {
		return nil, reason
	}
	return t, ""
}

// A kind of candidate, drawn with a weight out of 100 (chains take the
// rest).
type kind struct {
	name, origin string
	weight       int
	sample       func(x *synth) (*task, string)
}

var kinds = []kind{
	{"refusal", OriginRefusal, 12, (*synth).sampleRefusal},
	{"loop", OriginProgram, 4, (*synth).sampleProgram},
	{"branch", OriginProgram, 24, (*synth).sampleBranch},
	{"solver", OriginSolver, 10, (*synth).sampleSolver},
	{"question", OriginQuestion, 8, (*synth).sampleQuestion},
}

// shares are the most of the tasks wanted, in percent, an origin may
// have: chains, which cover the writing tools, keep the rest.
var shares = map[string]int{OriginRefusal: 22, OriginProgram: 22, OriginSolver: 12, OriginQuestion: 12}

var chainKind = kind{"chain", OriginDAG, 0, (*synth).sampleChain}

// exhausted is how many fruitless draws in a row of a kind mean that the
// world has given what it has of it: the kind is drawn a quarter as
// often after. retired is how many mean that it has nothing more: the
// kind is not drawn again, and when no kind is left the sampling stops.
const (
	exhausted = 40
	retired   = 200
)

// drawKind draws the kind of the next candidate; kept are the
// candidates kept so far by origin, want how many the sampling wants.
// An origin that has its share is not drawn while chains still give new
// tasks; once they are exhausted, the others fill what the world has.
// It reports false when every kind is retired.
func (x *synth) drawKind(spent, kept map[string]int, want int) (kind, bool) {
	all := append(kinds[:len(kinds):len(kinds)], chainKind)
	capped := spent[chainKind.name] < exhausted
	ws := make([]int, len(all))
	total := 0
	for i, k := range all {
		w := k.weight
		if k.name == chainKind.name {
			w = 100
			for _, o := range kinds {
				w -= o.weight
			}
		}
		if k.name != chainKind.name && kept[k.origin] == 0 {
			w *= 3 // an origin with no task yet: sought until it has one or is exhausted
		}
		switch {
		case spent[k.name] >= retired:
			w = 0
		case spent[k.name] >= exhausted:
			w = max(w/4, 1)
		}
		if capped && k.name != chainKind.name && 100*kept[k.origin] >= shares[k.origin]*want {
			w = 0
		}
		ws[i] = w
		total += w
	}
	if total == 0 {
		return kind{}, false
	}
	r := x.rng.IntN(total)
	for i, k := range all {
		if r < ws[i] {
			return k, true
		}
		r -= ws[i]
	}
	return chainKind, true
}

// drop counts a candidate of an origin dropped for a reason.
func (x *synth) drop(origin, reason string) {
	x.dropped[reason]++
	if x.droppedBy[origin] == nil {
		x.droppedBy[origin] = map[string]int{}
	}
	x.droppedBy[origin][reason]++
}

// admit runs the checks every candidate passes: distinct, not a near
// duplicate, solvable from its words, leaking no internal id.
func (x *synth) admit(t *task) string {
	if x.opts.Level != "" && t.profile.Level != x.opts.Level {
		return "other_level"
	}
	for _, c := range t.calls {
		for _, a := range c.args {
			if _, ok := x.lit(a.v, a.p.Type); !ok && a.bound == "" {
				return "unrepresentable_value"
			}
		}
	}
	if reason := x.checkWords(t); reason != "" {
		return reason
	}
	if t.answer {
		if reason := x.checkAnswer(t); reason != "" {
			return reason
		}
	}
	key := t.canonical()
	if x.seen[key] {
		return "duplicate"
	}
	near := t.nearKey()
	if x.nearSeen[near] {
		return "near_duplicate"
	}
	x.seen[key] = true
	x.nearSeen[near] = true
	return ""
}

// finish keeps N of the candidates (trim), names them, writes them into
// the spec and checks it; the candidates the check refuses are dropped,
// counted under their code, and the others kept again, until the written
// spec checks clean. The spec written is the spec checked: a clean check
// of N tasks ends it in one round, the check of the spec a synthesis
// costs most.
func (x *synth) finish(src []byte, cands []*task) (*Result, error) {
	names := map[string]bool{}
	for _, t := range x.w.Tasks {
		names[t.Name] = true
	}
	refused := map[*task]bool{}
	for round := 0; ; round++ {
		var kept []*task
		for _, t := range cands {
			if !refused[t] {
				kept = append(kept, t)
			}
		}
		if len(kept) > x.opts.N {
			kept = x.trim(kept)
		}
		x.name(kept, names)
		out, err := x.emit(src, kept)
		if err != nil {
			return nil, err
		}
		w, diags := compiler.CheckSource(x.opts.Filename, out, x.checkOpts()...)
		if !diags.HasErrors() && w != nil {
			r := x.result(out, kept)
			r.src = src
			return r, nil
		}
		bad, stray := x.blame(out, kept, diags)
		if len(bad) == 0 || round > 8 {
			return nil, fmt.Errorf("tasks: the written spec does not check:\n%s", firstLines(stray, 20))
		}
		for _, t := range kept {
			if code, ok := bad[t]; ok {
				x.dropped["check:"+code]++
				refused[t] = true
			}
		}
	}
}

func (x *synth) checkOpts() []compiler.Option {
	if x.opts.Data != nil {
		return []compiler.Option{compiler.WithData(x.opts.Data)}
	}
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = append(lines[:n], fmt.Sprintf("… %d more\n", len(lines)-n))
	}
	return strings.Join(lines, "")
}

// trim keeps N candidates: it drops, from the end, tasks whose writing
// tools other kept tasks cover too.
func (x *synth) trim(cands []*task) []*task {
	count := map[*ir.Tool]int{}
	for _, t := range cands {
		for _, tl := range t.writeTools() {
			count[tl]++
		}
	}
	drop := map[*task]bool{}
	extra := len(cands) - x.opts.N
	for i := len(cands) - 1; i >= 0 && extra > 0; i-- {
		t := cands[i]
		ok := true
		for _, tl := range t.writeTools() {
			if count[tl] <= 1 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for _, tl := range t.writeTools() {
			count[tl]--
		}
		drop[t] = true
		extra--
	}
	var out []*task
	for _, t := range cands {
		if !drop[t] {
			out = append(out, t)
		}
	}
	// Still too many (every task holds a tool no other covers): the last.
	if len(out) > x.opts.N {
		out = out[:x.opts.N]
	}
	return out
}
