package dsl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Limits that protect the parser from hostile input. Specs come from LLMs:
// a runaway generation must get a diagnostic, never exhaust the machine.
const (
	// MaxFileSize is the largest spec file accepted, in bytes.
	MaxFileSize = 8 << 20
	// MaxNesting is the deepest nesting of (), [] and {} accepted.
	MaxNesting = 64
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

var specLexer = lexer.MustSimple(tokenRules)

// parser is built once; participle parsers are safe for concurrent use.
var parser = participle.MustBuild[File](
	participle.Lexer(specLexer),
	participle.Elide("Comment", "Whitespace"),
	participle.Unquote("String"),
	participle.UseLookahead(4),
)

// Error is a syntax error at a position.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

// Parse parses one spec file. filename is used in positions only. On a
// syntax error it returns a nil file and an *Error.
func Parse(filename string, src []byte) (*File, error) {
	if len(src) > MaxFileSize {
		return nil, &Error{Pos: Pos{Filename: filename, Line: 1, Column: 1},
			Msg: fmt.Sprintf("spec is %d bytes; the limit is %d", len(src), MaxFileSize)}
	}
	comments, err := scan(filename, src)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(filename, src)
	if err != nil {
		return nil, toError(filename, err)
	}
	f.Comments = comments
	return f, nil
}

// scan lexes the whole input once before parsing: it collects comments for
// the formatter, reports lexical errors with a clear message and rejects
// nesting deeper than MaxNesting, which would otherwise recurse without
// bound in the parser.
func scan(filename string, src []byte) ([]*Comment, error) {
	lx, err := specLexer.LexString(filename, string(src))
	if err != nil {
		return nil, toError(filename, err)
	}
	var comments []*Comment
	depth := 0
	for {
		tok, err := lx.Next()
		if err != nil {
			return nil, toError(filename, err)
		}
		if tok.EOF() {
			return comments, nil
		}
		switch tok.Value {
		case "(", "[", "{":
			if tok.Type == opType {
				depth++
				if depth > MaxNesting {
					return nil, &Error{Pos: tok.Pos, Msg: fmt.Sprintf("nesting deeper than %d levels", MaxNesting)}
				}
			}
		case ")", "]", "}":
			if tok.Type == opType {
				depth--
			}
		}
		if tok.Type == commentType {
			comments = append(comments, &Comment{Pos: tok.Pos, Text: strings.TrimRight(tok.Value, " \t\r")})
		}
	}
}

var (
	opType      = specLexer.Symbols()["Op"]
	commentType = specLexer.Symbols()["Comment"]
)

// toError turns a participle or lexer error into an *Error with a message a
// person (or an LLM) can act on.
func toError(filename string, err error) error {
	var perr participle.Error
	if errors.As(err, &perr) {
		pos := perr.Position()
		if pos.Filename == "" {
			pos.Filename = filename
		}
		return &Error{Pos: pos, Msg: cleanMessage(perr.Message())}
	}
	return &Error{Pos: Pos{Filename: filename, Line: 1, Column: 1}, Msg: err.Error()}
}

// cleanMessage rewrites participle's wording where it would confuse a spec
// author: `invalid input text "…"` names the character that is not allowed.
func cleanMessage(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "invalid input text "); ok {
		if s, err := strconv.Unquote(rest); err == nil && s != "" {
			r := []rune(s)[0]
			return fmt.Sprintf("unexpected character %q", r)
		}
		return "unexpected character " + rest
	}
	return msg
}

// Grammar returns the grammar in EBNF, for prompts that teach an LLM the
// language.
func Grammar() string {
	return parser.String()
}
