package tasks

import (
	"slices"

	"github.com/worldc/worldc/compiler/ir"
)

// toolFacts is what the types and bodies of one tool say about it: the
// fields its requires read, the fields it writes, the entities whose
// records it creates or deletes, the records its result shows, and the
// records its parameters name.
type toolFacts struct {
	tool *ir.Tool
	// reads are the fields the tool's requires read (a require's
	// condition, and the lets and vars it reads, transitively): what
	// decides whether the call is allowed.
	reads []*ir.Field
	// writes are the fields it sets; an insert or a delete writes every
	// field of its entity (the record's existence changes).
	writes  []*ir.Field
	creates []*ir.Entity
	deletes []*ir.Entity
	// shows are the entities whose records the result holds: a record or
	// a list of records (standard get, list, search; a custom tool's
	// return).
	shows []*ir.Entity
	// names maps each parameter that names a record to its entity: a ref
	// parameter, a list of refs, or a string parameter named after an
	// entity's key field (`order_id: string`, as imported worlds write).
	names map[*ir.Param]*ir.Entity
}

// writer reports whether the tool writes anything: a tool whose only
// statements that would write assign fields their own values (`set
// r.f = r.f`) or assign locals changes no state, and is not a writing
// tool (it is a read, to the graph, the coverage and the report).
func (f *toolFacts) writer() bool {
	return len(f.writes) > 0 || len(f.creates) > 0 || len(f.deletes) > 0
}

// analyze computes the facts of every tool of w, in tool order.
func analyze(w *ir.World) []*toolFacts {
	keys := map[string]*ir.Entity{} // key field name → entity (unique names only)
	dup := map[string]bool{}
	for _, e := range w.Entities {
		if e.Key == nil {
			continue
		}
		if _, ok := keys[e.Key.Name]; ok {
			dup[e.Key.Name] = true
		}
		keys[e.Key.Name] = e
	}
	for k := range dup {
		delete(keys, k)
	}
	var out []*toolFacts
	for _, t := range w.Tools {
		out = append(out, toolFactsOf(t, keys))
	}
	return out
}

func toolFactsOf(t *ir.Tool, keys map[string]*ir.Entity) *toolFacts {
	f := &toolFacts{tool: t, names: map[*ir.Param]*ir.Entity{}}
	addField := func(list *[]*ir.Field, fl *ir.Field) {
		if fl != nil && fl.Entity != nil && !slices.Contains(*list, fl) {
			*list = append(*list, fl)
		}
	}
	addEntity := func(list *[]*ir.Entity, e *ir.Entity) {
		if e != nil && !slices.Contains(*list, e) {
			*list = append(*list, e)
		}
	}
	allFields := func(list *[]*ir.Field, e *ir.Entity) {
		for _, fl := range e.Fields {
			addField(list, fl)
		}
	}
	for _, p := range t.Params {
		if e := namedEntity(p, keys); e != nil {
			f.names[p] = e
		}
	}
	switch t.Kind {
	case ir.ToolGet, ir.ToolList, ir.ToolSearch:
		addEntity(&f.shows, t.Entity)
		// The filters and the id decide what the call finds, not whether
		// it is allowed: a standard read tool has no requires.
	case ir.ToolCreate:
		addEntity(&f.creates, t.Entity)
		allFields(&f.writes, t.Entity)
		addEntity(&f.shows, t.Entity)
	case ir.ToolUpdate:
		for _, p := range t.Params {
			if p.Field != nil {
				addField(&f.writes, p.Field)
			}
		}
		addEntity(&f.shows, t.Entity)
	case ir.ToolDelete:
		addEntity(&f.deletes, t.Entity)
		allFields(&f.writes, t.Entity)
		addEntity(&f.shows, t.Entity)
	case ir.ToolCustom:
		lets := map[*ir.Var]ir.Expr{}
		ir.WalkStmts(t.Body, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Let:
				lets[s.Var] = s.Value
			case *ir.VarDecl:
				lets[s.Var] = s.Value
			case *ir.Set:
				if !selfAssign(s) {
					addField(&f.writes, s.Field)
				}
			case *ir.Assign:
				// A local's assignment (no path, or a path inside a
				// local value) writes no record.
				if len(s.Path) > 0 && s.Path[0].Field != nil {
					addField(&f.writes, s.Path[0].Field)
				}
			case *ir.Insert:
				addEntity(&f.creates, s.Entity)
				allFields(&f.writes, s.Entity)
			case *ir.Delete:
				if tt := s.Target.Type(); tt != nil && tt.Entity != nil {
					addEntity(&f.deletes, tt.Entity)
					allFields(&f.writes, tt.Entity)
				}
			}
		}, nil)
		// The reads of the requires, following the locals they read.
		var read func(e ir.Expr, depth int)
		read = func(e ir.Expr, depth int) {
			if e == nil || depth > 16 {
				return
			}
			for _, fl := range ir.FieldsRead(e) {
				addField(&f.reads, fl)
			}
			ir.WalkExpr(e, func(x ir.Expr) bool {
				if v, ok := x.(*ir.VarRef); ok {
					if val, isLet := lets[v.Var]; isLet {
						read(val, depth+1)
					}
				}
				return true
			})
		}
		ir.WalkStmts(t.Body, func(s ir.Stmt) {
			switch s := s.(type) {
			case *ir.Require:
				read(s.Cond, 0)
			case *ir.If:
				// A branch decides which requires run.
				read(s.Cond, 0)
			}
		}, nil)
		if t.Returns != nil {
			addEntity(&f.shows, recordEntity(t.Returns))
		}
	}
	return f
}

