package dsl

import (
	"fmt"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Participle parses the declarations of a spec with the grammar tags of
// ast.go. What they hold is parsed by the small parser of this file and
// of stmtparse.go (a tool's body), typeparse.go (fields, parameters and
// types) and constparse.go (constants and seed records), which
// participle calls where a grammar tag reaches one of these nodes
// (participle.Parseable).
//
// The parser reads participle's own lexer and decides by looking a few
// tokens ahead (six for a record literal, `svc.Name { f:`). Every Parse method returns participle.NextMatch when
// the next token cannot start its construct (nothing consumed; participle
// tries its next alternative), and a positioned error (participle.Errorf)
// when the construct started and then went wrong, with the lexer left at
// the token blamed, so that participle reports the error where it is. It
// backtracks in one place, attempt, for the few constructs the language
// has always given up when they go wrong early (`list<string` without its
// `>` is the type `list` with a bound, for the checker to explain).
//
// Keywords are contextual: `in`, `or`, `not`, `count`… are names where no
// operator or construct fits, as they always were. A keyword or operator
// is matched by the kind of its token as well as by its text, here as in
// the grammar tags (`'else':Ident`), so that a string never stands for one
// (`"=="` is a string, not the operator).
//
// The productions of exprGrammar describe what each method parses; the
// expression levels follow the syntax tree, one struct per precedence
// level (Expr, AndExpr, NotExpr, CmpExpr, AddExpr, MulExpr, Unary).

// exprGrammar holds the EBNF of the constructs parsed here, in the form
// participle prints the productions of grammar tags; Grammar merges them
// into participle's EBNF of the declarations.
var exprGrammar = map[string]string{
	"Expr":          `CondExpr | (AndExpr ("or" AndExpr)*)`,
	"CondExpr":      `"if" Expr "then" Expr "else" Expr`,
	"AndExpr":       `NotExpr ("and" NotExpr)*`,
	"NotExpr":       `("not" NotExpr) | CmpExpr`,
	"CmpExpr":       `AddExpr (("==" | "!=" | "<=" | ">=" | "<" | ">" | "in" | ("not" "in")) AddExpr)?`,
	"AddExpr":       `MulExpr AddOp*`,
	"AddOp":         `("+" | "-") MulExpr`,
	"MulExpr":       `Unary MulOp*`,
	"MulOp":         `("*" | "/" | "%") Unary`,
	"Unary":         `("-" Unary) | (Postfix ("as" Type)?)`,
	"Postfix":       `Primary Suffix*`,
	"Suffix":        `("." <ident>) | ("[" Expr "]")`,
	"Primary":       `Aggregate | Match | Call | ((?= <ident> ("." <ident>)? "{" <ident> ":") StructLit) | Literal | ListLit | MapLit | ("(" Expr ")")`,
	"Aggregate":     `((("count" | "exists" | "first" | "index" | "list") "(") | (("sum" | "min" | "max" | "forall" | "list") "(" Expr "for")) <ident> "in" Postfix ("where" Expr)? ")"`,
	"Match":         `"matches" "(" Expr "," "{" (FieldInit ","?)* "}" ")"`,
	"FieldInit":     `<ident> ":" Expr`,
	"Call":          `<ident> "(" (Expr ("," Expr)*)? ")"`,
	"StructLit":     `((?= <ident> ".") <ident> ".")? <ident> "{" (FieldInit ","?)+ "}"`,
	"ListLit":       `"[" (Expr ("," Expr)* ","?)? "]"`,
	"MapLit":        `"{" (MapEntry ","?)* "}"`,
	"MapEntry":      `<string> ":" Expr`,
	"Literal":       `<datetime> | <date> | ("-"? <number>) | <string> | ("true" | "false") | "null" | <ident>`,
	"Type":          `(EnumType | ("ref" QualName) | ("list" "<" Type ">") | MapType | QualName) "?"?`,
	"EnumType":      `"enum" "{" (EnumValue ","?)+ "}"`,
	"EnumValue":     `<ident> | <string>`,
	"QualName":      `<ident> ("." <ident>)*`,
	"MapType":       `"map" "<" <ident> "," Type ">"`,
	"FieldValue":    `<ident> ":" ((Literal (?! "{")) | Composite)`,
	"Arg":           `<ident> ":" ((Literal (?! "{")) | Composite)`,
	"Composite":     `ListValue | MapValue | RecordValue`,
	"ListValue":     `"[" (Value ("," Value)* ","?)? "]"`,
	"Value":         `Composite | Literal`,
	"MapValue":      `"{" (MapValueEntry ","?)* "}"`,
	"MapValueEntry": `<string> ":" Value`,
	"RecordValue":   `<ident> "{" (FieldValue ","?)* "}"`,
	"Record":        `QualName <ident> "{" (FieldValue ","?)* "}"`,
	"Field":         `<ident> Type Constraint* <string>?`,
	"Constraint":    `"unique" | ("=" Literal) | ((">=" | "<=" | ">" | "<") Literal)`,
	"Param":         `<ident> ":" Type <string>?`,
	"Block":         `"{" Stmt* "}"`,
	"Stmt":          `Require | Let | Var | Set | Insert | Delete | Return | If | For | Fail`,
	"Require":       `"require" Expr "else" ((<string> (?! "+")) | Expr)`,
	"Let":           `"let" <ident> "=" (Insert | Expr)`,
	"Insert":        `"insert" QualName "{" (FieldInit ","?)* "}"`,
	"Var":           `"var" <ident> (":" Type)? "=" Expr`,
	"Set":           `"set" Postfix "=" Expr`,
	"Delete":        `"delete" Expr`,
	"Return":        `"return" Expr`,
	"If":            `"if" Expr Block ("else" (If | Block))?`,
	"For":           `"for" (<ident> ",")? <ident> "in" Postfix ("where" Expr)? Block`,
	"Fail":          `"fail" Expr`,
}

// exprParser parses from participle's lexer.
type exprParser struct {
	lex *lexer.PeekingLexer
	// conds is the number of conditional expressions being parsed, one
	// inside another: each recurses without a bracket the scanner would
	// count, so they are bounded here (MaxNesting).
	conds int
}

// The Parse methods are the entry points participle calls.

// Parse parses an expression (participle.Parseable).
func (e *Expr) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, e, (*exprParser).expr)
}

