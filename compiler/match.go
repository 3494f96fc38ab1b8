package compiler

import (
	"fmt"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// This file checks the comparisons of whole records with values:
// `x == E { … }` (an entity literal compared with a record, every field)
// and `matches(x, { f: v, … })` (only the listed fields, of a record or a
// value record). Both become an ir.Match.

// literalType resolves the name of a record literal, `Name` or
// `svc.Name`: a value record or an entity. It reports an unknown name or
// service and returns nils then.
func (c *checker) literalType(d *dsl.StructLit) (*ir.StructDef, *ir.Entity) {
	q := &dsl.QualName{Pos: d.Pos, EndPos: d.EndPos, Parts: []string{d.Name}}
	if d.Service != "" {
		q.Parts = []string{d.Service, d.Name}
	}
	if st := c.structByName(q); st != nil {
		return st, nil
	}
	if d.Service != "" {
		svc := c.services[d.Service]
		if svc == nil {
			c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "unknown service %q", d.Service)
			return nil, nil
		}
		if st := c.structs[d.Name]; st != nil {
			c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "record %s is not declared in service %s; write %s { … }", st.Name, svc.Name, st.Name)
			return nil, nil
		}
		if e := c.entities[d.Name]; e != nil && e.Service != svc {
			c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "entity %s belongs to service %s, not %s", e.Name, e.Service.Name, svc.Name)
			return nil, nil
		}
	}
	if e := c.entities[d.Name]; e != nil {
		return nil, e
	}
	names := make([]string, 0, len(c.structs)+len(c.w.Entities))
	for _, x := range c.w.Structs {
		names = append(names, x.Name)
	}
	for _, e := range c.w.Entities {
		names = append(names, e.Name)
	}
	c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "unknown record %q%s", d.QualifiedName(), suggestName(names, d.Name))
	return nil, nil
}

// entityLiteral returns the literal an operand of a comparison is when it
// is exactly a record literal naming an entity (`Order { … }` or
// `store.Order { … }`), else nil.
func (c *checker) entityLiteral(a *dsl.AddExpr) *dsl.StructLit {
	if a == nil || len(a.Right) > 0 || a.Left == nil || len(a.Left.Right) > 0 {
		return nil
	}
	u := a.Left.Left
	if u == nil || u.Neg != nil || u.Postfix == nil || len(u.Postfix.Suffixes) > 0 || u.Postfix.Primary == nil {
		return nil
	}
	d := u.Postfix.Primary.Struct
	if d == nil || c.entities[d.Name] == nil {
		return nil
	}
	return d
}

// recordEquality checks `x == E { … }` or `x != E { … }`: x a record of E
// (a ref is followed), the literal giving every required field (and the
// id of an entity without a key). Absent optional fields are null, absent
// defaulted fields their default.
func (c *checker) recordEquality(e *dsl.CmpExpr, s *scope) ir.Expr {
	otherSide := e.Left
	d := c.entityLiteral(e.Right)
	if d == nil {
		d, otherSide = c.entityLiteral(e.Left), e.Right
	}
	if other := c.entityLiteral(otherSide); other != nil {
		c.errorf(diag.TypeMismatch, e.Pos, e.EndPos, "cannot compare two %s literals; compare a record with a literal: %s[id] == %s { … }", other.Name, other.Name, d.Name)
		c.fieldPattern(nil, nil, d.Fields, s)
		c.fieldPattern(nil, nil, other.Fields, s)
		return invalid(e.Pos)
	}
	_, ent := c.literalType(d)
	x := c.addExpr(otherSide, s)
	if ent == nil {
		c.fieldPattern(nil, nil, d.Fields, s)
		return invalid(e.Pos)
	}
	x = c.matchTarget(x, otherSide.Pos, otherSide.EndPos, ent, fmt.Sprintf("the %s literal", ent.Name))
	id, fields, given, ok := c.fieldPattern(ent, nil, d.Fields, s)
	if ent.Key == nil && id == nil && !given["id"] {
		c.errorf(diag.MissingRequired, d.Pos, d.EndPos, "%s literal does not give the record's id: write id: \"…\" (or compare only some fields with matches(x, { … }))", ent.Name)
		ok = false
	}
	// Every field: the given ones, else the default, else null.
	byField := map[*ir.Field]*ir.FieldInit{}
	for _, fi := range fields {
		byField[fi.Field] = fi
	}
	var all []*ir.FieldInit
	for _, f := range ent.Fields {
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			ok = false
			continue
		}
		if fi := byField[f]; fi != nil {
			all = append(all, fi)
			continue
		}
		if given[f.Name] {
			continue // given, but its value did not check
		}
		switch {
		case f.Default != nil:
			all = append(all, &ir.FieldInit{Field: f, Value: &ir.Lit{ExprBase: base(nonOptional(f.Type), d.Pos), Value: f.Default}})
		case f.Type.Optional:
			all = append(all, &ir.FieldInit{Field: f, Value: &ir.Lit{ExprBase: base(nullT, d.Pos), Value: &ir.Value{Kind: ir.KindNull}}})
		default:
			c.errorf(diag.MissingRequired, d.Pos, d.EndPos, "%s literal does not give required field %q", ent.Name, f.Name)
			ok = false
		}
	}
	if !ok || isInvalid(x) {
		return invalid(e.Pos)
	}
	var out ir.Expr = &ir.Match{ExprBase: base(boolT, e.Pos), X: x, ID: id, Fields: all, Whole: true}
	if e.Op == "!=" {
		out = &ir.Unary{ExprBase: base(boolT, e.Pos), Op: "not", X: out}
	}
	return out
}

