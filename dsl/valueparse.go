package dsl

import "github.com/alecthomas/participle/v2/lexer"

// Seed records, solution arguments and meta values are constants: literals
// and list, map and record values. Like expressions, they are parsed by
// hand, step for step as participle parses their grammar tags (see
// handparse.go).

// Parse parses a seed record (participle.Parseable).
func (r *Record) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.record(r) {
		return errNoParse
	}
	return nil
}

// Parse parses an argument of a solution call (participle.Parseable).
func (a *Arg) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	f := FieldValue{}
	if !p.fieldValue(&f) {
		return errNoParse
	}
	*a = Arg(f)
	return nil
}

// Parse parses a constant (participle.Parseable).
func (v *Value) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.value(v) {
		return errNoParse
	}
	return nil
}

// Record = QualName <ident> "{" (FieldValue ","?)* "}" .
func (p *handParser) record(r *Record) bool {
	r.Pos = p.lex.Peek().Pos
	r.Entity = new(QualName)
	if !p.qualName(r.Entity) {
		return false
	}
	var ok bool
	if r.Handle, ok = p.ident(); !ok || !p.accept("{") {
		return false
	}
	if r.Fields, ok = p.fieldValues(); !ok || !p.accept("}") {
		return false
	}
	r.EndPos = p.end()
	return true
}

// fieldValues parses (FieldValue ","?)*. It reports false when the parse
// fails in it.
func (p *handParser) fieldValues() ([]*FieldValue, bool) {
	var fields []*FieldValue
	for p.lex.Peek().Type == tokIdent {
		cp := p.lex.MakeCheckpoint()
		f := new(FieldValue)
		if !p.fieldValue(f) {
			if !p.giveUp(cp) {
				return nil, false
			}
			break
		}
		fields = append(fields, f)
		p.accept(",")
	}
	return fields, true
}

// FieldValue = <ident> ":" ((Literal (?! "{")) | Composite) .
// Arg has the same grammar.
func (p *handParser) fieldValue(f *FieldValue) bool {
	f.Pos = p.lex.Peek().Pos
	var ok bool
	if f.Name, ok = p.ident(); !ok || !p.accept(":") {
		return false
	}
	cp := p.lex.MakeCheckpoint()
	if t := p.lex.Peek(); t.Type != tokOp || t.Value == "-" {
		l := new(Literal)
		if p.literal(l) && !p.at("{") {
			f.Value = l
			f.EndPos = p.end()
			return true
		}
		p.lex.LoadCheckpoint(cp) // a literal fails within two tokens
	}
	c := new(Composite)
	if !p.composite(c) {
		p.giveUp(cp)
		return false
	}
	f.Composite = c
	f.EndPos = p.end()
	return true
}

// Value = Composite | Literal .
func (p *handParser) value(v *Value) bool {
	t := p.lex.Peek()
	v.Pos = t.Pos
	if t.Value == "[" || t.Value == "{" || t.Type == tokIdent && p.second().Value == "{" {
		cp := p.lex.MakeCheckpoint()
		c := new(Composite)
		if p.composite(c) {
			v.Composite = c
			v.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	l := new(Literal)
	if !p.literal(l) {
		return false
	}
	v.Lit = l
	v.EndPos = p.end()
	return true
}

// Composite = ListValue | MapValue | RecordValue .
func (p *handParser) composite(c *Composite) bool {
	t := p.lex.Peek()
	c.Pos = t.Pos
	cp := p.lex.MakeCheckpoint()
	switch t.Value {
	case "[":
		l := new(ListValue)
		if p.listValue(l) {
			c.List = l
			c.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	case "{":
		m := new(MapValue)
		if p.mapValue(m) {
			c.Map = m
			c.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	if t.Type != tokIdent {
		return false
	}
	r := new(RecordValue)
	if !p.recordValue(r) {
		p.giveUp(cp)
		return false
	}
	c.Record = r
	c.EndPos = p.end()
	return true
}

// ListValue = "[" (Value ("," Value)* ","?)? "]" .
func (p *handParser) listValue(l *ListValue) bool {
	l.Pos = p.lex.Peek().Pos
	if !p.accept("[") {
		return false
	}
	cp := p.lex.MakeCheckpoint()
	first := new(Value)
	if p.value(first) {
		l.Elems = append(l.Elems, first)
		for p.at(",") {
			cp := p.lex.MakeCheckpoint()
			p.lex.Next()
			v := new(Value)
			if !p.value(v) {
				if !p.giveUp(cp) {
					return false
				}
				break
			}
			l.Elems = append(l.Elems, v)
		}
		p.accept(",")
	} else if !p.giveUp(cp) {
		return false
	}
	if !p.accept("]") {
		return false
	}
	l.EndPos = p.end()
	return true
}

// MapValue = "{" (MapValueEntry ","?)* "}" .
// MapValueEntry = <string> ":" Value .
func (p *handParser) mapValue(m *MapValue) bool {
	m.Pos = p.lex.Peek().Pos
	if !p.accept("{") {
		return false
	}
	for {
		t := p.lex.Peek()
		if t.Type != tokString {
			break
		}
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		e := &MapValueEntry{Pos: t.Pos, Key: t.Value, Value: new(Value)}
		if !p.accept(":") || !p.value(e.Value) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		e.EndPos = p.end()
		m.Entries = append(m.Entries, e)
		p.accept(",")
	}
	if !p.accept("}") {
		return false
	}
	m.EndPos = p.end()
	return true
}

// RecordValue = <ident> "{" (FieldValue ","?)* "}" .
func (p *handParser) recordValue(r *RecordValue) bool {
	r.Pos = p.lex.Peek().Pos
	var ok bool
	if r.Name, ok = p.ident(); !ok || !p.accept("{") {
		return false
	}
	if r.Fields, ok = p.fieldValues(); !ok || !p.accept("}") {
		return false
	}
	r.EndPos = p.end()
	return true
}
