package dsl

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/alecthomas/participle/v2/lexer"
)

// referenceLexer is the regexp form of the lexical grammar; the
// hand-written specLexer must produce exactly its tokens.
var referenceLexer = lexer.MustSimple(tokenRules)

type lexed struct {
	typ   string
	value string
	pos   lexer.Position
}

func lexAll(t testing.TB, def lexer.Definition, src string) ([]lexed, error) {
	names := map[lexer.TokenType]string{}
	for name, typ := range def.Symbols() {
		names[typ] = name
	}
	lx, err := def.(lexer.StringDefinition).LexString("x.world", src)
	if err != nil {
		return nil, err
	}
	var out []lexed
	for {
		tok, err := lx.Next()
		if err != nil {
			return out, err
		}
		out = append(out, lexed{names[tok.Type], tok.Value, tok.Pos})
		if tok.EOF() {
			return out, nil
		}
	}
}

func compareLexers(t testing.TB, src string) {
	want, werr := lexAll(t, referenceLexer, src)
	got, gerr := lexAll(t, specLexer, src)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: reference error %v, got %v", src, werr, gerr)
	}
	if werr != nil && werr.Error() != gerr.Error() {
		t.Fatalf("%q: reference error %q, got %q", src, werr, gerr)
	}
	if len(want) != len(got) {
		t.Fatalf("%q: reference has %d tokens, got %d\nwant %v\ngot  %v", src, len(want), len(got), want, got)
	}
	for i := range want {
		if want[i] != got[i] {
			t.Fatalf("%q: token %d: want %+v, got %+v", src, i, want[i], got[i])
		}
	}
}

var lexerCases = []string{
	"", " ", "world w { today 2026-03-14 }", "2026-03-14T09:30", "2026-03-14T09:30:15Z", "2026-03-14T09",
	"2026-03-14T09:30Z", "12345-01-01", "1.5 1. .5 12.", `"a\"b" "\\" "unterminated`, "\"line\nbreak\"",
	"a==b!=c<=d>=e<f>g=h", "x // comment\n y", "//", "@", "a\u00e9", "\"caf\u00e9\" é", "x?.y[0]{}",
	"\"trailing backslash\\", "-1 - -2", "_a_ A9 9A", "\"tab\tin string\"", "a\r\nb",
}

func TestLexerMatchesReference(t *testing.T) {
	for _, src := range lexerCases {
		compareLexers(t, src)
	}
	files, _ := filepath.Glob("../testdata/worlds/*.world")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		compareLexers(t, string(b))
	}
}

func FuzzLexer(f *testing.F) {
	for _, src := range lexerCases {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) { compareLexers(t, src) })
}

func BenchmarkLexer(b *testing.B) {
	files, _ := filepath.Glob("../testdata/worlds/*.world")
	if len(files) == 0 {
		b.Skip("no worlds")
	}
	src, _ := os.ReadFile(files[0])
	for _, def := range []struct {
		name string
		def  lexer.Definition
	}{{"regexp", referenceLexer}, {"hand", specLexer}} {
		b.Run(def.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := lexAll(b, def.def, string(src)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
