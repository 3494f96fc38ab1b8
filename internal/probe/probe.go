// Package probe builds what the conformance search tries for each tool of
// a world (runtime.ToolProbe): candidate values per parameter taken from
// the seed, the task seeds and the golden solutions, example calls, and the
// tool's require messages. The generated conformance tests run the search
// on the generated package (runtime.ProbeTools); the checker runs the same
// search, on the same probes, with the compile-time evaluator to report
// unreachable tools at check time.
package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/jsonobj"
	"github.com/worldc/worldc/runtime"
)

// builder computes the probes of one world.
type builder struct {
	w          *ir.World
	seeds      *seedIndex // the seed's values for candidates
	byID       map[*ir.Entity]map[string]*ir.Record
	shapeDepth int           // nesting of candidates being built
	shapeLeft  int           // values a record candidate may still fill in optional fields
	top        *topSeedIndex // the seed's records and field values, built once
}

// Probes are the probes of w's tools, in tool order.
func Probes(w *ir.World) []runtime.ToolProbe {
	g := &builder{w: w}
	var out []runtime.ToolProbe
	for _, t := range w.Tools {
		tp := runtime.ToolProbe{Tool: t.Name, Requires: requires(t)}
		for _, p := range t.Params {
			tp.Params = append(tp.Params, runtime.ParamProbe{Name: p.Name, Candidates: g.candidates(t, p)})
		}
		tp.Examples = append(g.examples(t), g.anchorExamples(t)...)
		out = append(out, tp)
	}
	return out
}

// ordered is a JSON object that keeps its members in insertion order, and
// kv makes one of its members (jsonobj's, by short names).
type ordered = jsonobj.Object

var kv = jsonobj.M

// maxCandidates bounds the candidate values tried per parameter, and
// maxCreated the ids of records created by golden solutions added to them.
const (
	maxCandidates = 16
	maxCreated    = 4
)