// Parse parses a postfix expression: a source or a target (participle.Parseable).
func (x *Postfix) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, x, (*exprParser).postfix)
}

// Parse parses a type (participle.Parseable).
func (t *Type) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, t, (*exprParser).typ)
}

// Parse parses a dotted name (participle.Parseable).
func (q *QualName) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, q, (*exprParser).qualName)
}

// Parse parses a literal (participle.Parseable).
func (l *Literal) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, l, (*exprParser).constLiteral)
}

// Parse parses `name: value` of an insert (participle.Parseable).
func (f *FieldInit) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, f, (*exprParser).fieldInit)
}

// Parse parses `name: constant` of a seed record (participle.Parseable).
func (f *FieldValue) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, f, (*exprParser).fieldValue)
}

// Parse parses `name: constant` of a solution call (participle.Parseable).
func (a *Arg) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, (*FieldValue)(a), (*exprParser).fieldValue)
}

// Parse parses a field of an entity or a record (participle.Parseable).
func (f *Field) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, f, (*exprParser).field)
}

// Parse parses a parameter of a tool (participle.Parseable).
func (pa *Param) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, pa, (*exprParser).param)
}

// Parse parses a block of statements (participle.Parseable).
func (b *Block) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, b, (*exprParser).block)
}

// Parse parses a seed record, a named record constant (participle.Parseable).
func (r *Record) Parse(lex *lexer.PeekingLexer) error {
	return parseInto(lex, r, (*exprParser).record)
}

// Parse parses a constant (participle.Parseable).
func (v *Value) Parse(lex *lexer.PeekingLexer) error {
	return parseWith(lex, v, (*exprParser).value)
}

// parseWith runs parse on the node out, in participle's protocol: no
// match is participle.NextMatch.
func parseWith[T any](lex *lexer.PeekingLexer, out *T, parse func(*exprParser) (*T, error)) error {
	p := exprParser{lex: lex}
	n, err := parse(&p)
	if err != nil {
		return err
	}
	if n == nil {
		return participle.NextMatch
	}
	*out = *n
	return nil
}

// parseInto is parseWith for a parse that fills the node it is given
// (the one participle allocated) rather than a new one.
func parseInto[T any](lex *lexer.PeekingLexer, out *T, parse func(*exprParser, *T) (*T, error)) error {
	p := exprParser{lex: lex}
	n, err := parse(&p, out)
	if err != nil {
		return err
	}
	if n == nil {
		return participle.NextMatch
	}
	return nil
}

