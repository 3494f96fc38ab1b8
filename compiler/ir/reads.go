package ir

// Read is one way an invariant's trigger or check reads records other than
// the one it is checked on (its variable's own fields are not listed):
// what decides, after a tool call, which records of the invariant's entity
// may have a new verdict (see InvariantReads).
//
// A keyed read sees only the records of Entity whose Field (nil: the id)
// equals the checked record's Via (nil: its id): following a ref of the
// record (`x.customer`: Entity Customer, Field nil, Via customer), looking
// a record up by one of its fields (`Customer[x.code]`), or an aggregate
// whose where clause says `r.order == x` (Field order, Via nil) or
// `r.code == x.code`. When a record of Entity changes, only the checked
// records whose Via equals its Field, before or after the change, can see
// a difference. Any other read (an aggregate over all the records, a
// record reached through another one, a seed record by its handle) is
// not keyed: a change to any record of Entity may change every verdict.
type Read struct {
	Entity *Entity
	Keyed  bool
	Field  *Field // of Entity; nil: the id (keyed reads only)
	Via    *Field // of the invariant's entity; nil: the id (keyed reads only)
}

// InvariantReads lists the reads of inv's trigger and check, each once, in
// first-met order (the trigger's first), beside the reads of the checked
// record's own fields, which every invariant has.
//
// An invariant's verdict on a record x depends on x's own row and on the
// records its reads see. So after a tool call, the records whose verdict
// may have changed are: those the call wrote; for each keyed read of an
// entity the call wrote, the records whose Via equals the written
// records' Field before or after the call; and, when the call wrote an
// entity read without a key, every record. This is how the generated code
// checks always-invariants after each call without re-checking every
// record.
func InvariantReads(inv *Invariant) []Read {
	if inv == nil || inv.Var == nil {
		return nil
	}
	var out []Read
	add := func(r Read) {
		for _, o := range out {
			if o == r {
				return
			}
		}
		out = append(out, r)
	}
	visit := func(e Expr) {
		WalkExpr(e, func(x Expr) bool {
			switch x := x.(type) {
			case *Deref:
				if x.T != nil && x.T.Entity != nil {
					add(keyedRead(x.T.Entity, nil, x.X, inv.Var))
				}
			case *Lookup:
				add(keyedRead(x.Entity, nil, x.Key, inv.Var))
			case *KeyIn:
				add(keyedRead(x.Entity, nil, x.Key, inv.Var))
			case *Handle:
				if x.T != nil && x.T.Kind == KindRecord {
					add(Read{Entity: x.Entity})
				}
			case *Aggregate:
				if x.Entity == nil {
					break
				}
				if f, k, _, ok := IndexedAggregate(x); ok {
					add(keyedRead(x.Entity, f, k, inv.Var))
				} else {
					add(Read{Entity: x.Entity})
				}
			}
			return true
		})
	}
	visit(inv.Where)
	visit(inv.Check)
	return out
}

// keyedRead is the read of the records of e whose field (nil: the id)
// equals key: keyed when key is the checked record v or one of its
// fields.
func keyedRead(e *Entity, field *Field, key Expr, v *Var) Read {
	if via, ok := fieldOfVar(key, v); ok {
		return Read{Entity: e, Keyed: true, Field: field, Via: via}
	}
	return Read{Entity: e}
}

// fieldOfVar reports whether x is the record v, its id, or one of its
// string, text or ref fields (possibly converted to a string), and which
// field (nil: the id).
func fieldOfVar(x Expr, v *Var) (*Field, bool) {
	switch x := x.(type) {
	case *VarRef:
		return nil, x.Var == v
	case *IDOf:
		return fieldOfVar(x.X, v)
	case *Convert:
		return fieldOfVar(x.X, v)
	case *NotNull:
		return fieldOfVar(x.X, v)
	case *FieldRef:
		r, ok := x.X.(*VarRef)
		if !ok || r.Var != v {
			return nil, false
		}
		if x.Field == nil {
			return nil, true
		}
		switch x.Field.Type.Kind {
		case KindString, KindText, KindRef:
			return x.Field, true
		}
	}
	return nil, false
}
