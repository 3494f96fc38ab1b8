package compiler

import (
	"fmt"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// declareTools resolves every tool's kind, entity and parameters, so that
// bodies and solutions can refer to any tool.
func (c *checker) declareTools() {
	for _, t := range c.w.Tools {
		td := c.toolDecl[t]
		if td.Std != nil {
			c.declareStdTool(t, td.Std)
			continue
		}
		t.Kind = ir.ToolCustom
		t.Doc = deref(td.Custom.Doc)
		seen := map[string]*ir.Param{}
		for _, pd := range td.Custom.Params {
			if first, dup := seen[pd.Name]; dup {
				c.errorf(diag.DuplicateName, pd.Pos, pd.EndPos, "duplicate parameter %q, first at %s", pd.Name, short(first.Pos))
				continue
			}
			p := &ir.Param{Name: pd.Name, Doc: deref(pd.Doc), Type: c.resolveType(pd.Type, nil), Pos: ir.Pos(pd.Pos)}
			seen[pd.Name] = p
			t.Params = append(t.Params, p)
		}
	}
}

func (c *checker) declareStdTool(t *ir.Tool, sd *dsl.StdTool) {
	t.Kind = ir.ToolKind(sd.Kind)
	t.Doc = deref(sd.Doc)
	e := c.lookupEntity(sd.Entity)
	if e == nil {
		return
	}
	t.Entity = e
	if len(sd.By) > 0 && t.Kind != ir.ToolSearch {
		c.errorf(diag.TypeMismatch, sd.Pos, sd.EndPos, "`by` applies to search tools only")
	}
	writes := t.Kind == ir.ToolCreate || t.Kind == ir.ToolUpdate || t.Kind == ir.ToolDelete
	if writes && e.Service != t.Service {
		c.errorf(diag.WriteOutsideService, sd.Pos, sd.EndPos, "tool %s of service %s would write %s, which belongs to service %s", t.Name, t.Service.Name, e.Name, e.Service.Name)
	}
	facts := c.facts[t]
	facts.reads[e] = true
	idParam := func() {
		doc := "The id of the " + e.Name + "."
		if e.Key != nil {
			doc = "The " + e.Key.Name + " of the " + e.Name + "."
		}
		t.Params = append(t.Params, &ir.Param{Name: e.IDName(), Doc: doc, Type: &ir.Type{Kind: ir.KindRef, Entity: e}, Pos: ir.Pos(sd.Pos)})
	}
	fieldParam := func(f *ir.Field, optional bool) {
		pt := *f.Type
		if optional {
			pt.Optional = true
		}
		t.Params = append(t.Params, &ir.Param{Name: f.Name, Doc: f.Doc, Type: &pt, Field: f, Pos: ir.Pos(sd.Pos)})
	}
	ret := &ir.Type{Kind: ir.KindRecord, Entity: e}
	switch t.Kind {
	case ir.ToolGet:
		idParam()
	case ir.ToolList:
		t.Params = append(t.Params, &ir.Param{Name: "offset", Doc: fmt.Sprintf("How many records to skip (pages of %d).", ir.PageSize), Type: &ir.Type{Kind: ir.KindInt, Optional: true}, Pos: ir.Pos(sd.Pos)})
		ret = &ir.Type{Kind: ir.KindList, Elem: ret}
	case ir.ToolSearch:
		if len(sd.By) == 0 {
			c.errorf(diag.MissingRequired, sd.Pos, sd.EndPos, "search tool %s needs `by field, …`", t.Name)
		}
		seen := map[string]bool{}
		for _, name := range sd.By {
			if seen[name] {
				c.errorf(diag.DuplicateName, sd.Pos, sd.EndPos, "search field %q listed twice", name)
				continue
			}
			seen[name] = true
			f := e.Field(name)
			if f == nil {
				c.errorf(diag.UnresolvedName, sd.Pos, sd.EndPos, "%s has no field %q%s", e.Name, name, suggestField(e, name))
				continue
			}
			if f.Type == nil || f.Type.Kind == ir.KindInvalid {
				continue
			}
			if composite(f.Type) {
				c.errorf(diag.TypeMismatch, sd.Pos, sd.EndPos, "search cannot filter by %s field %s.%s; filter by scalar fields", f.Type, e.Name, name)
				continue
			}
			t.By = append(t.By, f)
			fieldParam(f, true)
		}
		ret = &ir.Type{Kind: ir.KindList, Elem: ret}
	case ir.ToolCreate:
		for _, f := range e.Fields {
			if f.Type != nil && f.Type.Kind != ir.KindInvalid {
				fieldParam(f, !f.Required())
			}
		}
		facts.inserts[e] = true
	case ir.ToolUpdate:
		idParam()
		for _, f := range e.Fields {
			if f == e.Key {
				continue // the id: it selects the record and cannot change
			}
			if f.Type != nil && f.Type.Kind != ir.KindInvalid {
				fieldParam(f, true)
				facts.sets[f] = true
			}
		}
	case ir.ToolDelete:
		idParam()
		facts.deletes[e] = true
	}
	t.Returns = ret
}

// checkToolBodies checks the statements of every custom tool.
func (c *checker) checkToolBodies() {
	for _, t := range c.w.Tools {
		td := c.toolDecl[t]
		if td.Custom == nil {
			continue
		}
		s := &scope{vars: map[string]*ir.Var{}, tool: t}
		for _, p := range t.Params {
			vt := p.Type
			if vt.Kind == ir.KindRef {
				// A ref parameter is looked up on entry: the body sees the record.
				vt = &ir.Type{Kind: ir.KindRecord, Entity: vt.Entity, Optional: vt.Optional}
			}
			p.Var = c.declare(s, "parameter", p.Name, vt, dsl.Pos(p.Pos), dsl.Pos(p.Pos))
		}
		t.Body = c.block(td.Custom.Body, s)
		facts := c.facts[t]
		ir.WalkStmts(t.Body, nil, func(e ir.Expr) bool {
			for _, en := range ir.Touches(e) {
				facts.reads[en] = true
			}
			return false // Touches already walked the whole expression
		})
		for _, p := range t.Params {
			if p.Type.Kind == ir.KindRef {
				facts.reads[p.Type.Entity] = true
			}
		}
	}
}

func (c *checker) block(b *dsl.Block, s *scope) []ir.Stmt {
	inner := s.child()
	var out []ir.Stmt
	for i, st := range b.Stmts {
		checked := c.stmt(st, inner)
		if checked != nil {
			out = append(out, checked)
		}
		inner.facts = c.factsAfter(st, checked, inner)
		if (st.Return != nil || st.Fail != nil) && i < len(b.Stmts)-1 {
			next := b.Stmts[i+1]
			what := "return"
			if st.Fail != nil {
				what = "fail"
			}
			c.errorf(diag.TypeMismatch, next.Pos, next.EndPos, "unreachable statement after %s", what)
		}
	}
	return out
}

func (c *checker) stmt(st *dsl.Stmt, s *scope) ir.Stmt {
	t := s.tool
	switch {
	case st.Require != nil:
		r := st.Require
		out := &ir.Require{Cond: c.boolExpr(r.Cond, s, "require condition"), Message: r.Message, Pos: ir.Pos(r.Pos)}
		if r.MessageExpr != nil {
			out.Message, out.MessageExpr = c.message(r.MessageExpr, s)
		}
		return out
	case st.Fail != nil:
		f := st.Fail
		out := &ir.Fail{Pos: ir.Pos(f.Pos)}
		out.Message, out.MessageExpr = c.message(f.Message, s)
		return out
	case st.Var != nil:
		return c.varDecl(st.Var, s)
	case st.Let != nil:
		l := st.Let
		if l.Insert != nil {
			ins := c.insert(l.Insert, s)
			if ins == nil {
				c.declare(s, "variable", l.Name, invalidT, l.Pos, l.EndPos)
				return nil
			}
			ins.Var = c.declare(s, "variable", l.Name, &ir.Type{Kind: ir.KindRecord, Entity: ins.Entity}, l.Pos, l.EndPos)
			return ins
		}
		v := c.settle(c.expr(l.Value, s), l.Value.EndPos)
		if _, isNull := v.(*ir.Lit); isNull && v.Type().Kind == ir.KindNull {
			c.errorf(diag.TypeMismatch, l.Pos, l.EndPos, "let %s = null has no type", l.Name)
			v = invalid(l.Pos)
		}
		return &ir.Let{Var: c.declare(s, "variable", l.Name, v.Type(), l.Pos, l.EndPos), Value: v, Pos: ir.Pos(l.Pos)}
	case st.Set != nil:
		return c.set(st.Set, s)
	case st.Insert != nil:
		if ins := c.insert(st.Insert, s); ins != nil {
			return ins
		}
		return nil
	case st.Delete != nil:
		d := st.Delete
		x := c.recordExpr(c.expr(d.Target, s), d.Target.EndPos, "delete target")
		if isInvalid(x) {
			return nil
		}
		e := x.Type().Entity
		if e.Service != t.Service {
			c.errorf(diag.WriteOutsideService, d.Pos, d.EndPos, "tool %s of service %s deletes %s, which belongs to service %s", t.Name, t.Service.Name, e.Name, e.Service.Name)
		}
		c.facts[t].deletes[e] = true
		return &ir.Delete{Target: x, Pos: ir.Pos(d.Pos)}
	case st.Return != nil:
		r := st.Return
		v := c.settle(c.expr(r.Value, s), r.Value.EndPos)
		if t.Returns == nil && !isInvalid(v) {
			t.Returns = v.Type()
		}
		return &ir.Return{Value: v, Pos: ir.Pos(r.Pos)}
	case st.If != nil:
		return c.ifStmt(st.If, s)
	case st.For != nil:
		f := st.For
		var e *ir.Entity
		var src ir.Expr
		var elem, keyT *ir.Type
		if f.To != nil {
			src, elem, keyT = c.intRange(f, s), intT, intT
		} else {
			e, src, elem, keyT = c.rangeSource(f.Source, s)
		}
		inner := s.child()
		// The body runs again after itself: it starts without what its
		// own statements may change.
		inner.facts = s.facts.without(writesOf(f.Body.Stmts, s))
		var key *ir.Var
		if f.Key != "" {
			switch {
			case e != nil:
				c.errorf(diag.TypeMismatch, f.Pos, f.EndPos, "a loop over the records of %s has no index: write for %s in …", e.Name, f.Var)
				keyT = invalidT
			case keyT == nil:
				keyT = invalidT
			}
			key = c.declare(inner, "variable", f.Key, keyT, f.Pos, f.EndPos)
		}
		if elem == nil {
			elem = invalidT
		}
		v := c.declare(inner, "variable", f.Var, elem, f.Pos, f.EndPos)
		var where ir.Expr
		if f.Where != nil {
			where = c.boolExpr(f.Where, inner, "where clause")
			inner = inner.knowing(narrowedBy(where, true))
		}
		body := c.block(f.Body, inner)
		if e == nil && src == nil {
			return nil
		}
		return &ir.For{Var: v, Key: key, Entity: e, Source: src, Where: where, Body: body, Pos: ir.Pos(f.Pos)}
	}
	return nil
}

// intRange checks the range of `for i in a..b`: two ints, lowered to the
// list of the ints from a to b (the built-in range, never written by a
// spec), over which the loop runs as over any list.
func (c *checker) intRange(f *dsl.For, s *scope) ir.Expr {
	bound := func(p *dsl.Postfix, what string) ir.Expr {
		x := c.settle(c.postfix(p, s), p.EndPos)
		if isInvalid(x) {
			return x
		}
		if t := x.Type(); t.Kind != ir.KindInt || t.Optional {
			c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "the %s of a range must be an int, got %s", what, t)
			return invalid(p.Pos)
		}
		return x
	}
	from, to := bound(f.Source, "start"), bound(f.To, "end")
	if isInvalid(from) || isInvalid(to) {
		return nil
	}
	return &ir.Call{ExprBase: base(&ir.Type{Kind: ir.KindList, Elem: intT}, f.Source.Pos), Func: "range", Args: []ir.Expr{from, to}}
}

