package compiler

import (
	"fmt"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// set checks `set TARGET = value`. TARGET is a `var` local, or a path that
// starts at a record of the tool's own service (or at a `var` local) and
// goes through fields of records and value records and elements of lists
// and maps: `set order.status = s` (an ir.Set), `set total = total + x`,
// `set order.items[i].price = p`, `set user.payment_methods[id].balance =
// b` (an ir.Assign). The root of a path is the last entity record along
// it: writes never go through a ref into another record's fields unless
// that record is the root.
func (c *checker) set(st *dsl.Set, s *scope) ir.Stmt {
	p := st.Target
	n := len(p.Suffixes)
	if n == 0 {
		return c.assignLocal(st, s)
	}
	chain := c.postfixChain(p, n-1, s)
	value := c.expr(st.Value, s)
	if len(chain) < n || isInvalid(chain[len(chain)-1]) {
		return nil
	}
	// The root: the last record of an entity along the path.
	r := -1
	for i := len(chain) - 1; i >= 0; i-- {
		if k := chain[i].Type().Kind; k == ir.KindRecord || k == ir.KindRef {
			r = i
			break
		}
	}
	var root ir.Expr
	if r >= 0 {
		root = c.recordExpr(chain[r], p.Suffixes[r].Pos, "set target")
		if isInvalid(root) {
			return nil
		}
	} else {
		root, r = unNarrow(chain[0]), 0
		if !c.assignable(root, p.Primary.Pos, p.Suffixes[0].Pos) {
			return nil
		}
	}
	var (
		path  []ir.PathStep
		first *ir.Field // the field of the root record the path changes
		cur   = root.Type()
	)
	for i := r; i < n; i++ {
		suf := p.Suffixes[i]
		if cur.Optional {
			c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "cannot set a part of an optional %s; set the whole value", nonOptional(cur))
			return nil
		}
		if suf.Field != nil {
			name := *suf.Field
			var f *ir.Field
			switch cur.Kind {
			case ir.KindRecord:
				e := cur.Entity
				if name == "id" || (e.Key != nil && name == e.Key.Name) {
					c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "the id of a record cannot be changed")
					return nil
				}
				if f = e.Field(name); f == nil {
					c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "%s has no field %q%s", e.Name, name, suggestField(e, name))
					return nil
				}
				first = f
			case ir.KindStruct:
				st := cur.Struct
				if f = st.Field(name); f == nil {
					c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "%s has no field %q%s", st.Name, name, suggestName(fieldNames(st.AllFields()), name))
					return nil
				}
				if f == st.Tag {
					c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "the case of a %s cannot be changed field by field; set the whole value: … = %s { %s: …, … }", st.Name, st.Name, f.Name)
					return nil
				}
			default:
				c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "a %s has no field %q", cur, name)
				return nil
			}
			path = append(path, ir.PathStep{Field: f})
			cur = f.Type
		} else {
			keyT, what := intT, "index of a list"
			switch cur.Kind {
			case ir.KindList:
			case ir.KindMap:
				keyT, what = stringT, "key of a map"
			default:
				c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "a %s cannot be indexed in a set; only lists (xs[i]) and maps (m[key]) can", cur)
				return nil
			}
			key := c.coerce(c.expr(suf.Index, s), keyT, suf.Index.EndPos, what)
			if isInvalid(key) {
				return nil
			}
			path = append(path, ir.PathStep{Index: key})
			cur = cur.Elem
		}
		if cur == nil || cur.Kind == ir.KindInvalid {
			return nil
		}
	}
	what := "value of " + p.String()
	if rec := root.Type(); rec.Kind == ir.KindRecord {
		t, e := s.tool, rec.Entity
		if e.Service != t.Service {
			c.errorf(diag.WriteOutsideService, st.Pos, st.EndPos, "tool %s of service %s sets %s.%s, which belongs to service %s", t.Name, t.Service.Name, e.Name, first.Name, e.Service.Name)
		}
		c.facts[t].sets[first] = true
		if len(path) == 1 {
			value = c.coerce(value, first.Type, st.Value.EndPos, "value of "+e.Name+"."+first.Name)
			return &ir.Set{Target: root, Field: first, Value: value, Pos: ir.Pos(st.Pos)}
		}
	}
	value = c.coerce(value, cur, st.Value.EndPos, what)
	return &ir.Assign{Root: root, Path: path, Value: value, Pos: ir.Pos(st.Pos)}
}

// assignLocal checks `set x = value` for a `var` local x.
func (c *checker) assignLocal(st *dsl.Set, s *scope) ir.Stmt {
	p := st.Target
	x := unNarrow(c.primary(p.Primary, s)) // the local itself, even where it is known not to be null
	value := c.expr(st.Value, s)
	if isInvalid(x) {
		return nil
	}
	if _, ok := x.(*ir.VarRef); !ok {
		c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "set needs a field, an element or a var local: set record.field = value")
		return nil
	}
	if !c.assignable(x, p.Pos, p.EndPos) {
		return nil
	}
	v := x.(*ir.VarRef).Var
	if vt := value.Type(); c.inferred[v] && v.Type.Kind == ir.KindInt && (vt.Kind == ir.KindDecimal || vt.Kind == ir.KindMoney) {
		// `var total = 0` then `set total = total + price`: the local's
		// type came from its first value.
		c.errorHint(diag.TypeMismatch, fmt.Sprintf("A var declared without a type has the type of its first value: declare the type, var %s: %s = …", v.Name, typeString(nonOptional(vt))),
			dsl.Pos(value.Position()), st.Value.EndPos, "value of %s: expected int, got %s: %s is an int, the type of the value it was declared with; declare it with its type: var %s: %s = …", v.Name, typeString(vt), v.Name, v.Name, typeString(nonOptional(vt)))
		return &ir.Assign{Root: x, Value: invalid(value.Position()), Pos: ir.Pos(st.Pos)}
	}
	value = c.coerce(value, v.Type, st.Value.EndPos, "value of "+v.Name)
	return &ir.Assign{Root: x, Value: value, Pos: ir.Pos(st.Pos)}
}

// assignable reports whether x, the root of a set without a record, is a
// `var` local, and reports it when it is not.
func (c *checker) assignable(x ir.Expr, pos, end dsl.Pos) bool {
	vr, ok := x.(*ir.VarRef)
	switch {
	case ok && c.mutable[vr.Var]:
		return true
	case ok:
		c.errorf(diag.TypeMismatch, pos, end, "%s cannot change: only var locals and the fields of records can be set (declare it with var, or set the record it was read from)", vr.Var.Name)
	default:
		c.errorf(diag.TypeMismatch, pos, end, "set needs a var local or a path from a record: set record.field = value")
	}
	return false
}
