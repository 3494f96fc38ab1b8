package gen

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// moduleRoot is the directory of the worldc go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// scratch makes a directory inside the module whose name starts with an
// underscore, so that `go test ./...` of the module ignores it while
// explicit paths still build; it is removed after the test.
func scratch(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(moduleRoot(t), "_gentest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func mustGenerate(t testing.TB, w *ir.World) map[string][]byte {
	t.Helper()
	files, err := Generate(w)
	if err != nil {
		t.Fatalf("Generate(%s): %v", w.Name, err)
	}
	return files
}

func writeFiles(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range Files(files) {
		if err := os.WriteFile(filepath.Join(dir, name), files[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// goCmd runs the go command in the module root and returns its combined
// output and whether it succeeded.
func goCmd(t testing.TB, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot(t)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// vetAndTest runs go vet and go test on the packages in dirs (arguments
// starting with "-" are flags for go test).
func vetAndTest(t *testing.T, dirs ...string) {
	t.Helper()
	root := moduleRoot(t)
	var pkgs, flags []string
	for _, d := range dirs {
		if strings.HasPrefix(d, "-") {
			flags = append(flags, d)
			continue
		}
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	if out, ok := goCmd(t, append([]string{"vet"}, pkgs...)...); !ok {
		t.Fatalf("go vet: %s", out)
	}
	if out, ok := goCmd(t, append(append([]string{"test", "-count=1"}, flags...), pkgs...)...); !ok {
		t.Fatalf("go test: %s", out)
	}
}

func TestNorthwindBuildsAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := northwind()
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, mustGenerate(t, w.World))
	vetAndTest(t, dir)
}

func TestDeterministic(t *testing.T) {
	a := mustGenerate(t, northwind().World)
	b := mustGenerate(t, northwind().World)
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for name, content := range a {
		if !bytes.Equal(content, b[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
}

func TestHeaderAndGofmt(t *testing.T) {
	for name, content := range mustGenerate(t, northwind().World) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		if !bytes.HasPrefix(content, []byte(ir.Header+"\n")) {
			t.Errorf("%s does not start with the generated-code header", name)
		}
		if bytes.Contains(content, []byte(moduleRoot(t))) {
			t.Errorf("%s holds an absolute path", name)
		}
	}
}

// TestGolden compares the generated northwind package with
// testdata/golden/northwind, file by file with a diff, and fails on a
// generated file with no golden and on a golden file no longer generated;
// -update rewrites the directory (and removes stale files).
func TestGolden(t *testing.T) {
	golden.Dir(t, filepath.Join("testdata", "golden", "northwind"), mustGenerate(t, northwind().World), *update)
}