// candidates lists values to try for a parameter when looking for
// arguments a tool accepts: for a ref the seed's ids of the entity, for an
// enum its values, for a scalar the seed's values of fields with the same
// name and then simple defaults; for a unique field a fresh value first; an
// optional parameter is first left out.
func (g *builder) candidates(t *ir.Tool, p *ir.Param) []json.RawMessage {
	var out []json.RawMessage
	seen := map[string]bool{}
	add := func(b []byte, err error) {
		if err != nil || len(out) >= maxCandidates || seen[string(b)] {
			return
		}
		seen[string(b)] = true
		out = append(out, json.RawMessage(b))
	}
	// addCreated adds the id of a record a golden solution creates, beyond
	// the bound if need be (by up to maxCreated): a large seed must not
	// crowd them out.
	created := 0
	addCreated := func(id string) {
		b, err := json.Marshal(id)
		if err != nil || seen[string(b)] || created >= maxCreated {
			return
		}
		seen[string(b)] = true
		created++
		out = append(out, json.RawMessage(b))
	}
	if p.Type.Optional {
		add([]byte("null"), nil)
	}
	kind := p.Type.Kind
	fresh := fmt.Sprintf("conformance %s %s", t.Name, p.Name)
	if p.Field != nil && p.Field.Unique && kind.Textual() {
		add(json.Marshal(fresh))
	}
	switch kind {
	case ir.KindRef:
		for _, r := range g.topSeed().records[p.Type.Entity] {
			if len(out) >= maxCandidates {
				break
			}
			add(json.Marshal(r.ID))
		}
		for _, id := range g.created(p.Type.Entity) {
			addCreated(id)
		}
	case ir.KindEnum:
		for _, v := range p.Type.Enum.Values {
			add(json.Marshal(v))
		}
	case ir.KindBool:
		add([]byte("true"), nil)
		add([]byte("false"), nil)
	default:
		// Values inside the records the tool's other parameters name come
		// first: an order's own items, a method of the order's user.
		for _, v := range g.anchoredValues(t, p) {
			add(v, nil)
		}
		var variants [][]byte
		for _, v := range g.topSeed().byName[nameKind{p.Name, kind}] {
			if len(out) >= maxCandidates {
				break // nothing more can be added, variants included
			}
			add(v.json, nil)
			if kind.Textual() {
				if b, err := json.Marshal(variant(v.str)); err == nil {
					variants = append(variants, b)
				}
			}
		}
		if kind.Textual() {
			// A string parameter named after an entity's key takes ids of
			// its records: those the golden solutions create too.
			for _, e := range g.w.Entities {
				if e.Key != nil && e.Key.Name == p.Name {
					for _, id := range g.created(e) {
						addCreated(id)
					}
				}
			}
			for _, s := range comparedLiterals(t, p) {
				add(json.Marshal(s))
			}
			if calcArgument(t, p) {
				// An expression calc evaluates: any other string fails.
				add(json.Marshal("1"))
			}
		}
		if len(g.w.Structs) > 0 {
			// Values of record fields of the same name inside the seed's
			// lists, maps and records, then the keys of its maps.
			idx := g.nestedSeedValues()
			for _, v := range idx.byName[nameKind{p.Name, kind}] {
				add(v, nil)
			}
			if kind.Textual() {
				for _, k := range idx.keys {
					add(k, nil)
				}
			}
		}
		// Values of other fields of the same kind (an amount that must
		// equal a bill's total).
		if kind.Numeric() {
			for _, v := range g.topSeed().byKind[kind] {
				if len(out) >= maxCandidates {
					break
				}
				if v.name != p.Name {
					add(v.json, nil)
				}
			}
		}
		// A seen value with its last digit or letter changed: fresh, and
		// still of the same shape (a reference number, a phone number).
		for _, b := range variants {
			add(b, nil)
		}
		switch kind {
		case ir.KindList, ir.KindMap, ir.KindStruct:
			for _, c := range g.shapeCandidates(t, p.Name, p.Type) {
				add(c, nil)
			}
		case ir.KindInt:
			for _, n := range []string{"1", "0", "10", "100"} {
				add([]byte(n), nil)
			}
		case ir.KindDecimal, ir.KindMoney:
			for _, n := range []string{"100", "1", "0", "1000"} {
				add([]byte(n), nil)
			}
		case ir.KindDate:
			if d, err := runtime.ParseDate(g.w.Today); err == nil {
				for _, off := range []int{0, 1, -1, 30} {
					add(json.Marshal(d.AddDays(off)))
				}
			}
		case ir.KindDateTime:
			if d, err := runtime.ParseDate(g.w.Today); err == nil {
				add(json.Marshal(runtime.Clock{Today: d}.Now()))
			}
		default:
			add(json.Marshal(fresh))
			add(json.Marshal("test"))
		}
	}
	return out
}

// maxShapeValues bounds the fields a composite candidate fills, from its
// outermost record down: beyond it, optional fields are null. (Required
// fields are bounded by the checker: W019, MaxRecordValues.)
const maxShapeValues = 1000

