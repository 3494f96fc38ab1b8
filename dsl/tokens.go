package dsl

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/alecthomas/participle/v2/lexer"
)

// Participle copies every token of the input into a slice before parsing
// (lexer.Upgrade), growing it by append: on a spec of a few thousand
// tokens that was half the bytes Parse allocated, and a good part of its
// time (large allocations, freed right away). Parse has scan put the
// tokens into a slice reused from one parse to the next, leaving out the
// white space and comments the parser does not need (see neverLast):
// participle skips them anyway, but one piece of white space after a
// token that may end a node is where that node ends (EndPos).
//
// PeekingLexer has no constructor that takes a slice: parseTokens builds
// one with Upgrade from an empty input and sets its unexported token slice
// in place, at the offset reflect reports for the field. If participle's
// PeekingLexer has no such field (another version), Upgrade copies the
// tokens as before.

// tokensField is the offset of PeekingLexer's token slice, and whether it
// was found with the expected type.
var tokensField = sync.OnceValues(func() (off uintptr, ok bool) {
	f, found := reflect.TypeFor[lexer.PeekingLexer]().FieldByName("tokens")
	if !found || f.Type != reflect.TypeFor[[]lexer.Token]() {
		return 0, false
	}
	return f.Offset, true
})

// tokenBuffers holds token slices for Parse to reuse.
var tokenBuffers = sync.Pool{New: func() any { return new([]lexer.Token) }}

// releaseTokens empties buf, so that it keeps no strings alive, and puts
// it back in tokenBuffers. Nothing of a parse refers to its tokens: nodes
// copy positions and strings.
func releaseTokens(buf *[]lexer.Token) {
	clear(*buf)
	*buf = (*buf)[:0]
	tokenBuffers.Put(buf)
}

// elided are the token types participle skips.
var elided = []lexer.TokenType{tokComment, tokWhitespace}

// tokenLexer produces the tokens of a slice.
type tokenLexer []lexer.Token

func (l *tokenLexer) Next() (lexer.Token, error) {
	t := (*l)[0]
	if !t.EOF() {
		*l = (*l)[1:]
	}
	return t, nil
}

// parseTokens parses tokens (ending with the end of input) with parser.
func parseTokens(tokens []lexer.Token) (*File, error) {
	off, ok := tokensField()
	return parseTokensAt(tokens, off, ok)
}

// parseTokensAt is parseTokens with the token slice of PeekingLexer at
// offset off, or not found (!ok).
func parseTokensAt(tokens []lexer.Token, off uintptr, ok bool) (*File, error) {
	if !ok {
		lx := tokenLexer(tokens)
		pl, err := lexer.Upgrade(&lx, elided...)
		if err != nil {
			return nil, err
		}
		return parser.ParseFromLexer(pl)
	}
	empty := tokenLexer{{Type: lexer.EOF}}
	pl, err := lexer.Upgrade(&empty, elided...)
	if err != nil {
		return nil, err
	}
	*(*[]lexer.Token)(unsafe.Add(unsafe.Pointer(pl), off)) = tokens
	pl.FastForward(-1) // to the first token participle does not skip
	return parser.ParseFromLexer(pl)
}
