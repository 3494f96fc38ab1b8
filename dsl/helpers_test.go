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

// diffLines shows the first lines where want and got differ.
func diffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			lo := max(i-3, 0)
			var b strings.Builder
			fmt.Fprintf(&b, "first difference at line %d:\n", i+1)
			for j := lo; j < i; j++ {
				if j < len(w) {
					fmt.Fprintf(&b, "    %s\n", w[j])
				}
			}
			fmt.Fprintf(&b, "  - %s\n  + %s\n", wl, gl)
			return b.String()
		}
	}
	return "no difference"
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
		t.Fatalf("%s: formatting changed the tree: %s\noutput:\n%s", name, diffLines(want, got), out)
	}
	if want, got := commentTexts(f), commentTexts(g); !reflect.DeepEqual(want, got) {
		t.Fatalf("%s: comments changed:\nbefore %q\nafter  %q\noutput:\n%s", name, want, got, out)
	}
	if again := Format(g); string(again) != string(out) {
		t.Fatalf("%s: not a fixed point: %s", name, diffLines(string(out), string(again)))
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

// readGolden compares got with the golden file at path, or rewrites it
// under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./dsl -update to create it)", err)
	}
	if string(want) != string(got) {
		t.Errorf("%s is out of date (go test ./dsl -update rewrites it): %s", path, diffLines(string(want), string(got)))
	}
}
