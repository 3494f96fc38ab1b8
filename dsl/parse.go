package dsl

import (
	"bytes"

	"errors"
	"fmt"

	"strconv"
	"strings"

	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Limits that protect the parser from hostile input. Specs come from LLMs:
// a runaway generation must get a diagnostic, never exhaust the machine.
const (
	// MaxFileSize is the largest spec file accepted, in bytes.
	MaxFileSize = 8 << 20
	// MaxNesting is the deepest nesting accepted: of (), [] and {}, of
	// prefix operators written in a row (`not not x`, `- -x`) and of
	// `else if` chains. Each of them recurses in the parser.
	MaxNesting = 64
	// MaxTokens is the largest number of tokens (comments aside) accepted.
	// The parser allocates a few kilobytes per token; a real spec has a few
	// thousand.
	MaxTokens = 250_000
)

// tokenRules is the lexical grammar. Order matters: longer and more specific
// tokens first (a date before a number, `==` before `=`).
var tokenRules = []lexer.SimpleRule{
	{Name: "Comment", Pattern: `//[^\n]*`},
	{Name: "Whitespace", Pattern: `[ \t\r\n]+`},
	{Name: "DateTime", Pattern: `\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?Z?`},
	{Name: "Date", Pattern: `\d{4}-\d{2}-\d{2}`},
	{Name: "Number", Pattern: `\d+(\.\d+)?`},
	{Name: "String", Pattern: `"(\\.|[^"\\\n])*"`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `==|!=|<=|>=|[-+*/%<>=.,:()\[\]{}?]`},
}

// parser parses the language: participle with the grammar tags of ast.go
// for the declarations, calling the parser of exprparse.go for what they
// hold: statements, fields, parameters, types, expressions, names,
// constants and seed records (participle.Parseable). It parses the tokens
// the scanner produces (see Parse): its lexer only names the token types.
// It is built once; participle parsers are safe for concurrent use.
//
// Participle may give up an alternative, an optional or a repeated group
// however far it got into it (MaxLookahead), and then reports the error
// it found furthest into the input: the mistake inside a statement, a
// field or a seed record rather than the brace of the block that holds
// it. The alternatives of the tags are told apart by their first token,
// and the grammar the tags describe does not recurse (blocks and
// expressions nest inside exprparse.go, which does not backtrack but
// within a few tokens), so no input is parsed more than a few times
// over: a broken spec costs what a good one does.
var parser = participle.MustBuild[File](participle.Lexer(specLexer), participle.Elide("Comment", "Whitespace"), participle.UseLookahead(participle.MaxLookahead))

// Error is a syntax error at a position.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the error as `file:line:col: message`.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// tokenPos is where a token other than a comment starts.
type tokenPos struct {
	offset, line, col int
}

// Parse parses one spec file. filename is used in positions only. On a
// syntax error it returns a nil file and an *Error. Input that is not UTF-8
// text, or exceeds MaxFileSize, MaxTokens or MaxNesting, is rejected with an
// *Error before the parser runs, so no input can panic, exhaust the stack
// or take more than linear time.
func Parse(filename string, src []byte) (*File, error) {
	if len(src) > MaxFileSize {
		return nil, &Error{Pos: Pos{Filename: filename, Line: 1, Column: 1},
			Msg: fmt.Sprintf("spec is %d bytes; the limit is %d", len(src), MaxFileSize)}
	}
	if err := checkEncoding(filename, src); err != nil {
		return nil, err
	}
	s, err := newScanner(filename, src)
	if err != nil {
		return nil, err
	}
	// Participle reads every token before it parses: the scanner's errors come
	// first.
	tokens, err := lexer.Upgrade(s, tokComment, tokWhitespace)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFromLexer(tokens)
	if err != nil {
		return nil, toError(filename, err, s.tokens, src)
	}
	return finish(f, s.comments, s.tokens, src), nil
}

// finish completes a parsed tree: the policy positions, the comments and
// the token positions.
func finish(f *File, comments []*Comment, tokens []tokenPos, src []byte) *File {
	locatePolicies(f, tokens, src)
	f.Comments = comments
	f.tokens = tokens
	return f
}

// locatePolicies fills the position of every invariant's policy string:
// the fifth token of `invariant NAME { policy "…"`, after `local` and
// `always` when they are written. A string token lies on one line, so its
// end is its start advanced by its text.
func locatePolicies(f *File, tokens []tokenPos, src []byte) {
	for _, d := range f.Decls {
		inv := d.Invariant
		if inv == nil {
			continue
		}
		i := tokenIndex(tokens, inv.Pos.Offset)
		if i < 0 {
			continue
		}
		if inv.Local {
			i++
		}
		if inv.Always {
			i++
		}
		if i+4 >= len(tokens) {
			continue
		}
		t := tokens[i+4]
		if t.offset >= len(src) || src[t.offset] != '"' {
			continue
		}
		end := t.offset + 1
		for end < len(src) && src[end] != '"' {
			if src[end] == '\\' {
				end++
			}
			end++
		}
		end = min(end+1, len(src))
		inv.PolicyPos = Pos{Filename: inv.Pos.Filename, Offset: t.offset, Line: t.line, Column: t.col}
		inv.PolicyEnd = inv.PolicyPos
		inv.PolicyEnd.Advance(string(src[t.offset:end]))
	}
}

// checkEncoding rejects input that is not UTF-8 text: invalid encodings
// and NUL bytes (a sign of a binary file or a broken generation).
func checkEncoding(filename string, src []byte) error {
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		// Editors on Windows write one; the lexer would only say that
		// U+FEFF is unexpected.
		return &Error{Pos: Pos{Filename: filename, Line: 1, Column: 1}, Msg: "the spec starts with a byte order mark (U+FEFF); save it as UTF-8 without one"}
	}
	if utf8.Valid(src) && bytes.IndexByte(src, 0) < 0 {
		return nil
	}
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRune(src[i:])
		switch {
		case r == 0:
			return &Error{Pos: posAt(filename, src, i), Msg: "NUL byte in spec; a spec is UTF-8 text"}
		case r == utf8.RuneError && size == 1:
			return &Error{Pos: posAt(filename, src, i), Msg: fmt.Sprintf("invalid UTF-8 byte 0x%02x; a spec is UTF-8 text", src[i])}
		}
		i += size
	}
	return nil
}

