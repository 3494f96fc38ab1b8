package pycalc

// The parser is CPython 3.11's PEG parser (Grammar/python.gram, generated
// by pegen) reduced to the tokens this alphabet can make: the same rules,
// alternatives in the same order, the same memoized rules and the same
// second pass with the invalid_* rules that choose the error message.
// Python's messages depend on how far each pass reads: reading past the end
// inside parentheses is "'(' was never closed", and the first invalid_*
// rule that matches raises its message. So every rule below reads the
// tokens CPython's does, in the same order, including the alternatives
// that can only fail here (they start with a name, a keyword, '[', '=',
// ',' or ':', none of which the alphabet can write): those read the
// current token and fail, which is written p.peek().
//
// The rules merged here, with the reason:
//   - disjunction, conjunction, inversion and comparison add nothing to
//     bitwise_or but reading the token after it (for 'or', 'and', 'not',
//     comparison operators), which bitwise_or read already; none has an
//     invalid alternative, so disjunction is bitwise_or.
//   - bitwise_or, bitwise_xor, bitwise_and and shift_expr are entered only
//     through bitwise_or and add only the same read, so bitwise_or is sum,
//     memoized once.
// Left-recursive rules (sum, term, primary) are loops: pegen grows the
// seed by retrying the alternatives until one no longer extends it, which
// reads the same tokens; the final re-parse of the base alternative reads
// nothing new (its sub-rules are memoized or fail on tokens already read).

type nodeKind uint8

const (
	nNumber nodeKind = iota
	nEllipsis
	nTuple // the empty tuple: () is the only tuple the alphabet can write
	nUnary
	nBinary
	nCall
)

// callArg is the form of a call's argument.
type callArg uint8

const (
	argNone       callArg = iota // f()
	argPositional                // f(x)
	argStar                      // f(*x)
	argDoubleStar                // f(**x)
)

type node struct {
	kind nodeKind
	tok  token   // nNumber
	op   tokKind // nUnary, nBinary
	x, y *node   // operands; x is the callee of nCall and y its argument
	arg  callArg // nCall
}

type ruleID uint8

const (
	rExpression ruleID = iota
	rBitwiseOr
	rTerm
	rFactor
	rAwaitPrimary
	rPrimary
	rArguments
	rInvalidNamedExpression
	numRules
)

type memoEntry struct {
	set bool
	ok  bool
	end int
	n   *node
}

type parser struct {
	toks []token
	pos  int
	// invalid is pegen's call_invalid_rules: set in the second pass, cleared
	// inside expression_without_invalid.
	invalid bool
	err     *Error      // pegen's error_indicator: the first error raised stops the parse
	memo    []memoEntry // by position × rule
}

// parse parses an eval input as CPython does: a first pass, and when it
// fails, a second one with the invalid_* rules to find the message;
// "invalid syntax" when none applies.
func parse(toks []token) (*node, *Error) {
	p := &parser{toks: toks, memo: make([]memoEntry, len(toks)*int(numRules))}
	if n, ok := p.evalRule(); ok {
		return n, nil
	}
	if p.err != nil {
		return nil, p.err
	}
	p.pos, p.invalid = 0, true
	clear(p.memo)
	p.evalRule()
	if p.err != nil {
		return nil, p.err
	}
	line := 1
	if toks[0].kind == tEnd {
		line = 0 // an empty input: the ENDMARKER's line
	}
	return nil, syntaxError("invalid syntax", line)
}

// peek reads the current token (pegen fills it from the tokenizer when it
// is first needed). Reading the end inside parentheses raises.
func (p *parser) peek() tokKind {
	if p.err != nil {
		return tUnclosed
	}
	t := p.toks[p.pos]
	if t.kind == tUnclosed {
		p.raise(syntaxError("'(' was never closed", 1))
	}
	return t.kind
}

func (p *parser) expect(k tokKind) bool {
	if p.peek() == k {
		p.pos++
		return true
	}
	return false
}

