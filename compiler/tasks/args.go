package tasks

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// Arguments are drawn from the state: the ids of records (those the
// chain touched first), the values of fields of the same name in the
// records the call's other arguments name (and the records those refer
// to), the constants and fields the tool compares a parameter with, the
// values of fields of that name anywhere in the start state, and a few
// plain values of the parameter's type.

// maxArgSets bounds the argument sets tried for one call.
const maxArgSets = 16

// argSets draws up to n argument sets for t in st; focus are the records
// to use first.
func (x *synth) argSets(st *eval.State, t *ir.Tool, focus []recKey, n int) [][]arg {
	f := x.byTool[t]
	// The records each naming parameter may take.
	refs := make([][]any, len(t.Params))
	for i, p := range t.Params {
		e := f.names[p]
		if e == nil {
			continue
		}
		refs[i] = x.idChoices(st, e, focus)
		if len(refs[i]) == 0 && p.Required() {
			return nil
		}
	}
	var out [][]arg
	seen := map[string]bool{}
	// The records related to those an argument set names, and the value
	// choices they give each parameter, by the records named: drawn again
	// and again, they are worked out once.
	memos := map[string]*argMemo{}
	for try := 0; try < 3*n && len(out) < n; try++ {
		var args []arg
		var named []recKey
		ok := true
		for i, p := range t.Params {
			e := f.names[p]
			if e == nil {
				continue
			}
			if !p.Required() && x.rng.IntN(3) > 0 {
				continue
			}
			if len(refs[i]) == 0 {
				continue
			}
			id := pick(x, refs[i]).(string)
			named = append(named, recKey{e, id})
			var v any = id
			if p.Type.Kind == ir.KindList {
				v = []any{id}
			}
			args = append(args, arg{p: p, v: v})
		}
		mk := memoKey(named)
		m := memos[mk]
		if m == nil {
			m = &argMemo{related: x.relatedKeys(st, named), base: map[*ir.Param][]any{}}
			memos[mk] = m
		}
		for _, p := range t.Params {
			if f.names[p] != nil {
				continue
			}
			choices := x.valueChoices(st, t, p, m.related, m.base)
			if len(choices) == 0 {
				if p.Required() {
					ok = false
					break
				}
				continue
			}
			v := pick(x, choices)
			if v == nil {
				continue
			}
			args = append(args, arg{p: p, v: v})
		}
		if !ok {
			continue
		}
		sortArgs(t, args)
		key := string(argsJSON(args))
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, args)
	}
	return out
}

// argMemo holds, for the records an argument set names, the records
// related to them and the value choices they give (baseChoices), by
// parameter.
type argMemo struct {
	related []recKey
	base    map[*ir.Param][]any
}

func memoKey(named []recKey) string {
	var b strings.Builder
	for _, r := range named {
		b.WriteString(r.e.Name)
		b.WriteByte(0)
		b.WriteString(r.id)
		b.WriteByte(0)
	}
	return b.String()
}

// pick chooses among choices, the first ones (the values of the records
// the call names, before the world's at large) far more often.
func pick(x *synth, choices []any) any {
	u := x.rng.Float64()
	return choices[int(float64(len(choices))*u*u*u)]
}

// sortArgs puts args in the tool's parameter order.
func sortArgs(t *ir.Tool, args []arg) {
	pos := func(p *ir.Param) int { return slices.Index(t.Params, p) }
	slices.SortFunc(args, func(a, b arg) int { return pos(a.p) - pos(b.p) })
}

// idChoices are ids of e: the focus records of e, then the records the
// focus records refer to, then up to 12 others of st (in a random order).
func (x *synth) idChoices(st *eval.State, e *ir.Entity, focus []recKey) []any {
	var out []any
	has := map[string]bool{}
	add := func(id string) {
		if !has[id] {
			has[id] = true
			out = append(out, id)
		}
	}
	for _, r := range focus {
		if r.e == e {
			add(r.id)
		}
	}
	// The records the focus records refer to, two refs away at most.
	for _, rec := range x.relatedKeys(st, focus) {
		if rec.e == e {
			add(rec.id)
		}
	}
	// Others of the start state: a record a call created that no call
	// returned has no name a solution can pass.
	ids := x.startIDs(e)
	if len(ids) > 0 {
		for k := 0; k < 12 && k < len(ids); k++ {
			add(ids[x.rng.IntN(len(ids))])
		}
	}
	return out
}