// match checks `matches(x, { f: v, … })`: x a record (a ref is followed)
// or a value record, the listed fields its own.
func (c *checker) match(m *dsl.Match, s *scope) ir.Expr {
	x := c.settle(c.expr(m.X, s), m.X.EndPos)
	var ent *ir.Entity
	var st *ir.StructDef
	if !isInvalid(x) {
		switch t := x.Type(); {
		case t.Kind == ir.KindRecord || t.Kind == ir.KindRef:
			ent = t.Entity
			x = c.matchTarget(x, m.X.Pos, m.X.EndPos, ent, "matches")
		case t.Kind == ir.KindStruct && t.Optional:
			c.errorf(diag.TypeMismatch, m.X.Pos, m.X.EndPos, "matches needs a value, but the %s may be null; use coalesce(x, %s { … })", nonOptional(t), t.Struct.Name)
			x = invalid(m.X.Pos)
		case t.Kind == ir.KindStruct:
			st = t.Struct
		default:
			c.errorf(diag.TypeMismatch, m.X.Pos, m.X.EndPos, "matches compares the fields of a record or a value record, not of a %s", t)
			x = invalid(m.X.Pos)
		}
	}
	if len(m.Fields) == 0 {
		c.errorf(diag.TypeMismatch, m.Pos, m.EndPos, "matches needs at least one field to compare: matches(x, { field: value, … })")
		x = invalid(m.X.Pos)
	}
	id, fields, _, ok := c.fieldPattern(ent, st, m.Fields, s)
	if !ok || isInvalid(x) {
		return invalid(m.Pos)
	}
	return &ir.Match{ExprBase: base(boolT, m.Pos), X: x, ID: id, Fields: fields}
}

// matchTarget checks the record side of a whole-record comparison or of
// matches: a non-optional record of ent, or a ref to one, which is
// followed.
func (c *checker) matchTarget(x ir.Expr, pos, end dsl.Pos, ent *ir.Entity, what string) ir.Expr {
	x = c.settle(x, end)
	if isInvalid(x) {
		return x
	}
	t := x.Type()
	switch {
	case (t.Kind == ir.KindRecord || t.Kind == ir.KindRef) && t.Entity == ent && t.Optional:
		c.errorf(diag.TypeMismatch, pos, end, "the %s record may be null; compare a record that is always set, such as %s[id]", ent.Name, ent.Name)
	case t.Kind == ir.KindRef && t.Entity == ent:
		return &ir.Deref{ExprBase: base(&ir.Type{Kind: ir.KindRecord, Entity: ent}, x.Position()), X: x}
	case t.Kind == ir.KindRecord && t.Entity == ent:
		return x
	default:
		c.errorf(diag.TypeMismatch, pos, end, "%s is compared with a record of %s (%s[id], a loop variable, a ref), not with a %s", what, ent.Name, ent.Name, t)
	}
	return invalid(pos)
}

