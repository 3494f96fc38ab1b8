package dsl

import "github.com/alecthomas/participle/v2/lexer"

// The line-level constructs inside blocks (entity and record fields, tool
// parameters, rubric assertions, solution calls, meta entries) are parsed
// by hand, step for step as participle parses their grammar tags (see
// handparse.go). Participle parses the declarations and their blocks.

// Parse parses a field (participle.Parseable).
func (f *Field) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.field(f) {
		return errNoParse
	}
	return nil
}

// Parse parses a tool parameter (participle.Parseable).
func (pa *Param) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.param(pa) {
		return errNoParse
	}
	return nil
}

// Parse parses a rubric assertion (participle.Parseable).
func (a *Assertion) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.assertion(a) {
		return errNoParse
	}
	return nil
}

// Parse parses a call of a solution (participle.Parseable).
func (c *CallStep) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.callStep(c) {
		return errNoParse
	}
	return nil
}

// Parse parses an entry of a task's meta block (participle.Parseable).
func (m *MetaEntry) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.metaEntry(m) {
		return errNoParse
	}
	return nil
}

// Field = <ident> Type Constraint* <string>? .
func (p *handParser) field(f *Field) bool {
	f.Pos = p.lex.Peek().Pos
	var ok bool
	if f.Name, ok = p.ident(); !ok {
		return false
	}
	f.Type = new(Type)
	if !p.typ(f.Type) {
		return false
	}
	for {
		cp := p.lex.MakeCheckpoint()
		c := new(Constraint)
		if !p.constraint(c) {
			p.lex.LoadCheckpoint(cp) // a constraint fails within two tokens
			break
		}
		f.Constraints = append(f.Constraints, c)
	}
	f.Doc = p.docString()
	f.EndPos = p.end()
	return true
}

// docString consumes an optional string: <string>?.
func (p *handParser) docString() *string {
	if t := p.lex.Peek(); t.Type == tokString {
		p.lex.Next()
		s := t.Value
		return &s
	}
	return nil
}

// Constraint = "unique" | ("=" Literal) | ((">=" | "<=" | ">" | "<") Literal) .
func (p *handParser) constraint(c *Constraint) bool {
	t := p.lex.Peek()
	c.Pos = t.Pos
	switch t.Value {
	case "unique":
		p.lex.Next()
		c.Unique = true
	case "=":
		p.lex.Next()
		c.Default = new(Literal)
		if !p.literal(c.Default) {
			return false
		}
	case ">=", "<=", ">", "<":
		p.lex.Next()
		c.Op = t.Value
		c.Bound = new(Literal)
		if !p.literal(c.Bound) {
			return false
		}
	default:
		return false
	}
	c.EndPos = p.end()
	return true
}

// Param = <ident> ":" Type <string>? .
func (p *handParser) param(pa *Param) bool {
	pa.Pos = p.lex.Peek().Pos
	var ok bool
	if pa.Name, ok = p.ident(); !ok || !p.accept(":") {
		return false
	}
	pa.Type = new(Type)
	if !p.typ(pa.Type) {
		return false
	}
	pa.Doc = p.docString()
	pa.EndPos = p.end()
	return true
}

// Assertion = ("invariant" <ident>) | ("unchanged" ("except" Postfix ("," Postfix)*)?) | Expr .
func (p *handParser) assertion(a *Assertion) bool {
	t := p.lex.Peek()
	a.Pos = t.Pos
	cp := p.lex.MakeCheckpoint()
	switch t.Value {
	case "invariant":
		p.lex.Next()
		if name, ok := p.ident(); ok {
			a.Invariant = &name
			a.EndPos = p.end()
			return true
		}
		p.lex.LoadCheckpoint(cp) // failed one token in
	case "unchanged":
		p.lex.Next()
		a.Unchanged = true
		if p.at("except") {
			cp := p.lex.MakeCheckpoint()
			p.lex.Next()
			if !p.postfixList(&a.Except) && !p.giveUp(cp) {
				return false
			}
		}
		a.EndPos = p.end()
		return true
	}
	a.Expr = new(Expr)
	if !p.expr(a.Expr) {
		p.giveUp(cp)
		return false
	}
	a.EndPos = p.end()
	return true
}

// postfixList parses Postfix ("," Postfix)* into list. When it reports
// false, list is unchanged and the lexer is where the parse failed.
func (p *handParser) postfixList(list *[]*Postfix) bool {
	first := new(Postfix)
	if !p.postfix(first) {
		return false
	}
	items := []*Postfix{first}
	for p.at(",") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		x := new(Postfix)
		if !p.postfix(x) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		items = append(items, x)
	}
	*list = items
	return true
}

// CallStep = (<ident> "=")? (?! "fails") <ident> "(" (Arg ","?)* ")" ("fails" <string>)? .
func (p *handParser) callStep(c *CallStep) bool {
	t := p.lex.Peek()
	c.Pos = t.Pos
	if t.Type == tokIdent && p.second().Value == "=" {
		p.lex.Next()
		p.lex.Next()
		bind := t.Value
		c.Bind = &bind
	}
	if p.at("fails") {
		return false
	}
	var ok bool
	if c.Tool, ok = p.ident(); !ok || !p.accept("(") {
		return false
	}
	for p.lex.Peek().Type == tokIdent {
		cp := p.lex.MakeCheckpoint()
		var f FieldValue
		if !p.fieldValue(&f) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		arg := Arg(f)
		c.Args = append(c.Args, &arg)
		p.accept(",")
	}
	if !p.accept(")") {
		return false
	}
	if p.at("fails") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		if t := p.lex.Peek(); t.Type == tokString {
			p.lex.Next()
			msg := t.Value
			c.Fails = &msg
		} else {
			p.lex.LoadCheckpoint(cp) // failed one token in
		}
	}
	c.EndPos = p.end()
	return true
}

// MetaEntry = <ident> ":" Value .
func (p *handParser) metaEntry(m *MetaEntry) bool {
	m.Pos = p.lex.Peek().Pos
	var ok bool
	if m.Key, ok = p.ident(); !ok || !p.accept(":") {
		return false
	}
	m.Value = new(Value)
	if !p.value(m.Value) {
		return false
	}
	m.EndPos = p.end()
	return true
}