// node is dst, or a new node when dst is nil.
func node[T any](dst *T) *T {
	if dst == nil {
		return new(T)
	}
	return dst
}

// Tokens.

func (p *exprParser) peek() *lexer.Token { return p.lex.Peek() }

// peekN is the token n tokens ahead (peekN(0) is peek()).
func (p *exprParser) peekN(n int) *lexer.Token {
	if n == 0 {
		return p.lex.Peek()
	}
	cp := p.lex.MakeCheckpoint()
	for range n {
		p.lex.Next()
	}
	t := p.lex.Peek()
	p.lex.LoadCheckpoint(cp)
	return t
}

func (p *exprParser) next() *lexer.Token { return p.lex.Next() }

// end is the EndPos of a node whose last token was just consumed: where
// the next token, white space included, starts.
func (p *exprParser) end() Pos { return p.lex.RawPeek().Pos }

// isOp reports whether t is the operator or punctuation op.
func isOp(t *lexer.Token, op string) bool { return t.Type == tokOp && t.Value == op }

// isKeyword reports whether t is the identifier kw.
func isKeyword(t *lexer.Token, kw string) bool { return t.Type == tokIdent && t.Value == kw }

// acceptOp consumes the operator op if it comes next.
func (p *exprParser) acceptOp(op string) bool {
	if isOp(p.peek(), op) {
		p.next()
		return true
	}
	return false
}

// expectOp consumes the operator op, or fails saying what was expected.
func (p *exprParser) expectOp(op string) error {
	if p.acceptOp(op) {
		return nil
	}
	return p.unexpected(fmt.Sprintf("%q", op))
}

// expectIdent consumes an identifier, or fails.
func (p *exprParser) expectIdent() (*lexer.Token, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, p.unexpected("<ident>")
	}
	p.next()
	return t, nil
}

// unexpected is the error for the next token where what was expected:
// worded as participle words its own, and positioned at the token (where
// the lexer stays).
func (p *exprParser) unexpected(what string) error {
	t := p.peek()
	if t.EOF() {
		return participle.Errorf(t.Pos, "unexpected token \"<EOF>\" (expected %s)", what)
	}
	return participle.Errorf(t.Pos, "unexpected token %q (expected %s)", t.Value, what)
}

// canStartOperand reports whether an operand may start with t.
func canStartOperand(t *lexer.Token) bool {
	switch t.Type {
	case tokIdent, tokString, tokNumber, tokDate, tokDateTime:
		return true
	case tokOp:
		switch t.Value {
		case "-", "(", "[", "{":
			return true
		}
	}
	return false
}

// Expressions, by precedence climbing: each binary level parses operands
// of the next tighter level and takes its operators while the token after
// the operator can start an operand (otherwise the word is left to what
// follows: `or`, `in`, `not` are names where no operator fits). The
// precedence of a token as a binary operator:
//
//	1  or
//	2  and
//	3  == != < <= > >= in, not in   (one comparison, not a chain)
//	4  + -
//	5  * / %
//
// `not` is a prefix between 2 and 3, unary `-` and `as` bind tighter
// than 5, and `.`, `[…]` tighter still.

const (
	precOr = 1 + iota
	precAnd
	precCmp
	precAdd
	precMul
)

// operand holds the nodes of one operand at every level of the tree, from
// Expr down to Primary: an expression that is one operand (most are) is
// one allocation rather than nine. Each level takes its node from the
// operand it is given and passes the rest down to its first child; an
// operand to the right of an operator is a new one, from the level below
// the operator's down.
type (
	operand struct {
		expr Expr
		andOperand
	}
	andOperand struct {
		and AndExpr
		notOperand
	}
	notOperand struct {
		not NotExpr
		cmpOperand
	}
	cmpOperand struct {
		cmp CmpExpr
		addOperand
	}
	addOperand struct {
		add AddExpr
		mulOperand
	}
	mulOperand struct {
		mul MulExpr
		unaryOperand
	}
	unaryOperand struct {
		unary   Unary
		postfix Postfix
		primary Primary
	}
)

