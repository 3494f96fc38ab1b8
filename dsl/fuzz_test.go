package dsl

import (
	"bytes"
	"errors"
	"maps"
	"slices"
	"testing"
)

// FuzzParse checks that Parse never panics and returns either a file or an
// *Error, and that whatever parses formats to a fixed point: the output
// parses again, to the same tree and comments, and formats to the same
// bytes. Crashes found are kept in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files := corpus(f)
	for i, name := range slices.Sorted(maps.Keys(files)) {
		// -short takes every fourth file of the corpus as a seed (the
		// corpus has tests of its own; make test seeds with all of it).
		if testing.Short() && i%4 != 0 {
			continue
		}
		f.Add(files[name])
	}
	for _, src := range fuzzSeeds {
		f.Add([]byte(src))
	}
	for _, src := range lineSnippets(f) {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, err := Parse("fuzz.world", src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *dsl.Error: %v", err, err)
			}
			if file != nil {
				t.Fatal("a file came back with an error")
			}
			return
		}
		out := Format(file)
		again, err := Parse("formatted.world", out)
		if err != nil {
			t.Fatalf("formatted output does not parse: %v\n--- input\n%s\n--- output\n%s", err, src, out)
		}
		if want, got := dumpTree(file), dumpTree(again); want != got {
			t.Fatalf("formatting changed the tree: %s\n--- input\n%s\n--- output\n%s", diffLines("tree of the input", want, "tree of the formatted output", got), src, out)
		}
		if want, got := commentTexts(file), commentTexts(again); len(want) != len(got) || !bytes.Equal([]byte(fmtList(want)), []byte(fmtList(got))) {
			t.Fatalf("comments changed: %q -> %q\n--- output\n%s", want, got, out)
		}
		if out2 := Format(again); !bytes.Equal(out, out2) {
			t.Fatalf("not a fixed point: %s\n--- input\n%s", diffLines("formatted", string(out), "formatted twice", string(out2)), src)
		}
	})
}

func fmtList(s []string) string {
	var b bytes.Buffer
	for _, x := range s {
		b.WriteString(x)
		b.WriteByte(0)
	}
	return b.String()
}

// fuzzSeeds are small inputs that reach every construct and the odd
// corners of the lexer.
var fuzzSeeds = []string{
	"",
	"// c",
	`world w { title "t" today 2026-03-14 }`,
	`service s "d" { entity E "e" { a int >= 0 = 1 "doc" b enum { x "y z" }? = x c ref s.E? unique } }`,
	`service s { tool a: search E by x, y "d" tool b: get E tool c(x: int, y: E.f? "p") "d" { require x > 0 else "m" } }`,
	`service s { tool t() { let e = insert E { a: 1 } set e.a = -x delete e return e if a {} else if b {} else {} for x in E where x.a {} } }`,
	`service s { tool t() { return a or b and not c == d + e * -f % g / h - i } }`,
	`service s { tool t() { return count(x in E where x in [1, 2]) + sum(x.a for x in s.E) + min_of(a, b) - E[h].f not in [] } }`,
	`service s { tool t() { return forall(x.a for x in E) and exists(x in E) or max(x for x in E) < (a) } }`,
	`service s { tool t() { return len(list(x in E where x.a)) + len(list(x.b for x in s.E)) + len(list((x in y) for x in E)) } }`,
	`invariant i { policy "p" for x in s.E where x.a require exists(y in E where y.b == x) }`,
	`seed { s.E h { a: 1, b: "s", c: 2026-01-01, d: 2026-01-01T10:00:00Z, e: true, f: null, g: x, h: -2.5 } }`,
	`task t { persona "p" instruction "i" tags { domain "d" capabilities [a, b] difficulty [c] } seed { E h {} } expect { unchanged invariant i a == b } solution { o = f(a: 1) g(b: o,) } }`,
	"world w { // a\n title \"t\" // b\n} // c\n// d",
	"world w { title \"\\u00e9\\t\\\"\\\\\" }",
	"service s { tool t() { return - - - x } }",
	`service s { tool t(x: E?) { let a = if x != null then x.a else if b then (if c then 1 else 2) else 0 require if a > 0 then x != null and x.b else true else "m" return [if a then b else null] } }`,
	`invariant i { policy "p" for x in s.E where x.r != null require if x.r.a then x.b else exists(y in E where y == x.r) }`,
	`service s { tool t() { return if if a then b else c then if d then e else f else g } }`,
}
