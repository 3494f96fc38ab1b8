package dsl

import (
	"io"
	"strconv"

	"github.com/alecthomas/participle/v2/lexer"
)

// specLexer is the lexical grammar of the language, hand-written because a
// regexp-based lexer spent most of the parse time in backtracking. It
// produces exactly the tokens of tokenRules (the reference, kept for
// documentation and for a test that compares both lexers):
//
//	Comment    //[^\n]*
//	Whitespace [ \t\r\n]+
//	DateTime   \d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z?
//	Date       \d{4}-\d{2}-\d{2}
//	Number     \d+(\.\d+)?
//	String     "(\\.|[^"\\\n])*"
//	Ident      [A-Za-z_][A-Za-z0-9_]*
//	Op         == != <= >= and one of - + * / % < > = . , : ( ) [ ] { } ?
var specLexer = specDefinition{}

// Token types, as participle numbers them: EOF is -1, rules follow.
const (
	tokComment lexer.TokenType = lexer.EOF - 1 - iota
	tokWhitespace
	tokDateTime
	tokDate
	tokNumber
	tokString
	tokIdent
	tokOp
)

var specSymbols = map[string]lexer.TokenType{
	"EOF": lexer.EOF, "Comment": tokComment, "Whitespace": tokWhitespace,
	"DateTime": tokDateTime, "Date": tokDate, "Number": tokNumber,
	"String": tokString, "Ident": tokIdent, "Op": tokOp,
}

type specDefinition struct{}

func (specDefinition) Symbols() map[string]lexer.TokenType { return specSymbols }

func (d specDefinition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return d.LexString(filename, string(b))
}

func (d specDefinition) LexString(filename string, input string) (lexer.Lexer, error) {
	return &specScanner{data: input, pos: lexer.Position{Filename: filename, Line: 1, Column: 1}}, nil
}

func (d specDefinition) LexBytes(filename string, input []byte) (lexer.Lexer, error) {
	return d.LexString(filename, string(input))
}

// specScanner produces tokens from a string.
type specScanner struct {
	data string
	off  int
	pos  lexer.Position
}

func isDigit(c byte) bool     { return '0' <= c && c <= '9' }
func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

// digits reports whether s has n digits at i.
func digits(s string, i, n int) bool {
	if i+n > len(s) {
		return false
	}
	for j := i; j < i+n; j++ {
		if !isDigit(s[j]) {
			return false
		}
	}
	return true
}

// neverLast reports whether no node of the grammar ends with the token t:
// an opening bracket, a separator, an operator that takes an operand.
// (`>` ends `list<T>`, `?` an optional type, closing brackets many nodes.)
// The white space after such a token is where no node ends, and the
// parser does not need it (see scanner).
func neverLast(t lexer.Token) bool {
	if t.Type != tokOp {
		return false
	}
	switch t.Value {
	case "(", "[", "{", ",", ":", ".", "=", "==", "!=", "<=", ">=", "<", "+", "-", "*", "/", "%":
		return true
	}
	return false
}

func (s *specScanner) Next() (lexer.Token, error) {
	d, i := s.data, s.off
	if i >= len(d) {
		return lexer.Token{Type: lexer.EOF, Pos: s.pos}, nil
	}
	c := d[i]
	typ, end := lexer.TokenType(0), i
	switch {
	case c == '/' && i+1 < len(d) && d[i+1] == '/':
		end = i + 2
		for end < len(d) && d[end] != '\n' {
			end++
		}
		typ = tokComment
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		for end < len(d) && (d[end] == ' ' || d[end] == '\t' || d[end] == '\r' || d[end] == '\n') {
			end++
		}
		typ = tokWhitespace
	case isDigit(c):
		end, typ = s.number(i)
	case c == '"':
		end = i + 1
		for {
			if end >= len(d) || d[end] == '\n' {
				return s.invalid()
			}
			if d[end] == '\\' {
				if end+1 >= len(d) || d[end+1] == '\n' {
					return s.invalid()
				}
				end += 2
				continue
			}
			end++
			if d[end-1] == '"' {
				break
			}
		}
		typ = tokString
	case isIdentStart(c):
		end = i + 1
		for end < len(d) && isIdentPart(d[end]) {
			end++
		}
		typ = tokIdent
	default:
		if i+1 < len(d) && d[i+1] == '=' && (c == '=' || c == '!' || c == '<' || c == '>') {
			end, typ = i+2, tokOp
			break
		}
		switch c {
		case '-', '+', '*', '/', '%', '<', '>', '=', '.', ',', ':', '(', ')', '[', ']', '{', '}', '?':
			end, typ = i+1, tokOp
		default:
			return s.invalid()
		}
	}
	text := d[i:end]
	tok := lexer.Token{Type: typ, Value: text, Pos: s.pos}
	s.off = end
	s.pos.Advance(text)
	return tok, nil
}

// number scans a date-time, a date or a number starting at i (a digit).
func (s *specScanner) number(i int) (int, lexer.TokenType) {
	d := s.data
	if digits(d, i, 4) && i+10 <= len(d) && d[i+4] == '-' && digits(d, i+5, 2) && d[i+7] == '-' && digits(d, i+8, 2) {
		end := i + 10
		if end+6 <= len(d) && d[end] == 'T' && digits(d, end+1, 2) && d[end+3] == ':' && digits(d, end+4, 2) {
			end += 6
			if end+3 <= len(d) && d[end] == ':' && digits(d, end+1, 2) {
				end += 3
			}
			if end < len(d) && d[end] == 'Z' {
				end++
			}
			return end, tokDateTime
		}
		return end, tokDate
	}
	end := i
	for end < len(d) && isDigit(d[end]) {
		end++
	}
	if end+1 < len(d) && d[end] == '.' && isDigit(d[end+1]) {
		end++
		for end < len(d) && isDigit(d[end]) {
			end++
		}
	}
	return end, tokNumber
}

// invalid reports the text at the current position, as participle's
// regexp lexer words it.
func (s *specScanner) invalid() (lexer.Token, error) {
	sample := []rune(s.data[s.off:])
	if len(sample) > 16 {
		sample = append(sample[:16], []rune("...")...)
	}
	return lexer.Token{}, &lexer.Error{Msg: "lexer: invalid input text " + strconv.Quote(string(sample)), Pos: s.pos}
}