// binaryPrec is the precedence of the binary operator that starts at the
// next token and its length in tokens (2 for `not in`), or 0.
func (p *exprParser) binaryPrec() (prec, width int) {
	t := p.peek()
	switch t.Type {
	case tokOp:
		switch t.Value {
		case "==", "!=", "<", "<=", ">", ">=":
			return precCmp, 1
		case "+", "-":
			return precAdd, 1
		case "*", "/", "%":
			return precMul, 1
		}
	case tokIdent:
		switch t.Value {
		case "or":
			return precOr, 1
		case "and":
			return precAnd, 1
		case "in":
			return precCmp, 1
		case "not":
			if isKeyword(p.peekN(1), "in") {
				return precCmp, 2
			}
		}
	}
	return 0, 0
}

// takeOperator consumes the binary operator of precedence prec that comes
// next, if its right operand can start after it, and returns its text
// ("notin" for `not in`).
func (p *exprParser) takeOperator(prec int) (string, bool) {
	got, width := p.binaryPrec()
	if got != prec || !canStartOperand(p.peekN(width)) {
		return "", false
	}
	op := p.next().Value
	if width == 2 {
		p.next()
		op = "notin"
	}
	return op, true
}

// expr parses an `or` chain or a conditional expression; nil when the
// next token cannot start one.
func (p *exprParser) expr() (*Expr, error) {
	t := p.peek()
	if !canStartOperand(t) {
		return nil, nil
	}
	if isKeyword(t, "if") && canStartOperand(p.peekN(1)) {
		return p.condExpr()
	}
	n := new(operand)
	left, err := p.andExpr(&n.andOperand)
	if err != nil {
		return nil, err
	}
	e := &n.expr
	e.Pos, e.Left = t.Pos, left
	for {
		if _, ok := p.takeOperator(precOr); !ok {
			break
		}
		right, err := p.andExpr(new(andOperand))
		if err != nil {
			return nil, err
		}
		e.Right = append(e.Right, right)
	}
	e.EndPos = p.end()
	return e, nil
}

// condExpr parses `if C then A else B`, the if coming next. The else
// branch is an expression, so `else if` chains.
func (p *exprParser) condExpr() (*Expr, error) {
	t := p.next() // if
	if p.conds++; p.conds > MaxNesting {
		return nil, participle.Errorf(t.Pos, "conditional expressions nested deeper than %d levels", MaxNesting)
	}
	defer func() { p.conds-- }()
	c := &CondExpr{Pos: t.Pos}
	var err error
	if c.Cond, err = p.requireExpr(); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("then", `"then" (a conditional expression is if C then A else B)`); err != nil {
		return nil, err
	}
	if c.Then, err = p.requireExpr(); err != nil {
		return nil, err
	}
	if err := p.expectKeyword("else", `"else" (a conditional expression has both branches: if C then A else B)`); err != nil {
		return nil, err
	}
	if c.Else, err = p.requireExpr(); err != nil {
		return nil, err
	}
	c.EndPos = p.end()
	return &Expr{Pos: t.Pos, EndPos: c.EndPos, If: c}, nil
}

// expectKeyword consumes the identifier kw, or fails saying what was
// expected.
func (p *exprParser) expectKeyword(kw, what string) error {
	if isKeyword(p.peek(), kw) {
		p.next()
		return nil
	}
	return p.unexpected(what)
}

// requireExpr parses an expression that must come next.
func (p *exprParser) requireExpr() (*Expr, error) {
	e, err := p.expr()
	if err == nil && e == nil {
		err = p.unexpected("Expr")
	}
	return e, err
}

func (p *exprParser) andExpr(n *andOperand) (*AndExpr, error) {
	pos := p.peek().Pos
	left, err := p.notExpr(&n.notOperand)
	if err != nil {
		return nil, err
	}
	a := &n.and
	a.Pos, a.Left = pos, left
	for {
		if _, ok := p.takeOperator(precAnd); !ok {
			break
		}
		right, err := p.notExpr(new(notOperand))
		if err != nil {
			return nil, err
		}
		a.Right = append(a.Right, right)
	}
	a.EndPos = p.end()
	return a, nil
}

func (p *exprParser) notExpr(o *notOperand) (*NotExpr, error) {
	t := p.peek()
	n := &o.not
	n.Pos = t.Pos
	if isKeyword(t, "not") && canStartOperand(p.peekN(1)) {
		p.next()
		inner, err := p.notExpr(new(notOperand))
		if err != nil {
			return nil, err
		}
		n.Not = inner
	} else {
		c, err := p.cmpExpr(&o.cmpOperand)
		if err != nil {
			return nil, err
		}
		n.Cmp = c
	}
	n.EndPos = p.end()
	return n, nil
}

