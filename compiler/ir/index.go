package ir

// IndexedAggregate reports whether the aggregate's where clause is a
// conjunction holding `v.f == k` with v the aggregate's variable, f a
// non-optional string-valued field (a ref, string or text) and k not
// depending on v. Such an aggregate can look its candidates up in an index
// of the entity by f instead of scanning the table: the generated graders
// and invariant checks do, and so does compiler/eval where they do. rest
// is the where clause without that conjunct (nil when nothing remains).
func IndexedAggregate(x *Aggregate) (f *Field, k Expr, rest Expr, ok bool) {
	var conj []Expr
	var split func(e Expr)
	split = func(e Expr) {
		if b, isBin := e.(*Binary); isBin && b.Op == "and" {
			split(b.L)
			split(b.R)
			return
		}
		conj = append(conj, e)
	}
	if x.Where == nil || x.Source != nil {
		return nil, nil, nil, false
	}
	split(x.Where)
	for i, c := range conj {
		b, isBin := c.(*Binary)
		if !isBin || b.Op != "==" {
			continue
		}
		for _, side := range [][2]Expr{{b.L, b.R}, {b.R, b.L}} {
			fr, isField := side[0].(*FieldRef)
			if !isField || fr.Field == nil || fr.Field.Type.Optional {
				continue
			}
			if vr, isVar := fr.X.(*VarRef); !isVar || vr.Var != x.Var {
				continue
			}
			switch fr.Field.Type.Kind {
			case KindRef, KindString, KindText:
			default:
				continue
			}
			other := side[1]
			switch ot := other.Type(); {
			case ot.Optional:
				continue
			case ot.Kind == KindRef || ot.Kind == KindString || ot.Kind == KindText || ot.Kind == KindRecord:
			default:
				continue
			}
			if Mentions(other, x.Var) {
				continue
			}
			for j, d := range conj {
				if j == i {
					continue
				}
				if rest == nil {
					rest = d
				} else {
					rest = &Binary{ExprBase: ExprBase{T: x.Where.Type()}, Op: "and", L: rest, R: d}
				}
			}
			return fr.Field, other, rest, true
		}
	}
	return nil, nil, nil, false
}

// Mentions reports whether e reads the variable v.
func Mentions(e Expr, v *Var) bool {
	found := false
	WalkExpr(e, func(x Expr) bool {
		if r, ok := x.(*VarRef); ok && r.Var == v {
			found = true
		}
		return !found
	})
	return found
}

// IndexKey names an index of an entity's records by one of its fields.
type IndexKey struct {
	Entity *Entity
	Field  *Field
}

// CollectIndexes lists, in first-met order, the indexes worth building
// before evaluating e read-only: those of indexed aggregates (see
// IndexedAggregate) evaluated once per row of an enclosing loop. inLoop is
// true for an invariant's check and trigger (evaluated per row) and false
// for a rubric assertion, where only aggregates nested in another count.
func CollectIndexes(e Expr, inLoop bool, seen map[IndexKey]bool, out *[]IndexKey) {
	if e == nil {
		return
	}
	if x, ok := e.(*Aggregate); ok {
		if f, _, _, ok := IndexedAggregate(x); ok && inLoop && !seen[IndexKey{x.Entity, f}] {
			seen[IndexKey{x.Entity, f}] = true
			*out = append(*out, IndexKey{x.Entity, f})
		}
		CollectIndexes(x.Where, true, seen, out)
		CollectIndexes(x.Value, true, seen, out)
		return
	}
	WalkExpr(e, func(sub Expr) bool {
		if sub == e {
			return true
		}
		CollectIndexes(sub, inLoop, seen, out)
		return false
	})
}
