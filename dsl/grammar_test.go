package dsl

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestGrammarGolden keeps the EBNF of the grammar in testdata/grammar.ebnf,
// so that a change of the accepted language shows in review. Rewrite it
// with go test ./dsl -update.
func TestGrammarGolden(t *testing.T) {
	checkGolden(t, "testdata/grammar.ebnf", []byte(Grammar()+"\n"))
}

// TestGrammarHasEveryProduction checks that every production of
// exprGrammar is reached from the declarations, so that the EBNF shows
// all that the parser reads.
func TestGrammarHasEveryProduction(t *testing.T) {
	g := Grammar()
	for name := range exprGrammar {
		if !strings.Contains("\n"+g, "\n"+name+" = ") {
			t.Errorf("production %s is not in Grammar()", name)
		}
	}
}

// TestTagsTypeTheirLiterals checks that every keyword and operator of the
// grammar tags names the kind of its token (`'else':Ident`, `'{':Op`):
// participle matches an untyped literal by its text alone, so that the
// string "else" would stand for the keyword.
func TestTagsTypeTheirLiterals(t *testing.T) {
	literal := regexp.MustCompile(`'[^']*'(:[A-Za-z]+)?`)
	seen := map[reflect.Type]bool{}
	var visit func(reflect.Type)
	visit = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			for _, m := range literal.FindAllStringSubmatch(f.Tag.Get("parser"), -1) {
				if m[1] == "" {
					t.Errorf("%s.%s: literal %s does not name its token kind", typ.Name(), f.Name, m[0])
				}
			}
			visit(f.Type)
		}
	}
	visit(reflect.TypeFor[File]())
}