func (p *exprParser) cmpExpr(n *cmpOperand) (*CmpExpr, error) {
	pos := p.peek().Pos
	left, err := p.addExpr(&n.addOperand)
	if err != nil {
		return nil, err
	}
	c := &n.cmp
	c.Pos, c.Left = pos, left
	if op, ok := p.takeOperator(precCmp); ok {
		if c.Right, err = p.addExpr(new(addOperand)); err != nil {
			return nil, err
		}
		c.Op = op
	}
	c.EndPos = p.end()
	return c, nil
}

func (p *exprParser) addExpr(n *addOperand) (*AddExpr, error) {
	pos := p.peek().Pos
	left, err := p.mulExpr(&n.mulOperand)
	if err != nil {
		return nil, err
	}
	a := &n.add
	a.Pos, a.Left = pos, left
	for {
		t := p.peek()
		op, ok := p.takeOperator(precAdd)
		if !ok {
			break
		}
		operand, err := p.mulExpr(new(mulOperand))
		if err != nil {
			return nil, err
		}
		a.Right = append(a.Right, &AddOp{Pos: t.Pos, EndPos: p.end(), Op: op, Operand: operand})
	}
	a.EndPos = p.end()
	return a, nil
}

func (p *exprParser) mulExpr(n *mulOperand) (*MulExpr, error) {
	pos := p.peek().Pos
	left, err := p.unary(&n.unaryOperand)
	if err != nil {
		return nil, err
	}
	m := &n.mul
	m.Pos, m.Left = pos, left
	for {
		t := p.peek()
		op, ok := p.takeOperator(precMul)
		if !ok {
			break
		}
		operand, err := p.unary(new(unaryOperand))
		if err != nil {
			return nil, err
		}
		m.Right = append(m.Right, &MulOp{Pos: t.Pos, EndPos: p.end(), Op: op, Operand: operand})
	}
	m.EndPos = p.end()
	return m, nil
}

// unary parses `- x`, or a postfix expression with an optional `as T`.
func (p *exprParser) unary(n *unaryOperand) (*Unary, error) {
	t := p.peek()
	u := &n.unary
	u.Pos = t.Pos
	if isOp(t, "-") {
		p.next()
		inner, err := p.unary(new(unaryOperand))
		if err != nil {
			return nil, err
		}
		u.Neg = inner
		u.EndPos = p.end()
		return u, nil
	}
	x, err := p.postfixIn(&n.postfix, &n.primary)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return nil, p.unexpected("Expr")
	}
	u.Postfix = x
	if isKeyword(p.peek(), "as") && p.peekN(1).Type == tokIdent {
		p.next()
		if u.As, err = p.typ(); err != nil {
			return nil, err
		}
	}
	u.EndPos = p.end()
	return u, nil
}

// postfix parses a primary and its `.name` and `[index]` suffixes; nil
// when the next token cannot start one. A `.` without a name after it
// ends the suffixes before the dot, and so does a `[` whose index goes
// wrong within giveUpWithin tokens: in a rubric, `x.status` and `[a, b]` on
// the next line are two assertions.
func (p *exprParser) postfix() (*Postfix, error) {
	if !p.postfixAhead() {
		return nil, nil
	}
	nodes := new(struct {
		x  Postfix
		pr Primary
	})
	return p.postfixIn(&nodes.x, &nodes.pr)
}

// postfixAhead reports whether a postfix expression starts here.
func (p *exprParser) postfixAhead() bool {
	t := p.peek()
	return canStartOperand(t) && (!isOp(t, "-") || p.peekN(1).Type == tokNumber)
}

// postfixIn is postfix into the nodes x and pr.
func (p *exprParser) postfixIn(x *Postfix, pr *Primary) (*Postfix, error) {
	if !p.postfixAhead() {
		return nil, nil
	}
	t := p.peek()
	if _, err := p.primary(pr); err != nil {
		return nil, err
	}
	x.Pos, x.Primary = t.Pos, pr
	for {
		t := p.peek()
		switch {
		case isOp(t, ".") && p.peekN(1).Type == tokIdent:
			p.next()
			name := p.next().Value
			x.Suffixes = append(x.Suffixes, &Suffix{Pos: t.Pos, EndPos: p.end(), Field: &name})
			continue
		case isOp(t, "[") && canStartOperand(p.peekN(1)):
			var index *Expr
			matched, err := p.attempt(func(*bool) (err error) {
				p.next()
				if index, err = p.requireExpr(); err != nil {
					return err
				}
				return p.expectOp("]")
			})
			if err != nil {
				return nil, err
			}
			if matched {
				x.Suffixes = append(x.Suffixes, &Suffix{Pos: t.Pos, EndPos: p.end(), Index: index})
				continue
			}
		}
		break
	}
	x.EndPos = p.end()
	return x, nil
}

