package output

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/testfs"
)

func embedded(t *testing.T) *Runtime {
	t.Helper()
	rt, err := EmbeddedRuntime()
	if err != nil {
		t.Fatal(err)
	}
	return rt
}

// TestEmbeddedRuntimeIsTheRepositorys: the runtime worldc embeds is the
// runtime module of this repository, file for file, without its tests, and
// it holds every package of the module that the runtime imports.
func TestEmbeddedRuntimeIsTheRepositorys(t *testing.T) {
	rt := embedded(t)
	for name := range rt.Files {
		if strings.HasSuffix(name, "_test.go") || strings.Contains(name, "testdata/") {
			t.Errorf("embedded runtime holds %s", name)
		}
	}
	for _, want := range []string{"go.mod", "table.go", "source.go", "pycalc/eval.go"} {
		if _, ok := rt.Files[want]; !ok {
			t.Errorf("embedded runtime lacks %s", want)
		}
	}
	h, err := rt.hashOfDir(filepath.Join("..", "..", "runtime"))
	if err != nil {
		t.Fatal(err)
	}
	if h != rt.Hash {
		t.Errorf("runtime/ hashes to %s, the embedded runtime to %s", h, rt.Hash)
	}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", RuntimeModule).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dirs := map[string]bool{}
	for name := range rt.Files {
		dirs[path.Dir(name)] = true
	}
	for _, p := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(p, RuntimeModule)
		if !ok {
			continue
		}
		rel = strings.TrimPrefix(rel, "/")
		if rel == "" {
			rel = "."
		}
		if !dirs[rel] {
			t.Errorf("the runtime imports %s, which the embedded runtime (runtime/source.go) does not hold", p)
		}
	}
	if !regexp.MustCompile(`^v0\.0\.0-00010101000000-[0-9a-f]{12}$`).MatchString(rt.Version()) {
		t.Errorf("Version() = %q", rt.Version())
	}
}

// TestRuntimeHashChanges: any change to a runtime file changes the hash.
func TestRuntimeHashChanges(t *testing.T) {
	rt := embedded(t)
	files := map[string][]byte{}
	for k, v := range rt.Files {
		files[k] = v
	}
	files["table.go"] = append([]byte("// edited\n"), files["table.go"]...)
	other, err := newRuntime(files)
	if err != nil {
		t.Fatal(err)
	}
	if other.Hash == rt.Hash || other.Version() == rt.Version() {
		t.Errorf("an edited runtime has the same hash %s", rt.Hash)
	}
}

// TestPlanModuleNew: a directory outside any module becomes one, and a
// second plan after applying the first has nothing to do.
func TestPlanModuleNew(t *testing.T) {
	rt := embedded(t)
	out := filepath.Join(t.TempDir(), "out")
	p, err := PlanModule(context.Background(), out, rt, ModuleOptions{ModulePath: "example.com/corpus"})
	if err != nil {
		t.Fatal(err)
	}
	if p.Root != out || p.Path != "example.com/corpus" || !p.Own {
		t.Fatalf("plan = %+v", p)
	}
	if len(p.Files) != len(rt.Files)+2 { // the runtime, its README, go.mod
		t.Errorf("%d files planned, want %d", len(p.Files), len(rt.Files)+2)
	}
	if err := ApplyModule(p); err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(out, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"module example.com/corpus\n", "require " + RuntimeModule + " " + rt.Version() + "\n", "replace " + RuntimeModule + " => ./.worldc/runtime\n"} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	again, err := PlanModule(context.Background(), out, rt, ModuleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files)+len(again.Remove) != 0 || !again.Own || again.Path != "example.com/corpus" {
		t.Errorf("second plan = %+v", again)
	}
	if _, err := PlanModule(context.Background(), out, rt, ModuleOptions{ModulePath: "example.com/other"}); err == nil {
		t.Error("a different --module on an existing module was accepted")
	}
}

// TestPlanModuleInsideModule: a module without the runtime is an error
// unless AddRuntime; with it, go.mod gains the require and replace and the
// user's own lines stay.
func TestPlanModuleInsideModule(t *testing.T) {
	rt := embedded(t)
	root := t.TempDir()
	orig := "module example.com/mine\n\ngo 1.21\n\n// my dependency\nrequire golang.org/x/mod v0.42.0\n"
	testfs.WriteFiles(t, root, map[string]string{"go.mod": orig})
	out := filepath.Join(root, "gen", "worlds")
	_, err := PlanModule(context.Background(), out, rt, ModuleOptions{})
	if err == nil || !strings.Contains(err.Error(), "--add-runtime") {
		t.Fatalf("err = %v, want one that names --add-runtime", err)
	}
	p, err := PlanModule(context.Background(), out, rt, ModuleOptions{AddRuntime: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Own || p.Root != root || p.RuntimeDir != filepath.Join(root, ".worldc", "runtime") {
		t.Errorf("plan = %+v", p)
	}
	if err := ApplyModule(p); err != nil {
		t.Fatal(err)
	}
	gomod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	for _, want := range []string{"// my dependency", "golang.org/x/mod v0.42.0", RuntimeModule + " " + rt.Version(), "replace " + RuntimeModule + " => ./.worldc/runtime", "go 1.26"} {
		if !strings.Contains(string(gomod), want) {
			t.Errorf("go.mod lacks %q:\n%s", want, gomod)
		}
	}
	again, err := PlanModule(context.Background(), out, rt, ModuleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Files)+len(again.Remove) != 0 {
		t.Errorf("second plan writes %v", again.Changes(root))
	}
}

// TestPlanModuleRefusesSymlinkedCopy: the runtime copy is never written
// through a symbolic link.
func TestPlanModuleRefusesSymlinkedCopy(t *testing.T) {
	rt := embedded(t)
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	elsewhere := filepath.Join(parent, "elsewhere")
	for _, d := range []string{out, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(elsewhere, filepath.Join(out, ".worldc")); err != nil {
		t.Fatal(err)
	}
	if _, err := PlanModule(context.Background(), out, rt, ModuleOptions{}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("err = %v, want a refusal of the symbolic link", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("%d files written through the link", len(entries))
	}
}