func (p *parser) raise(e *Error) {
	if p.err == nil {
		p.err = e
	}
}

// memoized runs a rule marked (memo) in the grammar, or a left-recursive
// one: its result at this position, success or failure, is computed once.
func (p *parser) memoized(r ruleID, rule func() (*node, bool)) (*node, bool) {
	start := p.pos
	if p.peek(); p.err != nil {
		return nil, false
	}
	k := start*int(numRules) + int(r)
	if e := p.memo[k]; e.set {
		p.pos = e.end
		return e.n, e.ok
	}
	n, ok := rule()
	if p.err != nil {
		return nil, false
	}
	if !ok {
		p.pos = start
	}
	p.memo[k] = memoEntry{set: true, ok: ok, end: p.pos, n: n}
	return n, ok
}

// eval: expressions NEWLINE* ENDMARKER
func (p *parser) evalRule() (*node, bool) {
	n, ok := p.expressions()
	if !ok {
		return nil, false
	}
	for p.expect(tNewline) {
	}
	if !p.expect(tEnd) {
		return nil, false
	}
	return n, true
}

// expressions: expression (',' expression)+ [','] | expression ',' | expression
func (p *parser) expressions() (*node, bool) {
	mark := p.pos
	for range 2 { // the two alternatives that need a ','
		if _, ok := p.expression(); ok {
			p.peek()
		}
		p.pos = mark
	}
	return p.expression()
}

// expression (memo): invalid_expression | invalid_legacy_expression
// | disjunction 'if' disjunction 'else' expression | disjunction | lambdef
func (p *parser) expression() (*node, bool) {
	return p.memoized(rExpression, func() (*node, bool) {
		mark := p.pos
		if p.invalid {
			p.invalidExpression()
			p.pos = mark
			p.peek() // invalid_legacy_expression: NAME
		}
		if _, ok := p.disjunction(); ok {
			p.peek() // 'if'
		}
		p.pos = mark
		if n, ok := p.disjunction(); ok {
			return n, true
		}
		p.pos = mark
		p.peek() // lambdef: 'lambda'
		return nil, false
	})
}

// invalid_expression:
//
//	!(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid
//	  -> "invalid syntax. Perhaps you forgot a comma?" inside parentheses
//	| a=disjunction 'if' b=disjunction !('else'|':')
func (p *parser) invalidExpression() {
	mark := p.pos
	p.peek() // the negative lookahead
	if _, ok := p.disjunction(); ok {
		if _, ok := p.expressionWithoutInvalid(); ok {
			// The action: nothing at the top level, which ends the rule
			// (pegen does not try the next alternative after an action).
			if p.toks[p.pos-1].level != 0 {
				p.raise(syntaxError("invalid syntax. Perhaps you forgot a comma?", 1))
			}
			return
		}
	}
	p.pos = mark
	if _, ok := p.disjunction(); ok {
		p.peek() // 'if'
	}
	p.pos = mark
}

// expression_without_invalid: disjunction 'if' disjunction 'else' expression
// | disjunction | lambdef, with the invalid rules off.
func (p *parser) expressionWithoutInvalid() (*node, bool) {
	saved := p.invalid
	p.invalid = false
	defer func() { p.invalid = saved }()
	mark := p.pos
	if _, ok := p.disjunction(); ok {
		p.peek() // 'if'
	}
	p.pos = mark
	if n, ok := p.disjunction(); ok {
		return n, true
	}
	p.pos = mark
	p.peek() // lambdef
	return nil, false
}

// disjunction down to comparison: see the file comment.
func (p *parser) disjunction() (*node, bool) {
	n, ok := p.bitwiseOr()
	if ok {
		p.peek() // 'or', 'and', comparison operators
	}
	return n, ok
}

