package compiler

import (
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// untypedComposite reports whether e is a list or map literal whose type
// its context has not given yet (`[a, b]`, `{ "k": v }`, `[]`, `{}`).
func untypedComposite(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.ListLit:
		return x.T.Elem == nil || x.T.Elem.Kind == ir.KindInvalid
	case *ir.MapLit:
		return x.T.Elem == nil || x.T.Elem.Kind == ir.KindInvalid
	case *ir.Cond:
		// A conditional of such literals (or null), typed by its context.
		return untypedCond(x) && (untypedComposite(x.Then) || untypedComposite(x.Else))
	}
	return false
}

// untypedList and untypedMap are the types of literals before their
// context types them.
func untypedList() *ir.Type { return &ir.Type{Kind: ir.KindList, Elem: invalidT} }
func untypedMap() *ir.Type  { return &ir.Type{Kind: ir.KindMap, Elem: invalidT} }

// literalElems returns the element expressions of a list or map literal.
func literalElems(e ir.Expr) []ir.Expr {
	switch x := e.(type) {
	case *ir.ListLit:
		return x.Elems
	case *ir.MapLit:
		out := make([]ir.Expr, len(x.Entries))
		for i, en := range x.Entries {
			out[i] = en.Value
		}
		return out
	}
	return nil
}

// inferComposite types a list or map literal that no context types, from
// its elements: the first element's type, widened to decimal or money when
// numbers of several kinds meet.
func (c *checker) inferComposite(e ir.Expr, end dsl.Pos) ir.Expr {
	elems := literalElems(e)
	kind := "list"
	if _, isMap := e.(*ir.MapLit); isMap {
		kind = "map"
	}
	if len(elems) == 0 {
		empty := "[]"
		decl := "list<string>"
		if kind == "map" {
			empty, decl = "{}", "map<string, int>"
		}
		c.errorf(diag.TypeMismatch, dsl.Pos(e.Position()), end, "the type of the empty %s %s is unknown here; give it a type by its context, e.g. var x: %s = %s", kind, empty, decl, empty)
		return invalid(e.Position())
	}
	var elem *ir.Type
	for _, el := range elems {
		el = c.settle(el, end)
		if isInvalid(el) {
			return invalid(e.Position())
		}
		t := el.Type()
		switch {
		case t.Kind == ir.KindNull:
		case elem == nil:
			elem = nonOptional(t)
		case elem.Kind.Numeric() && t.Kind.Numeric() && t.Kind != ir.KindInt && elem.Kind != t.Kind:
			elem = &ir.Type{Kind: numericResult(elem.Kind, t.Kind)}
		}
	}
	if elem == nil {
		c.errorf(diag.TypeMismatch, dsl.Pos(e.Position()), end, "the element type of a %s of nulls is unknown; elements cannot be null", kind)
		return invalid(e.Position())
	}
	want := &ir.Type{Kind: ir.KindList, Elem: elem}
	if kind == "map" {
		want.Kind = ir.KindMap
	}
	return c.typeComposite(e, want, end, kind+" element")
}

// typeComposite gives a list or map literal the type want, typing its
// elements by want's element type.
func (c *checker) typeComposite(e ir.Expr, want *ir.Type, end dsl.Pos, what string) ir.Expr {
	pos := e.Position()
	t := nonOptional(want)
	switch x := e.(type) {
	case *ir.ListLit:
		if want.Kind != ir.KindList {
			c.errorf(diag.TypeMismatch, dsl.Pos(pos), end, "%s: expected %s, got a list", what, want)
			return invalid(pos)
		}
		elems := make([]ir.Expr, len(x.Elems))
		ok := true
		for i, el := range x.Elems {
			elems[i] = c.coerce(el, want.Elem, end, "list element")
			ok = ok && !isInvalid(elems[i])
		}
		if !ok {
			return invalid(pos)
		}
		return &ir.ListLit{ExprBase: base(t, pos), Elems: elems}
	case *ir.MapLit:
		if want.Kind != ir.KindMap {
			c.errorf(diag.TypeMismatch, dsl.Pos(pos), end, "%s: expected %s, got a map", what, want)
			return invalid(pos)
		}
		entries := make([]ir.MapLitEntry, len(x.Entries))
		ok := true
		for i, en := range x.Entries {
			entries[i] = ir.MapLitEntry{Key: en.Key, Value: c.coerce(en.Value, want.Elem, end, "map value")}
			ok = ok && !isInvalid(entries[i].Value)
		}
		if !ok {
			return invalid(pos)
		}
		return &ir.MapLit{ExprBase: base(t, pos), Entries: entries}
	}
	return e
}