// message checks the message of a require or a fail: a string literal
// (returned as a string) or a string expression.
func (c *checker) message(e *dsl.Expr, s *scope) (string, ir.Expr) {
	if msg, ok := dsl.StringLiteral(e); ok {
		return msg, nil
	}
	x := c.coerce(c.settle(c.expr(e, s), e.EndPos), stringT, e.EndPos, "message")
	if l, ok := x.(*ir.Lit); ok && l.Value.Kind == ir.KindString {
		return l.Value.Str, nil
	}
	return "", x
}

// varDecl checks `var x = e` and `var x: T = e`.
func (c *checker) varDecl(d *dsl.Var, s *scope) ir.Stmt {
	var v ir.Expr
	var t *ir.Type // the local's type: as declared, or the value's
	if d.Type != nil {
		t = c.resolveType(d.Type, nil)
		v = c.coerce(c.expr(d.Value, s), t, d.Value.EndPos, "value of "+d.Name)
	} else {
		v = c.settle(c.expr(d.Value, s), d.Value.EndPos)
		if !isInvalid(v) && v.Type().Kind == ir.KindNull {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "var %s = null has no type; declare it: var %s: T? = null", d.Name, d.Name)
			v = invalid(d.Pos)
		}
	}
	if t == nil || isInvalid(v) {
		t = v.Type()
	}
	vr := c.declare(s, "variable", d.Name, t, d.Pos, d.EndPos)
	c.mutable[vr] = true
	c.inferred[vr] = d.Type == nil
	return &ir.VarDecl{Var: vr, Value: v, Pos: ir.Pos(d.Pos)}
}

