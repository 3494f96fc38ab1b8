package compiler

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzCheck feeds arbitrary specs to parse + check: it must never panic,
// diagnostics come sorted with positions, and a spec without errors has an
// IR.
func FuzzCheck(f *testing.F) {
	for _, pattern := range []string{"../testdata/worlds/*.world", "testdata/validators/*.world", "testdata/check/*.world", "testdata/hostile/*.world"} {
		files, _ := filepath.Glob(pattern)
		for i, file := range files {
			// -short runs every fourth file as a seed (the example worlds,
			// validators and hostile specs have tests of their own); make
			// test runs them all.
			if testing.Short() && i%4 != 0 {
				continue
			}
			src, err := os.ReadFile(file)
			if err == nil {
				f.Add(src)
			}
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		w, ds := CheckSource("fuzz.world", src)
		if ds.HasErrors() == (w != nil) {
			t.Fatalf("errors=%v but world=%v", ds.HasErrors(), w != nil)
		}
		if !slices.IsSortedFunc(ds, func(a, b Diagnostic) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		}) {
			t.Fatalf("diagnostics not sorted:\n%s", ds.Text())
		}
		for _, d := range ds {
			if d.Line < 1 || d.Col < 1 || d.Code == "" || d.Message == "" {
				t.Fatalf("malformed diagnostic %+v", d)
			}
		}
	})
}

// TestHostileSpecs feeds specs an LLM might produce by accident or a user
// by malice: each must give diagnostics, never a crash or a world.
func TestHostileSpecs(t *testing.T) {
	files, _ := filepath.Glob("testdata/hostile/*.world")
	if len(files) == 0 {
		t.Fatal("no hostile cases")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			_, ds := CheckSource(file, src)
			checkExpectations(t, file, src, ds)
		})
	}
	huge := strings.Repeat("// padding\n", 1<<20)
	if _, ds := CheckSource("huge.world", []byte(huge)); !ds.HasErrors() || ds[0].Code != "W001" {
		t.Errorf("huge file: %s", ds.Text())
	}
	deep := "world w { title \"x\" today 2026-01-01 }\ninvariant i { policy \"p\" for x in E require " + strings.Repeat("(", 10000) + "true" + strings.Repeat(")", 10000) + " }"
	if _, ds := CheckSource("deep.world", []byte(deep)); !ds.HasErrors() || ds[0].Code != "W001" {
		t.Errorf("deep nesting: %s", ds.Text())
	}
	// Issue 10, reproducer 3: an operator chain of 100,000 terms parses
	// (it nests no brackets) and is one W027, positioned, in a short
	// message.
	chain := "world w {\n  title \"x\"\n  today 2026-01-01\n}\nservice s \"S\" {\n  entity E {\n    n int\n  }\n  tool bump(e: ref E, n: int) \"b\" {\n    set e.n = n" + strings.Repeat(" + 1", 100_000) + "\n  }\n}\n"
	_, ds := CheckSource("chain.world", []byte(chain))
	var w025 []Diagnostic
	for _, d := range ds {
		if d.Code == "W027" {
			w025 = append(w025, d)
		}
	}
	if len(w025) != 1 || w025[0].Line != 10 || w025[0].Col != 15 || len(w025[0].Message) > 200 ||
		!strings.Contains(w025[0].Message, "nested 100001 levels deep") {
		t.Errorf("operator chain: %s", ds.Text())
	}
}