// shapeCandidates are values of a composite type built from the
// candidates of its parts: a list of one candidate element and the empty
// list, the empty map, a record of its fields' first candidates (one per
// case for a variant).
func (g *builder) shapeCandidates(t *ir.Tool, name string, typ *ir.Type) []json.RawMessage {
	if g.shapeDepth > 3 {
		return nil // a record inside itself
	}
	if g.shapeDepth == 0 {
		g.shapeLeft = maxShapeValues
	}
	g.shapeDepth++
	defer func() { g.shapeDepth-- }()
	first := func(name string, et *ir.Type) (json.RawMessage, bool) {
		if et.Optional && g.shapeLeft <= 0 {
			// Records in optional fields of records in optional fields…
			// grow as fast as their fields multiply: past the budget,
			// an optional field is null.
			return json.RawMessage("null"), true
		}
		g.shapeLeft--
		cs := g.candidates(t, &ir.Param{Name: name, Type: et})
		for _, c := range cs {
			if string(c) != "null" {
				return c, true
			}
		}
		if et.Optional {
			return json.RawMessage("null"), true
		}
		return nil, false
	}
	switch typ.Kind {
	case ir.KindList:
		// Lists of one element each, the element named in the singular.
		var out []json.RawMessage
		for _, c := range g.candidates(t, &ir.Param{Name: singular(name), Type: typ.Elem}) {
			if string(c) != "null" && len(out) < maxCandidates-1 {
				out = append(out, json.RawMessage("["+string(c)+"]"))
			}
		}
		return append(out, json.RawMessage("[]"))
	case ir.KindMap:
		return []json.RawMessage{json.RawMessage("{}")}
	case ir.KindStruct:
		sd := typ.Struct
		object := func(fields []*ir.Field, tag string) (json.RawMessage, bool) {
			o := ordered{}
			if tag != "" {
				o = append(o, kv(sd.Tag.Name, tag))
			}
			for _, f := range fields {
				c, ok := first(f.Name, f.Type)
				if !ok {
					return nil, false
				}
				o = append(o, kv(f.Name, c))
			}
			b, err := json.Marshal(o)
			return b, err == nil
		}
		var out []json.RawMessage
		if sd.Tag == nil {
			if b, ok := object(sd.Fields, ""); ok {
				out = append(out, b)
			}
			return out
		}
		for _, c := range sd.Cases {
			if b, ok := object(append(append([]*ir.Field{}, sd.Fields...), c.Fields...), c.Name); ok {
				out = append(out, b)
			}
		}
		return out
	}
	return nil
}

// maxExamples bounds the golden calls a probe tries first.
const maxExamples = 4

// examples are the argument objects of the tool's golden solution calls
// that pass only constants and are expected to succeed.
func (g *builder) examples(t *ir.Tool) []json.RawMessage {
	var out []json.RawMessage
	seen := map[string]bool{}
	for _, task := range g.w.Tasks {
		for _, st := range task.Solution {
			if st.Tool != t || st.Fails != nil || len(out) >= maxExamples {
				continue
			}
			o := ordered{}
			ok := true
			for _, a := range st.Args {
				if a.Bound != "" {
					ok = false
					break
				}
				v, err := ValueJSON(a.Value, a.Param.Type)
				if err != nil {
					ok = false
					break
				}
				o = append(o, kv(a.Param.Name, json.RawMessage(v)))
			}
			b, err := json.Marshal(o)
			if ok && err == nil && !seen[string(b)] {
				seen[string(b)] = true
				out = append(out, b)
			}
		}
	}
	return out
}

// singular is a list parameter's name for one element: item_ids → item_id.
func singular(name string) string {
	if strings.HasSuffix(name, "s") && len(name) > 1 {
		return name[:len(name)-1]
	}
	return name
}

// maxAnchors bounds the records of each entity a tool's parameters name
// that are searched for coherent candidates.
const maxAnchors = 8

// anchor is a parameter naming records of an entity: a ref, or a string
// parameter named after the entity's key field.
type anchor struct {
	param  *ir.Param
	entity *ir.Entity
}

// anchors are the tool's parameters that name records, but p.
func (g *builder) anchors(t *ir.Tool, p *ir.Param) []anchor {
	var out []anchor
	for _, q := range t.Params {
		if q == p {
			continue
		}
		switch {
		case q.Type.Kind == ir.KindRef:
			out = append(out, anchor{q, q.Type.Entity})
		case q.Type.Kind.Textual():
			for _, e := range g.w.Entities {
				if e.Key != nil && e.Key.Name == q.Name {
					out = append(out, anchor{q, e})
				}
			}
		}
	}
	return out
}

// anchorRecords are the first seed records of e.
func (g *builder) anchorRecords(e *ir.Entity) []*ir.Record {
	rs := g.topSeed().records[e]
	return append([]*ir.Record(nil), rs[:min(len(rs), maxAnchors)]...)
}

