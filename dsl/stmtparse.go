package dsl

// Statements: a tool's body. Each starts with its keyword.

// block parses `{ statements }`; nil when no `{` comes next.
func (p *exprParser) block(dst *Block) (*Block, error) {
	t := p.peek()
	if !isOp(t, "{") {
		return nil, nil
	}
	p.next()
	b := node(dst)
	*b = Block{Pos: t.Pos}
	for {
		s, err := p.stmt()
		if err != nil {
			return nil, err
		}
		if s == nil {
			break
		}
		b.Stmts = append(b.Stmts, s)
	}
	if err := p.expectOp("}"); err != nil {
		return nil, err
	}
	b.EndPos = p.end()
	return b, nil
}

// requireBlock parses a block that must come next.
func (p *exprParser) requireBlock() (*Block, error) {
	b, err := p.block(nil)
	if err == nil && b == nil {
		err = p.unexpected("Block")
	}
	return b, err
}

// stmt parses a statement; nil when no statement keyword comes next.
func (p *exprParser) stmt() (*Stmt, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	s := &Stmt{Pos: t.Pos}
	var err error
	switch t.Value {
	case "require":
		s.Require, err = p.require()
	case "let":
		s.Let, err = p.let()
	case "var":
		s.Var, err = p.varStmt()
	case "set":
		s.Set, err = p.set()
	case "insert":
		s.Insert, err = p.insert()
	case "delete":
		p.next()
		d := &Delete{Pos: t.Pos}
		if d.Target, err = p.requireExpr(); err == nil {
			d.EndPos = p.end()
		}
		s.Delete = d
	case "return":
		p.next()
		r := &Return{Pos: t.Pos}
		if r.Value, err = p.requireExpr(); err == nil {
			r.EndPos = p.end()
		}
		s.Return = r
	case "if":
		s.If, err = p.ifStmt()
	case "for":
		s.For, err = p.forStmt()
	case "fail":
		p.next()
		f := &Fail{Pos: t.Pos}
		if f.Message, err = p.requireExpr(); err == nil {
			f.EndPos = p.end()
		}
		s.Fail = f
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	s.EndPos = p.end()
	return s, nil
}

// require parses `require cond else "message"`; a message built from
// values (`"No " + id`) is an expression.
func (p *exprParser) require() (*Require, error) {
	r := &Require{Pos: p.next().Pos}
	var err error
	if r.Cond, err = p.requireExpr(); err != nil {
		return nil, err
	}
	if !isKeyword(p.peek(), "else") {
		return nil, p.unexpected(`"else"`)
	}
	p.next()
	if t := p.peek(); t.Type == tokString && !isOp(p.peekN(1), "+") {
		p.next()
		r.Message = t.Value
	} else if r.MessageExpr, err = p.requireExpr(); err != nil {
		return nil, err
	}
	r.EndPos = p.end()
	return r, nil
}

// let parses `let x = value` or `let x = insert E { … }`.
func (p *exprParser) let() (*Let, error) {
	l := &Let{Pos: p.next().Pos}
	name, err := p.expectIdent()
	if err != nil {
		return nil, err
	}
	l.Name = name.Value
	if err := p.expectOp("="); err != nil {
		return nil, err
	}
	if isKeyword(p.peek(), "insert") {
		// `insert` is a name where an insert goes wrong within
		// giveUpWithin tokens.
		matched, err := p.attempt(func(*bool) (err error) {
			l.Insert, err = p.insert()
			return err
		})
		if err != nil {
			return nil, err
		}
		if !matched {
			l.Insert = nil
		}
	}
	if l.Insert == nil {
		if l.Value, err = p.requireExpr(); err != nil {
			return nil, err
		}
	}
	l.EndPos = p.end()
	return l, nil
}

// varStmt parses `var x = value` or `var x: T = value`.
func (p *exprParser) varStmt() (*Var, error) {
	v := &Var{Pos: p.next().Pos}
	name, err := p.expectIdent()
	if err != nil {
		return nil, err
	}
	v.Name = name.Value
	if p.acceptOp(":") {
		if v.Type, err = p.requireType(); err != nil {
			return nil, err
		}
	}
	if err := p.expectOp("="); err != nil {
		return nil, err
	}
	if v.Value, err = p.requireExpr(); err != nil {
		return nil, err
	}
	v.EndPos = p.end()
	return v, nil
}

// set parses `set target = value`.
func (p *exprParser) set() (*Set, error) {
	s := &Set{Pos: p.next().Pos}
	var err error
	if s.Target, err = p.postfix(); err != nil {
		return nil, err
	}
	if s.Target == nil {
		return nil, p.unexpected("Postfix")
	}
	if err := p.expectOp("="); err != nil {
		return nil, err
	}
	if s.Value, err = p.requireExpr(); err != nil {
		return nil, err
	}
	s.EndPos = p.end()
	return s, nil
}

// insert parses `insert E { f: v, … }`.
func (p *exprParser) insert() (*Insert, error) {
	in := &Insert{Pos: p.next().Pos}
	var err error
	if in.Entity, _ = p.qualName(); in.Entity == nil {
		return nil, p.unexpected("QualName")
	}
	if err := p.expectOp("{"); err != nil {
		return nil, err
	}
	if in.Fields, err = fieldList(p, p.fieldInit); err != nil {
		return nil, err
	}
	if err := p.expectOp("}"); err != nil {
		return nil, err
	}
	in.EndPos = p.end()
	return in, nil
}

// ifStmt parses `if cond { … }` with its `else { … }` or `else if …`.
func (p *exprParser) ifStmt() (*If, error) {
	i := &If{Pos: p.next().Pos}
	var err error
	if i.Cond, err = p.requireExpr(); err != nil {
		return nil, err
	}
	if i.Then, err = p.requireBlock(); err != nil {
		return nil, err
	}
	if isKeyword(p.peek(), "else") {
		p.next()
		if isKeyword(p.peek(), "if") {
			i.ElseIf, err = p.ifStmt()
		} else {
			i.Else, err = p.requireBlock()
		}
		if err != nil {
			return nil, err
		}
	}
	i.EndPos = p.end()
	return i, nil
}

// forStmt parses `for x in S where c { … }` and `for k, v in S { … }`.
func (p *exprParser) forStmt() (*For, error) {
	f := &For{Pos: p.next().Pos}
	if t := p.peek(); t.Type == tokIdent && isOp(p.peekN(1), ",") {
		p.next()
		p.next()
		f.Key = t.Value
	}
	v, err := p.expectIdent()
	if err != nil {
		return nil, err
	}
	f.Var = v.Value
	if !isKeyword(p.peek(), "in") {
		return nil, p.unexpected(`"in"`)
	}
	p.next()
	if f.Source, err = p.postfix(); err != nil {
		return nil, err
	}
	if f.Source == nil {
		return nil, p.unexpected("Postfix")
	}
	if isOp(p.peek(), ".") && isOp(p.peekN(1), ".") {
		p.next()
		p.next()
		if f.To, err = p.postfix(); err != nil {
			return nil, err
		}
		if f.To == nil {
			return nil, p.unexpected("the end of the range")
		}
	}
	if isKeyword(p.peek(), "where") && canStartOperand(p.peekN(1)) {
		p.next()
		if f.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if f.Body, err = p.requireBlock(); err != nil {
		return nil, err
	}
	f.EndPos = p.end()
	return f, nil
}
