package pycalc

// The tokenizer follows CPython 3.11's (Parser/tokenizer.c) on the
// characters of Alphabet.

type tokKind uint8

const (
	tNumber tokKind = iota
	tLpar
	tRpar
	tPlus
	tMinus
	tStar
	tSlash
	tDSlash
	tDStar
	tDot
	tEllipsis
	tNewline
	tEnd
	// tUnclosed stands after the last token when a parenthesis is still
	// open: the tokenizer reached the end of the input inside parentheses.
	// Reading it is the error "'(' was never closed".
	tUnclosed
)

type token struct {
	kind  tokKind
	text  string // a number's text
	float bool   // a number with a point
	// level is the parenthesis nesting after the token, as CPython records
	// it on each token (a "(" is at the level it opens).
	level int
}

// maxLevel is CPython's MAXLEVEL: the 201st nested "(" is an error.
const maxLevel = 200

// tokenize splits src (leading spaces already stripped) into tokens. An
// error here is one the CPython tokenizer raises as an exception (unmatched
// ")", leading zeros, too many nested parentheses): whichever token the
// parser was reading when it met it, Python reports it, because after a
// parse error CPython tokenizes the rest of the input and a tokenizer
// error replaces the parser's. Running out of input inside parentheses is
// not raised here but left to the parser (tUnclosed), since it only counts
// if the parser reads that far.
func tokenize(src string) ([]token, *Error) {
	var toks []token
	level := 0
	isDigit := func(i int) bool { return i < len(src) && src[i] >= '0' && src[i] <= '9' }
	digits := func(i int) int {
		for isDigit(i) {
			i++
		}
		return i
	}
	add := func(k tokKind) { toks = append(toks, token{kind: k, level: level}) }
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ':
			i++
		case c >= '0' && c <= '9':
			start := i
			float := false
			if c == '0' {
				for i < len(src) && src[i] == '0' {
					i++
				}
				nonzero := isDigit(i)
				i = digits(i)
				if i < len(src) && src[i] == '.' {
					float = true
					i = digits(i + 1)
				} else if nonzero {
					return nil, syntaxError("leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers", 1)
				}
			} else {
				i = digits(i)
				if i < len(src) && src[i] == '.' {
					float = true
					i = digits(i + 1)
				}
			}
			toks = append(toks, token{kind: tNumber, text: src[start:i], float: float, level: level})
		case c == '.':
			switch {
			case isDigit(i + 1):
				start := i
				i = digits(i + 1)
				toks = append(toks, token{kind: tNumber, text: src[start:i], float: true, level: level})
			case i+2 < len(src) && src[i+1] == '.' && src[i+2] == '.':
				add(tEllipsis)
				i += 3
			default:
				add(tDot)
				i++
			}
		case c == '(':
			if level >= maxLevel {
				return nil, syntaxError("too many nested parentheses", 1)
			}
			level++
			add(tLpar)
			i++
		case c == ')':
			if level == 0 {
				return nil, syntaxError("unmatched ')'", 1)
			}
			level--
			add(tRpar)
			i++
		case c == '+':
			add(tPlus)
			i++
		case c == '-':
			add(tMinus)
			i++
		case c == '*':
			if i+1 < len(src) && src[i+1] == '*' {
				add(tDStar)
				i += 2
			} else {
				add(tStar)
				i++
			}
		case c == '/':
			if i+1 < len(src) && src[i+1] == '/' {
				add(tDSlash)
				i += 2
			} else {
				add(tSlash)
				i++
			}
		default:
			// Not reached: eval checked the alphabet.
			return nil, newError("ValueError", "Invalid characters in expression")
		}
	}
	if level > 0 {
		toks = append(toks, token{kind: tUnclosed, level: level})
		return toks, nil
	}
	if len(toks) > 0 {
		// A blank input has no NEWLINE, only the ENDMARKER.
		add(tNewline)
	}
	add(tEnd)
	return toks, nil
}
