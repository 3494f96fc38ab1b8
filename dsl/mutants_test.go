package dsl

import (
	"hash/fnv"
	"math/rand/v2"
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

// lineSnippets is every distinct line of the repository's .world files
// that parses alone in one of snippetContexts, in that context.
func lineSnippets(t testing.TB) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range repoSpecs(t) {
		if !strings.HasSuffix(s.name, ".world") {
			continue
		}
		for _, line := range strings.Split(string(s.src), "\n") {
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