// bitwise_or .. shift_expr, then sum (left-recursive):
// sum '+' term | sum '-' term | term
func (p *parser) bitwiseOr() (*node, bool) {
	return p.memoized(rBitwiseOr, func() (*node, bool) {
		l, ok := p.term()
		if !ok {
			return nil, false
		}
		for {
			mark := p.pos
			op := p.peek()
			if op != tPlus && op != tMinus {
				break
			}
			p.pos++
			r, ok := p.term()
			if !ok {
				p.pos = mark
				break
			}
			l = &node{kind: nBinary, op: op, x: l, y: r}
		}
		return l, p.err == nil
	})
}

// term (left-recursive): term '*' factor | term '/' factor
// | term '//' factor | term '%' factor | term '@' factor | factor
func (p *parser) term() (*node, bool) {
	return p.memoized(rTerm, func() (*node, bool) {
		l, ok := p.factor()
		if !ok {
			return nil, false
		}
		for {
			mark := p.pos
			op := p.peek()
			if op != tStar && op != tSlash && op != tDSlash {
				break
			}
			p.pos++
			r, ok := p.factor()
			if !ok {
				p.pos = mark
				break
			}
			l = &node{kind: nBinary, op: op, x: l, y: r}
		}
		return l, p.err == nil
	})
}

// factor (memo): '+' factor | '-' factor | '~' factor | power
func (p *parser) factor() (*node, bool) {
	return p.memoized(rFactor, func() (*node, bool) {
		mark := p.pos
		if op := p.peek(); op == tPlus || op == tMinus {
			p.pos++
			if x, ok := p.factor(); ok {
				return &node{kind: nUnary, op: op, x: x}, true
			}
			p.pos = mark
		}
		return p.power()
	})
}

// power: await_primary '**' factor | await_primary
func (p *parser) power() (*node, bool) {
	mark := p.pos
	if l, ok := p.awaitPrimary(); ok && p.expect(tDStar) {
		if r, ok := p.factor(); ok {
			return &node{kind: nBinary, op: tDStar, x: l, y: r}, true
		}
	}
	p.pos = mark
	return p.awaitPrimary()
}

// await_primary (memo): AWAIT primary | primary
func (p *parser) awaitPrimary() (*node, bool) {
	return p.memoized(rAwaitPrimary, func() (*node, bool) {
		p.peek() // AWAIT
		return p.primary()
	})
}

// primary (left-recursive): primary '.' NAME | primary genexp
// | primary '(' [arguments] ')' | primary '[' slices ']' | atom
func (p *parser) primary() (*node, bool) {
	return p.memoized(rPrimary, func() (*node, bool) {
		l, ok := p.atom()
		if !ok {
			return nil, false
		}
		for p.err == nil {
			mark := p.pos
			if p.expect(tDot) {
				p.peek() // NAME
			}
			p.pos = mark
			p.genexp() // never succeeds: no 'for'
			p.pos = mark
			if p.expect(tLpar) {
				arg, _ := p.arguments()
				if p.expect(tRpar) {
					c := &node{kind: nCall, x: l}
					if arg != nil {
						c.arg, c.y = arg.arg, arg.y
					}
					l = c
					continue
				}
			}
			p.pos = mark
			p.peek() // '['
			break
		}
		return l, p.err == nil
	})
}

// atom: NAME | 'True' | 'False' | 'None' | &STRING strings | NUMBER
// | &'(' (tuple | group | genexp) | &'[' ... | &'{' ... | '...'
func (p *parser) atom() (*node, bool) {
	switch p.peek() {
	case tNumber:
		p.pos++
		return &node{kind: nNumber, tok: p.toks[p.pos-1]}, true
	case tEllipsis:
		p.pos++
		return &node{kind: nEllipsis}, true
	case tLpar:
		mark := p.pos
		if n, ok := p.tuple(); ok {
			return n, true
		}
		p.pos = mark
		if n, ok := p.group(); ok {
			return n, true
		}
		p.pos = mark
		p.genexp() // never succeeds
		p.pos = mark
	}
	return nil, false
}

// tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'
func (p *parser) tuple() (*node, bool) {
	mark := p.pos
	if !p.expect(tLpar) {
		return nil, false
	}
	inner := p.pos
	if _, ok := p.starNamedExpression(); ok {
		p.peek() // ','
	}
	p.pos = inner
	if p.expect(tRpar) {
		return &node{kind: nTuple}, true
	}
	p.pos = mark
	return nil, false
}

// group: '(' (yield_expr | named_expression) ')' | invalid_group
func (p *parser) group() (*node, bool) {
	mark := p.pos
	if p.expect(tLpar) {
		p.peek() // yield_expr: 'yield'
		if n, ok := p.namedExpression(); ok && p.expect(tRpar) {
			return n, true
		}
	}
	p.pos = mark
	if p.invalid {
		p.invalidGroup()
		p.pos = mark
	}
	return nil, false
}

// invalid_group: '(' starred_expression ')' | '(' '**' expression ')'
func (p *parser) invalidGroup() {
	mark := p.pos
	if p.expect(tLpar) {
		if _, ok := p.starredExpression(); ok && p.expect(tRpar) {
			p.raise(syntaxError("cannot use starred expression here", 1))
			return
		}
	}
	p.pos = mark
	if p.expect(tLpar) && p.expect(tDStar) {
		if _, ok := p.expression(); ok && p.expect(tRpar) {
			p.raise(syntaxError("cannot use double starred expression here", 1))
			return
		}
	}
	p.pos = mark
}

// genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')'
// | invalid_comprehension. It never succeeds here (no 'for').
func (p *parser) genexp() (*node, bool) {
	mark := p.pos
	if p.expect(tLpar) {
		p.peek() // assignment_expression: NAME
		if _, ok := p.expression(); ok {
			p.peek() // !':='
			p.forIfClauses()
		}
	}
	p.pos = mark
	if p.invalid {
		p.invalidComprehension()
		p.pos = mark
	}
	return nil, false
}

// for_if_clauses: for_if_clause+, each beginning with ASYNC or 'for' (and
// so does invalid_for_target): it reads the current token and fails.
func (p *parser) forIfClauses() { p.peek() }

// invalid_comprehension: ('[' | '(' | '{') starred_expression for_if_clauses
// | ('[' | '{') ... | ('[' | '{') ...
func (p *parser) invalidComprehension() {
	mark := p.pos
	p.peek() // '['
	if p.expect(tLpar) {
		if _, ok := p.starredExpression(); ok {
			p.forIfClauses()
		}
	}
	p.pos = mark
	p.peek() // '[' or '{'
}

// named_expression: assignment_expression | invalid_named_expression
// | expression !':='
func (p *parser) namedExpression() (*node, bool) {
	mark := p.pos
	p.peek() // assignment_expression: NAME
	if p.invalid {
		p.invalidNamedExpression()
		p.pos = mark
	}
	if n, ok := p.expression(); ok {
		p.peek() // !':='
		return n, true
	}
	p.pos = mark
	return nil, false
}

// invalid_named_expression (memo): expression ':=' expression | NAME '=' ...
// | !(list|tuple|genexp|'True'|'None'|'False') bitwise_or '=' ...
func (p *parser) invalidNamedExpression() {
	p.memoized(rInvalidNamedExpression, func() (*node, bool) {
		mark := p.pos
		if _, ok := p.expression(); ok {
			p.peek() // ':='
		}
		p.pos = mark
		p.peek() // NAME
		p.peek() // list: '['
		if _, ok := p.tuple(); ok {
			p.pos = mark
			return nil, false
		}
		p.pos = mark
		if _, ok := p.genexp(); ok {
			p.pos = mark
			return nil, false
		}
		p.pos = mark
		p.peek() // 'True', 'None', 'False'
		if _, ok := p.bitwiseOr(); ok {
			p.peek() // '='
		}
		p.pos = mark
		return nil, false
	})
}

// star_named_expression: '*' bitwise_or | named_expression
func (p *parser) starNamedExpression() (*node, bool) {
	mark := p.pos
	if p.expect(tStar) {
		if n, ok := p.bitwiseOr(); ok {
			return n, true
		}
	}
	p.pos = mark
	return p.namedExpression()
}