// posAt is the position of byte offset off in src, counted like the lexer
// counts (1-based line, 1-based column in runes).
func posAt(filename string, src []byte, off int) Pos {
	pos := Pos{Filename: filename, Line: 1, Column: 1}
	pos.Advance(string(src[:off]))
	return pos
}

// scanner lexes the whole input once, as participle reads it before
// parsing (lexer.Upgrade): it collects comments for the formatter and
// token positions, reports lexical errors with a clear message, and
// rejects input that would recurse without bound in the parser: nesting
// deeper than MaxNesting, more than MaxNesting prefix operators in a row,
// and `else if` chains longer than MaxNesting. Its tokens are those the
// parser reads: strings decoded (see unquoteString), and of the white
// space and comments only the piece right after a token that may end a
// node (see neverLast), where the node ends (EndPos), and the end of
// input. A string that does not decode is reported after every other
// problem the scanner finds, as participle, which decoded strings as it
// read the tokens, did. Its errors are *Error.
type scanner struct {
	filename string
	src      []byte
	lx       lexer.Lexer
	comments []*Comment
	tokens   []tokenPos // every token but white space and comments
	skipGap  bool       // the white space or comment can mark no node's end
	badStr   error      // the first string that does not decode
	depth    int
	prefixes int                 // prefix operators (`not`, `-`) in a row
	elseIfs  [MaxNesting + 2]int // length of the current else-if chain per depth
	prev     lexer.Token         // previous token other than a comment
}