// primary parses an aggregate, a match, a call, a record literal, a
// literal or name, a list, a map or a parenthesised expression. The
// first tokens decide: `count(x in` starts an aggregate, `sum(e for`
// too (decided after e: `sum(a, b)` is a call), `list(` either, `matches(x, {` a match,
// `name(` a call, `Name {f:` or `svc.Name {f:` a record literal.
func (p *exprParser) primary(pr *Primary) (*Primary, error) {
	t := p.peek()
	pr.Pos = t.Pos
	var err error
	switch {
	case t.Type == tokIdent && isOp(p.peekN(1), "("):
		switch t.Value {
		case "count", "exists", "first", "index":
			if p.peekN(2).Type == tokIdent && isKeyword(p.peekN(3), "in") {
				pr.Agg, err = p.aggregate()
				break
			}
			pr.Call, err = p.call()
		case "sum", "min", "max", "forall", "matches":
			pr.Agg, pr.Match, pr.Call, err = p.aggregateOrCall()
		case "list":
			// list(x in S) is the records or elements, list(v for x in S)
			// their values: `x in` after the bracket decides, so a value
			// that is a membership test is written in brackets.
			if p.peekN(2).Type == tokIdent && isKeyword(p.peekN(3), "in") {
				pr.Agg, err = p.aggregate()
				break
			}
			pr.Agg, pr.Match, pr.Call, err = p.aggregateOrCall()
		default:
			pr.Call, err = p.call()
		}
	case p.structAhead():
		pr.Struct, err = p.structLit()
	case isOp(t, "["):
		pr.List, err = p.listLit()
	case isOp(t, "{"):
		pr.Map, err = p.mapLit()
	case isOp(t, "("):
		p.next()
		if pr.Paren, err = p.requireExpr(); err == nil {
			err = p.expectClose(")")
		}
	case isKeyword(t, "if") && canStartOperand(p.peekN(1)):
		return nil, participle.Errorf(t.Pos, "a conditional expression is an operand only in parentheses: (if C then A else B)")
	default:
		pr.Lit = p.literal(true)
		if pr.Lit == nil {
			return nil, p.unexpected("Expr")
		}
	}
	if err != nil {
		return nil, err
	}
	pr.EndPos = p.end()
	return pr, nil
}

// expectClose consumes the bracket that closes an expression's list of
// items. An `=` there is a comparison written as an assignment.
func (p *exprParser) expectClose(close string) error {
	if p.acceptOp(close) {
		return nil
	}
	if isOp(p.peek(), "=") {
		return participle.Errorf(p.peek().Pos, `unexpected "=" (compare with ==)`)
	}
	return p.unexpected(fmt.Sprintf("%q", close))
}

// aggregate parses `count(x in S where c)` (and exists, first, index,
// list).
func (p *exprParser) aggregate() (*Aggregate, error) {
	t := p.next()
	p.next() // (
	a := &Aggregate{Pos: t.Pos, Kind: t.Value}
	return a, p.aggregateRest(a)
}

// aggregateOrCall parses what starts with `sum(`, `min(`, `max(`,
// `forall(`, `list(` or `matches(`: an aggregate when the first argument is
// followed by `for`, a match when `matches(x,` is followed by `{`, and
// otherwise a call of a function of that name.
func (p *exprParser) aggregateOrCall() (*Aggregate, *Match, *Call, error) {
	t := p.next()
	p.next() // (
	first, err := p.expr()
	if err != nil {
		return nil, nil, nil, err
	}
	switch {
	case first != nil && t.Value != "matches" && isKeyword(p.peek(), "for") && p.peekN(1).Type == tokIdent:
		p.next()
		a := &Aggregate{Pos: t.Pos, ValueKind: t.Value, Value: first}
		return a, nil, nil, p.aggregateRest(a)
	case first != nil && t.Value == "matches" && isOp(p.peek(), ",") && isOp(p.peekN(1), "{"):
		p.next()
		p.next()
		m := &Match{Pos: t.Pos, X: first}
		if m.Fields, err = fieldList(p, p.fieldInit); err == nil {
			if err = p.expectClose("}"); err == nil {
				err = p.expectClose(")")
			}
		}
		m.EndPos = p.end()
		return nil, m, nil, err
	}
	c := &Call{Pos: t.Pos, Func: t.Value}
	if first != nil {
		c.Args = append(c.Args, first)
		if c.Args, err = p.moreArgs(c.Args); err != nil {
			return nil, nil, nil, err
		}
	}
	if err := p.expectClose(")"); err != nil {
		return nil, nil, nil, err
	}
	c.EndPos = p.end()
	return nil, nil, c, nil
}

