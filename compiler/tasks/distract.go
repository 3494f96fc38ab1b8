package tasks

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// Distractors from task seeds. A world's seed rarely holds two records
// that share the values the words identify one by (two customers of the
// same name, two payouts of one claim), so the lookups of most tasks
// return the one record they need and the agent has nothing to tell
// apart. A seeded draw adds them: before a chain or a refusal is drawn,
// one record the words will identify by a lookup (the target) gets one or
// two copies in the task's own seed (`seed { … }`), which keep every
// value its entity's finders filter by and differ from it in one other
// field (a city, a status, a date, an amount), and in the values a field
// check wants new (a unique number, an e-mail: near-identical ones). The
// draw then aims its first write at the target and is run on the
// task's start state (the world's seed and the copies); its lookups
// prefer the filters whose results hold the copies, and the words tell
// the record apart by the field they differ in. A draw whose lookups do
// not return every copy is dropped (distractor_unused): a seed record
// that no step meets is no distractor.
//
// Every copy is valid as the checker wants a seed record: its values are
// its original's or another record's of the same field (within every
// bound, of the field's type), its unique values are new, its id is new
// and of the form of its original's (clm_0405 → clm_0432, ph_lefevre →
// ph_lefevre2), and the task's start state breaks no invariant.

// seedRec is one record of a task's seed.
type seedRec struct {
	rec    *ir.Record
	handle string // its handle in the spec (its id, unless its entity has a key)
}

// maxDistractors is how many copies of the target a seeded draw adds.
const maxDistractors = 2

// seedTries bounds the targets tried for one seeded draw.
const seedTries = 4

// distractable are the entities whose records a seeded draw may copy:
// records users do not know by id, found by a search or a custom finder
// that returns a list, taken by some writing tool; computed once.
func (x *synth) distractable() []*ir.Entity {
	if x.distract != nil {
		return *x.distract
	}
	named := map[*ir.Entity]bool{}
	for _, f := range x.writers {
		for _, e := range f.names {
			named[e] = true
		}
	}
	var out []*ir.Entity
	for _, e := range x.w.Entities {
		if x.keyKnown[e] || !named[e] || len(x.seedIndex()[e]) == 0 {
			continue
		}
		// A finder that returns one record or id (find a user's id by
		// e-mail) finds no second record to tell apart.
		if slices.ContainsFunc(x.finders[e], func(f *toolFacts) bool {
			return f.tool.Kind == ir.ToolSearch || f.tool.Kind == ir.ToolCustom && f.tool.Returns != nil && f.tool.Returns.Kind == ir.KindList
		}) {
			out = append(out, e)
		}
	}
	x.distract = &out
	return out
}

// seedIndex maps each entity to its world seed records, by id.
func (x *synth) seedIndex() map[*ir.Entity]map[string]*ir.Record {
	if x.seedRecs == nil {
		x.seedRecs = map[*ir.Entity]map[string]*ir.Record{}
		for _, r := range x.w.Seed {
			if x.seedRecs[r.Entity] == nil {
				x.seedRecs[r.Entity] = map[string]*ir.Record{}
			}
			x.seedRecs[r.Entity][r.ID] = r
		}
	}
	return x.seedRecs
}

// drawDistractors makes the seed of a seeded draw: n copies of a target
// record and the task's start state with them; ok is false when the world
// has no record to copy that way.
func (x *synth) drawDistractors(n int) (start *eval.State, seed []seedRec, target recKey, ok bool) {
	ents := x.distractable()
	if len(ents) == 0 {
		return nil, nil, recKey{}, false
	}
	for try := 0; try < seedTries; try++ {
		e := ents[x.rng.IntN(len(ents))]
		ids := x.startIDs(e)
		id := ids[x.rng.IntN(len(ids))]
		orig := x.seedIndex()[e][id]
		if orig == nil {
			continue
		}
		recs := x.copies(e, orig, n)
		if len(recs) == 0 {
			continue
		}
		var irs []*ir.Record
		for _, r := range recs {
			irs = append(irs, r.rec)
		}
		st, err := x.start.WithTask(&ir.Task{Name: "synth", Seed: irs})
		if err != nil || len(st.Violations()) > 0 || !x.writable(st, recs) {
			continue
		}
		return st, recs, recKey{e, id}, true
	}
	return nil, nil, recKey{}, false
}

// writable reports whether every value of the seed records has a literal
// (seedBlock writes them).
func (x *synth) writable(st *eval.State, recs []seedRec) bool {
	for _, r := range recs {
		rec := x.record(st, r.rec.Entity, r.rec.ID)
		if rec == nil {
			return false
		}
		for _, fl := range r.rec.Entity.Fields {
			if v := rec[fl.Name]; v != nil || fl.Default != nil {
				if _, ok := x.lit(v, fl.Type); !ok {
					return false
				}
			}
		}
	}
	return true
}

