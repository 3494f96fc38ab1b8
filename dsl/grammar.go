package dsl

import (
	"fmt"
	"strings"
	"sync"
)

// Grammar returns the grammar in EBNF, for prompts that teach an LLM the
// language.
func Grammar() string {
	return grammarEBNF()
}

// grammarEBNF is the EBNF participle derives from the grammar tags of the
// declarations, with the productions of the constructs exprparse.go
// parses (exprGrammar) merged in: every production follows the first one
// that names it, depth first, as participle orders its own.
var grammarEBNF = sync.OnceValue(func() string {
	rules := map[string]string{}
	var order []string
	for _, line := range strings.Split(parser.String(), "\n") {
		name, rhs, ok := strings.Cut(line, " = ")
		if !ok {
			panic(fmt.Sprintf("dsl: unexpected EBNF line %q", line))
		}
		rules[name] = strings.TrimSuffix(rhs, " .")
		order = append(order, name)
	}
	for name, rhs := range exprGrammar {
		if _, dup := rules[name]; dup {
			panic("dsl: production " + name + " defined twice")
		}
		rules[name] = rhs
	}
	var (
		b    strings.Builder
		seen = map[string]bool{}
		emit func(name string)
	)
	emit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		rhs, ok := rules[name]
		if !ok {
			panic("dsl: production " + name + " is not defined")
		}
		fmt.Fprintf(&b, "%s = %s .\n", name, rhs)
		for _, ref := range nonterminals(rhs) {
			emit(ref)
		}
	}
	emit(order[0])
	return strings.TrimSuffix(b.String(), "\n")
})

// nonterminals lists the names of productions rhs refers to, in order:
// the words that start with a capital letter, outside quotes and <…>.
func nonterminals(rhs string) []string {
	var names []string
	for i := 0; i < len(rhs); i++ {
		switch c := rhs[i]; {
		case c == '"':
			i = skipString(rhs, i)
		case c == '<':
			for i < len(rhs) && rhs[i] != '>' {
				i++
			}
		case 'A' <= c && c <= 'Z':
			j := i
			for j < len(rhs) && isIdentPart(rhs[j]) {
				j++
			}
			names = append(names, rhs[i:j])
			i = j - 1
		}
	}
	return names
}