// aggregateRest parses `x in S where c)` after an aggregate's opening.
func (p *exprParser) aggregateRest(a *Aggregate) error {
	v, err := p.expectIdent()
	if err != nil {
		return err
	}
	a.Var = v.Value
	if !isKeyword(p.peek(), "in") {
		return p.unexpected(`"in"`)
	}
	p.next()
	if a.Source, err = p.postfix(); err != nil {
		return err
	}
	if a.Source == nil {
		return p.unexpected("Postfix")
	}
	if isKeyword(p.peek(), "where") && canStartOperand(p.peekN(1)) {
		p.next()
		if a.Where, err = p.expr(); err != nil {
			return err
		}
	}
	if err := p.expectClose(")"); err != nil {
		return err
	}
	a.EndPos = p.end()
	return nil
}

// call parses `f(a, b)`.
func (p *exprParser) call() (*Call, error) {
	t := p.next()
	p.next() // (
	c := &Call{Pos: t.Pos, Func: t.Value}
	first, err := p.expr()
	if err != nil {
		return nil, err
	}
	if first != nil {
		if c.Args, err = p.moreArgs([]*Expr{first}); err != nil {
			return nil, err
		}
	}
	if err := p.expectClose(")"); err != nil {
		return nil, err
	}
	c.EndPos = p.end()
	return c, nil
}

// moreArgs parses the `, e` that follow the first argument of a call.
func (p *exprParser) moreArgs(args []*Expr) ([]*Expr, error) {
	for isOp(p.peek(), ",") && canStartOperand(p.peekN(1)) {
		p.next()
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		args = append(args, e)
	}
	return args, nil
}

// structAhead reports whether a record literal starts here:
// <ident> ("." <ident>)? "{" <ident> ":".
func (p *exprParser) structAhead() bool {
	if p.peek().Type != tokIdent {
		return false
	}
	i := 1
	if isOp(p.peekN(1), ".") && p.peekN(2).Type == tokIdent {
		i = 3
	}
	return isOp(p.peekN(i), "{") && p.peekN(i+1).Type == tokIdent && isOp(p.peekN(i+2), ":")
}

// structLit parses `Name { f: v, … }` or `svc.Name { … }` (at least one
// field: structAhead saw it).
func (p *exprParser) structLit() (*StructLit, error) {
	t := p.next()
	s := &StructLit{Pos: t.Pos, Name: t.Value}
	if isOp(p.peek(), ".") {
		p.next()
		s.Service, s.Name = t.Value, p.next().Value
	}
	p.next() // {
	var err error
	if s.Fields, err = fieldList(p, p.fieldInit); err != nil {
		return nil, err
	}
	if err := p.expectClose("}"); err != nil {
		return nil, err
	}
	s.EndPos = p.end()
	return s, nil
}

// fieldInit parses `name: expr`; nil when no name comes next.
func (p *exprParser) fieldInit() (*FieldInit, error) {
	t := p.peek()
	if t.Type != tokIdent {
		return nil, nil
	}
	p.next()
	if err := p.expectColon(); err != nil {
		return nil, err
	}
	v, err := p.requireExpr()
	if err != nil {
		return nil, err
	}
	return &FieldInit{Pos: t.Pos, EndPos: p.end(), Name: t.Value, Value: v}, nil
}

// expectColon consumes the `:` after a field's or argument's name.
func (p *exprParser) expectColon() error {
	if p.acceptOp(":") {
		return nil
	}
	if isOp(p.peek(), "=") {
		return participle.Errorf(p.peek().Pos, `unexpected "=" (fields and arguments are written name: value)`)
	}
	return p.unexpected(`":"`)
}

