package dsl

import (
	"sync"

	"github.com/alecthomas/participle/v2/lexer"
)

// Parse has scan put the tokens participle reads into a slice reused
// from one parse to the next, leaving out the white space and comments
// the parser does not need (see neverLast): participle skips them anyway,
// but one piece of white space after a token that may end a node is
// where that node ends (EndPos). Participle copies them into its own
// PeekingLexer (lexer.Upgrade).

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
	lx := tokenLexer(tokens)
	pl, err := lexer.Upgrade(&lx, elided...)
	if err != nil {
		return nil, err
	}
	return parser.ParseFromLexer(pl)
}
