package tasks

import (
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// Inner ids: a value a call passes that is the id of something inside a
// record — an item of an order, a payment method of a user, a variant of
// a product — is not what a user says. The words describe the thing
// instead (“the Desk Lamp with color red”, “the gift card”), by the
// members that tell it apart from the others beside it, and the solution
// reads the record that holds it first, so that the id is in an
// observation when the call needs it.

// inner is one thing inside a record that an argument names.
type inner struct {
	holder recKey
	text   string
	facts  []string
}

// findInner looks for s as an inner id of the records related to the
// call's records: a key of a map of objects, or an `id` or `…_id` member
// of an object inside a field.
//
// The fields named like the parameter are looked in first (for
// payment_method_id, a user's payment_methods, before the payments of an
// order that refer to the method), then every field of the records in
// order (the call's own records first).
func (x *synth) findInner(st *eval.State, related []recKey, s, param string) *inner {
	stem := strings.TrimSuffix(strings.TrimSuffix(param, "s"), "_id")
	for pass := 0; pass < 2; pass++ {
		if in := x.findInnerPass(st, related, s, stem, pass == 0); in != nil {
			return in
		}
	}
	return nil
}

func (x *synth) findInnerPass(st *eval.State, related []recKey, s, stem string, named bool) *inner {
	for _, r := range related {
		rec := x.record(st, r.e, r.id)
		for _, k := range sortedKeys(rec) {
			if named && (stem == "" || !strings.HasPrefix(k, stem)) {
				continue
			}
			if obj, sibs := innerObject(rec[k], s, 0); obj != nil {
				text, facts := x.innerText(obj, sibs, s)
				if text == "" {
					continue
				}
				return &inner{holder: r, text: text, facts: facts}
			}
		}
	}
	return nil
}

// innerObject finds, inside v, the object s is the id of, and the objects
// beside it (in the same list or map).
func innerObject(v any, s string, depth int) (map[string]any, []map[string]any) {
	if depth > 4 {
		return nil, nil
	}
	objects := func(vals []any) []map[string]any {
		var out []map[string]any
		for _, e := range vals {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
		return out
	}
	isID := func(m map[string]any) bool {
		for k, e := range m {
			if (k == "id" || strings.HasSuffix(k, "_id")) && e == s {
				return true
			}
		}
		return false
	}
	switch y := v.(type) {
	case map[string]any:
		if o, ok := y[s].(map[string]any); ok {
			var vals []any
			for _, k := range sortedKeys(y) {
				vals = append(vals, y[k])
			}
			return o, objects(vals)
		}
		for _, k := range sortedKeys(y) {
			if o, sibs := innerObject(y[k], s, depth+1); o != nil {
				return o, sibs
			}
		}
	case []any:
		sibs := objects(y)
		for _, m := range sibs {
			if isID(m) {
				return m, sibs
			}
		}
		for _, e := range y {
			if o, sibs := innerObject(e, s, depth+1); o != nil {
				return o, sibs
			}
		}
	}
	return nil, nil
}

// innerText describes obj by the fewest of its members (its name first,
// then other texts and kinds, the entries of small maps such as options)
// that no other object beside it shares; "" when none does.
func (x *synth) innerText(obj map[string]any, sibs []map[string]any, s string) (string, []string) {
	type member struct {
		key, text string
		match     func(map[string]any) bool
	}
	var members []member
	for _, k := range sortedKeys(obj) {
		if k == "id" || strings.HasSuffix(k, "_id") {
			continue
		}
		switch v := obj[k].(type) {
		case string:
			if v == s || v == "" || x.internal[v] {
				continue
			}
			text := strings.ReplaceAll(v, "_", " ")
			if k == "name" {
				text = "“" + v + "”"
			} else {
				text = humanize(k) + " " + text
			}
			kk, vv := k, v
			members = append(members, member{k, text, func(m map[string]any) bool { return m[kk] == vv }})
		case map[string]any:
			if len(v) > 4 {
				continue
			}
			for _, mk := range sortedKeys(v) {
				mv, ok := v[mk].(string)
				if !ok {
					continue
				}
				kk, mkk, mvv := k, mk, mv
				members = append(members, member{k + "." + mk, humanize(mk) + " " + mv, func(m map[string]any) bool {
					inner, _ := m[kk].(map[string]any)
					return inner != nil && inner[mkk] == mvv
				}})
			}
		}
	}
	// The name first, then the rest in key order.
	slices.SortStableFunc(members, func(a, b member) int {
		switch {
		case a.key == "name" && b.key != "name":
			return -1
		case b.key == "name" && a.key != "name":
			return 1
		}
		return 0
	})
	var chosen []member
	// Copies of obj (the same item bought twice) are as good as obj.
	others := slices.DeleteFunc(slices.Clone(sibs), func(m map[string]any) bool {
		id, _ := atom(m["id"])
		return sameObject(m, obj) || id == s
	})
	for _, m := range members {
		if len(others) == 0 && len(chosen) > 0 {
			break
		}
		chosen = append(chosen, m)
		others = slices.DeleteFunc(others, func(o map[string]any) bool { return !m.match(o) })
	}
	if len(chosen) == 0 || len(others) > 0 {
		return "", nil
	}
	var texts []string
	for _, m := range chosen {
		texts = append(texts, m.text)
	}
	head := "the one"
	rest := texts
	switch {
	case chosen[0].key == "name":
		head, rest = "the "+texts[0], texts[1:]
	case len(chosen) == 1 && slices.Contains([]string{"source", "kind", "type", "brand"}, chosen[0].key):
		// A payment method told apart by its kind: "the paypal one".
		v, _ := obj[chosen[0].key].(string)
		return "the " + strings.ReplaceAll(v, "_", " ") + " one", []string{strings.ReplaceAll(v, "_", " ")}
	}
	if len(rest) > 0 {
		head += " with " + strings.Join(rest, " and ")
	}
	return head, texts
}

func sameObject(a, b map[string]any) bool {
	return string(toJSON(a)) == string(toJSON(b))
}

// reader is a read tool that shows a record of e given its id.
func (x *synth) reader(e *ir.Entity) *toolFacts {
	for _, f := range x.facts {
		if f.writer() || !slices.Contains(f.shows, e) {
			continue
		}
		n := 0
		var idParam *ir.Param
		for _, p := range f.tool.Params {
			if p.Required() {
				n++
				if f.names[p] == e {
					idParam = p
				}
			}
		}
		if n == 1 && idParam != nil {
			return f
		}
	}
	return nil
}

// observe adds to g a read of the record r, when no observation showed
// it yet, so that the ids inside it are seen; false when no read tool
// can show it from what the task knows.
func (x *synth) observe(st *eval.State, r recKey, g *groundCtx) bool {
	f := x.reader(r.e)
	if f == nil {
		return false
	}
	if x.observed(g, r) {
		return true
	}
	if !g.obs[r.id] && !x.keyKnown[r.e] {
		return false
	}
	var p *ir.Param
	for _, q := range f.tool.Params {
		if f.names[q] == r.e {
			p = q
		}
	}
	args := []arg{{p: p, v: r.id}}
	data, terr, broke := x.call(st.Clone(), f.tool, args)
	if terr != nil || broke {
		return false
	}
	g.addCall(&call{tool: f.tool, args: args, obs: decode(data.JSON()), lookup: true})
	g.lookups++
	return true
}

// observed reports whether a call of the task already showed record r
// whole.
func (x *synth) observed(g *groundCtx, r recKey) bool {
	for _, c := range g.calls {
		for _, m := range resultRecords(c.obs, r.e) {
			if recordID(m, r.e) == r.id {
				return true
			}
		}
	}
	return false
}