// mapLit checks `{ "k": v, … }`; the keys are sorted, the values typed
// later by the context (or inferred).
func (c *checker) mapLit(m *dsl.MapLit, s *scope) ir.Expr {
	seen := map[string]*dsl.MapEntry{}
	entries := make([]ir.MapLitEntry, 0, len(m.Entries))
	for _, en := range m.Entries {
		v := c.expr(en.Value, s)
		if first := seen[en.Key]; first != nil {
			c.errorf(diag.DuplicateName, en.Pos, en.EndPos, "duplicate key %q, first at %s", en.Key, short(first.Pos))
			continue
		}
		seen[en.Key] = en
		entries = append(entries, ir.MapLitEntry{Key: en.Key, Value: v})
	}
	slices.SortStableFunc(entries, func(a, b ir.MapLitEntry) int { return strings.Compare(a.Key, b.Key) })
	return &ir.MapLit{ExprBase: base(untypedMap(), m.Pos), Entries: entries}
}

// structLit checks a value record literal `Name { field: value, … }`. A
// variant's literal names its case with the tag (`PaymentMethod { source:
// gift_card, … }`), a constant: the fields of that case may be given, and
// the required ones must be.
func (c *checker) structLit(d *dsl.StructLit, s *scope) ir.Expr {
	st, e := c.literalType(d)
	if st == nil {
		for _, fi := range d.Fields {
			c.expr(fi.Value, s)
		}
		if e != nil {
			c.misplacedEntityLiteral(d, e)
		}
		return invalid(d.Pos)
	}
	given := map[*ir.Field]*dsl.FieldInit{}
	values := map[*ir.Field]ir.Expr{}
	ok := true
	for _, fi := range d.Fields {
		v := c.expr(fi.Value, s)
		f := st.Field(fi.Name)
		if f == nil {
			c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s has no field %q%s", st.Name, fi.Name, suggestName(fieldNames(st.AllFields()), fi.Name))
			ok = false
			continue
		}
		if prev := given[f]; prev != nil {
			c.errorf(diag.DuplicateName, fi.Pos, fi.EndPos, "field %s given twice (first at %s)", fi.Name, short(prev.Pos))
			ok = false
			continue
		}
		given[f] = fi
		values[f] = v
	}
	lit := &ir.StructLit{ExprBase: base(&ir.Type{Kind: ir.KindStruct, Struct: st}, d.Pos), Struct: st}
	if st.Tag != nil {
		tv := values[st.Tag]
		if tv == nil {
			c.errorf(diag.MissingRequired, d.Pos, d.EndPos, "a %s literal must give its case: %s: one of %s", st.Name, st.Tag.Name, strings.Join(st.Tag.Type.Enum.Values, ", "))
			return invalid(d.Pos)
		}
		tv = c.coerce(tv, st.Tag.Type, given[st.Tag].Value.EndPos, "case of "+st.Name)
		if isInvalid(tv) {
			return invalid(d.Pos)
		}
		l, isLit := tv.(*ir.Lit)
		if !isLit {
			c.errorf(diag.TypeMismatch, given[st.Tag].Pos, given[st.Tag].EndPos, "the case of a %s literal must be written as a case name (%s), not computed", st.Name, strings.Join(st.Tag.Type.Enum.Values, ", "))
			return invalid(d.Pos)
		}
		lit.Case = caseNamed(st, l.Value.Str)
	}
	for _, f := range st.AllFields() {
		if f == st.Tag {
			continue
		}
		fi := given[f]
		if f.Case != nil && f.Case != lit.Case {
			if fi != nil {
				c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s.%s belongs to case %s, not to %s", st.Name, f.Name, f.Case.Name, lit.Case.Name)
				ok = false
			}
			continue
		}
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			ok = false
			continue
		}
		if fi == nil {
			if f.Required() {
				what := st.Name
				if lit.Case != nil {
					what += " (case " + lit.Case.Name + ")"
				}
				c.errorf(diag.MissingRequired, d.Pos, d.EndPos, "%s literal does not give required field %q", what, f.Name)
				ok = false
			}
			continue
		}
		v := c.coerce(values[f], f.Type, fi.Value.EndPos, "value of "+st.Name+"."+f.Name)
		if isInvalid(v) {
			ok = false
			continue
		}
		lit.Fields = append(lit.Fields, &ir.FieldInit{Field: f, Value: v})
	}
	if !ok {
		return invalid(d.Pos)
	}
	return lit
}