// relatedKeys are the records named and those they refer to, two refs
// away at most, in the order met.
func (x *synth) relatedKeys(st *eval.State, named []recKey) []recKey {
	var out []recKey
	seen := map[recKey]bool{}
	var add func(r recKey, depth int)
	add = func(r recKey, depth int) {
		if seen[r] {
			return
		}
		seen[r] = true
		rec := x.record(st, r.e, r.id)
		if rec == nil {
			return
		}
		out = append(out, r)
		if depth >= 2 {
			return
		}
		for _, fl := range r.e.Fields {
			if fl.Type.Kind == ir.KindRef {
				if id, ok := rec[fl.Name].(string); ok {
					add(recKey{fl.Type.Entity, id}, depth+1)
				}
			}
		}
		// Keys of keyed entities inside composite values (an order's
		// items name their products).
		idx := x.members(st, r)
		for _, e := range x.w.Entities {
			if e.Key == nil {
				continue
			}
			for _, v := range idx[e.Key.Name] {
				if id, ok := v.(string); ok && (e != r.e || id != r.id) {
					add(recKey{e, id}, depth+1)
				}
			}
		}
	}
	for _, r := range named {
		add(r, 0)
	}
	return out
}

// index maps every member name of a record to its values, at any depth:
// the record's own field first, then the members of that name inside its
// fields, in key order (what memberValues gives).
func index(rec map[string]any) map[string][]any {
	idx := map[string][]any{}
	if rec == nil {
		return idx
	}
	keys := sortedKeys(rec)
	for _, k := range keys {
		idx[k] = append(idx[k], rec[k])
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 5 {
			return
		}
		switch y := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(y) {
				idx[k] = append(idx[k], y[k])
				walk(y[k], depth+1)
			}
		case []any:
			for _, e := range y {
				walk(e, depth+1)
			}
		}
	}
	for _, k := range keys {
		walk(rec[k], 1)
	}
	return idx
}

// names are the field names whose values a parameter may take: its name,
// its singular for a list, and the endings of those (new_item_ids →
// item_id).
func paramNames(p *ir.Param) []string {
	base := p.Name
	names := []string{base}
	if p.Type.Kind == ir.KindList && strings.HasSuffix(base, "s") {
		base = strings.TrimSuffix(base, "s")
		names = append(names, base)
	}
	parts := strings.Split(base, "_")
	for i := 1; i < len(parts)-1; i++ {
		names = append(names, strings.Join(parts[i:], "_"))
	}
	return names
}

// distinctValues collects values that fit a type, each once (by its
// atom), in the order added.
type distinctValues struct {
	elem *ir.Type
	out  []any
	has  map[string]bool
}

func (d *distinctValues) add(v any) {
	if !fits(v, d.elem) {
		return
	}
	a, _ := atom(v)
	if d.has[a] {
		return
	}
	d.has[a] = true
	d.out = append(d.out, v)
}

// valueChoices are the values a non-naming parameter may take, best
// first; a leading nil means leaving an optional parameter out. memo, when
// not nil, holds the choices baseChoices gave for the same related
// records.
func (x *synth) valueChoices(st *eval.State, t *ir.Tool, p *ir.Param, related []recKey, memo map[*ir.Param][]any) []any {
	typ := p.Type
	elem := typ
	if typ.Kind == ir.KindList {
		elem = typ.Elem
	}
	dv := &distinctValues{elem: elem, has: map[string]bool{}}
	add := dv.add
	if !p.Required() && x.rng.IntN(2) == 0 {
		dv.out = append(dv.out, nil)
		dv.has["\x00nil"] = true
	}
	switch elem.Kind {
	case ir.KindEnum:
		for _, c := range x.consts[p] {
			add(c)
		}
		vals := slices.Clone(elem.Enum.Values)
		x.rng.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		for _, v := range vals {
			add(v)
		}
	case ir.KindBool:
		if x.rng.IntN(2) == 0 {
			add(true)
			add(false)
		} else {
			add(false)
			add(true)
		}
	default:
		base, ok := memo[p]
		if !ok {
			base = x.baseChoices(st, p, related)
			if memo != nil {
				memo[p] = base
			}
		}
		return append(dv.out, base...)
	}
	if typ.Kind == ir.KindList {
		for i, v := range dv.out {
			if v != nil {
				dv.out[i] = []any{v}
			}
		}
	}
	return dv.out
}