// topSeedIndex holds the seed records (the world's, then the tasks') by
// entity, and the values of their fields: by field name and kind, each
// value once, in the order first met; by kind, each value once per field
// name, in the order first met. Candidates read the index instead of
// scanning the seed for every parameter of every tool (1,000 tools over
// 100,000 loaded records took minutes), and take the same values in the
// same order as the scans did.
type topSeedIndex struct {
	records map[*ir.Entity][]*ir.Record
	byName  map[nameKind][]seedValue
	byKind  map[ir.Kind][]seedValue
}

// seedValue is a field value of a seed record as JSON (its field's name,
// and its text for a textual one).
type seedValue struct {
	name string
	str  string
	json json.RawMessage
}

func (g *builder) topSeed() *topSeedIndex {
	if g.top != nil {
		return g.top
	}
	idx := &topSeedIndex{records: map[*ir.Entity][]*ir.Record{}, byName: map[nameKind][]seedValue{}, byKind: map[ir.Kind][]seedValue{}}
	seenName := map[nameKind]map[string]bool{}
	seenKind := map[nameKind]map[string]bool{}
	for _, r := range g.allSeedRecords() {
		idx.records[r.Entity] = append(idx.records[r.Entity], r)
		for i, f := range r.Entity.Fields {
			v := r.Values[i]
			if v == nil || v.Kind == ir.KindNull {
				continue
			}
			b, err := ValueJSON(v, f.Type)
			if err != nil {
				continue
			}
			k := nameKind{f.Name, f.Type.Kind}
			if seenName[k] == nil {
				seenName[k] = map[string]bool{}
			}
			if !seenName[k][string(b)] {
				seenName[k][string(b)] = true
				idx.byName[k] = append(idx.byName[k], seedValue{name: f.Name, str: v.Str, json: b})
			}
			if f.Type.Kind.Numeric() {
				if seenKind[k] == nil {
					seenKind[k] = map[string]bool{}
				}
				if !seenKind[k][string(b)] {
					seenKind[k][string(b)] = true
					idx.byKind[f.Type.Kind] = append(idx.byKind[f.Type.Kind], seedValue{name: f.Name, json: b})
				}
			}
		}
	}
	g.top = idx
	return idx
}

