package dsl

import "testing"

// TestGrammarGolden keeps the EBNF of the grammar in testdata/grammar.ebnf,
// so that a change of the accepted language shows in review. Rewrite it
// with go test ./dsl -update.
func TestGrammarGolden(t *testing.T) {
	checkGolden(t, "testdata/grammar.ebnf", []byte(Grammar()+"\n"))
}
