package dsl

// Constants: seed values, solution arguments, meta values, defaults and
// bounds. They are the literals of expressions, and lists, maps and
// records of constants.

// constLiteral parses a literal of a constant: a negative number is one.
func (p *exprParser) constLiteral() (*Literal, error) {
	return p.literal(true), nil
}

// fieldValue parses `name: constant` into dst (or a new node); nil when
// no name comes next.
func (p *exprParser) fieldValue(dst *FieldValue) (*FieldValue, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	p.next()
	if err := p.expectColon(); err != nil {
		return nil, err
	}
	f := node(dst)
	*f = FieldValue{Pos: t.Pos, Name: t.Value}
	var err error
	if p.compositeAhead() {
		f.Composite, err = p.composite()
	} else if f.Value = p.literal(true); f.Value == nil {
		err = p.unexpected("Value")
	}
	if err != nil {
		return nil, err
	}
	f.EndPos = p.end()
	return f, nil
}

// newFieldValue parses `name: constant` into a new node.
func (p *exprParser) newFieldValue() (*FieldValue, error) { return p.fieldValue(nil) }

// compositeAhead reports whether a list, map or record constant starts
// here.
func (p *exprParser) compositeAhead() bool {
	t := p.peek()
	return isOp(t, "[") || isOp(t, "{") || t.Type == tokIdent && isOp(p.peekN(1), "{")
}

// value parses a constant; nil when none starts here.
func (p *exprParser) value() (*Value, error) {
	t := p.peek()
	v := &Value{Pos: t.Pos}
	if p.compositeAhead() {
		var err error
		if v.Composite, err = p.composite(); err != nil {
			return nil, err
		}
	} else if v.Lit = p.literal(true); v.Lit == nil {
		return nil, nil
	}
	v.EndPos = p.end()
	return v, nil
}

// requireValue parses a constant that must come next.
func (p *exprParser) requireValue() (*Value, error) {
	v, err := p.value()
	if err == nil && v == nil {
		err = p.unexpected("Value")
	}
	return v, err
}

// composite parses a list, map or record constant (compositeAhead saw
// one).
func (p *exprParser) composite() (*Composite, error) {
	t := p.next()
	c := &Composite{Pos: t.Pos}
	var err error
	switch {
	case isOp(t, "["):
		l := &ListValue{Pos: t.Pos}
		if l.Elems, err = bracketList(p, p.value); err == nil {
			err = p.expectClose("]")
		}
		l.EndPos, c.List = p.end(), l
	case isOp(t, "{"):
		m := &MapValue{Pos: t.Pos}
		m.Entries, err = mapEntries(p, p.requireValue, func(pos, end Pos, key string, v *Value) *MapValueEntry {
			return &MapValueEntry{Pos: pos, EndPos: end, Key: key, Value: v}
		})
		if err == nil {
			err = p.expectClose("}")
		}
		m.EndPos, c.Map = p.end(), m
	default:
		r := &RecordValue{Pos: t.Pos, Name: t.Value}
		p.next() // {
		if r.Fields, err = fieldList(p, p.newFieldValue); err == nil {
			err = p.expectClose("}")
		}
		r.EndPos, c.Record = p.end(), r
	}
	if err != nil {
		return nil, err
	}
	c.EndPos = p.end()
	return c, nil
}

// record parses a seed record, `crm.Customer acme { name: "Acme" }`; nil
// when what comes next is not one: `load crm.Customer from …` is a load,
// which the header of a record of an entity `load` gets wrong within
// giveUpWithin tokens.
func (p *exprParser) record(dst *Record) (*Record, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	r := node(dst)
	*r = Record{Pos: t.Pos}
	header := func(commit *bool) (err error) {
		*commit = t.Value != "load"
		r.Entity, _ = p.qualName()
		h, err := p.expectIdent()
		if err != nil {
			return err
		}
		r.Handle = h.Value
		return p.expectOp("{")
	}
	matched, err := p.attempt(header)
	if err != nil || !matched {
		return nil, err
	}
	if r.Fields, err = fieldList(p, p.newFieldValue); err != nil {
		return nil, err
	}
	if err := p.expectClose("}"); err != nil {
		return nil, err
	}
	r.EndPos = p.end()
	return r, nil
}