// neighbourhood lists values for a parameter named name of kind kind found
// in the record r, then in the records its refs name: fields named like
// the parameter (without a new_ or old_ prefix), and for a parameter named
// <record>_id the ids of such records and the keys of maps of them. A
// parameter named new_… prefers the values of the referenced records.
func (g *builder) neighbourhood(r *ir.Record, name string, kind ir.Kind) []json.RawMessage {
	names := map[string]bool{name: true}
	prefixed := false
	for _, prefix := range []string{"new_", "old_"} {
		if strings.HasPrefix(name, prefix) {
			names[strings.TrimPrefix(name, prefix)] = true
			prefixed = true
		}
	}
	var idOf *ir.StructDef
	for _, sd := range g.w.Structs {
		if ir.SnakeName(sd.Name)+"_id" == name {
			idOf = sd
		}
	}
	if g.byID == nil {
		g.byID = map[*ir.Entity]map[string]*ir.Record{}
		for _, x := range g.allSeedRecords() {
			if g.byID[x.Entity] == nil {
				g.byID[x.Entity] = map[string]*ir.Record{}
			}
			g.byID[x.Entity][x.ID] = x
		}
	}
	levels := make([][]json.RawMessage, 2)
	var refs []*ir.Record
	var walk func(name string, t *ir.Type, v *ir.Value, depth int)
	walk = func(name string, t *ir.Type, v *ir.Value, depth int) {
		if v == nil || v.Kind == ir.KindNull || t == nil {
			return
		}
		if names[name] && t.Kind == kind {
			base := *t
			base.Optional = false
			if b, err := ValueJSON(v, &base); err == nil {
				levels[depth] = append(levels[depth], b)
			}
		}
		switch t.Kind {
		case ir.KindRef:
			if x := g.byID[t.Entity][v.Str]; x != nil && depth == 0 {
				refs = append(refs, x)
			}
		case ir.KindList:
			for _, x := range v.List {
				walk(name, t.Elem, x, depth)
			}
		case ir.KindMap:
			for _, e := range v.Entries {
				if idOf != nil && t.Elem.Kind == ir.KindStruct && t.Elem.Struct == idOf && kind.Textual() {
					b, _ := json.Marshal(e.Key)
					levels[depth] = append(levels[depth], b)
				}
				walk(name, t.Elem, e.Value, depth)
			}
		case ir.KindStruct:
			for i, f := range t.Struct.AllFields() {
				if i < len(v.Fields) {
					n := f.Name
					if idOf != nil && t.Struct == idOf && n == "id" {
						n = name
					}
					walk(n, f.Type, v.Fields[i], depth)
				}
			}
		}
	}
	for i, f := range r.Entity.Fields {
		walk(f.Name, f.Type, r.Values[i], 0)
	}
	for _, x := range refs {
		for i, f := range x.Entity.Fields {
			walk(f.Name, f.Type, x.Values[i], 1)
		}
	}
	first, second := levels[0], levels[1]
	if prefixed {
		first, second = second, first
	}
	var out []json.RawMessage
	seen := map[string]bool{}
	for _, b := range append(first, second...) {
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	return out
}

// anchoredValues are candidate values for p found in the neighbourhoods
// of the records the tool's other parameters name.
func (g *builder) anchoredValues(t *ir.Tool, p *ir.Param) []json.RawMessage {
	var out []json.RawMessage
	for _, a := range g.anchors(t, p) {
		for _, r := range g.anchorRecords(a.entity) {
			out = append(out, g.neighbourhood(r, p.Name, p.Type.Kind)...)
		}
	}
	return out
}

// maxAnchorExamples bounds the example calls built from anchor records.
const maxAnchorExamples = 96

// anchorExamples are coherent example calls built around each record the
// tool's first anchoring parameter names: that record's id, and for every
// other required parameter a value from the record's neighbourhood (or its
// first candidate), varying one parameter at a time over its first
// values. They find calls whose arguments must agree with each other (an
// order's own item, another variant of that item's product, a second
// payment method of the order's user) that the search one parameter at a
// time misses.
func (g *builder) anchorExamples(t *ir.Tool) []json.RawMessage {
	as := g.anchors(t, nil)
	if len(as) == 0 || len(t.Params) < 2 {
		return nil
	}
	a := as[0]
	const vary = 4
	var out []json.RawMessage
	seen := map[string]bool{}
	for _, r := range g.anchorRecords(a.entity) {
		choices := make([][]json.RawMessage, len(t.Params))
		for i, p := range t.Params {
			if p == a.param || p.Type.Optional {
				continue
			}
			name, kind, list := p.Name, p.Type.Kind, false
			if kind == ir.KindList {
				name, kind, list = singular(p.Name), p.Type.Elem.Kind, true
			}
			var vals []json.RawMessage
			if k := p.Type.Kind; k != ir.KindList && k != ir.KindMap && k != ir.KindStruct || list {
				vals = g.neighbourhood(r, name, kind)
			}
			if len(vals) == 0 {
				for _, c := range g.candidates(t, p) {
					if string(c) != "null" {
						vals = append(vals, c)
						break
					}
				}
			} else if list {
				for j, v := range vals {
					vals[j] = json.RawMessage("[" + string(v) + "]")
				}
			}
			choices[i] = vals
		}
		id, _ := json.Marshal(r.ID)
		build := func(pick []int) {
			o := ordered{}
			for i, p := range t.Params {
				switch {
				case p == a.param:
					o = append(o, kv(p.Name, json.RawMessage(id)))
				case len(choices[i]) > 0:
					o = append(o, kv(p.Name, choices[i][pick[i]%len(choices[i])]))
				}
			}
			b, err := json.Marshal(o)
			if err == nil && !seen[string(b)] && len(out) < maxAnchorExamples {
				seen[string(b)] = true
				out = append(out, b)
			}
		}
		pick := make([]int, len(t.Params))
		build(pick)
		for i := range t.Params {
			for k := 1; k < vary && k < len(choices[i]); k++ {
				pick[i] = k
				build(pick)
			}
			pick[i] = 0
		}
	}
	return out
}

// created are the ids of the records of e the golden solutions create
// (ir.Task.Created), in task order, without repeats.
func (g *builder) created(e *ir.Entity) []string {
	var out []string
	for _, t := range g.w.Tasks {
		for _, c := range t.Created {
			if c.Entity == e && !slices.Contains(out, c.ID) {
				out = append(out, c.ID)
			}
		}
	}
	return out
}

// allSeedRecords are the world seed's records, then the task seeds'.
func (g *builder) allSeedRecords() []*ir.Record {
	out := append([]*ir.Record(nil), g.w.Seed...)
	for _, t := range g.w.Tasks {
		out = append(out, t.Seed...)
	}
	return out
}

// variant changes the last digit or letter of s (9 → 0 → 1, z → a).
func variant(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c >= '0' && c <= '8', c >= 'a' && c <= 'y', c >= 'A' && c <= 'Y':
			b[i]++
			return string(b)
		case c == '9':
			b[i] = '0'
			return string(b)
		case c == 'z':
			b[i] = 'a'
			return string(b)
		case c == 'Z':
			b[i] = 'A'
			return string(b)
		}
	}
	return s + "2"
}