// baseChoices are the choices of valueChoices for a parameter that is
// not an enum nor a bool, without the leading nil: they draw nothing at
// random.
func (x *synth) baseChoices(st *eval.State, p *ir.Param, related []recKey) []any {
	typ := p.Type
	elem := typ
	if typ.Kind == ir.KindList {
		elem = typ.Elem
	}
	dv := &distinctValues{elem: elem, has: map[string]bool{}}
	add := dv.add
	switch elem.Kind {
	case ir.KindStruct, ir.KindMap, ir.KindList:
		// A value record, a map, a list of lists: values of the same
		// shape held by the records, else one built from the fields.
		for _, r := range related {
			for _, n := range paramNames(p) {
				for _, v := range x.members(st, r)[n] {
					if shaped(v, elem) {
						dv.out = append(dv.out, v)
					}
				}
			}
		}
		for _, n := range paramNames(p) {
			for _, v := range x.values[n] {
				if shaped(v, elem) {
					dv.out = append(dv.out, v)
				}
			}
		}
		dv.out = append(dv.out, x.composite(elem, 0))
		if typ.Kind == ir.KindList {
			for i, v := range dv.out {
				if v != nil {
					dv.out[i] = []any{v}
				}
			}
		}
		return dv.out
	default:
		if freeText(p, elem) || elem.Kind == ir.KindText {
			// A reason or a note: words of the user's, not a value
			// copied from another record (another claim's findings, a
			// return's note); the constants and fields the tool
			// compares it with, when it must match one.
			for _, v := range x.plainValues(p, elem) {
				add(v)
			}
			for _, c := range x.consts[p] {
				add(c)
			}
			for _, r := range related {
				for _, n := range x.compared[p] {
					for _, v := range x.members(st, r)[n] {
						add(v)
					}
				}
			}
			break
		}
		names := paramNames(p)
		for _, r := range related {
			idx := x.members(st, r)
			for _, n := range names {
				for _, v := range idx[n] {
					add(v)
				}
			}
			rec := x.record(st, r.e, r.id)
			// payment_method_id: the ids (and keys) of the payment
			// methods the records hold.
			if stem, ok := strings.CutSuffix(p.Name, "_id"); ok {
				for _, k := range sortedKeys(rec) {
					if strings.HasPrefix(k, stem) {
						for _, v := range idsInside(rec[k]) {
							add(v)
						}
					}
				}
			}
		}
		for _, c := range x.consts[p] {
			add(c)
		}
		for _, r := range related {
			for _, n := range x.compared[p] {
				for _, v := range x.members(st, r)[n] {
					add(v)
				}
			}
		}
		for _, n := range names {
			for _, v := range x.values[n] {
				add(v)
			}
		}
		// Values like those, but new: an unused number or code of the
		// same form (a CPF, a SIM card), a price a little off; first for
		// a parameter that must be new (a unique field's value).
		var vars []any
		for _, v := range dv.out {
			vars = append(vars, x.variants(v, elem, x.fresh[p])...)
		}
		if x.fresh[p] {
			old := dv.out
			dv.out, dv.has = nil, map[string]bool{}
			for _, v := range vars {
				add(v)
			}
			for _, v := range old {
				add(v)
			}
		} else {
			for _, v := range vars {
				add(v)
			}
		}
		// Plain values last; for text, only when nothing else fits (a
		// made-up country is worse than a real one).
		if !elem.Kind.Textual() || len(dv.out) == 0 {
			for _, v := range x.plainValues(p, elem) {
				add(v)
			}
		}
	}
	if typ.Kind == ir.KindList {
		for i, v := range dv.out {
			if v != nil {
				dv.out[i] = []any{v}
			}
		}
	}
	return dv.out
}