func newScanner(filename string, src []byte) (*scanner, error) {
	lx, err := specLexer.LexString(filename, string(src))
	if err != nil {
		return nil, toError(filename, err, nil, src)
	}
	return &scanner{filename: filename, src: src, lx: lx, tokens: make([]tokenPos, 0, min(len(src)/5, MaxTokens))}, nil
}

// Next is the next token the parser reads (lexer.Lexer).
func (s *scanner) Next() (lexer.Token, error) {
	for {
		tok, err := s.lx.Next()
		if err != nil {
			return tok, toError(s.filename, err, nil, s.src)
		}
		if tok.EOF() {
			if s.badStr != nil {
				return tok, toError(s.filename, s.badStr, s.tokens, s.src)
			}
			return tok, nil
		}
		switch tok.Type {
		case whitespaceType, commentType:
			if tok.Type == commentType {
				s.comments = append(s.comments, &Comment{Pos: tok.Pos, Text: strings.TrimRight(tok.Value, " \t\r")})
			}
			if s.skipGap {
				continue
			}
			s.skipGap = true
			return tok, nil
		}
		if err := s.check(tok); err != nil {
			return tok, err
		}
		s.skipGap = neverLast(tok)
		if tok.Type == tokString {
			var err error
			if tok, err = unquoteString(tok); err != nil && s.badStr == nil {
				s.badStr = err
			}
		}
		return tok, nil
	}
}

// check records the position of tok, a token other than white space and
// comments, and applies the limits.
func (s *scanner) check(tok lexer.Token) error {
	if len(s.tokens) == MaxTokens {
		return &Error{Pos: tok.Pos, Msg: fmt.Sprintf("spec has more than %d tokens", MaxTokens)}
	}
	s.tokens = append(s.tokens, tokenPos{offset: tok.Pos.Offset, line: tok.Pos.Line, col: tok.Pos.Column})
	switch {
	case tok.Type == opType && (tok.Value == "(" || tok.Value == "[" || tok.Value == "{"):
		s.depth++
		if s.depth > MaxNesting {
			return &Error{Pos: tok.Pos, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxNesting)}
		}
		s.elseIfs[s.depth] = 0
	case tok.Type == opType && (tok.Value == ")" || tok.Value == "]" || tok.Value == "}"):
		s.depth = max(s.depth-1, 0)
	case tok.Type == identType && tok.Value == "if":
		if s.prev.Type == identType && s.prev.Value == "else" {
			s.elseIfs[s.depth]++
			if s.elseIfs[s.depth] > MaxNesting {
				return &Error{Pos: tok.Pos, Msg: fmt.Sprintf("more than %d `else if` in one chain", MaxNesting)}
			}
		} else {
			s.elseIfs[s.depth] = 0
		}
	}
	if (tok.Type == opType && tok.Value == "-") || (tok.Type == identType && tok.Value == "not") {
		s.prefixes++
		if s.prefixes > MaxNesting {
			return &Error{Pos: tok.Pos, Msg: fmt.Sprintf("more than %d prefix operators (`not`, `-`) in a row", MaxNesting)}
		}
	} else {
		s.prefixes = 0
	}
	s.prev = tok
	return nil
}

var (
	opType         = specLexer.Symbols()["Op"]
	identType      = specLexer.Symbols()["Ident"]
	commentType    = specLexer.Symbols()["Comment"]
	whitespaceType = specLexer.Symbols()["Whitespace"]
)