// requires lists a tool's require and fail messages in statement order; a
// message built from values is a pattern (see runtime.Hole). A tool that
// calls calc also fails with precondition_failed and Python's message
// ("division by zero", "Invalid characters in expression", …): a last
// pattern, a lone Hole, stands for those, after the requires so that it
// moves no require's index.
func requires(t *ir.Tool) []string {
	var out []string
	calc := false
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		switch x := st.(type) {
		case *ir.Require:
			out = append(out, messagePattern(x.Message, x.MessageExpr))
		case *ir.Fail:
			out = append(out, messagePattern(x.Message, x.MessageExpr))
		}
	}, func(e ir.Expr) bool {
		if c, ok := e.(*ir.Call); ok && c.Func == "calc" {
			calc = true
		}
		return !calc
	})
	if calc {
		out = append(out, runtime.Hole)
	}
	return out
}

// messagePattern is the message, or the pattern of the message expression:
// its string constants, with runtime.Hole for every other part.
func messagePattern(msg string, x ir.Expr) string {
	if x == nil {
		return msg
	}
	var b strings.Builder
	var walk func(e ir.Expr)
	walk = func(e ir.Expr) {
		switch y := e.(type) {
		case *ir.Binary:
			if y.Op == "+" {
				walk(y.L)
				walk(y.R)
				return
			}
		case *ir.Lit:
			if y.Value != nil && y.Value.Kind != ir.KindNull && y.T.Kind.Textual() {
				b.WriteString(y.Value.Str)
				return
			}
		}
		if !strings.HasSuffix(b.String(), runtime.Hole) {
			b.WriteString(runtime.Hole)
		}
	}
	walk(x)
	return b.String()
}

// comparedLiterals are the string constants a tool's body compares the
// parameter's variable with (`reason in ["a", "b"]`, `code == "x"`), and
// the values of the enum types it converts the variable to (`reason as
// Order.cancel_reason`): likely values for it.
func comparedLiterals(t *ir.Tool, p *ir.Param) []string {
	var out []string
	isVar := func(e ir.Expr) bool {
		vr, ok := e.(*ir.VarRef)
		return ok && p.Var != nil && vr.Var == p.Var
	}
	add := func(e ir.Expr) {
		if l, ok := e.(*ir.Lit); ok && l.Value != nil && l.Value.Kind != ir.KindNull && l.T.Kind.Textual() {
			out = append(out, l.Value.Str)
		}
		if ll, ok := e.(*ir.ListLit); ok {
			for _, el := range ll.Elems {
				if l, ok := el.(*ir.Lit); ok && l.Value != nil && l.Value.Kind != ir.KindNull {
					out = append(out, l.Value.Str)
				}
			}
		}
	}
	ir.WalkStmts(t.Body, nil, func(e ir.Expr) bool {
		if c, ok := e.(*ir.Cast); ok && isVar(c.X) {
			out = append(out, c.T.Enum.Values...) // `p as E`: E's values
		}
		if b, ok := e.(*ir.Binary); ok {
			switch b.Op {
			case "==", "!=", "in", "notin":
				if isVar(b.L) {
					add(b.R)
				} else if isVar(b.R) {
					add(b.L)
				}
			}
		}
		return true
	})
	return out
}