// variants are values of the form of v that differ from it: for a value
// that must be new, a string whose last digit changes (several ways) or
// gets one; a number 10% up or down.
func (x *synth) variants(v any, t *ir.Type, fresh bool) []any {
	switch y := v.(type) {
	case string:
		if !t.Kind.Textual() {
			return nil
		}
		i := strings.LastIndexFunc(y, func(r rune) bool { return r >= '0' && r <= '9' })
		if !fresh {
			// A changed code that need not be new is a made-up one.
			return nil
		}
		if i < 0 {
			// No digit, for a value that must be new: one before an
			// e-mail's @, or at the end.
			if at := strings.LastIndexByte(y, '@'); at > 0 {
				return []any{y[:at] + "2" + y[at:], y[:at] + "7" + y[at:]}
			}
			return []any{y + " 2"}
		}
		var out []any
		for _, d := range []byte{3, 7} {
			b := []byte(y)
			b[i] = '0' + (b[i]-'0'+d)%10
			out = append(out, string(b))
		}
		return out
	case json.Number:
		f, err := strconv.ParseFloat(string(y), 64)
		if err != nil || f == 0 {
			return nil
		}
		switch t.Kind {
		case ir.KindInt:
			n := int64(f)
			return []any{jsonNumber(strconv.FormatInt(n+1, 10)), jsonNumber(strconv.FormatInt(max(n-1, 1), 10))}
		case ir.KindDecimal, ir.KindMoney:
			d := 2
			if x.money >= 0 && t.Kind == ir.KindMoney {
				d = x.money
			}
			return []any{jsonNumber(canonNumber(strconv.FormatFloat(f*1.1, 'f', d, 64))), jsonNumber(canonNumber(strconv.FormatFloat(f*0.9, 'f', d, 64)))}
		}
	}
	return nil
}

// shaped reports whether a decoded JSON value has the shape of t: an
// object for a value record or a map, an array for a list.
func shaped(v any, t *ir.Type) bool {
	switch v.(type) {
	case map[string]any:
		return t.Kind == ir.KindStruct || t.Kind == ir.KindMap
	case []any:
		return t.Kind == ir.KindList
	}
	return false
}

// composite builds a value of type t from the world's values: a value
// record with its first case and every required field, an empty map or
// list, a scalar of the fields' values or a plain one.
func (x *synth) composite(t *ir.Type, depth int) any {
	switch t.Kind {
	case ir.KindStruct:
		obj := map[string]any{}
		sd := t.Struct
		fields := sd.Fields
		if sd.Tag != nil && len(sd.Cases) > 0 {
			c := sd.Cases[0]
			obj[sd.Tag.Name] = c.Name
			fields = append(slices.Clone(fields), c.Fields...)
		}
		for _, f := range fields {
			if !f.Required() || depth > 4 {
				continue
			}
			obj[f.Name] = x.fieldValue(f, depth+1)
		}
		return obj
	case ir.KindMap:
		return map[string]any{}
	case ir.KindList:
		return []any{}
	}
	return nil
}

// fieldValue is a value for a field of a value record: one the world's
// records hold under its name, else a plain one of its type.
func (x *synth) fieldValue(f *ir.Field, depth int) any {
	t := f.Type
	switch t.Kind {
	case ir.KindStruct, ir.KindMap, ir.KindList:
		return x.composite(t, depth)
	case ir.KindEnum:
		return t.Enum.Values[0]
	case ir.KindBool:
		return false
	}
	for _, v := range x.values[f.Name] {
		if fits(v, t) && satisfies(v, f) {
			return v
		}
	}
	for _, v := range x.plainValues(&ir.Param{Name: f.Name, Type: t}, t) {
		if satisfies(v, f) {
			return v
		}
	}
	return nil
}

// satisfies reports whether a number keeps a field's bounds (other values
// have none).
func satisfies(v any, f *ir.Field) bool {
	n, ok := v.(json.Number)
	if !ok {
		return true
	}
	x, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return false
	}
	for _, b := range f.Bounds {
		var y float64
		switch b.Value.Kind {
		case ir.KindInt:
			y = float64(b.Value.Int)
		default:
			if b.Value.Dec != "" {
				y, _ = strconv.ParseFloat(b.Value.Dec, 64)
			} else {
				y = b.Value.Num
			}
		}
		switch b.Op {
		case ">=":
			ok = x >= y
		case ">":
			ok = x > y
		case "<=":
			ok = x <= y
		case "<":
			ok = x < y
		}
		if !ok {
			return false
		}
	}
	return true
}

// idsInside are the ids of the objects inside v (their "id" members) and
// the keys of a map of objects.
func idsInside(v any) []any {
	var out []any
	switch y := v.(type) {
	case map[string]any:
		if id, ok := y["id"].(string); ok {
			return []any{id}
		}
		for _, k := range sortedKeys(y) {
			if _, isObj := y[k].(map[string]any); isObj {
				out = append(out, k)
			}
		}
	case []any:
		for _, e := range y {
			if m, ok := e.(map[string]any); ok {
				if id, ok := m["id"].(string); ok {
					out = append(out, id)
				}
			}
		}
	}
	return out
}

