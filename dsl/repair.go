package dsl

// repairLeakedOperators undoes a participle quirk. When the optional
// `op operand` group of a comparison fails (`a in` with nothing after the
// `in`), participle backtracks but has already stored the operator in the
// CmpExpr, while the tokens it gave back are parsed again by what follows:
// in a rubric `a in` then parses as the assertions `a` and `in`, and the
// first would keep Op "in" with no right side. An operator without a right
// side is always such a leftover, so it is cleared. (The hand-written
// parser leaves none; the trees of participle alone, in Parse's error path
// and in the tests, still need the repair.)
func repairLeakedOperators(f *File) {
	for _, d := range f.Decls {
		switch {
		case d == nil:
		case d.Service != nil:
			for _, m := range d.Service.Members {
				if m != nil && m.Tool != nil && m.Tool.Custom != nil {
					repairBlock(m.Tool.Custom.Body)
				}
			}
		case d.Invariant != nil:
			repairPostfix(d.Invariant.Source)
			repairExpr(d.Invariant.Where)
			repairExpr(d.Invariant.Check)
		case d.Task != nil && d.Task.Expect != nil:
			for _, a := range d.Task.Expect.Assertions {
				if a != nil {
					repairExpr(a.Expr)
					for _, x := range a.Except {
						repairPostfix(x)
					}
				}
			}
		}
	}
}

func repairBlock(b *Block) {
	if b == nil {
		return
	}
	for _, s := range b.Stmts {
		repairStmt(s)
	}
}

func repairStmt(s *Stmt) {
	switch {
	case s == nil:
	case s.Require != nil:
		repairExpr(s.Require.Cond)
		repairExpr(s.Require.MessageExpr)
		literalMessage(s.Require)
	case s.Fail != nil:
		repairExpr(s.Fail.Message)
	case s.Var != nil:
		repairExpr(s.Var.Value)
	case s.Let != nil:
		repairInsert(s.Let.Insert)
		repairExpr(s.Let.Value)
	case s.Set != nil:
		repairPostfix(s.Set.Target)
		repairExpr(s.Set.Value)
	case s.Insert != nil:
		repairInsert(s.Insert)
	case s.Delete != nil:
		repairExpr(s.Delete.Target)
	case s.Return != nil:
		repairExpr(s.Return.Value)
	case s.If != nil:
		for i := s.If; i != nil; i = i.ElseIf {
			repairExpr(i.Cond)
			repairBlock(i.Then)
			repairBlock(i.Else)
		}
	case s.For != nil:
		repairPostfix(s.For.Source)
		repairExpr(s.For.Where)
		repairBlock(s.For.Body)
	}
}

func repairInsert(in *Insert) {
	if in == nil {
		return
	}
	for _, f := range in.Fields {
		if f != nil {
			repairExpr(f.Value)
		}
	}
}

func repairExpr(e *Expr) {
	if e == nil {
		return
	}
	for _, a := range append([]*AndExpr{e.Left}, e.Right...) {
		if a == nil {
			continue
		}
		for _, n := range append([]*NotExpr{a.Left}, a.Right...) {
			for n != nil && n.Not != nil {
				n = n.Not
			}
			if n == nil || n.Cmp == nil {
				continue
			}
			if n.Cmp.Right == nil {
				n.Cmp.Op = ""
			}
			repairAdd(n.Cmp.Left)
			repairAdd(n.Cmp.Right)
		}
	}
}

func repairAdd(e *AddExpr) {
	if e == nil {
		return
	}
	repairMul(e.Left)
	for _, op := range e.Right {
		if op != nil {
			repairMul(op.Operand)
		}
	}
}

func repairMul(e *MulExpr) {
	if e == nil {
		return
	}
	repairUnary(e.Left)
	for _, op := range e.Right {
		if op != nil {
			repairUnary(op.Operand)
		}
	}
}

func repairUnary(u *Unary) {
	for u != nil && u.Neg != nil {
		u = u.Neg
	}
	if u != nil {
		repairPostfix(u.Postfix)
		if t := u.As; t != nil && t.Enum == nil && t.Ref == nil && t.List == nil && t.Map == nil && t.Named == nil {
			u.As = nil // a leftover of an `as` without a type, as above
		}
	}
}

func repairPostfix(x *Postfix) {
	if x == nil {
		return
	}
	for _, s := range x.Suffixes {
		if s != nil {
			repairExpr(s.Index)
		}
	}
	p := x.Primary
	switch {
	case p == nil:
	case p.Agg != nil:
		repairExpr(p.Agg.Value)
		repairPostfix(p.Agg.Source)
		repairExpr(p.Agg.Where)
	case p.Call != nil:
		for _, a := range p.Call.Args {
			repairExpr(a)
		}
	case p.List != nil:
		for _, el := range p.List.Elems {
			repairExpr(el)
		}
	case p.Struct != nil:
		for _, f := range p.Struct.Fields {
			if f != nil {
				repairExpr(f.Value)
			}
		}
	case p.Match != nil:
		repairExpr(p.Match.X)
		for _, f := range p.Match.Fields {
			if f != nil {
				repairExpr(f.Value)
			}
		}
	case p.Map != nil:
		for _, e := range p.Map.Entries {
			if e != nil {
				repairExpr(e.Value)
			}
		}
	case p.Paren != nil:
		repairExpr(p.Paren)
	}
}

// literalMessage moves a require message that is a single string literal
// (the common case) from MessageExpr to Message.
func literalMessage(r *Require) {
	if s, ok := StringLiteral(r.MessageExpr); ok {
		r.Message, r.MessageExpr = s, nil
	}
}

// StringLiteral reports whether e is a single string literal, without
// parentheses, and returns its value.
func StringLiteral(e *Expr) (string, bool) {
	if e == nil || len(e.Right) > 0 || e.Left == nil || len(e.Left.Right) > 0 {
		return "", false
	}
	n := e.Left.Left
	if n == nil || n.Not != nil || n.Cmp == nil || n.Cmp.Op != "" {
		return "", false
	}
	a := n.Cmp.Left
	if a == nil || len(a.Right) > 0 || a.Left == nil || len(a.Left.Right) > 0 {
		return "", false
	}
	u := a.Left.Left
	if u == nil || u.Neg != nil || u.Postfix == nil || len(u.Postfix.Suffixes) > 0 {
		return "", false
	}
	p := u.Postfix.Primary
	if p == nil || p.Lit == nil || p.Lit.String == nil {
		return "", false
	}
	return *p.Lit.String, true
}