// starred_expression: '*' expression
func (p *parser) starredExpression() (*node, bool) {
	mark := p.pos
	if p.expect(tStar) {
		if n, ok := p.expression(); ok {
			return n, true
		}
	}
	p.pos = mark
	return nil, false
}

// arguments (memo): args [','] &')' | invalid_arguments. The result is a
// call node holding the argument only.
func (p *parser) arguments() (*node, bool) {
	return p.memoized(rArguments, func() (*node, bool) {
		mark := p.pos
		if n, ok := p.args(); ok {
			p.peek() // [',']
			if p.peek() == tRpar {
				return n, true
			}
		}
		p.pos = mark
		if p.invalid {
			p.invalidArguments()
			p.pos = mark
		}
		return nil, false
	})
}

// args: ','.(starred_expression | (assignment_expression | expression !':=') !'=')+
// [',' kwargs] | kwargs
func (p *parser) args() (*node, bool) {
	mark := p.pos
	if n, ok := p.starredExpression(); ok {
		p.peek() // ','
		p.peek() // [',' kwargs]
		return &node{kind: nCall, arg: argStar, y: n}, true
	}
	p.pos = mark
	p.peek() // assignment_expression: NAME
	if n, ok := p.expression(); ok {
		p.peek() // !':='
		p.peek() // !'='
		p.peek() // ','
		p.peek() // [',' kwargs]
		return &node{kind: nCall, arg: argPositional, y: n}, true
	}
	p.pos = mark
	return p.kwargs()
}

// kwargs: ','.kwarg_or_starred+ ',' ','.kwarg_or_double_starred+
// | ','.kwarg_or_starred+ | ','.kwarg_or_double_starred+
func (p *parser) kwargs() (*node, bool) {
	mark := p.pos
	if _, ok := p.kwargOrStarred(); ok {
		p.peek() // ','
	}
	p.pos = mark
	if n, ok := p.kwargOrStarred(); ok {
		p.peek() // ','
		return &node{kind: nCall, arg: argStar, y: n}, true
	}
	p.pos = mark
	if n, ok := p.kwargOrDoubleStarred(); ok {
		p.peek() // ','
		return &node{kind: nCall, arg: argDoubleStar, y: n}, true
	}
	p.pos = mark
	return nil, false
}

// kwarg_or_starred: invalid_kwarg | NAME '=' expression | starred_expression
func (p *parser) kwargOrStarred() (*node, bool) {
	mark := p.pos
	if p.invalid {
		p.invalidKwarg()
		p.pos = mark
	}
	p.peek() // NAME
	return p.starredExpression()
}

// kwarg_or_double_starred: invalid_kwarg | NAME '=' expression | '**' expression
func (p *parser) kwargOrDoubleStarred() (*node, bool) {
	mark := p.pos
	if p.invalid {
		p.invalidKwarg()
		p.pos = mark
	}
	p.peek() // NAME
	if p.expect(tDStar) {
		if n, ok := p.expression(); ok {
			return n, true
		}
	}
	p.pos = mark
	return nil, false
}

// invalid_kwarg: ('True'|'False'|'None') '=' | NAME '=' expression for_if_clauses
// | !(NAME '=') a=expression b='='
func (p *parser) invalidKwarg() {
	mark := p.pos
	p.peek()
	if _, ok := p.expression(); ok {
		p.peek() // '='
	}
	p.pos = mark
}

// invalid_arguments: args ',' '*' | expression for_if_clauses ',' ...
// | NAME '=' ... | args for_if_clauses | args ',' expression for_if_clauses
// | args ',' args
func (p *parser) invalidArguments() {
	mark := p.pos
	step := func(first func() (*node, bool)) {
		if _, ok := first(); ok {
			p.peek()
		}
		p.pos = mark
	}
	step(p.args)
	step(p.expression)
	p.peek() // NAME
	step(p.args)
	step(p.args)
	step(p.args)
}