// ifStmt checks an if statement: the then block knows what the condition
// being true says of null values, the else block what its being false
// says.
func (c *checker) ifStmt(i *dsl.If, s *scope) ir.Stmt {
	cond := c.boolExpr(i.Cond, s, "if condition")
	out := &ir.If{Cond: cond, Then: c.block(i.Then, s.knowing(narrowedBy(cond, true))), Pos: ir.Pos(i.Pos)}
	otherwise := s.knowing(narrowedBy(cond, false))
	switch {
	case i.ElseIf != nil:
		if st := c.ifStmt(i.ElseIf, otherwise); st != nil {
			out.Else = []ir.Stmt{st}
		}
	case i.Else != nil:
		out.Else = c.block(i.Else, otherwise)
	}
	return out
}

// factsAfter is what is known of null values after the statement st
// (checked is its IR, nil when it did not check), given what s knows
// before it (narrow.go).
func (c *checker) factsAfter(st *dsl.Stmt, checked ir.Stmt, s *scope) facts {
	fs := s.facts
	switch {
	case st.Require != nil:
		if r, ok := checked.(*ir.Require); ok {
			fs = fs.with(narrowedBy(r.Cond, true))
		}
	case st.If != nil:
		// An if whose one branch ends the call leaves the rest of the
		// block to the other's condition.
		if x, ok := checked.(*ir.If); ok && st.If.ElseIf == nil {
			switch thenEnds := endsBlock(st.If.Then); {
			case thenEnds && (st.If.Else == nil || !endsBlock(st.If.Else)):
				fs = fs.with(narrowedBy(x.Cond, false))
			case !thenEnds && st.If.Else != nil && endsBlock(st.If.Else):
				fs = fs.with(narrowedBy(x.Cond, true))
			}
		}
		fs = fs.without(writesOf([]*dsl.Stmt{st}, s))
	case st.Set != nil, st.For != nil:
		fs = fs.without(writesOf([]*dsl.Stmt{st}, s))
	}
	return fs
}