// unquoteString decodes a string token with Go's escapes in linear time and
// reports a bad escape at its own position.
func unquoteString(t lexer.Token) (lexer.Token, error) {
	body := t.Value[1 : len(t.Value)-1]
	if !strings.ContainsRune(body, '\\') {
		t.Value = body
		return t, nil
	}
	var b strings.Builder
	b.Grow(len(body))
	for s := body; s != ""; {
		r, multibyte, tail, err := strconv.UnquoteChar(s, '"')
		if err != nil {
			pos := t.Pos
			pos.Advance(t.Value[:len(t.Value)-1-len(s)])
			esc := s
			if _, size := utf8.DecodeRuneInString(s[min(1, len(s)):]); len(s) > 1 {
				esc = s[:1+size]
			}
			return t, participle.Errorf(pos, "invalid escape %s in string", esc)
		}
		if r < utf8.RuneSelf || !multibyte {
			b.WriteByte(byte(r))
		} else {
			b.WriteRune(r)
		}
		s = tail
	}
	if !utf8.ValidString(b.String()) {
		return t, participle.Errorf(t.Pos, "string escapes do not form valid UTF-8")
	}
	t.Value = b.String()
	return t, nil
}

// toError turns a participle or lexer error into an *Error with a message a
// person (or an LLM) can act on. tokens and src, when known, let it point at
// the real mistake in a few common cases.
func toError(filename string, err error, tokens []tokenPos, src []byte) error {
	var perr participle.Error
	if errors.As(err, &perr) {
		pos := perr.Position()
		if pos.Filename == "" {
			pos.Filename = filename
		}
		e := &Error{Pos: pos, Msg: cleanMessage(perr.Message())}
		hint(e, tokens, src)
		return e
	}
	return &Error{Pos: Pos{Filename: filename, Line: 1, Column: 1}, Msg: err.Error()}
}

// cleanMessage rewrites participle's wording where it would confuse a spec
// author: `invalid input text "…"` names the character that is not allowed
// (or the string that is not closed), `<EOF>` becomes "end of file", and a
// long "expected" grammar sequence is cut to what could come next.
func cleanMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "lexer: ")
	if rest, ok := strings.CutPrefix(msg, "invalid input text "); ok {
		if s, err := strconv.Unquote(rest); err == nil && s != "" {
			r, _ := utf8.DecodeRuneInString(s)
			if r == '"' {
				return "string not closed before the end of the line"
			}
			return fmt.Sprintf("unexpected character %q", r)
		}
		return "unexpected character " + rest
	}
	if rest, ok := strings.CutPrefix(msg, "unexpected token "); ok {
		tok, expected, _ := strings.Cut(rest, " (expected ")
		if tok == `"<EOF>"` {
			tok = "end of file"
		} else {
			tok = "token " + tok
		}
		if expected == "" {
			return "unexpected " + tok
		}
		return fmt.Sprintf("unexpected %s (expected %s)", tok, firstExpected(strings.TrimSuffix(expected, ")")))
	}
	return msg
}

// firstExpected cuts participle's "expected" text, which is the whole rest
// of a grammar sequence (`"persona" <string> "instruction" <string> …`), to
// its leading optional items and the first required one: what may come next.
func firstExpected(seq string) string {
	items := splitTopLevel(seq, ' ')
	for i, item := range items {
		if !strings.HasSuffix(item, "?") && !strings.HasSuffix(item, "*") {
			return unparen(strings.Join(items[:i+1], " "))
		}
	}
	return seq
}

// unparen drops the parentheses participle puts around a choice and its
// alternatives: `(("from" <string>) | Literal)` reads `"from" <string> |
// Literal`.
func unparen(s string) string {
	if len(s) > 1 && s[0] == '(' && s[len(s)-1] == ')' && len(splitTopLevel(s, ' ')) == 1 {
		s = s[1 : len(s)-1]
	}
	alts := splitTopLevel(s, '|')
	if len(alts) < 2 {
		return s
	}
	for i, a := range alts {
		if len(a) > 1 && a[0] == '(' && a[len(a)-1] == ')' && len(splitTopLevel(a, ' ')) == 1 {
			alts[i] = a[1 : len(a)-1]
		}
	}
	return strings.Join(alts, " | ")
}

