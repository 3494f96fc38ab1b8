package dsl

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Types.

// typ parses a type; nil when the next token cannot start one. `enum`,
// `ref`, `list` and `map` are also names of types: when what follows one
// of them goes wrong within giveUpWithin tokens, it is that name
// (`list<string` without its `>` is the type `list` with the bound
// `< string`, which the checker explains).
func (p *exprParser) typ() (*Type, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	ty := &Type{Pos: t.Pos}
	var (
		matched bool
		err     error
	)
	switch t.Value {
	case "enum":
		if isOp(p.peekN(1), "{") { // no type is followed by a brace
			ty.Enum, err = p.enumType()
			matched = true
		}
	case "ref":
		if p.peekN(1).Type == tokIdent {
			p.next()
			ty.Ref, _ = p.qualName()
			matched = true
		}
	case "list":
		matched, err = p.attempt(func(commit *bool) (err error) {
			p.next()
			if err = p.expectOp("<"); err != nil {
				return err
			}
			if ty.List, err = p.requireType(); err != nil {
				return err
			}
			return p.expectAngle(commit)
		})
	case "map":
		matched, err = p.attempt(func(commit *bool) (err error) {
			ty.Map, err = p.mapType(commit)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	if !matched {
		ty.Enum, ty.List, ty.Map = nil, nil, nil
		ty.Named, _ = p.qualName()
	}
	ty.Optional = p.acceptOp("?")
	ty.EndPos = p.end()
	return ty, nil
}

// requireType parses a type that must come next.
func (p *exprParser) requireType() (*Type, error) {
	t, err := p.typ()
	if err == nil && t == nil {
		err = p.unexpected("Type")
	}
	return t, err
}

// enumType parses `enum { a b "c d" }`.
func (p *exprParser) enumType() (*EnumType, error) {
	e := &EnumType{Pos: p.next().Pos}
	if err := p.expectOp("{"); err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		if t.Type != tokIdent && t.Type != tokString {
			break
		}
		p.next()
		e.Values = append(e.Values, &EnumValue{Pos: t.Pos, EndPos: p.end(), Name: t.Value})
		p.acceptOp(",")
	}
	if len(e.Values) == 0 {
		return nil, p.unexpected("EnumValue")
	}
	if err := p.expectClose("}"); err != nil {
		return nil, err
	}
	e.EndPos = p.end()
	return e, nil
}

// mapType parses `map<string, T>`. `map<K>` is certainly a map type
// missing its value type (*commit).
func (p *exprParser) mapType(commit *bool) (*MapType, error) {
	m := &MapType{Pos: p.next().Pos}
	if err := p.expectOp("<"); err != nil {
		return nil, err
	}
	k, err := p.expectIdent()
	if err != nil {
		return nil, err
	}
	m.Key = k.Value
	if t := p.peek(); isOp(t, ">") || isOp(t, ">=") || isOp(t, ")") || isOp(t, "]") {
		*commit = true
	}
	if err := p.expectOp(","); err != nil {
		return nil, err
	}
	if m.Value, err = p.requireType(); err != nil {
		return nil, err
	}
	if err := p.expectAngle(commit); err != nil {
		return nil, err
	}
	m.EndPos = p.end()
	return m, nil
}

// expectAngle consumes the `>` that closes a list or map type. A `>=`
// there is certainly that `>` run into an `=`, and a closing bracket or a
// comma certainly ends a list of parameters, not a field's bounds
// (*commit).
func (p *exprParser) expectAngle(commit *bool) error {
	t := p.peek()
	if isOp(t, ">=") {
		*commit = true
		return participle.Errorf(t.Pos, `unexpected token ">=" (expected ">")`)
	}
	*commit = *commit || endsList(t)
	return p.expectOp(">")
}

// endsList reports whether t closes or separates the items of a list.
func endsList(t *lexer.Token) bool {
	return isOp(t, ")") || isOp(t, "]") || isOp(t, ",")
}

// qualName parses a dotted name; nil when no name comes next. A `.`
// without a name after it is left where it is.
func (p *exprParser) qualName() (*QualName, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	p.next()
	q := &QualName{Pos: t.Pos, Parts: []string{t.Value}}
	for isOp(p.peek(), ".") && p.peekN(1).Type == tokIdent {
		p.next()
		q.Parts = append(q.Parts, p.next().Value)
	}
	q.EndPos = p.end()
	return q, nil
}

// Fields and parameters: a name, a type and what qualifies it.

// field parses `name type constraints "doc"`; nil when no name comes
// next.
func (p *exprParser) field(dst *Field) (*Field, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	p.next()
	f := node(dst)
	*f = Field{Pos: t.Pos, Name: t.Value}
	var err error
	if f.Type, err = p.requireType(); err != nil {
		return nil, err
	}
	for {
		c, err := p.constraint()
		if err != nil {
			return nil, err
		}
		if c == nil {
			break
		}
		f.Constraints = append(f.Constraints, c)
	}
	f.Doc = p.docString()
	f.EndPos = p.end()
	return f, nil
}

// constraint parses `unique`, `= default` or a bound `>= value`; nil when
// none comes next.
func (p *exprParser) constraint() (*Constraint, error) {
	t := p.peek()
	c := &Constraint{Pos: t.Pos}
	switch {
	case isKeyword(t, "unique"):
		p.next()
		c.Unique = true
	case isOp(t, "="):
		p.next()
		if c.Default = p.literal(true); c.Default == nil {
			return nil, p.unexpected("Literal")
		}
	case isOp(t, ">=") || isOp(t, "<=") || isOp(t, ">") || isOp(t, "<"):
		p.next()
		c.Op = t.Value
		if c.Bound = p.literal(true); c.Bound == nil {
			return nil, p.unexpected("Literal")
		}
	default:
		return nil, nil
	}
	c.EndPos = p.end()
	return c, nil
}

// docString consumes an optional doc string.
func (p *exprParser) docString() *string {
	if t := p.peek(); t.Type == tokString {
		p.next()
		s := t.Value
		return &s
	}
	return nil
}

// param parses `name: type "doc"`; nil when no name comes next.
func (p *exprParser) param(dst *Param) (*Param, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	p.next()
	pa := node(dst)
	*pa = Param{Pos: t.Pos, Name: t.Value}
	if err := p.expectColon(); err != nil {
		return nil, err
	}
	var err error
	if pa.Type, err = p.requireType(); err != nil {
		return nil, err
	}
	pa.Doc = p.docString()
	pa.EndPos = p.end()
	return pa, nil
}