// calcArgument reports whether the tool passes p to calc.
func calcArgument(t *ir.Tool, p *ir.Param) bool {
	found := false
	ir.WalkStmts(t.Body, nil, func(e ir.Expr) bool {
		if c, ok := e.(*ir.Call); ok && c.Func == "calc" && len(c.Args) == 1 {
			if vr, ok := c.Args[0].(*ir.VarRef); ok && p.Var != nil && vr.Var == p.Var {
				found = true
			}
		}
		return !found
	})
	return found
}

// nameKind keys the seed's values by the name of the field holding them
// and their kind.
type nameKind struct {
	name string
	kind ir.Kind
}

// seedIndex holds the seed's values by field name and kind, and the keys of
// its maps, as JSON, each list in seed order without duplicates and cut at
// maxCandidates: candidates for parameters, computed once.
type seedIndex struct {
	byName map[nameKind][]json.RawMessage
	keys   []json.RawMessage
}

func (g *builder) nestedSeedValues() *seedIndex {
	if g.seeds != nil {
		return g.seeds
	}
	idx := &seedIndex{byName: map[nameKind][]json.RawMessage{}}
	seen := map[string]bool{}
	g.seedValues(func(name string, ft *ir.Type, v *ir.Value) {
		k := nameKind{name, ft.Kind}
		if name != "" && len(idx.byName[k]) >= maxCandidates || name == "" && len(idx.keys) >= maxCandidates {
			return
		}
		base := *ft
		base.Optional = false
		b, err := ValueJSON(v, &base)
		if err != nil || seen[fmt.Sprint(k)+string(b)] {
			return
		}
		seen[fmt.Sprint(k)+string(b)] = true
		if name == "" {
			idx.keys = append(idx.keys, b)
		} else {
			idx.byName[k] = append(idx.byName[k], b)
		}
	})
	g.seeds = idx
	return idx
}

// seedValues calls fn with every value inside the seed records (a field's
// value, and the values inside lists, maps and records), its type and the
// name of the field holding it (the field of the list or map holding it),
// and with the keys of maps (as strings, named "").
func (g *builder) seedValues(fn func(name string, t *ir.Type, v *ir.Value)) {
	var walk func(name string, t *ir.Type, v *ir.Value)
	walk = func(name string, t *ir.Type, v *ir.Value) {
		if v == nil || v.Kind == ir.KindNull || t == nil {
			return
		}
		fn(name, t, v)
		switch t.Kind {
		case ir.KindList:
			for _, x := range v.List {
				walk(name, t.Elem, x)
			}
		case ir.KindMap:
			for _, e := range v.Entries {
				fn("", &ir.Type{Kind: ir.KindString}, &ir.Value{Kind: ir.KindString, Str: e.Key})
				walk(name, t.Elem, e.Value)
			}
		case ir.KindStruct:
			for i, f := range t.Struct.AllFields() {
				if i < len(v.Fields) {
					walk(f.Name, f.Type, v.Fields[i])
				}
			}
		}
	}
	for _, r := range g.allSeedRecords() {
		for i, f := range r.Entity.Fields {
			walk(f.Name, f.Type, r.Values[i])
		}
	}
}