// recordEntity is the entity of a record type, a ref, or a list of them.
func recordEntity(t *ir.Type) *ir.Entity {
	if t == nil {
		return nil
	}
	switch t.Kind {
	case ir.KindRecord, ir.KindRef:
		return t.Entity
	case ir.KindList:
		return recordEntity(t.Elem)
	}
	return nil
}

// namedEntity is the entity whose record the parameter names, or nil.
func namedEntity(p *ir.Param, keys map[string]*ir.Entity) *ir.Entity {
	t := p.Type
	if t.Kind == ir.KindList {
		t = t.Elem
	}
	switch {
	case t.Kind == ir.KindRef:
		return t.Entity
	case t.Kind.Textual() && p.Field == nil:
		return keys[p.Name]
	case t.Kind.Textual() && p.Field != nil && p.Field.Type.Kind == ir.KindRef:
		return p.Field.Type.Entity
	}
	return nil
}

// selfAssign reports whether s assigns a field its own value: `set
// r.f = r.f`, the same record's same field (or a conditional whose every
// branch is).
func selfAssign(s *ir.Set) bool {
	var same func(e ir.Expr, depth int) bool
	same = func(e ir.Expr, depth int) bool {
		switch v := unconvert(e).(type) {
		case *ir.FieldRef:
			return v.Field == s.Field && samePlace(v.X, s.Target)
		case *ir.Cond:
			return depth < 8 && same(v.Then, depth+1) && same(v.Else, depth+1)
		}
		return false
	}
	return same(s.Value, 0)
}

// samePlace reports whether a and b denote the same record or value: the
// same variable, or the same field of the same place.
func samePlace(a, b ir.Expr) bool {
	a, b = unconvert(a), unconvert(b)
	switch x := a.(type) {
	case *ir.VarRef:
		y, ok := b.(*ir.VarRef)
		return ok && x.Var != nil && x.Var == y.Var
	case *ir.FieldRef:
		y, ok := b.(*ir.FieldRef)
		return ok && x.Field == y.Field && samePlace(x.X, y.X)
	case *ir.Deref:
		y, ok := b.(*ir.Deref)
		return ok && samePlace(x.X, y.X)
	}
	return false
}

// unconvert is e without the conversions around it.
func unconvert(e ir.Expr) ir.Expr {
	for {
		c, ok := e.(*ir.Convert)
		if !ok {
			return e
		}
		e = c.X
	}
}