// membership types `x in xs` / `x not in xs` with a list or map (its keys)
// on the right.
func (c *checker) membership(op string, l, r ir.Expr, e *dsl.CmpExpr) ir.Expr {
	if isInvalid(r) || isInvalid(l) {
		return invalid(e.Pos)
	}
	if rt := r.Type(); rt.Kind == ir.KindSet {
		return c.keyIn(op, l, rt.Entity, e)
	}
	r = c.settle(r, e.Right.EndPos)
	if isInvalid(r) {
		return invalid(e.Pos)
	}
	rt := r.Type()
	switch {
	case rt.Optional && (rt.Kind == ir.KindList || rt.Kind == ir.KindMap):
		c.errorf(diag.TypeMismatch, e.Right.Pos, e.Right.EndPos, "the %s may be null; use coalesce(x, []) first", rt.Kind)
		return invalid(e.Pos)
	case rt.Kind == ir.KindList:
		want := rt.Elem
		if l.Type().Optional {
			want = &ir.Type{}
			*want = *rt.Elem
			want.Optional = true
		}
		l = c.coerce(l, want, e.Left.EndPos, "left operand of "+strings.Replace(op, "notin", "not in", 1))
	case rt.Kind == ir.KindMap:
		l = c.coerce(l, stringT, e.Left.EndPos, "key")
	default:
		c.errorf(diag.TypeMismatch, e.Right.Pos, e.Right.EndPos, "`in` needs a list such as [a, b], a list or a map, got %s", rt)
		return invalid(e.Pos)
	}
	if isInvalid(l) {
		return invalid(e.Pos)
	}
	return &ir.Binary{ExprBase: base(boolT, e.Pos), Op: op, L: l, R: r}
}

// rangeSource types the source of a loop or an aggregate: an entity (its
// records), a list (its elements, key an int index) or a map (its values,
// key the string key). It returns nil types after reporting a problem.
func (c *checker) rangeSource(p *dsl.Postfix, s *scope) (e *ir.Entity, src ir.Expr, elem, key *ir.Type) {
	x := c.postfix(p, s)
	if isInvalid(x) {
		return nil, nil, nil, nil
	}
	t := x.Type()
	switch {
	case t.Kind == ir.KindSet:
		return t.Entity, nil, &ir.Type{Kind: ir.KindRecord, Entity: t.Entity}, nil
	case untypedComposite(x):
		x = c.settle(x, p.EndPos)
		if isInvalid(x) {
			return nil, nil, nil, nil
		}
		t = x.Type()
	}
	if name, ok := untypedEnum(x); ok {
		c.errorf(diag.UnresolvedName, p.Pos, p.EndPos, "unknown entity %q%s", name, c.suggestEntity(name))
		return nil, nil, nil, nil
	}
	switch {
	case (t.Kind == ir.KindList || t.Kind == ir.KindMap) && t.Optional:
		c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "the %s to range over may be null; use coalesce(x, []) first", t.Kind)
	case t.Kind == ir.KindList:
		return nil, x, t.Elem, intT
	case t.Kind == ir.KindMap:
		return nil, x, t.Elem, stringT
	default:
		c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "expected an entity, a list or a map to range over, got %s", t)
	}
	return nil, nil, nil, nil
}

// Built-in functions on lists and maps.

