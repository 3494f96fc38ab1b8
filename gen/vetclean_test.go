package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler"
)

// TestVetClean generates the specs of testdata/vetclean, each a regression
// of generated code that did not compile or that go vet rejected for a
// spec that checks clean, and runs go vet on them (which type-checks them
// first); the full suite runs their generated tests too.
func TestVetClean(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("testdata", "vetclean", "*.world"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no specs in testdata/vetclean: %v", err)
	}
	root := scratch(t)
	var dirs []string
	for _, spec := range specs {
		src, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		// These specs hold contradictions on purpose (the checker refuses
		// them, W028): the generator must still write Go that vet accepts.
		w, diags := compiler.CheckSource(spec, src, compiler.WithoutLints("W028", "W029"))
		if w == nil || len(diags) > 0 {
			t.Errorf("%s does not check clean:\n%s", spec, diags.Text())
			continue
		}
		dir := filepath.Join(root, w.Name)
		writeFiles(t, dir, mustGenerate(t, w))
		dirs = append(dirs, dir)
	}
	if testing.Short() {
		vetOnly(t, dirs...)
		return
	}
	vetAndTest(t, dirs...)
}

// vetOnly runs go vet on the packages in dirs.
func vetOnly(t *testing.T, dirs ...string) {
	t.Helper()
	root := moduleRoot(t)
	pkgs := []string{"vet"}
	for _, d := range dirs {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	if out, ok := goCmd(t, pkgs...); !ok {
		t.Fatalf("go vet: %s", out)
	}
}
