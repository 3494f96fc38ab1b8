package gen

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// maxCandidates bounds the candidate values tried per parameter.
const maxCandidates = 16

// candidates lists values to try for a parameter when looking for
// arguments a tool accepts: for a ref the seed's ids of the entity, for an
// enum its values, for a scalar the seed's values of fields with the same
// name and then simple defaults; for a unique field a fresh value first; an
// optional parameter is first left out.
func (g *generator) candidates(t *ir.Tool, p *ir.Param) []json.RawMessage {
	var out []json.RawMessage
	seen := map[string]bool{}
	add := func(b []byte, err error) {
		if err != nil || len(out) >= maxCandidates || seen[string(b)] {
			return
		}
		seen[string(b)] = true
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
		for _, r := range g.allSeedRecords() {
			if r.Entity == p.Type.Entity {
				add(json.Marshal(r.ID))
			}
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
		for _, r := range g.allSeedRecords() {
			for i, f := range r.Entity.Fields {
				if f.Name != p.Name || f.Type.Kind != kind {
					continue
				}
				if v := r.Values[i]; v != nil && v.Kind != ir.KindNull {
					add(valueJSON(v, f.Type))
					if kind.Textual() {
						if b, err := json.Marshal(variant(v.Str)); err == nil {
							variants = append(variants, b)
						}
					}
				}
			}
		}
		if kind.Textual() {
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
			for _, r := range g.allSeedRecords() {
				for i, f := range r.Entity.Fields {
					if f.Type.Kind == kind && f.Name != p.Name {
						if v := r.Values[i]; v != nil && v.Kind != ir.KindNull {
							add(valueJSON(v, f.Type))
						}
					}
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

// shapeCandidates are values of a composite type built from the
// candidates of its parts: a list of one candidate element and the empty
// list, the empty map, a record of its fields' first candidates (one per
// case for a variant).
func (g *generator) shapeCandidates(t *ir.Tool, name string, typ *ir.Type) []json.RawMessage {
	if g.shapeDepth > 3 {
		return nil // a record inside itself
	}
	g.shapeDepth++
	defer func() { g.shapeDepth-- }()
	first := func(name string, et *ir.Type) (json.RawMessage, bool) {
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
				o = append(o, kv{sd.Tag.Name, tag})
			}
			for _, f := range fields {
				c, ok := first(f.Name, f.Type)
				if !ok {
					return nil, false
				}
				o = append(o, kv{f.Name, c})
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
func (g *generator) examples(t *ir.Tool) []json.RawMessage {
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
				v, err := valueJSON(a.Value, a.Param.Type)
				if err != nil {
					ok = false
					break
				}
				o = append(o, kv{a.Param.Name, json.RawMessage(v)})
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
func (g *generator) anchors(t *ir.Tool, p *ir.Param) []anchor {
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
func (g *generator) anchorRecords(e *ir.Entity) []*ir.Record {
	var out []*ir.Record
	for _, r := range g.allSeedRecords() {
		if r.Entity == e && len(out) < maxAnchors {
			out = append(out, r)
		}
	}
	return out
}

// neighbourhood lists values for a parameter named name of kind kind found
// in the record r, then in the records its refs name: fields named like
// the parameter (without a new_ or old_ prefix), and for a parameter named
// <record>_id the ids of such records and the keys of maps of them. A
// parameter named new_… prefers the values of the referenced records.
func (g *generator) neighbourhood(r *ir.Record, name string, kind ir.Kind) []json.RawMessage {
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
			if b, err := valueJSON(v, &base); err == nil {
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
func (g *generator) anchoredValues(t *ir.Tool, p *ir.Param) []json.RawMessage {
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
func (g *generator) anchorExamples(t *ir.Tool) []json.RawMessage {
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
			if !isComposite(p.Type) || list {
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
					o = append(o, kv{p.Name, json.RawMessage(id)})
				case len(choices[i]) > 0:
					o = append(o, kv{p.Name, choices[i][pick[i]%len(choices[i])]})
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

// allSeedRecords are the world seed's records, then the task seeds'.
func (g *generator) allSeedRecords() []*ir.Record {
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
// message built from values is a pattern (see runtime.Hole).
func requires(t *ir.Tool) []string {
	var out []string
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		switch x := st.(type) {
		case *ir.Require:
			out = append(out, messagePattern(x.Message, x.MessageExpr))
		case *ir.Fail:
			out = append(out, messagePattern(x.Message, x.MessageExpr))
		}
	}, nil)
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

func (g *generator) nestedSeedValues() *seedIndex {
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
		b, err := valueJSON(v, &base)
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
func (g *generator) seedValues(fn func(name string, t *ir.Type, v *ir.Value)) {
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

// conformanceFile renders Checks and Conformance: the seed checks, one
// check per tool that it succeeds on arguments taken from the seed, and
// the runtime's conformance checks (tool descriptions, tasks, solutions,
// determinism, isolation, bad arguments).
func (g *generator) conformanceFile(f *jen.File) {
	var probes []jen.Code
	for _, t := range g.w.Tools {
		var params []jen.Code
		for _, p := range t.Params {
			var cands []jen.Code
			for _, c := range g.candidates(t, p) {
				cands = append(cands, jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(c))))
			}
			params = append(params, jen.Values(jen.Dict{
				jen.Id("Name"):       jen.Lit(p.Name),
				jen.Id("Candidates"): jen.Index().Qual("encoding/json", "RawMessage").Values(cands...),
			}))
		}
		d := jen.Dict{
			jen.Id("Tool"):   jen.Lit(t.Name),
			jen.Id("Params"): jen.Index().Qual(rt, "ParamProbe").Values(params...),
		}
		if ex := append(g.examples(t), g.anchorExamples(t)...); len(ex) > 0 {
			var xs []jen.Code
			for _, e := range ex {
				xs = append(xs, jen.Qual("encoding/json", "RawMessage").Call(jen.Lit(string(e))))
			}
			d[jen.Id("Examples")] = jen.Index().Qual("encoding/json", "RawMessage").Values(xs...)
		}
		if reqs := requires(t); len(reqs) > 0 {
			var rs []jen.Code
			for _, r := range reqs {
				rs = append(rs, jen.Lit(r))
			}
			d[jen.Id("Requires")] = jen.Index().String().Values(rs...)
		}
		probes = append(probes, jen.Values(d))
	}
	f.Comment("toolProbes say where to look for arguments each tool accepts: candidate")
	f.Comment("values per parameter taken from the seed, enums and simple defaults.")
	f.Var().Id("toolProbes").Op("=").Index().Qual(rt, "ToolProbe").Values(probes...)
	f.Line()

	f.Comment("checkSeed checks that the world seed satisfies its types, refs,")
	f.Comment("constraints and invariants, and that every task's start state builds")
	f.Comment("and satisfies its constraints and refs.")
	f.Func().Id("checkSeed").Params().Error().Block(
		jen.List(jen.Id("s"), jen.Err()).Op(":=").Id("worldSeed").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("errs").Op(":=").Id("s").Dot("Validate").Call(),
		jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("s").Dot("CheckInvariants").Call()).Block(
			jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("the seed breaks an invariant: %s"), jen.Id("v")))),
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks")).Block(
			jen.List(jen.Id("st"), jen.Err()).Op(":=").Id("t").Dot("start").Call(),
			jen.If(jen.Err().Op("!=").Nil()).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Err()),
				jen.Continue(),
			),
			jen.For(jen.List(jen.Id("_"), jen.Err()).Op(":=").Range().Id("st").Dot("state").Dot("Validate").Call()).Block(
				jen.Id("errs").Op("=").Append(jen.Id("errs"), jen.Qual("fmt", "Errorf").Call(jen.Lit("task %s: %w"), jen.Id("t").Dot("info").Dot("ID"), jen.Err()))),
		),
		jen.Return(jen.Qual(rt, "Join").Call(jen.Id("errs"))),
	)
	f.Line()
	f.Comment("Checks are the world's conformance checks, each named for the report.")
	f.Func().Id("Checks").Params().Index().Qual(rt, "Check").Block(
		jen.Id("w").Op(":=").Id("World").Values(),
		jen.Id("starts").Op(":=").Index().String().Values(jen.Lit("")),
		jen.For(jen.List(jen.Id("_"), jen.Id("t")).Op(":=").Range().Id("tasks")).Block(
			jen.Id("starts").Op("=").Append(jen.Id("starts"), jen.Id("t").Dot("info").Dot("ID"))),
		jen.Id("checks").Op(":=").Index().Qual(rt, "Check").Values(jen.Values(jen.Dict{jen.Id("Name"): jen.Lit("seed"), jen.Id("Run"): jen.Id("checkSeed")})),
		jen.Id("probe").Op(":=").Qual("sync", "OnceValue").Call(jen.Func().Params().Index().Error().Block(
			jen.Return(jen.Qual(rt, "ProbeTools").Call(jen.Id("w"), jen.Id("starts"), jen.Id("toolProbes"))))),
		jen.For(jen.List(jen.Id("i"), jen.Id("p")).Op(":=").Range().Id("toolProbes")).Block(
			jen.Id("checks").Op("=").Append(jen.Id("checks"), jen.Qual(rt, "Check").Values(jen.Dict{
				jen.Id("Name"): jen.Lit("tool/").Op("+").Id("p").Dot("Tool"),
				jen.Id("Run"):  jen.Func().Params().Error().Block(jen.Return(jen.Id("probe").Call().Index(jen.Id("i")))),
			})),
		),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Index().Struct(
			jen.Id("name").String(),
			jen.Id("run").Func().Params(jen.Qual(rt, "World")).Index().Error(),
		).Values(
			jen.Values(jen.Lit("tools"), jen.Qual(rt, "CheckTools")),
			jen.Values(jen.Lit("tasks"), jen.Qual(rt, "CheckTasks")),
			jen.Values(jen.Lit("solutions"), jen.Qual(rt, "CheckSolutions")),
			jen.Values(jen.Lit("determinism"), jen.Qual(rt, "CheckDeterminism")),
			jen.Values(jen.Lit("isolation"), jen.Qual(rt, "CheckIsolation")),
			jen.Values(jen.Lit("bad-arguments"), jen.Qual(rt, "CheckBadArguments")),
		)).Block(
			jen.Id("run").Op(":=").Id("c").Dot("run"),
			jen.Id("checks").Op("=").Append(jen.Id("checks"), jen.Qual(rt, "Check").Values(jen.Dict{
				jen.Id("Name"): jen.Id("c").Dot("name"),
				jen.Id("Run"):  jen.Func().Params().Error().Block(jen.Return(jen.Qual(rt, "Join").Call(jen.Id("run").Call(jen.Id("w"))))),
			})),
		),
		jen.Return(jen.Id("checks")),
	)
	f.Line()
	f.Comment("Conformance runs every check and returns the failures, each naming its")
	f.Comment("check (and the task, step, tool or assertion concerned).")
	f.Func().Id("Conformance").Params().Index().Error().Block(jen.Return(jen.Qual(rt, "RunChecks").Call(jen.Id("Checks").Call())))
	f.Line()
}

// testFile renders world_test.go: one subtest per conformance check.
func (g *generator) testFile(f *jen.File) {
	f.Comment("TestConformance runs the world's conformance checks, one subtest each.")
	f.Func().Id("TestConformance").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("Checks").Call()).Block(
			jen.Id("t").Dot("Run").Call(jen.Id("c").Dot("Name"), jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
				jen.If(jen.Err().Op(":=").Id("c").Dot("Run").Call(), jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Error").Call(jen.Err())),
			)),
		),
	)
}

// decoderTests renders decoders_test.go, the differential tests of the
// generated decoders: the argument decoders against
// runtime.DecodeArgs (samples from the golden solutions, and a fuzz
// target), the seed decoders against encoding/json.
func (g *generator) decoderTests(f *jen.File) {
	var decs []jen.Code
	for _, t := range g.w.Tools {
		ti := g.tools[t]
		args := []jen.Code{jen.Id("raw"), jen.Op("&").Id("a")}
		for _, p := range t.Params {
			if p.Required() {
				args = append(args, jen.Lit(p.Name))
			}
		}
		decs = append(decs, jen.Values(jen.Dict{
			jen.Id("Tool"): jen.Lit(t.Name),
			jen.Id("Fast"): jen.Func().Params(jen.Id("raw").Index().Byte()).Parens(jen.List(jen.Any(), jen.Bool())).Block(
				jen.Var().Id("a").Id(ti.args),
				jen.Id("ok").Op(":=").Id("a").Dot("decode").Call(jen.String().Call(jen.Id("raw"))),
				jen.Return(jen.Id("a"), jen.Id("ok")),
			),
			jen.Id("Slow"): jen.Func().Params(jen.Id("raw").Index().Byte()).Parens(jen.List(jen.Any(), jen.Error())).Block(
				jen.Var().Id("a").Id(ti.args),
				jen.Err().Op(":=").Qual(rt, "DecodeArgs").Call(args...),
				jen.Return(jen.Id("a"), jen.Err()),
			),
		}))
	}
	f.Comment("argDecoders pairs the generated argument decoder of each tool with")
	f.Comment("runtime.DecodeArgs.")
	f.Func().Id("argDecoders").Params().Index().Qual(rt, "ArgDecoder").Block(
		jen.Return(jen.Index().Qual(rt, "ArgDecoder").Values(decs...)))
	f.Line()
	f.Comment("TestArgDecoders compares the generated argument decoders with")
	f.Comment("runtime.DecodeArgs on the golden solutions' arguments and variations.")
	f.Func().Id("TestArgDecoders").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.For(jen.List(jen.Id("_"), jen.Err()).Op(":=").Range().Qual(rt, "CheckArgDecoders").Call(jen.Id("New").Call(), jen.Id("argDecoders").Call())).Block(
			jen.Id("t").Dot("Error").Call(jen.Err())),
	)
	f.Line()
	f.Comment("FuzzArgDecoders compares the generated argument decoders with")
	f.Comment("runtime.DecodeArgs on any input.")
	f.Func().Id("FuzzArgDecoders").Params(jen.Id("f").Op("*").Qual("testing", "F")).Block(
		jen.Id("ds").Op(":=").Id("argDecoders").Call(),
		jen.If(jen.Len(jen.Id("ds")).Op("==").Lit(0)).Block(jen.Return()),
		jen.Id("samples").Op(":=").Qual(rt, "ArgSamples").Call(jen.Id("New").Call()),
		jen.For(jen.List(jen.Id("i"), jen.Id("d")).Op(":=").Range().Id("ds")).Block(
			jen.For(jen.List(jen.Id("_"), jen.Id("raw")).Op(":=").Range().Id("samples").Index(jen.Id("d").Dot("Tool"))).Block(
				jen.Id("f").Dot("Add").Call(jen.Uint().Call(jen.Id("i")), jen.Id("raw")))),
		jen.Id("f").Dot("Fuzz").Call(jen.Func().Params(jen.Id("t").Op("*").Qual("testing", "T"), jen.Id("i").Uint(), jen.Id("raw").Index().Byte()).Block(
			jen.If(jen.Err().Op(":=").Qual(rt, "CheckArgDecoding").Call(jen.Id("ds").Index(jen.Id("i").Op("%").Uint().Call(jen.Len(jen.Id("ds")))), jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(
				jen.Id("t").Dot("Fatal").Call(jen.Err())),
		)),
	)
	f.Line()
	f.Comment("TestSeedDecoders: the generated decoders read seed.json, and read it")
	f.Comment("as encoding/json does.")
	f.Func().Id("TestSeedDecoders").Params(jen.Id("t").Op("*").Qual("testing", "T")).Block(
		jen.List(jen.Id("fast"), jen.Id("ok")).Op(":=").Id("decodeSeed").Call(),
		jen.If(jen.Op("!").Id("ok")).Block(jen.Id("t").Dot("Fatal").Call(jen.Lit("the generated decoders cannot read seed.json"))),
		jen.Id("d").Op(":=").Qual("encoding/json", "NewDecoder").Call(jen.Qual("strings", "NewReader").Call(jen.Id("seedJSON"))),
		jen.Id("d").Dot("DisallowUnknownFields").Call(),
		jen.Var().Id("slow").Id("seedData"),
		jen.If(jen.Err().Op(":=").Id("d").Dot("Decode").Call(jen.Op("&").Id("slow")), jen.Err().Op("!=").Nil()).Block(jen.Id("t").Dot("Fatal").Call(jen.Err())),
		jen.If(jen.Op("!").Qual("reflect", "DeepEqual").Call(jen.Id("fast"), jen.Op("&").Id("slow"))).Block(
			jen.Id("t").Dot("Error").Call(jen.Lit("the generated decoders read seed.json otherwise than encoding/json"))),
	)
}