func (p *exprParser) listLit() (*ListLit, error) {
	l := &ListLit{Pos: p.next().Pos}
	var err error
	if l.Elems, err = bracketList(p, p.expr); err != nil {
		return nil, err
	}
	if err := p.expectClose("]"); err != nil {
		return nil, err
	}
	l.EndPos = p.end()
	return l, nil
}

func (p *exprParser) mapLit() (*MapLit, error) {
	m := &MapLit{Pos: p.next().Pos}
	var err error
	m.Entries, err = mapEntries(p, p.requireExpr, func(pos, end Pos, key string, v *Expr) *MapEntry {
		return &MapEntry{Pos: pos, EndPos: end, Key: key, Value: v}
	})
	if err != nil {
		return nil, err
	}
	if err := p.expectClose("}"); err != nil {
		return nil, err
	}
	m.EndPos = p.end()
	return m, nil
}

// The shapes of lists, maps and records are the same for expressions
// and constants; only the elements differ.

// bracketList parses (elem ("," elem)* ","?)? after an opening bracket;
// elem returns nil when no element starts.
func bracketList[T any](p *exprParser, elem func() (*T, error)) ([]*T, error) {
	first, err := elem()
	if err != nil || first == nil {
		return nil, err
	}
	list := []*T{first}
	for isOp(p.peek(), ",") {
		p.next()
		e, err := elem()
		if err != nil {
			return nil, err
		}
		if e == nil {
			break // a trailing comma
		}
		list = append(list, e)
	}
	return list, nil
}

// fieldList parses (field ","?)* after an opening brace; field returns
// nil when no field starts.
func fieldList[T any](p *exprParser, field func() (*T, error)) ([]*T, error) {
	var fields []*T
	for {
		f, err := field()
		if err != nil {
			return nil, err
		}
		if f == nil {
			return fields, nil
		}
		fields = append(fields, f)
		p.acceptOp(",")
	}
}

// mapEntries parses (<string> ":" value ","?)* after an opening brace.
func mapEntries[V, E any](p *exprParser, value func() (*V, error), entry func(pos, end Pos, key string, v *V) *E) ([]*E, error) {
	var entries []*E
	for p.peek().Type == tokString {
		k := p.next()
		if err := p.expectOp(":"); err != nil {
			return nil, err
		}
		v, err := value()
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry(k.Pos, p.end(), k.Value, v))
		p.acceptOp(",")
	}
	return entries, nil
}

// literal parses a literal token; nil when none comes next. With neg, a
// `-` before a number makes a negative number (in constants, and in a
// postfix expression parsed alone, such as a loop's source; in an
// expression, unary `-` takes it first). The number keeps the text of
// both tokens: "-2".
func (p *exprParser) literal(neg bool) *Literal {
	t := p.peek()
	switch t.Type {
	case tokDateTime, tokDate, tokNumber, tokString, tokIdent:
	case tokOp:
		if !neg || t.Value != "-" || p.peekN(1).Type != tokNumber {
			return nil
		}
	default:
		return nil
	}
	// The literal and the text it points to are one allocation.
	box := &struct {
		l Literal
		v string
	}{l: Literal{Pos: t.Pos}, v: t.Value}
	l, v := &box.l, &box.v
	switch t.Type {
	case tokDateTime:
		l.DateTime = v
	case tokDate:
		l.Date = v
	case tokNumber:
		l.Number = v
	case tokString:
		l.String = v
	case tokIdent:
		switch *v {
		case "true", "false":
			l.Bool = v
		case "null":
			l.Null = true
		default:
			l.Ident = v
		}
	case tokOp: // a negative number
		p.next()
		*v += p.peek().Value
		l.Number = v
	}
	p.next()
	l.EndPos = p.end()
	return l
}

// giveUpWithin is how far into a construct attempt may find it does not
// match and still give it up: the language has always read `list<string`
// (no `>`) and a rubric line `x` followed by a line `[a, b]` so.
const giveUpWithin = 4

// attempt runs parse and reports whether it matched. When it fails
// within giveUpWithin tokens of where it started, the lexer goes back
// there and attempt reports no match and no error; a failure further on,
// or one parse has marked certain (*commit), is an error.
func (p *exprParser) attempt(parse func(commit *bool) error) (bool, error) {
	cp := p.lex.MakeCheckpoint()
	commit := false
	err := parse(&commit)
	if err == nil {
		return true, nil
	}
	if commit || p.lex.Cursor() > cp.Cursor()+giveUpWithin {
		return false, err
	}
	p.lex.LoadCheckpoint(cp)
	return false, nil
}
