package dsl

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// snippetContexts hold one line of a spec (the line indented by four
// spaces): a tool body, a rubric, a seed, a solution, an entity, a
// service, a world header.
var snippetContexts = [][2]string{
	{"service s {\n  tool t() {\n    ", "\n  }\n}\n"},
	{"task t {\n  persona \"p\"\n  instruction \"i\"\n  expect {\n    ", "\n  }\n}\n"},
	{"seed {\n    ", "\n}\n"},
	{"task t {\n  persona \"p\"\n  instruction \"i\"\n  expect { unchanged }\n  solution {\n    ", "\n  }\n}\n"},
	{"service s {\n  entity E {\n    ", "\n  }\n}\n"},
	{"service s {\n    ", "\n}\n"},
	{"world w {\n    ", "\n}\n"},
}

// lineSnippets is every distinct line of the specs in dsl/testdata
// (bench.world, a whole world, and the inputs of the format goldens) that
// parses alone in one of snippetContexts, in that context. The specs of
// other packages are left out, so that the golden changes only with the
// parser and these files.
func lineSnippets(t testing.TB) []string {
	paths, err := filepath.Glob("testdata/format/*.input")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var out []string
	for _, path := range append([]string{"testdata/bench.world"}, paths...) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "//") || seen[line] {
				continue
			}
			seen[line] = true
			for _, c := range snippetContexts {
				src := c[0] + line + c[1]
				if _, err := Parse("spec.world", []byte(src)); err == nil {
					out = append(out, src)
				}
			}
		}
	}
	return out
}

// mutationTokens replace or join the tokens of a line.
var mutationTokens = []string{"(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "==", "<", "-", "+", "*", "not", "and", "or", "in", "as", "x", "E", "1", `"s"`, "count", "where", "for", "else", "?", `"{"`, `"["`, `"-"`, `"in"`, "list", "ref", "enum", "matches", "2026-01-01"}

// mutants is src and n variants of it, chosen by a generator seeded with
// src: each deletes, doubles, replaces or swaps a token of its middle line,
// or cuts the line short.
func mutants(src string, n int) []string {
	lines := strings.Split(src, "\n")
	mid := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "    ") {
			mid = i
		}
	}
	line := lines[mid]
	lx, _ := specLexer.LexString("", line)
	var toks []string
	for {
		tok, err := lx.Next()
		if err != nil || tok.EOF() {
			break
		}
		if tok.Type != tokWhitespace {
			toks = append(toks, tok.Value)
		}
	}
	out := []string{src}
	if len(toks) == 0 {
		return out
	}
	h := fnv.New64a()
	h.Write([]byte(src))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	for range n {
		m := slices.Clone(toks)
		i := rng.IntN(len(m))
		switch rng.IntN(5) {
		case 0:
			m = slices.Delete(m, i, i+1)
		case 1:
			m = slices.Insert(m, i, m[i])
		case 2:
			m[i] = mutationTokens[rng.IntN(len(mutationTokens))]
		case 3:
			if i+1 < len(m) {
				m[i], m[i+1] = m[i+1], m[i]
			} else {
				m = slices.Insert(m, i, mutationTokens[rng.IntN(len(mutationTokens))])
			}
		case 4:
			m = m[:i]
		}
		lines[mid] = "    " + strings.Join(m, " ")
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// TestMutantsGolden parses the lines of the repository's specs, each
// alone in a construct that holds it (see snippetContexts), and mutants
// of them: a token deleted, doubled, replaced or swapped with the next,
// or the line cut short. Most mutants are broken. What Parse returns for
// each, the digest of the tree or the error, is kept in
// testdata/mutants.golden, so that a change of the accepted language, of
// a tree or of an error shows in review. Rewrite it with
// go test ./dsl -run TestMutantsGolden -update.
func TestMutantsGolden(t *testing.T) {
	const mutantsPerLine = 3
	var b strings.Builder
	for _, s := range lineSnippets(t) {
		for i, m := range mutants(s, mutantsPerLine) {
			if i == 0 {
				continue // the line as written: the trees of the specs pin it
			}
			fmt.Fprintf(&b, "%s\n\t%s\n", mutatedLine(m), parseDigest("spec.world", []byte(m)))
		}
	}
	checkGolden(t, "testdata/mutants.golden", []byte(b.String()))
}

// mutatedLine is the line of a mutant that holds the mutation: its last
// line indented by four spaces, and the context around it, in brackets.
func mutatedLine(src string) string {
	lines := strings.Split(src, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "    ") {
			return fmt.Sprintf("[%s] %s", strings.Fields(lines[0])[0], strings.TrimSpace(lines[i]))
		}
	}
	return src
}