// filterNames are the fields of e that its finders find records by.
func (x *synth) filterNames(e *ir.Entity) map[string]bool {
	out := map[string]bool{}
	for _, f := range x.finders[e] {
		for _, p := range f.tool.Params {
			if p.Field != nil && p.Field.Entity == e {
				out[p.Field.Name] = true
			}
			if e.Field(p.Name) != nil {
				out[p.Name] = true
			}
		}
	}
	return out
}

// copies are up to n copies of orig that differ from it, and from each
// other, in one field the finders do not filter by (chosen at random among
// those the world's other records give other values of), and in their
// unique values; nil when there is no such field.
func (x *synth) copies(e *ir.Entity, orig *ir.Record, n int) []seedRec {
	filters := x.filterNames(e)
	type choice struct {
		i    int
		vals []*ir.Value
	}
	var choices []choice
	for i, fl := range e.Fields {
		if fl == e.Key || fl.Unique || filters[fl.Name] || i >= len(orig.Values) {
			continue
		}
		switch fl.Type.Kind {
		case ir.KindString, ir.KindEnum, ir.KindDate, ir.KindDateTime, ir.KindInt, ir.KindDecimal, ir.KindMoney:
		default:
			continue
		}
		mine := orig.Values[i]
		if mine == nil || mine.Kind == ir.KindNull {
			continue
		}
		var vals []*ir.Value
		mk := valueKey(mine)
		for _, v := range x.fieldValues(e, i) {
			if v.key != mk {
				vals = append(vals, v.v)
			}
		}
		if len(vals) > 0 {
			choices = append(choices, choice{i, vals})
		}
	}
	if len(choices) == 0 {
		return nil
	}
	ch := choices[x.rng.IntN(len(choices))]
	x.rng.Shuffle(len(ch.vals), func(i, j int) { ch.vals[i], ch.vals[j] = ch.vals[j], ch.vals[i] })
	var out []seedRec
	for k := 0; k < n && k < len(ch.vals); k++ {
		r := &ir.Record{Entity: e, Values: slices.Clone(orig.Values), Pos: orig.Pos}
		r.Values[ch.i] = ch.vals[k]
		ok := true
		for i, fl := range e.Fields {
			if !fl.Unique && fl != e.Key {
				continue
			}
			v := r.Values[i]
			if v == nil || v.Kind == ir.KindNull {
				continue
			}
			if v.Kind != ir.KindString && v.Kind != ir.KindText {
				ok = false // a unique number, date, …: no new one of its form
				break
			}
			s := x.freshLike(v.Str, func(s string) bool { return x.valueTaken(e, i, s, out) })
			if s == "" {
				ok = false
				break
			}
			r.Values[i] = &ir.Value{Kind: v.Kind, Str: s}
		}
		if !ok {
			return nil
		}
		handle := ""
		if e.Key != nil {
			r.ID = r.Values[slices.Index(e.Fields, e.Key)].Str
			handle = x.freshLike("synth_"+ir.SnakeName(e.Name), x.handleTaken)
		} else {
			handle = x.freshLike(orig.ID, x.handleTaken)
			r.ID = handle
		}
		if handle == "" || !isIdent(handle) {
			return nil
		}
		x.usedIDs[handle] = true
		x.usedIDs[r.ID] = true
		out = append(out, seedRec{rec: r, handle: handle})
	}
	return out
}

// keyedValue is a distinct value of a field with its valueKey.
type keyedValue struct {
	v   *ir.Value
	key string
}

// fieldValues are the distinct non-null values of field i of e that a
// copy may take, first seen first: an enum's values in declaration order,
// else the seed records' values in the start state's order. They are
// computed once per field: a draw reads them for every record it copies,
// and scanning a seed of 100,000 records each time dominated synthesis.
func (x *synth) fieldValues(e *ir.Entity, i int) []keyedValue {
	k := fieldRef{e, i}
	if vs, ok := x.fieldVals[k]; ok {
		return vs
	}
	var out []keyedValue
	seen := map[string]bool{}
	add := func(v *ir.Value) {
		if v == nil || v.Kind == ir.KindNull {
			return
		}
		if key := valueKey(v); !seen[key] {
			seen[key] = true
			out = append(out, keyedValue{v, key})
		}
	}
	if fl := e.Fields[i]; fl.Type.Kind == ir.KindEnum {
		for _, v := range fl.Type.Enum.Values {
			add(&ir.Value{Kind: ir.KindEnum, Str: v})
		}
	} else {
		for _, id := range x.startIDs(e) {
			if r := x.seedIndex()[e][id]; r != nil && i < len(r.Values) {
				add(r.Values[i])
			}
		}
	}
	if x.fieldVals == nil {
		x.fieldVals = map[fieldRef][]keyedValue{}
	}
	x.fieldVals[k] = out
	return out
}

// fieldRef names field i of an entity.
type fieldRef struct {
	e *ir.Entity
	i int
}