// fits reports whether a decoded JSON value is one of type t (a scalar).
func fits(v any, t *ir.Type) bool {
	switch y := v.(type) {
	case string:
		switch t.Kind {
		case ir.KindString, ir.KindText:
			return true
		case ir.KindEnum:
			return t.Enum.Has(y)
		case ir.KindDate:
			return len(y) == 10 && y[4] == '-' && y[7] == '-'
		case ir.KindDateTime:
			return len(y) >= 16 && y[10] == 'T'
		case ir.KindRef:
			return true
		}
	case json.Number:
		switch t.Kind {
		case ir.KindInt:
			_, err := strconv.ParseInt(string(y), 10, 64)
			return err == nil
		case ir.KindDecimal, ir.KindMoney:
			return !strings.ContainsAny(string(y), "eE")
		}
	case bool:
		return t.Kind == ir.KindBool
	}
	return false
}

// texts are free texts for parameters that take one, by what the name
// says it is.
var texts = map[string][]string{
	"reason":      {"Requested by the customer", "Customer changed their plans", "Entered by mistake", "No longer required"},
	"note":        {"Checked with the customer by phone", "Confirmed with the team lead", "Verified against the paperwork"},
	"description": {"Reported by the customer on the phone", "Details confirmed in writing"},
	"summary":     {"Customer request handled by the service desk", "Follow-up on a customer call"},
	"findings":    {"Damage confirmed on inspection; the estimate stands", "Inspection done; the figures match the invoices"},
	"comment":     {"Discussed with the customer by phone", "Agreed in the weekly review"},
}

// people are names for a parameter that takes a person's name (an
// analyst, an approver) when no record holds one under its name.
var people = []string{"Claire Martin", "Jonas Weber", "Sofia Rossi", "Daniel Okafor"}

// personRoles are the last words of a parameter's name that say it
// takes a person's name.
var personRoles = []string{"analyst", "agent", "approver", "assignee", "reviewer", "inspector", "technician", "officer", "manager", "clerk", "handler", "operator", "engineer", "requester", "requestor", "contact", "signatory", "witness", "person", "author"}

// freeText reports whether a parameter takes free text (a reason, a
// note), which the user words.
func freeText(p *ir.Param, t *ir.Type) bool {
	if !t.Kind.Textual() {
		return false
	}
	for k := range textsInOrder() {
		if strings.Contains(p.Name, k) {
			return true
		}
	}
	return false
}

// plainValues are simple values of a parameter's type.
func (x *synth) plainValues(p *ir.Param, t *ir.Type) []any {
	switch t.Kind {
	case ir.KindInt:
		return []any{jsonNumber("1"), jsonNumber("2"), jsonNumber("3"), jsonNumber("5"), jsonNumber("10")}
	case ir.KindDecimal, ir.KindMoney:
		return []any{jsonNumber("10"), jsonNumber("25"), jsonNumber("50"), jsonNumber("100")}
	case ir.KindDate:
		return []any{x.w.Today, addDays(x.w.Today, -1), addDays(x.w.Today, 7), addDays(x.w.Today, -7), addDays(x.w.Today, 14)}
	case ir.KindDateTime:
		return []any{addDays(x.w.Today, 1) + "T09:00:00Z", addDays(x.w.Today, 2) + "T14:00:00Z"}
	case ir.KindString, ir.KindText:
		for k, ts := range textsInOrder() {
			if strings.Contains(p.Name, k) {
				out := make([]any, len(ts))
				for i, s := range ts {
					out[i] = s
				}
				return out
			}
		}
		ws := strings.Fields(humanize(p.Name))
		if t.Kind == ir.KindString && len(ws) > 0 && slices.Contains(personRoles, ws[len(ws)-1]) {
			out := make([]any, len(people))
			for i, s := range people {
				out[i] = s
			}
			return out
		}
		words := strings.Join(ir.Words(p.Name), " ")
		if t.Kind == ir.KindText {
			return []any{"Recorded for " + words + " as agreed with the customer"}
		}
		return []any{strings.ToUpper(words[:1]) + words[1:] + " as agreed"}
	}
	return nil
}

// textsInOrder yields texts by key in sorted order.
func textsInOrder() func(yield func(string, []string) bool) {
	return func(yield func(string, []string) bool) {
		keys := make([]string, 0, len(texts))
		for k := range texts {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !yield(k, texts[k]) {
				return
			}
		}
	}
}
