package dsl

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/golden"
)

// update rewrites golden files: go test ./dsl -update
var update = flag.Bool("update", false, "rewrite golden files in testdata")

// dumpTree prints a syntax tree one node per line, without positions, so
// that two trees compare equal when they differ only in layout. Nil and
// zero fields are left out.
func dumpTree(v any) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(v), 0)
	return b.String()
}

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	indent := strings.Repeat("  ", depth)
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil\n")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Struct:
		b.WriteString(v.Type().Name() + "\n")
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Type == reflect.TypeFor[Pos]() || !f.IsExported() || v.Field(i).IsZero() { // positions differ after formatting
				continue
			}
			if f.Name == "Comments" {
				continue // compared separately: see commentTexts
			}
			b.WriteString(indent + "  " + f.Name + ": ")
			dumpValue(b, v.Field(i), depth+1)
		}
	case reflect.Slice:
		b.WriteString("[\n")
		for i := range v.Len() {
			b.WriteString(indent + "  ")
			dumpValue(b, v.Index(i), depth+1)
		}
		b.WriteString(indent + "]\n")
	case reflect.String:
		b.WriteString(strconv.Quote(v.String()) + "\n")
	default:
		fmt.Fprintf(b, "%v\n", v.Interface())
	}
}

// diffLines is the unified diff from want to got (each named), bounded
// as golden's diffs are, or "" when they are equal.
func diffLines(wantName, want, gotName, got string) string {
	return golden.Diff(wantName, []byte(want), gotName, []byte(got))
}

// commentTexts is the sorted multiset of a file's comment texts.
func commentTexts(f *File) []string {
	var out []string
	for _, c := range f.Comments {
		out = append(out, c.Text)
	}
	sort.Strings(out)
	return out
}

// checkFormatProperties checks what Format promises for one source that
// parses: the output parses to the same tree, keeps every comment exactly
// once, and formats to itself.
func checkFormatProperties(t testing.TB, name string, src []byte) {
	t.Helper()
	f, err := Parse(name, src)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	out := Format(f)
	g, err := Parse(name+" (formatted)", out)
	if err != nil {
		t.Fatalf("%s: formatted output does not parse: %v\n%s", name, err, out)
	}
	if want, got := dumpTree(f), dumpTree(g); want != got {
		t.Fatalf("%s: formatting changed the tree: %s\noutput:\n%s", name, diffLines("tree of the input", want, "tree of the formatted output", got), out)
	}
	if want, got := commentTexts(f), commentTexts(g); !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: comments changed:\nbefore %q\nafter  %q\noutput:\n%s", name, want, got, out)
	}
	if again := Format(g); string(again) != string(out) {
		t.Fatalf("%s: not a fixed point: %s", name, diffLines("formatted", string(out), "formatted twice", string(again)))
	}
}

// corpus returns every spec the tests know: the format golden inputs, the
// example worlds of the repository and the examples of the language doc.
func corpus(t testing.TB) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	for _, pattern := range []string{
		"testdata/format/*.input",
		"testdata/*.world",
		"../testdata/worlds/*.world",
	} {
		paths, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			src, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files[p] = src
		}
	}
	doc, err := os.ReadFile("../docs/language.md")
	if err == nil {
		files["docs/language.md (first example)"] = firstCodeBlock(doc)
	}
	return files
}

// firstCodeBlock is the first ``` block of a markdown document.
func firstCodeBlock(md []byte) []byte {
	_, rest, ok := strings.Cut(string(md), "```\n")
	if !ok {
		return nil
	}
	block, _, _ := strings.Cut(rest, "```")
	return []byte(block)
}

// checkGolden compares got with the golden file at path, with a diff, or
// rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	golden.File(t, path, got, *update)
}
