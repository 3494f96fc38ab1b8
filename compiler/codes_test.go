package compiler

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler/diag"
)

// TestCodes: every validator has one constant in compiler/diag/codes.go,
// named after the validator and documented with its code, name and doc
// line, and every constant there is a registered validator.
func TestCodes(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("diag", "codes.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[diag.Code]string{} // code → constant
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, s := range gd.Specs {
			vs := s.(*ast.ValueSpec)
			if len(vs.Names) != 1 || len(vs.Values) != 1 {
				t.Errorf("%s: one constant per line, with its value", fset.Position(vs.Pos()))
				continue
			}
			name := vs.Names[0].Name
			lit, ok := vs.Values[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				t.Errorf("%s: the value of %s is not a string literal", fset.Position(vs.Pos()), name)
				continue
			}
			value, _ := strconv.Unquote(lit.Value)
			code := diag.Code(value)
			if prev, dup := declared[code]; dup {
				t.Errorf("%s and %s are both %s", prev, name, code)
			}
			declared[code] = name
			v, ok := LookupValidator(code)
			if !ok {
				t.Errorf("%s (%s) is not a registered validator (compiler/validators.go)", name, code)
				continue
			}
			if want := camel(v.Name); name != want {
				t.Errorf("the constant of %s (%s) is %s, want %s", code, v.Name, name, want)
			}
			doc := strings.Join(strings.Fields(vs.Doc.Text()), " ")
			if want := name + " (" + string(code) + ", " + v.Name + "): " + lowerFirst(v.Doc); doc != want {
				t.Errorf("doc of %s:\n got %q\nwant %q", name, doc, want)
			}
		}
	}
	for _, v := range Validators() {
		if _, ok := declared[v.Code]; !ok {
			t.Errorf("validator %s (%s) has no constant in compiler/diag/codes.go", v.Code, v.Name)
		}
	}
}

// TestNoCodeLiterals: code outside tests names validators by their
// constants (diag.TypeMismatch), not by string literals ("W004").
func TestNoCodeLiterals(t *testing.T) {
	t.Parallel()
	literal := regexp.MustCompile(`"W\d{3}"`)
	root := ".."
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "generated", "testdata", "node_modules":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || path == filepath.Join(root, "compiler", "diag", "codes.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := literal.FindString(line); m != "" {
				t.Errorf("%s:%d: %s: use its constant in compiler/diag", path, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// camel turns a validator name into its constant's: type-mismatch → TypeMismatch.
func camel(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "-") {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