// valueKey is a scalar constant's identity.
func valueKey(v *ir.Value) string {
	return fmt.Sprint(v.Kind, "|", v.Str, "|", v.Int, "|", v.Num, "|", v.Dec, "|", v.Bool)
}

// handleTaken reports whether a handle or id is a seed record's, or one
// an earlier seeded draw gave.
func (x *synth) handleTaken(s string) bool {
	if x.handles[s] || x.usedIDs[s] {
		return true
	}
	for _, e := range x.w.Entities {
		if x.record(x.start, e, s) != nil {
			return true
		}
	}
	return false
}

// valueTaken reports whether field i of e has the value s in a record of
// the start state, or of the copies made so far, or in any copy an
// earlier draw made (which other tasks' seeds hold).
func (x *synth) valueTaken(e *ir.Entity, i int, s string, made []seedRec) bool {
	fl := e.Fields[i]
	if fl == e.Key && x.handleTaken(s) {
		return true
	}
	if x.usedIDs[fl.Name+"\x00"+s] {
		return true
	}
	for _, r := range made {
		if r.rec.Values[i].Str == s {
			return true
		}
	}
	for _, id := range x.startIDs(e) {
		if r := x.seedIndex()[e][id]; r != nil && r.Values[i] != nil && r.Values[i].Str == s {
			return true
		}
	}
	x.usedIDs[fl.Name+"\x00"+s] = true
	return false
}

// freshLike is a value of the form of s that taken refuses: its last
// number counted up, keeping its width (clm_0405 → clm_0406, SIN-2026-0405
// → SIN-2026-0406), or a digit added (before an e-mail's @, else at the
// end: ph_lefevre → ph_lefevre2); "" when none of the first few is free.
func (x *synth) freshLike(s string, taken func(string) bool) string {
	end := strings.LastIndexFunc(s, isDigit) + 1
	if end > 0 {
		start := end
		for start > 0 && isDigit(rune(s[start-1])) {
			start--
		}
		if n, err := strconv.ParseUint(s[start:end], 10, 64); err == nil && end-start <= 18 {
			width := end - start
			for k := uint64(1); k <= 40; k++ {
				num := strconv.FormatUint(n+k, 10)
				if len(num) < width {
					num = strings.Repeat("0", width-len(num)) + num
				}
				if c := s[:start] + num + s[end:]; !taken(c) {
					return c
				}
			}
		}
		return ""
	}
	for d := 2; d <= 9; d++ {
		c := s + strconv.Itoa(d)
		if at := strings.LastIndexByte(s, '@'); at > 0 {
			c = s[:at] + strconv.Itoa(d) + s[at:]
		}
		if !taken(c) {
			return c
		}
	}
	return ""
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// withStart runs f with st as the start state of the draw (a task's own,
// with its seed), and the caches of the start state's records set aside.
//
// The tables the seed does not add to are the world start state's, shared
// (eval.State.WithTask copies on write): their decoded records, ids and
// groups are taken from the world's caches, not decoded again.
func (x *synth) withStart(st *eval.State, seed []seedRec, aim *recKey, f func()) {
	start, recs, ids, anchors := x.start, x.recCache, x.ids, x.anchors
	touched := map[*ir.Entity]bool{}
	x.seeded, x.aim = map[string]bool{}, aim
	for _, r := range seed {
		touched[r.rec.Entity] = true
		x.seeded[r.rec.ID] = true
		if !x.keyKnown[r.rec.Entity] {
			x.internal[r.rec.ID] = true
		}
	}
	x.start, x.recCache, x.ids, x.anchors = st, map[recKey]*recEntry{}, map[*ir.Entity][]string{}, map[*ir.Field][]string{}
	x.baseCache, x.baseSkip = recs, touched
	for e, v := range ids {
		if !touched[e] {
			x.ids[e] = v
		}
	}
	for fl, v := range anchors {
		if !touched[fl.Entity] {
			x.anchors[fl] = v
		}
	}
	defer func() {
		x.start, x.recCache, x.ids, x.anchors = start, recs, ids, anchors
		x.seeded, x.aim, x.baseCache, x.baseSkip = nil, nil, nil, nil
	}()
	f()
}

// seedBlock writes a task's seed records in the language.
func (x *synth) seedBlock(t *task) string {
	if len(t.seed) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("  seed {\n")
	for _, r := range t.seed {
		e := r.rec.Entity
		rec := x.record(t.start, e, r.rec.ID)
		var parts []string
		for _, fl := range e.Fields {
			v := rec[fl.Name]
			if v == nil && fl.Default == nil {
				continue
			}
			s, _ := x.lit(v, fl.Type) // writable
			parts = append(parts, fl.Name+": "+s)
		}
		fmt.Fprintf(&b, "    %s.%s %s { %s }\n", e.Service.Name, e.Name, r.handle, strings.Join(parts, ", "))
	}
	b.WriteString("  }\n")
	return b.String()
}