// fieldPattern checks the `name: value` list of an entity literal or of a
// matches pattern against the fields of ent or st (both nil when the
// record side did not check: the values are only checked themselves).
// Every problem is reported: unknown fields, fields given twice, values of
// the wrong type. It returns the expected id (`id: …`, for an entity
// without a key), the fields with their values typed as the fields read,
// in declaration order, the names given, and whether all is well.
func (c *checker) fieldPattern(ent *ir.Entity, st *ir.StructDef, inits []*dsl.FieldInit, s *scope) (id ir.Expr, fields []*ir.FieldInit, given map[string]bool, ok bool) {
	ok = true
	given = map[string]bool{}
	first := map[string]*dsl.FieldInit{}
	values := map[*ir.Field]ir.Expr{}
	for _, fi := range inits {
		if fi == nil {
			continue
		}
		v := c.expr(fi.Value, s)
		if prev := first[fi.Name]; prev != nil {
			c.errorf(diag.DuplicateName, fi.Pos, fi.EndPos, "field %s given twice (first at %s)", fi.Name, short(prev.Pos))
			ok = false
			continue
		}
		first[fi.Name] = fi
		given[fi.Name] = true
		var f *ir.Field
		var want *ir.Type
		switch {
		case ent == nil && st == nil:
			continue
		case ent != nil && fi.Name == "id":
			if ent.Key != nil {
				c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s has no field \"id\": its id is its key %s", ent.Name, ent.Key.Name)
				ok = false
				continue
			}
			// An id: a string (a literal, r.id) or a ref, a record or a
			// handle of the entity.
			v = c.settle(v, fi.Value.EndPos)
			if t := v.Type(); !isInvalid(v) && t.Kind.Textual() && !t.Optional {
				id = v
				continue
			}
			want = &ir.Type{Kind: ir.KindRef, Entity: ent}
		case ent != nil:
			if f = ent.Field(fi.Name); f == nil {
				c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s has no field %q%s", ent.Name, fi.Name, suggestField(ent, fi.Name))
				ok = false
				continue
			}
			want = f.Type
		default:
			if f = st.Field(fi.Name); f == nil {
				c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s has no field %q%s", st.Name, fi.Name, suggestName(fieldNames(st.AllFields()), fi.Name))
				ok = false
				continue
			}
			want = f.Type
			if f.Case != nil && want != nil && !want.Optional {
				// A case field reads as null unless the value is of its case.
				cp := *want
				cp.Optional = true
				want = &cp
			}
		}
		if want == nil || want.Kind == ir.KindInvalid {
			ok = false
			continue
		}
		name := fi.Name
		if ent != nil {
			name = ent.Name + "." + fi.Name
		}
		if f != nil {
			name = f.OwnerName() + "." + f.Name
		}
		v = c.coerce(v, want, fi.Value.EndPos, "value of "+name)
		if isInvalid(v) {
			ok = false
			continue
		}
		if f == nil {
			id = v
			continue
		}
		values[f] = v
	}
	var order []*ir.Field
	switch {
	case ent != nil:
		order = ent.Fields
	case st != nil:
		order = st.AllFields()
	}
	for _, f := range order {
		if v, has := values[f]; has {
			fields = append(fields, &ir.FieldInit{Field: f, Value: v})
		}
	}
	return id, fields, given, ok
}

// misplacedEntityLiteral reports an entity literal outside a comparison
// with a record.
func (c *checker) misplacedEntityLiteral(d *dsl.StructLit, e *ir.Entity) {
	c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "%s is an entity: its literal %s { … } is only compared with a record, %s[id] == %s { … } (or use matches(x, { … })); create records with insert %s { … }",
		e.Name, e.Name, e.Name, e.Name, e.Name)
}

// matchesCall explains `matches(x, y)` written without a field list.
func (c *checker) matchesCall(call *dsl.Call) {
	c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "matches takes a record and a list of fields: matches(x, { field: value, … })")
}