// splitTopLevel splits s at each sep outside quotes and brackets, trimming
// the spaces around the items and dropping empty ones: an EBNF sequence
// at spaces, a list's contents at commas.
func splitTopLevel(s string, sep byte) []string {
	var items []string
	add := func(item string) {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			i = skipString(s, i)
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == sep && depth == 0:
			add(s[start:i])
			start = i + 1
		}
	}
	add(s[start:])
	return items
}

// hint replaces participle's message for mistakes LLMs make often, where
// the parser's backtracking reports the error too early: `name = value`
// instead of `name: value` in a seed record, an insert or a call, and `=`
// instead of `==` inside parentheses.
func hint(e *Error, tokens []tokenPos, src []byte) {
	if tokens == nil {
		return
	}
	nameValue := `unexpected "=" (fields and arguments are written name: value)`
	i := tokenIndex(tokens, e.Pos.Offset)
	if i > 0 && strings.HasSuffix(e.Msg, "(expected <string>)") && identAt(src, tokens[i-1].offset) == "fails" {
		e.Pos = posAt(e.Pos.Filename, src, tokens[i-1].offset)
		e.Msg = `"fails" needs the message the call is expected to fail with: call(…) fails "message"`
		return
	}
	if i > 1 && strings.HasSuffix(e.Msg, "(expected Literal)") && isAssign(src, tokens[i-1]) && strings.IndexByte("[{", src[e.Pos.Offset]) >= 0 &&
		(src[tokens[i-2].offset] == '>' || 'A' <= src[tokens[i-2].offset] && src[tokens[i-2].offset] <= 'Z') {
		// `tags list<string> = []`, `address Address = {…}`: the default
		// of a list, map or record field.
		e.Msg = `a field's default is a literal (a number, string, date, enum value, true, false or null), never a list, map or record: give the field its value in every insert and seed record ([] or {}), or make it optional`
		return
	}
	if i >= 0 && i+1 < len(tokens) && isAssign(src, tokens[i+1]) && isIdentStart(src[e.Pos.Offset]) &&
		(strings.Contains(e.Msg, `(expected "}"`) || strings.Contains(e.Msg, `(expected ")"`)) {
		e.Pos = posAt(e.Pos.Filename, src, tokens[i+1].offset)
		e.Msg = nameValue
		return
	}
	// `=` is never valid inside parentheses; the parser may have given up
	// on the enclosing construct before reaching it. Only the declaration
	// that holds the error is searched, so that errors stay in order.
	var open []byte
	for j, t := range tokens {
		if t.offset > e.Pos.Offset && len(open) == 0 {
			return // past the declaration that holds the error
		}
		switch c := src[t.offset]; c {
		case '(', '[', '{':
			open = append(open, c)
		case ')', ']', '}':
			open = open[:max(len(open)-1, 0)]
		case '=':
			if !isAssign(src, t) || len(open) == 0 || open[len(open)-1] != '(' || t.offset < e.Pos.Offset {
				continue
			}
			e.Pos = posAt(e.Pos.Filename, src, t.offset)
			if j >= 2 && isIdentStart(src[tokens[j-1].offset]) && strings.ContainsRune("(,", rune(src[tokens[j-2].offset])) {
				e.Msg = nameValue
			} else {
				e.Msg = `unexpected "=" (compare with ==)`
			}
			return
		}
	}
}

// isAssign reports whether the token t is a single `=`.
func isAssign(src []byte, t tokenPos) bool {
	return src[t.offset] == '=' && (t.offset+1 >= len(src) || src[t.offset+1] != '=')
}

func isIdentStart(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// tokenIndex is the index of the token starting at offset, or -1.
func tokenIndex(tokens []tokenPos, offset int) int {
	lo, hi := 0, len(tokens)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if tokens[mid].offset < offset {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(tokens) && tokens[lo].offset == offset {
		return lo
	}
	return -1
}

// identAt is the identifier that starts at offset off, or "".
func identAt(src []byte, off int) string {
	end := off
	for end < len(src) && (isIdentStart(src[end]) || end > off && isDigit(src[end])) {
		end++
	}
	return string(src[off:end])
}
