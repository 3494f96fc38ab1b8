package ir

// WalkExpr calls fn for e and, while fn returns true, for every
// sub-expression, depth first.
func WalkExpr(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	switch x := e.(type) {
	case *FieldRef:
		WalkExpr(x.X, fn)
	case *Deref:
		WalkExpr(x.X, fn)
	case *IDOf:
		WalkExpr(x.X, fn)
	case *Lookup:
		WalkExpr(x.Key, fn)
	case *KeyIn:
		WalkExpr(x.Key, fn)
	case *Cast:
		WalkExpr(x.X, fn)
	case *Binary:
		WalkExpr(x.L, fn)
		WalkExpr(x.R, fn)
	case *Unary:
		WalkExpr(x.X, fn)
	case *Convert:
		WalkExpr(x.X, fn)
	case *Cond:
		WalkExpr(x.Cond, fn)
		WalkExpr(x.Then, fn)
		WalkExpr(x.Else, fn)
	case *NotNull:
		WalkExpr(x.X, fn)
	case *Call:
		for _, a := range x.Args {
			WalkExpr(a, fn)
		}
	case *Aggregate:
		WalkExpr(x.Source, fn)
		WalkExpr(x.Where, fn)
		WalkExpr(x.Value, fn)
	case *ListLit:
		for _, a := range x.Elems {
			WalkExpr(a, fn)
		}
	case *Index:
		WalkExpr(x.X, fn)
		WalkExpr(x.Key, fn)
	case *StructLit:
		for _, f := range x.Fields {
			WalkExpr(f.Value, fn)
		}
	case *MapLit:
		for _, e := range x.Entries {
			WalkExpr(e.Value, fn)
		}
	case *Match:
		WalkExpr(x.X, fn)
		WalkExpr(x.ID, fn)
		for _, f := range x.Fields {
			WalkExpr(f.Value, fn)
		}
	}
}

// WalkStmts calls stmt for every statement (nested ones included) and expr
// for every expression they hold, depth first.
func WalkStmts(stmts []Stmt, stmt func(Stmt), expr func(Expr) bool) {
	for _, s := range stmts {
		if stmt != nil {
			stmt(s)
		}
		walk := func(e Expr) {
			if expr != nil {
				WalkExpr(e, expr)
			}
		}
		switch x := s.(type) {
		case *Require:
			walk(x.Cond)
			walk(x.MessageExpr)
		case *Fail:
			walk(x.MessageExpr)
		case *VarDecl:
			walk(x.Value)
		case *Assign:
			walk(x.Root)
			for _, st := range x.Path {
				walk(st.Index)
			}
			walk(x.Value)
		case *Let:
			walk(x.Value)
		case *Set:
			walk(x.Target)
			walk(x.Value)
		case *Insert:
			for _, f := range x.Fields {
				walk(f.Value)
			}
		case *Delete:
			walk(x.Target)
		case *Return:
			walk(x.Value)
		case *If:
			walk(x.Cond)
			WalkStmts(x.Then, stmt, expr)
			WalkStmts(x.Else, stmt, expr)
		case *For:
			walk(x.Source)
			walk(x.Where)
			WalkStmts(x.Body, stmt, expr)
		}
	}
}

// Touches returns the entities an expression reads, in first-seen order:
// aggregate and lookup sources, records followed through refs, and the
// entities whose fields it reads.
func Touches(e Expr) []*Entity {
	var out []*Entity
	seen := map[*Entity]bool{}
	add := func(en *Entity) {
		if en != nil && !seen[en] {
			seen[en] = true
			out = append(out, en)
		}
	}
	WalkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *Aggregate:
			add(x.Entity)
		case *Lookup:
			add(x.Entity)
		case *KeyIn:
			add(x.Entity)
		case *Deref:
			add(x.T.Entity)
		case *FieldRef:
			if x.Field != nil {
				add(x.Field.Entity)
			}
		case *Handle:
			add(x.Entity)
		case *Match:
			add(x.Entity())
		}
		return true
	})
	return out
}

// FieldsRead returns the fields an expression reads, in first-seen order
// (a Match reads the fields it compares).
func FieldsRead(e Expr) []*Field {
	var out []*Field
	seen := map[*Field]bool{}
	add := func(f *Field) {
		if f != nil && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	WalkExpr(e, func(x Expr) bool {
		switch x := x.(type) {
		case *FieldRef:
			add(x.Field)
		case *Match:
			for _, fi := range x.Fields {
				add(fi.Field)
			}
		}
		return true
	})
	return out
}
