package dsl

import (
	"errors"

	"github.com/alecthomas/participle/v2/lexer"
)

// Participle parses the declarations of a spec and their blocks (the
// world header, services, entities, records, tools, invariants, seeds,
// tasks); what they hold is parsed by hand: the line-level constructs
// (fields, parameters, statements, seed records, assertions, solution
// calls, meta entries), expressions, types and constants. Where
// participle's grammar reaches one of them it calls its Parse method
// (participle.Parseable; this file, stmtparse.go, lineparse.go,
// valueparse.go). Participle tries every alternative of a disjunction and
// every optional group on a copy of its parse context and builds every
// node by reflection; on an expression, nine nested structs per operand.
// That was most of the time of Parse.
//
// The grammar tags in ast.go remain the definition of the language: the
// parser below does with them what participle does, step for step, and
// builds the same trees with the same positions. In particular, like
// participle with UseLookahead(4), it gives up an alternative (or an
// optional or repeated group) that fails at most lookahead tokens past its
// start and tries the next one, but fails the whole parse when the
// alternative got further; keywords are not reserved (`in` is a name
// where no operator fits); and a keyword or operator matches a token of
// any kind with that text (a string "in" too), as participle's literal
// matching does. The tests parse with participle alone on the same tags
// (internal/grammar) and compare the trees, positions and comments
// included, on every spec of the repository, on mutants of their lines
// and under the fuzzer (reference_test.go).
//
// The parser reports no errors of its own: when a parse fails, Parse
// parses again with participle alone, whose errors (and the explanations
// built on them) are the ones the language has always given.

// lookahead is how far past the start of an alternative a failure may be
// found and the alternative still be given up for the next one
// (participle.UseLookahead); a failure further on fails the parse.
const lookahead = 4

// errNoParse tells participle that the hand-written parser found nothing
// it could parse. The lexer is left where participle's own parse would
// have left it, which decides whether the enclosing alternative is given
// up.
var errNoParse = errors.New("dsl: no parse")

// Parse parses an expression (participle.Parseable).
func (e *Expr) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.expr(e) {
		return errNoParse
	}
	return nil
}

// Parse parses a postfix expression (participle.Parseable).
func (x *Postfix) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.postfix(x) {
		return errNoParse
	}
	return nil
}

// Parse parses a type (participle.Parseable).
func (t *Type) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.typ(t) {
		return errNoParse
	}
	return nil
}

// Parse parses a dotted name (participle.Parseable).
func (q *QualName) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.qualName(q) {
		return errNoParse
	}
	return nil
}

// Parse parses a literal (participle.Parseable).
func (l *Literal) Parse(lex *lexer.PeekingLexer) error {
	p := handParser{lex: lex}
	if !p.literal(l) {
		return errNoParse
	}
	return nil
}

// handParser parses from participle's lexer. Each method parses one node
// into the struct it is given and reports whether it matched. When it did
// not, the lexer is where participle would have left it: at the node's
// start, or further on when a part of the node was required and missing;
// the caller that tried the node as an alternative then backtracks (or
// not) with giveUp.
type handParser struct {
	lex *lexer.PeekingLexer
}

// at reports whether the next token has the text v, whatever its kind.
func (p *handParser) at(v string) bool {
	return p.lex.Peek().Value == v
}

// accept consumes the next token if it has the text v.
func (p *handParser) accept(v string) bool {
	if p.lex.Peek().Value == v {
		p.lex.Next()
		return true
	}
	return false
}

// ident consumes an identifier and returns it.
func (p *handParser) ident() (string, bool) {
	if t := p.lex.Peek(); t.Type == tokIdent {
		p.lex.Next()
		return t.Value, true
	}
	return "", false
}

// second is the token after the next one.
func (p *handParser) second() *lexer.Token {
	cp := p.lex.MakeCheckpoint()
	p.lex.Next()
	t := p.lex.Peek()
	p.lex.LoadCheckpoint(cp)
	return t
}

// giveUp backtracks to cp after an alternative (or a group) that started
// there failed, and reports true, if the failure is within lookahead
// tokens of cp. Otherwise the lexer stays where the failure is and giveUp
// reports false: the parse fails.
func (p *handParser) giveUp(cp lexer.Checkpoint) bool {
	if p.lex.Cursor() > cp.Cursor()+lookahead {
		return false
	}
	p.lex.LoadCheckpoint(cp)
	return true
}

// end is the EndPos of a node whose last token was just consumed.
func (p *handParser) end() Pos {
	return p.lex.RawPeek().Pos
}