// ValueJSON renders a constant as JSON for a slot of type t.
func ValueJSON(v *ir.Value, t *ir.Type) ([]byte, error) {
	if v == nil || v.Kind == ir.KindNull {
		return []byte("null"), nil
	}
	kind := v.Kind
	if t != nil && t.Kind != ir.KindInvalid {
		kind = t.Kind
	}
	switch kind {
	case ir.KindInt:
		if v.Kind == ir.KindInt {
			return json.Marshal(v.Int)
		}
		return json.Marshal(int64(v.Num))
	case ir.KindDecimal, ir.KindMoney:
		if v.Dec != "" {
			return []byte(v.Dec), nil // exact: its canonical text is a JSON number
		}
		n := v.Num
		if v.Kind == ir.KindInt {
			n = float64(v.Int)
		}
		if math.IsNaN(n) || math.IsInf(n, 0) {
			return nil, fmt.Errorf("non-finite number")
		}
		return json.Marshal(n)
	case ir.KindBool:
		return json.Marshal(v.Bool)
	case ir.KindDate:
		d, err := runtime.ParseDate(v.Str)
		if err != nil {
			return nil, err
		}
		return json.Marshal(d)
	case ir.KindDateTime:
		d, err := runtime.ParseDateTime(v.Str)
		if err != nil {
			return nil, err
		}
		return json.Marshal(d)
	case ir.KindList, ir.KindMap, ir.KindStruct:
		return compositeJSON(v, t)
	}
	return json.Marshal(v.Str)
}

// compositeJSON renders a list (an array), a map (an object in key order)
// or a record constant (an object with its fields in declaration order;
// for a variant, its tag, common fields and the fields of its case).
func compositeJSON(v *ir.Value, t *ir.Type) ([]byte, error) {
	var b bytes.Buffer
	// member writes the i-th element (keyed: member key of an object).
	member := func(i int, keyed bool, key string, x *ir.Value, et *ir.Type) error {
		if i > 0 {
			b.WriteByte(',')
		}
		if keyed {
			k, _ := json.Marshal(key)
			b.Write(k)
			b.WriteByte(':')
		}
		j, err := ValueJSON(x, et)
		if err != nil {
			return err
		}
		b.Write(j)
		return nil
	}
	switch {
	case t == nil:
		return nil, fmt.Errorf("a composite constant without its type")
	case t.Kind == ir.KindList:
		b.WriteByte('[')
		for i, x := range v.List {
			if err := member(i, false, "", x, t.Elem); err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
		}
		b.WriteByte(']')
	case t.Kind == ir.KindMap:
		entries := append([]ir.MapEntry(nil), v.Entries...)
		sort.SliceStable(entries, func(i, j int) bool { return entries[i].Key < entries[j].Key })
		b.WriteByte('{')
		for i, e := range entries {
			if err := member(i, true, e.Key, e.Value, t.Elem); err != nil {
				return nil, fmt.Errorf("[%q]: %w", e.Key, err)
			}
		}
		b.WriteByte('}')
	case t.Kind == ir.KindStruct:
		sd := t.Struct
		fields := sd.AllFields()
		if len(v.Fields) != len(fields) {
			return nil, fmt.Errorf("%s constant with %d fields, want %d", sd.Name, len(v.Fields), len(fields))
		}
		var current *ir.Case
		if sd.Tag != nil && v.Fields[0] != nil {
			for _, c := range sd.Cases {
				if c.Name == v.Fields[0].Str {
					current = c
				}
			}
		}
		inCase := map[*ir.Field]bool{}
		if current != nil {
			for _, f := range current.Fields {
				inCase[f] = true
			}
		}
		for _, c := range sd.Cases {
			for _, f := range c.Fields {
				if !inCase[f] {
					inCase[f] = false
				}
			}
		}
		b.WriteByte('{')
		n := 0
		for i, f := range fields {
			if in, isCase := inCase[f]; isCase && !in {
				continue // a field of another case
			}
			if err := member(n, true, f.Name, v.Fields[i], f.Type); err != nil {
				return nil, fmt.Errorf(".%s: %w", f.Name, err)
			}
			n++
		}
		b.WriteByte('}')
	default:
		return nil, fmt.Errorf("a %s constant of type %s", v.Kind, t)
	}
	return b.Bytes(), nil
}