func builtinLen(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a string, a list or a map", func(k ir.Kind) bool {
		return k.Textual() || k == ir.KindList || k == ir.KindMap
	}) {
		return intT
	}
	return nil
}

func builtinKeys(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a map", func(k ir.Kind) bool { return k == ir.KindMap }) {
		return &ir.Type{Kind: ir.KindList, Elem: stringT}
	}
	return nil
}

func builtinAppend(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	if len(args) == 2 && untypedComposite(args[0]) && !isInvalid(args[1]) {
		// append([], x): the list takes the type of x.
		x := c.settle(args[1], call.Args[1].EndPos)
		if isInvalid(x) {
			return nil
		}
		args[1] = x
		args[0] = c.coerce(args[0], &ir.Type{Kind: ir.KindList, Elem: nonOptional(x.Type())}, call.Args[0].EndPos, "argument 1 of append")
	}
	if !c.wantArgs(call, args, 2) || !c.argKind(call, args, 0, "a list", func(k ir.Kind) bool { return k == ir.KindList }) {
		return nil
	}
	lt := args[0].Type()
	args[1] = c.coerce(args[1], lt.Elem, call.Args[1].EndPos, "element appended")
	if isInvalid(args[1]) {
		return nil
	}
	return lt
}

func builtinSorted(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	if !c.wantArgs(call, args, 1) || !c.argKind(call, args, 0, "a list", func(k ir.Kind) bool { return k == ir.KindList }) {
		return nil
	}
	lt := args[0].Type()
	if k := lt.Elem.Kind; !k.Numeric() && !k.Textual() && k != ir.KindDate && k != ir.KindDateTime {
		c.errorf(diag.TypeMismatch, call.Args[0].Pos, call.Args[0].EndPos, "sorted needs a list of strings, numbers, dates or date-times, got %s", lt)
		return nil
	}
	return lt
}

// keyIn types `k in E` and `k not in E`: whether E has a record whose id
// (its key, for an entity with a key) is the string k.
func (c *checker) keyIn(op string, l ir.Expr, ent *ir.Entity, e *dsl.CmpExpr) ir.Expr {
	what := "the id before `in " + ent.Name + "`"
	if op == "notin" {
		what = "the id before `not in " + ent.Name + "`"
	}
	if t := l.Type(); (t.Kind == ir.KindRecord || t.Kind == ir.KindRef) && t.Entity == ent {
		c.errorf(diag.TypeMismatch, e.Left.Pos, e.Left.EndPos, "%s must be a string, got a %s; `in %s` tests an id (x.%s), and a record of %s is always one of its records", what, t, ent.Name, ent.IDName(), ent.Name)
		return invalid(e.Pos)
	}
	l = c.coerce(l, stringT, e.Left.EndPos, what)
	if isInvalid(l) {
		return invalid(e.Pos)
	}
	return &ir.KeyIn{ExprBase: base(boolT, e.Pos), Entity: ent, Key: l, Not: op == "notin"}
}

// keyEquality recognises `exists(x in E where x.k == v)`, k being E's key
// (or id) and v a local or a string constant, and returns v: the aggregate
// is then `v in E`, a lookup instead of a scan, with the same result (v
// cannot fail to evaluate, and no record but the one with id v matches).
func keyEquality(agg *ir.Aggregate) ir.Expr {
	if agg.Op != "exists" || agg.Entity == nil || agg.Where == nil {
		return nil
	}
	b, ok := agg.Where.(*ir.Binary)
	if !ok || b.Op != "==" {
		return nil
	}
	for _, side := range [][2]ir.Expr{{b.L, b.R}, {b.R, b.L}} {
		fr, ok := side[0].(*ir.FieldRef)
		if !ok || (fr.Field != nil && fr.Field != agg.Entity.Key) {
			continue
		}
		if vr, ok := fr.X.(*ir.VarRef); !ok || vr.Var != agg.Var {
			continue
		}
		v := side[1]
		if t := v.Type(); !t.Kind.Textual() || t.Optional {
			continue
		}
		switch x := v.(type) {
		case *ir.VarRef:
			if x.Var != agg.Var {
				return v
			}
		case *ir.Lit:
			return v
		}
	}
	return nil
}