// canStartExpr reports whether an expression may start with t; when it
// may not, every alternative fails on t without consuming it.
func canStartExpr(t *lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokString, tokNumber, tokDate, tokDateTime:
		return true
	}
	switch t.Value {
	case "not", "-", "(", "[", "{":
		return true
	}
	return false
}

// Expr = AndExpr ("or" AndExpr)* .
func (p *handParser) expr(e *Expr) bool {
	t := p.lex.Peek()
	if !canStartExpr(t) {
		return false
	}
	e.Pos = t.Pos
	e.Left = new(AndExpr)
	if !p.and(e.Left) {
		return false
	}
	for p.at("or") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		r := new(AndExpr)
		if !p.and(r) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		e.Right = append(e.Right, r)
	}
	e.EndPos = p.end()
	return true
}

// AndExpr = NotExpr ("and" NotExpr)* .
func (p *handParser) and(a *AndExpr) bool {
	a.Pos = p.lex.Peek().Pos
	a.Left = new(NotExpr)
	if !p.not(a.Left) {
		return false
	}
	for p.at("and") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		r := new(NotExpr)
		if !p.not(r) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		a.Right = append(a.Right, r)
	}
	a.EndPos = p.end()
	return true
}

// NotExpr = ("not" NotExpr) | CmpExpr .
func (p *handParser) not(n *NotExpr) bool {
	n.Pos = p.lex.Peek().Pos
	cp := p.lex.MakeCheckpoint()
	if p.at("not") {
		p.lex.Next()
		inner := new(NotExpr)
		if p.not(inner) {
			n.Not = inner
			n.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	c := new(CmpExpr)
	if p.cmp(c) {
		n.Cmp = c
		n.EndPos = p.end()
		return true
	}
	p.giveUp(cp)
	return false
}

// CmpExpr = AddExpr (("==" | "!=" | "<=" | ">=" | "<" | ">" | "in" | ("not" "in")) AddExpr)? .
func (p *handParser) cmp(c *CmpExpr) bool {
	c.Pos = p.lex.Peek().Pos
	c.Left = new(AddExpr)
	if !p.add(c.Left) {
		return false
	}
	cp := p.lex.MakeCheckpoint()
	op := ""
	switch t := p.lex.Peek(); t.Value {
	case "==", "!=", "<=", ">=", "<", ">", "in":
		op = t.Value
		p.lex.Next()
	case "not":
		p.lex.Next()
		if p.accept("in") {
			op = "notin" // participle joins the two tokens
		} else {
			p.lex.LoadCheckpoint(cp)
		}
	}
	if op != "" {
		right := new(AddExpr)
		if p.add(right) {
			c.Op, c.Right = op, right
		} else if !p.giveUp(cp) {
			return false
		}
	}
	c.EndPos = p.end()
	return true
}

// AddExpr = MulExpr AddOp* .
// AddOp = ("+" | "-") MulExpr .
func (p *handParser) add(a *AddExpr) bool {
	a.Pos = p.lex.Peek().Pos
	a.Left = new(MulExpr)
	if !p.mul(a.Left) {
		return false
	}
	for {
		t := p.lex.Peek()
		if t.Value != "+" && t.Value != "-" {
			break
		}
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		operand := new(MulExpr)
		if !p.mul(operand) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		a.Right = append(a.Right, &AddOp{Pos: t.Pos, EndPos: p.end(), Op: t.Value, Operand: operand})
	}
	a.EndPos = p.end()
	return true
}

// MulExpr = Unary MulOp* .
// MulOp = ("*" | "/" | "%") Unary .
func (p *handParser) mul(m *MulExpr) bool {
	m.Pos = p.lex.Peek().Pos
	m.Left = new(Unary)
	if !p.unary(m.Left) {
		return false
	}
	for {
		t := p.lex.Peek()
		if t.Value != "*" && t.Value != "/" && t.Value != "%" {
			break
		}
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		operand := new(Unary)
		if !p.unary(operand) {
			if !p.giveUp(cp) {
				return false
			}
			break
		}
		m.Right = append(m.Right, &MulOp{Pos: t.Pos, EndPos: p.end(), Op: t.Value, Operand: operand})
	}
	m.EndPos = p.end()
	return true
}

// Unary = ("-" Unary) | (Postfix ("as" Type)?) .
func (p *handParser) unary(u *Unary) bool {
	u.Pos = p.lex.Peek().Pos
	cp := p.lex.MakeCheckpoint()
	if p.at("-") {
		p.lex.Next()
		inner := new(Unary)
		if p.unary(inner) {
			u.Neg = inner
			u.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	x := new(Postfix)
	if p.postfix(x) {
		u.Postfix = x
		if p.at("as") {
			cp := p.lex.MakeCheckpoint()
			p.lex.Next()
			t := new(Type)
			if p.typ(t) {
				u.As = t
			} else if !p.giveUp(cp) {
				return false
			}
		}
		u.EndPos = p.end()
		return true
	}
	p.giveUp(cp)
	return false
}

// Postfix = Primary Suffix* .
// Suffix = ("." <ident>) | ("[" Expr "]") .
func (p *handParser) postfix(x *Postfix) bool {
	t := p.lex.Peek()
	if !canStartExpr(t) {
		return false
	}
	x.Pos = t.Pos
	x.Primary = new(Primary)
	if !p.primary(x.Primary) {
		return false
	}
	for {
		t := p.lex.Peek()
		cp := p.lex.MakeCheckpoint()
		if t.Value == "." {
			p.lex.Next()
			if name, ok := p.ident(); ok {
				x.Suffixes = append(x.Suffixes, &Suffix{Pos: t.Pos, EndPos: p.end(), Field: &name})
				continue
			}
			// `.` without a name: neither alternative of Suffix
			// matches, and the suffixes end before the dot.
			p.lex.LoadCheckpoint(cp)
			break
		}
		if t.Value == "[" {
			p.lex.Next()
			index := new(Expr)
			if p.expr(index) && p.accept("]") {
				x.Suffixes = append(x.Suffixes, &Suffix{Pos: t.Pos, EndPos: p.end(), Index: index})
				continue
			}
			if !p.giveUp(cp) {
				return false
			}
		}
		break
	}
	x.EndPos = p.end()
	return true
}

// Primary = Aggregate | Match | Call | ((?= <ident> ("." <ident>)? "{" <ident> ":") StructLit) | Literal | ListLit | MapLit | ("(" Expr ")") .
func (p *handParser) primary(pr *Primary) bool {
	t := p.lex.Peek()
	pr.Pos = t.Pos
	cp := p.lex.MakeCheckpoint()
	switch t.Value {
	case "count", "exists", "first", "index", "sum", "min", "max", "forall":
		a := new(Aggregate)
		if p.aggregate(a) {
			pr.Agg = a
			pr.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	if t.Value == "matches" {
		m := new(Match)
		if p.match(m) {
			pr.Match = m
			pr.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	if t.Type == tokIdent && p.second().Value == "(" {
		c := new(Call)
		if p.call(c) {
			pr.Call = c
			pr.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	if p.structAhead() {
		s := new(StructLit)
		if p.structLit(s) {
			pr.Struct = s
			pr.EndPos = p.end()
			return true
		}
		if !p.giveUp(cp) {
			return false
		}
	}
	l := new(Literal)
	if p.literal(l) {
		pr.Lit = l
		pr.EndPos = p.end()
		return true
	}
	p.lex.LoadCheckpoint(cp) // a literal fails within two tokens
	switch t.Value {
	case "[":
		l := new(ListLit)
		if p.listLit(l) {
			pr.List = l
			pr.EndPos = p.end()
			return true
		}
	case "{":
		m := new(MapLit)
		if p.mapLit(m) {
			pr.Map = m
			pr.EndPos = p.end()
			return true
		}
	case "(":
		p.lex.Next()
		e := new(Expr)
		if p.expr(e) && p.accept(")") {
			pr.Paren = e
			pr.EndPos = p.end()
			return true
		}
	}
	p.giveUp(cp)
	return false
}

// Aggregate = ((("count" | "exists" | "first" | "index") "(") | (("sum" | "min" | "max" | "forall") "(" Expr "for")) <ident> "in" Postfix ("where" Expr)? ")" .
func (p *handParser) aggregate(a *Aggregate) bool {
	t := p.lex.Peek()
	a.Pos = t.Pos
	cp := p.lex.MakeCheckpoint()
	switch t.Value {
	case "count", "exists", "first", "index":
		p.lex.Next()
		if !p.accept("(") {
			p.lex.LoadCheckpoint(cp)
			return false
		}
		a.Kind = t.Value
	default: // sum, min, max, forall
		p.lex.Next()
		if !p.accept("(") {
			p.lex.LoadCheckpoint(cp)
			return false
		}
		v := new(Expr)
		if !p.expr(v) || !p.accept("for") {
			p.giveUp(cp)
			return false
		}
		a.ValueKind, a.Value = t.Value, v
	}
	var ok bool
	if a.Var, ok = p.ident(); !ok || !p.accept("in") {
		return false
	}
	a.Source = new(Postfix)
	if !p.postfix(a.Source) {
		return false
	}
	if p.at("where") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		w := new(Expr)
		if p.expr(w) {
			a.Where = w
		} else if !p.giveUp(cp) {
			return false
		}
	}
	if !p.accept(")") {
		return false
	}
	a.EndPos = p.end()
	return true
}

// Call = <ident> "(" (Expr ("," Expr)*)? ")" .
func (p *handParser) call(c *Call) bool {
	c.Pos = p.lex.Peek().Pos
	var ok bool
	if c.Func, ok = p.ident(); !ok || !p.accept("(") {
		return false
	}
	var good bool
	if c.Args, good = p.exprList(false); !good {
		return false
	}
	if !p.accept(")") {
		return false
	}
	c.EndPos = p.end()
	return true
}

// exprList parses (Expr ("," Expr)*)?, and a trailing comma when
// trailing is set: (Expr ("," Expr)* ","?)?. It reports false when the
// parse fails in it.
func (p *handParser) exprList(trailing bool) ([]*Expr, bool) {
	cp := p.lex.MakeCheckpoint()
	first := new(Expr)
	if !p.expr(first) {
		return nil, p.giveUp(cp)
	}
	list := []*Expr{first}
	for p.at(",") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		e := new(Expr)
		if !p.expr(e) {
			if !p.giveUp(cp) {
				return nil, false
			}
			break
		}
		list = append(list, e)
	}
	if trailing {
		p.accept(",")
	}
	return list, true
}

// Match = "matches" "(" Expr "," "{" (FieldInit ","?)* "}" ")" .
func (p *handParser) match(m *Match) bool {
	m.Pos = p.lex.Peek().Pos
	if !p.accept("matches") || !p.accept("(") {
		return false
	}
	m.X = new(Expr)
	if !p.expr(m.X) || !p.accept(",") || !p.accept("{") {
		return false
	}
	var ok bool
	if m.Fields, ok = p.fieldInits(); !ok || !p.accept("}") || !p.accept(")") {
		return false
	}
	m.EndPos = p.end()
	return true
}

// structAhead is the lookahead (?= <ident> ("." <ident>)? "{" <ident> ":")
// before a record literal.
func (p *handParser) structAhead() bool {
	cp := p.lex.MakeCheckpoint()
	defer p.lex.LoadCheckpoint(cp)
	if _, ok := p.ident(); !ok {
		return false
	}
	if p.at(".") {
		dot := p.lex.MakeCheckpoint()
		p.lex.Next()
		if _, ok := p.ident(); !ok {
			p.lex.LoadCheckpoint(dot)
		}
	}
	if !p.accept("{") {
		return false
	}
	if _, ok := p.ident(); !ok {
		return false
	}
	return p.at(":")
}

// StructLit = ((?= <ident> ".") <ident> ".")? <ident> "{" (FieldInit ","?)+ "}" .
func (p *handParser) structLit(s *StructLit) bool {
	t := p.lex.Peek()
	s.Pos = t.Pos
	if t.Type == tokIdent && p.second().Value == "." {
		p.lex.Next()
		p.lex.Next()
		s.Service = t.Value
	}
	var ok bool
	if s.Name, ok = p.ident(); !ok || !p.accept("{") {
		return false
	}
	if s.Fields, ok = p.fieldInits(); !ok || len(s.Fields) == 0 || !p.accept("}") {
		return false
	}
	s.EndPos = p.end()
	return true
}

// fieldInits parses (FieldInit ","?)*. It reports false when the parse
// fails in it.
func (p *handParser) fieldInits() ([]*FieldInit, bool) {
	var fields []*FieldInit
	for p.lex.Peek().Type == tokIdent {
		cp := p.lex.MakeCheckpoint()
		f := new(FieldInit)
		if !p.fieldInit(f) {
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

// FieldInit = <ident> ":" Expr .
func (p *handParser) fieldInit(f *FieldInit) bool {
	f.Pos = p.lex.Peek().Pos
	var ok bool
	if f.Name, ok = p.ident(); !ok || !p.accept(":") {
		return false
	}
	f.Value = new(Expr)
	if !p.expr(f.Value) {
		return false
	}
	f.EndPos = p.end()
	return true
}

// ListLit = "[" (Expr ("," Expr)* ","?)? "]" .
func (p *handParser) listLit(l *ListLit) bool {
	l.Pos = p.lex.Peek().Pos
	if !p.accept("[") {
		return false
	}
	var ok bool
	if l.Elems, ok = p.exprList(true); !ok || !p.accept("]") {
		return false
	}
	l.EndPos = p.end()
	return true
}

// MapLit = "{" (MapEntry ","?)* "}" .
// MapEntry = <string> ":" Expr .
func (p *handParser) mapLit(m *MapLit) bool {
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
		e := &MapEntry{Pos: t.Pos, Key: t.Value, Value: new(Expr)}
		if !p.accept(":") || !p.expr(e.Value) {
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

// Literal = <datetime> | <date> | ("-"? <number>) | <string> | ("true" | "false") | "null" | <ident> .
//
// A negative number is one string, "-" and the digits: participle joins
// the tokens it captures into a string field.
func (p *handParser) literal(l *Literal) bool {
	t := p.lex.Peek()
	l.Pos = t.Pos
	v := t.Value
	switch {
	case t.Type == tokDateTime:
		l.DateTime = &v
	case t.Type == tokDate:
		l.Date = &v
	case v == "-" && p.second().Type == tokNumber:
		p.lex.Next()
		v += p.lex.Peek().Value
		l.Number = &v
	case t.Type == tokNumber:
		l.Number = &v
	case t.Type == tokString:
		l.String = &v
	case v == "true" || v == "false":
		l.Bool = &v
	case v == "null":
		l.Null = true
	case t.Type == tokIdent:
		l.Ident = &v
	default:
		return false
	}
	p.lex.Next()
	l.EndPos = p.end()
	return true
}

// Type = (EnumType | ("ref" QualName) | ("list" "<" Type ">") | MapType | QualName) "?"? .
func (p *handParser) typ(t *Type) bool {
	tok := p.lex.Peek()
	t.Pos = tok.Pos
	cp := p.lex.MakeCheckpoint()
	matched := false
	switch tok.Value {
	case "enum":
		e := new(EnumType)
		if matched = p.enumType(e); matched {
			t.Enum = e
		} else if !p.giveUp(cp) {
			return false
		}
	case "ref":
		p.lex.Next()
		q := new(QualName)
		if matched = p.qualName(q); matched {
			t.Ref = q
		} else {
			p.lex.LoadCheckpoint(cp) // failed one token in
		}
	case "list":
		p.lex.Next()
		elem := new(Type)
		if matched = p.accept("<") && p.typ(elem) && p.accept(">"); matched {
			t.List = elem
		} else if !p.giveUp(cp) {
			return false
		}
	case "map":
		m := new(MapType)
		if matched = p.mapType(m); matched {
			t.Map = m
		} else if !p.giveUp(cp) {
			return false
		}
	}
	if !matched {
		q := new(QualName)
		if !p.qualName(q) {
			return false
		}
		t.Named = q
	}
	t.Optional = p.accept("?")
	t.EndPos = p.end()
	return true
}

// EnumType = "enum" "{" (EnumValue ","?)+ "}" .
// EnumValue = <ident> | <string> .
func (p *handParser) enumType(e *EnumType) bool {
	e.Pos = p.lex.Peek().Pos
	if !p.accept("enum") || !p.accept("{") {
		return false
	}
	for {
		t := p.lex.Peek()
		if t.Type != tokIdent && t.Type != tokString {
			break
		}
		p.lex.Next()
		e.Values = append(e.Values, &EnumValue{Pos: t.Pos, EndPos: p.end(), Name: t.Value})
		p.accept(",")
	}
	if len(e.Values) == 0 || !p.accept("}") {
		return false
	}
	e.EndPos = p.end()
	return true
}

// MapType = "map" "<" <ident> "," Type ">" .
func (p *handParser) mapType(m *MapType) bool {
	m.Pos = p.lex.Peek().Pos
	if !p.accept("map") || !p.accept("<") {
		return false
	}
	var ok bool
	if m.Key, ok = p.ident(); !ok || !p.accept(",") {
		return false
	}
	m.Value = new(Type)
	if !p.typ(m.Value) || !p.accept(">") {
		return false
	}
	m.EndPos = p.end()
	return true
}

// QualName = <ident> ("." <ident>)* .
func (p *handParser) qualName(q *QualName) bool {
	t := p.lex.Peek()
	if t.Type != tokIdent {
		return false
	}
	q.Pos = t.Pos
	p.lex.Next()
	q.Parts = append(q.Parts, t.Value)
	for p.at(".") {
		cp := p.lex.MakeCheckpoint()
		p.lex.Next()
		name, ok := p.ident()
		if !ok {
			p.lex.LoadCheckpoint(cp)
			break
		}
		q.Parts = append(q.Parts, name)
	}
	q.EndPos = p.end()
	return true
}
