package dsl

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestSyntaxErrorsGolden parses the specs of testdata/syntax_errors.txtar,
// one per construct of the language with one mistake in it, and keeps the
// error Parse reports for each in testdata/syntax_errors.golden, so that a
// change of any message or position shows in review. Rewrite it with
// go test ./dsl -run TestSyntaxErrorsGolden -update.
func TestSyntaxErrorsGolden(t *testing.T) {
	a, err := txtar.ParseFile("testdata/syntax_errors.txtar")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range a.Files {
		_, err := Parse(f.Name, f.Data)
		if err == nil {
			t.Errorf("%s parses; every case must hold a syntax error", f.Name)
			continue
		}
		line, _, _ := strings.Cut(err.Error(), ": ")
		fmt.Fprintf(&b, "%s\n\t%s\n", err, sourceLine(f.Data, line))
	}
	checkGolden(t, "testdata/syntax_errors.golden", []byte(b.String()))
}

// sourceLine is the line of src that the position "file:line:col" names,
// with a caret under the column, for a reader of the golden file.
func sourceLine(src []byte, pos string) string {
	var line, col int
	parts := strings.Split(pos, ":")
	if len(parts) < 3 {
		return ""
	}
	fmt.Sscan(parts[len(parts)-2], &line)
	fmt.Sscan(parts[len(parts)-1], &col)
	lines := strings.Split(string(src), "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	text := lines[line-1]
	caret := strings.Repeat(" ", max(len([]rune(text[:min(len(text), max(col-1, 0))])), 0)) + "^"
	return text + "\n\t" + caret
}
