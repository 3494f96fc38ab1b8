package dsl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/golden"
)

// TestFormatGolden formats every testdata/format/*.input (messy input) and
// compares with the .golden file beside it (canonical output); a .golden
// file with no .input fails, and -update removes it.
func TestFormatGolden(t *testing.T) {
	inputs, err := filepath.Glob("testdata/format/*.input")
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no golden inputs")
	}
	outs := map[string][]byte{}
	for _, in := range inputs {
		src, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		out, err := FormatSource(in, src)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		outs[strings.TrimSuffix(filepath.Base(in), ".input")+".golden"] = out
	}
	golden.DirMatch(t, "testdata/format", "*.golden", outs, *update)
}

// TestFormatProperties checks, on every spec the tests know, that
// formatting keeps the tree and the comments and is a fixed point.
func TestFormatProperties(t *testing.T) {
	files := corpus(t)
	if len(files) == 0 {
		t.Fatal("empty corpus")
	}
	for name, src := range files {
		t.Run(name, func(t *testing.T) {
			checkFormatProperties(t, name, src)
		})
	}
}

// TestFormatGoldenIsCanonical checks that the golden outputs are already
// in the canonical layout.
func TestFormatGoldenIsCanonical(t *testing.T) {
	goldens, _ := filepath.Glob("testdata/format/*.golden")
	for _, g := range goldens {
		src, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		out, err := FormatSource(g, src)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(src) {
			t.Errorf("%s is not canonical: %s", g, diffLines(g, string(src), g+" (formatted)", string(out)))
		}
	}
}

func TestFormatSmall(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty file", "", ""},
		{"only comments", "// a\n\n\n// b\n", "// a\n\n// b\n"},
		{"blank lines at both ends", "\n\n// a\n\n\n", "// a\n"},
		{"declarations get one blank line", "world w {} service s {}", "world w {}\n\nservice s {}\n"},
		{"crlf line ends", "world w { // c\r\n  title \"t\"\r\n}\r\n", "world w { // c\n  title \"t\"\n}\n"},
		{"no blank after brace or before close", "world w {\n\n  title \"t\"\n\n}\n", "world w {\n  title \"t\"\n}\n"},
		{"keyword-like identifiers", "world type { init \"x\" _ 1 }", "world type {\n  init \"x\"\n  _    1\n}\n"},
		{"negative literals", "seed { a.B b { x: - 3, y: -2.5 } }", "seed {\n  a.B b { x: -3, y: -2.5 }\n}\n"},
		{"enum values", "service s { entity E { e enum { \"a\", \"b c\", d, \"\" } } }",
			"service s {\n  entity E {\n    e enum { a \"b c\" d \"\" }\n  }\n}\n"},
		{"unary minus chains", "service s { tool t() { return - - x - -3 } }",
			"service s {\n  tool t() {\n    return - -x - -3\n  }\n}\n"},
		{"trailing comments align in a run", "world w { title \"t\" // a\n today 2026-01-01 // b\n country \"DE\"\n currency \"EUR\" // c\n}",
			"world w {\n  title    \"t\"        // a\n  today    2026-01-01 // b\n  country  \"DE\"\n  currency \"EUR\" // c\n}\n"},
		{"comment inside expression moves up", "service s { tool t() { return a + // why\n b } }",
			"service s {\n  tool t() {\n    // why\n    return a + b\n  }\n}\n"},
		{"comment in a seed record moves up", "seed {\n  a.B x { n: 1, // one\n m: 2 }\n}",
			"seed {\n  // one\n  a.B x { n: 1, m: 2 }\n}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FormatSource("test.world", []byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			checkFormatProperties(t, tt.name, []byte(tt.in))
		})
	}
}

// TestFormatTreeWithoutTokens formats a tree that did not come from Parse
// (no token positions, as a tool that builds a tree would have): the
// output is the same as for the parsed tree.
func TestFormatTreeWithoutTokens(t *testing.T) {
	src, err := os.ReadFile("testdata/format/layout.input")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("layout", src)
	if err != nil {
		t.Fatal(err)
	}
	want := Format(f)
	f.tokens = nil
	if got := Format(f); string(got) != string(want) {
		t.Errorf("without tokens: %s", diffLines("with tokens", string(want), "without tokens", string(got)))
	}
	if Format(nil) != nil {
		t.Error("Format(nil) is not nil")
	}
}

// TestFormatKeepsEveryComment checks comment placement on a file with a
// comment in every place a comment can go: between any two tokens.
func TestFormatKeepsEveryComment(t *testing.T) {
	src, err := os.ReadFile("testdata/format/layout.input")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("layout", src)
	if err != nil {
		t.Fatal(err)
	}
	// Insert a comment, and a newline, after every token.
	var b strings.Builder
	last := 0
	for i, tok := range f.tokens {
		if i == 0 {
			continue
		}
		b.Write(src[last:tok.offset])
		b.WriteString(" // c" + strings.Repeat("x", i) + "\n")
		last = tok.offset
	}
	b.Write(src[last:])
	checkFormatProperties(t, "comment after every token", []byte(b.String()))
}
