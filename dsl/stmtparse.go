package dsl

import "github.com/alecthomas/participle/v2/lexer"

// The statements of a tool body are parsed by hand, step for step as
// participle parses their grammar tags (see handparse.go): each statement
// starts with its own keyword, which picks the one alternative of Stmt
// that can match.

// Parse parses a block of statements (participle.Parseable).
func (b *Block) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.block(b) {
		return errNoParse
	}
	return nil
}

// Block = "{" Stmt* "}" .
func (p *handParser) block(b *Block) bool {
	b.Pos = p.lex.Peek().Pos
	if !p.accept("{") {
		return false
	}
	for {
		cp := p.lex.MakeCheckpoint()
		s := new(Stmt)
		if !p.stmt(s) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		b.Stmts = append(b.Stmts, s)
	}
	if !p.accept("}") {
		return false
	}
	b.EndPos = p.end()
	return true
}

// Stmt = Require | Let | Var | Set | Insert | Delete | Return | If | For | Fail .
func (p *handParser) stmt(s *Stmt) bool {
	t := p.lex.Peek()
	s.Pos = t.Pos
	cp := p.lex.MakeCheckpoint()
	ok := false
	switch t.Value {
	case "require":
		r := new(Require)
		ok, s.Require = p.require(r), r
	case "let":
		l := new(Let)
		ok, s.Let = p.let(l), l
	case "var":
		v := new(Var)
		ok, s.Var = p.varStmt(v), v
	case "set":
		v := new(Set)
		ok, s.Set = p.set(v), v
	case "insert":
		in := new(Insert)
		ok, s.Insert = p.insert(in), in
	case "delete":
		d := &Delete{Pos: t.Pos}
		p.lex.Next()
		d.Target = new(Expr)
		if ok = p.expr(d.Target); ok {
			d.EndPos = p.end()
		}
		s.Delete = d
	case "return":
		r := &Return{Pos: t.Pos}
		p.lex.Next()
		r.Value = new(Expr)
		if ok = p.expr(r.Value); ok {
			r.EndPos = p.end()
		}
		s.Return = r
	case "if":
		i := new(If)
		ok, s.If = p.ifStmt(i), i
	case "for":
		f := new(For)
		ok, s.For = p.forStmt(f), f
	case "fail":
		f := &Fail{Pos: t.Pos}
		p.lex.Next()
		f.Message = new(Expr)
		if ok = p.expr(f.Message); ok {
			f.EndPos = p.end()
		}
		s.Fail = f
	}
	if !ok {
		p.giveUp(cp)
		return false
	}
	s.EndPos = p.end()
	return true
}

// Require = "require" Expr "else" ((<string> (?! "+")) | Expr) .
func (p *handParser) require(r *Require) bool {
	r.Pos = p.lex.Peek().Pos
	p.lex.Next()
	r.Cond = new(Expr)
	if !p.expr(r.Cond) || !p.accept("else") {
		return false
	}
	if t := p.lex.Peek(); t.Type == tokString && p.second().Value != "+" {
		p.lex.Next()
		r.Message = t.Value
	} else {
		cp := p.lex.MakeCheckpoint()
		r.MessageExpr = new(Expr)
		if !p.expr(r.MessageExpr) {
			p.giveUp(cp)
			return false
		}
	}
	r.EndPos = p.end()
	return true
}

// Let = "let" <ident> "=" (Insert | Expr) .
func (p *handParser) let(l *Let) bool {
	l.Pos = p.lex.Peek().Pos
	p.lex.Next()
	var ok bool
	if l.Name, ok = p.ident(); !ok || !p.accept("=") {
		return false
	}
	cp := p.lex.MakeCheckpoint()
	if p.at("insert") {
		in := new(Insert)
		if p.insert(in) {
			l.Insert = in
			l.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	l.Value = new(Expr)
	if !p.expr(l.Value) {
		p.giveUp(cp)
		return false
	}
	l.EndPos = p.end()
	return true
}

// Var = "var" <ident> (":" Type)? "=" Expr .
func (p *handParser) varStmt(v *Var) bool {
	v.Pos = p.lex.Peek().Pos
	p.lex.Next()
	var ok bool
	if v.Name, ok = p.ident(); !ok {
		return false
	}
	if p.at(":") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		t := new(Type)
		if p.typ(t) {
			v.Type = t
		} else if !p.giveUp(cp) {
			return false
		}
	}
	if !p.accept("=") {
		return false
	}
	v.Value = new(Expr)
	if !p.expr(v.Value) {
		return false
	}
	v.EndPos = p.end()
	return true
}

// Set = "set" Postfix "=" Expr .
func (p *handParser) set(s *Set) bool {
	s.Pos = p.lex.Peek().Pos
	p.lex.Next()
	s.Target = new(Postfix)
	if !p.postfix(s.Target) || !p.accept("=") {
		return false
	}
	s.Value = new(Expr)
	if !p.expr(s.Value) {
		return false
	}
	s.EndPos = p.end()
	return true
}

// Insert = "insert" QualName "{" (FieldInit ","?)* "}" .
func (p *handParser) insert(in *Insert) bool {
	in.Pos = p.lex.Peek().Pos
	p.lex.Next()
	in.Entity = new(QualName)
	if !p.qualName(in.Entity) || !p.accept("{") {
		return false
	}
	var ok bool
	if in.Fields, ok = p.fieldInits(); !ok || !p.accept("}") {
		return false
	}
	in.EndPos = p.end()
	return true
}

// If = "if" Expr Block ("else" (If | Block))? .
func (p *handParser) ifStmt(i *If) bool {
	i.Pos = p.lex.Peek().Pos
	p.lex.Next()
	i.Cond = new(Expr)
	if !p.expr(i.Cond) {
		return false
	}
	i.Then = new(Block)
	if !p.block(i.Then) {
		return false
	}
	if p.at("else") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		alt := p.lex.MakeCheckpoint()
		matched := false
		if p.at("if") {
			elseIf := new(If)
			if matched = p.ifStmt(elseIf); matched {
				i.ElseIf = elseIf
			} else if !p.giveUp(alt) {
				return false
			}
		}
		if !matched && p.at("{") {
			b := new(Block)
			if matched = p.block(b); matched {
				i.Else = b
			} else if !p.giveUp(alt) {
				return false
			}
		}
		if !matched && !p.giveUp(cp) {
			return false
		}
	}
	i.EndPos = p.end()
	return true
}

// For = "for" (<ident> ",")? <ident> "in" Postfix ("where" Expr)? Block .
func (p *handParser) forStmt(f *For) bool {
	f.Pos = p.lex.Peek().Pos
	p.lex.Next()
	if t := p.lex.Peek(); t.Type == tokIdent && p.second().Value == "," {
		p.lex.Next()
		p.lex.Next()
		f.Key = t.Value
	}
	var ok bool
	if f.Var, ok = p.ident(); !ok || !p.accept("in") {
		return false
	}
	f.Source = new(Postfix)
	if !p.postfix(f.Source) {
		return false
	}
	if p.at("where") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		w := new(Expr)
		if p.expr(w) {
			f.Where = w
		} else if !p.giveUp(cp) {
			return false
		}
	}
	f.Body = new(Block)
	if !p.block(f.Body) {
		return false
	}
	f.EndPos = p.end()
	return true
}