// recordExpr turns an expression into a record (following a ref).
func (c *checker) recordExpr(x ir.Expr, end dsl.Pos, what string) ir.Expr {
	x = c.settle(x, end)
	if isInvalid(x) {
		return x
	}
	t := x.Type()
	switch {
	case t.Kind == ir.KindRecord && !t.Optional:
		return x
	case t.Kind == ir.KindRef && !t.Optional:
		return &ir.Deref{ExprBase: base(&ir.Type{Kind: ir.KindRecord, Entity: t.Entity}, x.Position()), X: x}
	}
	c.errorf(diag.TypeMismatch, dsl.Pos(x.Position()), end, "%s must be a record, got %s", what, t)
	return invalid(x.Position())
}

func (c *checker) insert(in *dsl.Insert, s *scope) *ir.Insert {
	t := s.tool
	e := c.lookupEntity(in.Entity)
	if e == nil {
		for _, fi := range in.Fields {
			c.expr(fi.Value, s)
		}
		return nil
	}
	if e.Service != t.Service {
		c.errorf(diag.WriteOutsideService, in.Pos, in.EndPos, "tool %s of service %s inserts %s, which belongs to service %s", t.Name, t.Service.Name, e.Name, e.Service.Name)
	}
	c.facts[t].inserts[e] = true
	given := map[*ir.Field]ir.Expr{}
	for _, fi := range in.Fields {
		v := c.expr(fi.Value, s)
		if fi.Name == "id" {
			c.errorf(diag.TypeMismatch, fi.Pos, fi.EndPos, "the id of a new record comes from its table's sequence and cannot be given")
			continue
		}
		f := e.Field(fi.Name)
		if f == nil {
			c.errorf(diag.UnresolvedName, fi.Pos, fi.EndPos, "%s has no field %q%s", e.Name, fi.Name, suggestField(e, fi.Name))
			continue
		}
		if _, dup := given[f]; dup {
			c.errorf(diag.DuplicateName, fi.Pos, fi.EndPos, "field %s given twice", fi.Name)
			continue
		}
		given[f] = c.coerce(v, f.Type, fi.Value.EndPos, "value of "+e.Name+"."+f.Name)
	}
	out := &ir.Insert{Entity: e, Pos: ir.Pos(in.Pos)}
	for _, f := range e.Fields {
		if v, ok := given[f]; ok {
			out.Fields = append(out.Fields, &ir.FieldInit{Field: f, Value: v})
		} else if f.Required() && f.Type.Kind != ir.KindInvalid {
			c.errorf(diag.MissingRequired, in.Pos, in.EndPos, "insert %s does not give required field %q", e.Name, f.Name)
		}
	}
	return out
}
