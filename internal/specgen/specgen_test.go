package specgen_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/specgen"
)

// The property: every spec Spec generates checks clean, generates, and
// its package type-checks and passes go vet (the full suite also runs the
// generated tests of some). The corpus is the seeds 1..corpusSize: a few
// dozen with -short, a few hundred otherwise.
const corpusSize = 300

func corpus() []uint64 {
	n := corpusSize
	if testing.Short() {
		n = 24
	}
	seeds := make([]uint64, n)
	for i := range seeds {
		seeds[i] = uint64(i + 1)
	}
	return seeds
}

func TestDeterministic(t *testing.T) {
	for _, seed := range []uint64{1, 2, 77} {
		if a, b := specgen.Spec(seed), specgen.Spec(seed); a != b {
			t.Errorf("seed %d: two different specs", seed)
		}
	}
	if specgen.Spec(1) == specgen.Spec(2) {
		t.Error("seeds 1 and 2 give the same spec")
	}
}

// TestCanonical checks that the specs are in the canonical layout.
func TestCanonical(t *testing.T) {
	for _, seed := range corpus()[:10] {
		src := specgen.Spec(seed)
		out, err := dsl.FormatSource("x.world", []byte(src))
		if err != nil || string(out) != src {
			t.Errorf("seed %d: not in the canonical layout (%v)", seed, err)
		}
	}
}

// TestCoverage checks that the corpus uses the constructs it is meant to
// cover, so that a change of the generator cannot quietly drop one. It
// reads the whole corpus, -short too: generating a spec is cheap, and
// some constructs are rare (an optional ref followed after a null check:
// a few specs in a hundred).
func TestCoverage(t *testing.T) {
	var all strings.Builder
	for seed := uint64(1); seed <= corpusSize; seed++ {
		all.WriteString(specgen.Spec(seed))
	}
	text := all.String()
	for _, want := range []string{
		"count(", " where ", "exists(", "forall(", "sum(", "min(", "max(", "first(",
		"for it", "for el", "insert ", "set it", "var acc", "let loc", "if ", "else",
		"!= null and", "== null or", "coalesce(", " in [", "not in [",
		"(if ", " then ", " != null then ", " == null then ", " != null {\n", " + 1 > ", " * 2 >= ", "len(",
		"list<", "map<string,", "Addr {", "Pay { kind: voucher", "?\n",
		"year(", "month(", "weekday(", "date(", "append(", "sorted(", "list(ag", "len(list(ag", "round_to(", "end_of_month(",
		"local invariant", "local always invariant", "solution {", "tool get_", "search ", "update ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("no spec of the corpus has %q", want)
		}
	}
	// An optional ref followed where it is known not to be null.
	if follow := regexp.MustCompile(`\(if (\w+\.\w+) != null then (\w+\.\w+)\.\w+ else `); !follow.MatchString(text) {
		t.Errorf("no spec of the corpus follows an optional ref after a null check (%s)", follow)
	}
}

// TestToolsWrite: every random tool writes, as an LLM-written world's
// tools do — no `set v.f = v.f`, and a write outside every if and loop —
// so that it is a writing tool to worldc tasks (compiler/tasks decides
// which tools write: its graph says) and a call can change the state.
func TestToolsWrite(t *testing.T) {
	set := regexp.MustCompile(`set (\w+\.\w+) = (.*)\n`)
	for _, seed := range corpus() {
		src := specgen.Spec(seed)
		w, ds := compiler.CheckSource("x.world", []byte(src))
		if w == nil {
			t.Fatalf("seed %d does not check:\n%s", seed, ds.Text())
		}
		for _, tl := range tasks.BuildGraph(w).Tools {
			if strings.HasPrefix(tl.Name, "act_") && !tl.Writes {
				t.Errorf("seed %d: tool %s writes nothing", seed, tl.Name)
			}
		}
		for _, m := range set.FindAllStringSubmatch(src, -1) {
			v := strings.TrimSuffix(strings.TrimPrefix(m[2], "max_of("), ", 0)")
			if v == m[1] || strings.HasPrefix(v, "(if ") && strings.HasSuffix(v, " then "+m[1]+" else "+m[1]+")") {
				t.Errorf("seed %d: %s", seed, strings.TrimSpace(m[0]))
			}
		}
	}
}

// TestGate is the property over the fixed corpus.
// With -short every spec of the small corpus is checked and generated in
// process, but only the first few packages go through go vet (the full
// tier, make test, vets them all and runs the generated tests of twenty).
func TestGate(t *testing.T) {
	t.Parallel()
	vet := -1
	if testing.Short() {
		vet = 4
	}
	gate(t, corpus(), vet, !testing.Short())
}

// FuzzGate is the property on any seed.
func FuzzGate(f *testing.F) {
	f.Add(uint64(1))
	f.Add(uint64(1 << 40))
	f.Fuzz(func(t *testing.T, seed uint64) {
		// With -short the seeds are checked and generated but not vetted
		// (TestGate vets some of its corpus; the full tier vets every seed).
		vet := -1
		if testing.Short() {
			vet = 0
		}
		gate(t, []uint64{seed}, vet, false)
	})
}

// gate checks, generates and vets the specs of seeds (and runs the
// generated tests of the first twenty when runTests is set). vet < 0 vets
// every generated package, otherwise only the first vet of them.
func gate(t *testing.T, seeds []uint64, vet int, runTests bool) {
	t.Helper()
	root := moduleRoot(t)
	dir, err := os.MkdirTemp(root, "_specgen-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	var pkgs []string
	for _, seed := range seeds {
		src := specgen.Spec(seed)
		name := fmt.Sprintf("random_%d.world", seed)
		w, ds := compiler.CheckSource(name, []byte(src))
		if w == nil || len(ds) > 0 {
			t.Errorf("seed %d does not check clean:\n%s\n%s", seed, ds.Text(), numbered(src))
			continue
		}
		files, err := gen.Generate(w)
		if err != nil {
			t.Errorf("seed %d: Generate: %v", seed, err)
			continue
		}
		pkgDir := filepath.Join(dir, w.Name)
		if err := os.MkdirAll(pkgDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range gen.Files(files) {
			if err := os.WriteFile(filepath.Join(pkgDir, f), files[f], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(pkgDir, "spec.world.txt"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, pkgDir)
		pkgs = append(pkgs, "./"+filepath.ToSlash(rel))
	}
	if vet >= 0 && vet < len(pkgs) {
		t.Logf("%d random specs checked clean and generated; -short vets only %d of them (make test vets all)", len(pkgs), vet)
		pkgs = pkgs[:vet]
	}
	if len(pkgs) == 0 {
		return
	}
	if out, ok := goCmd(t, root, append([]string{"vet"}, pkgs...)...); !ok {
		t.Fatalf("go vet of the generated packages of %d random specs (each package holds its spec as spec.world.txt):\n%s", len(pkgs), out)
	}
	t.Logf("%d random specs checked clean, generated and vetted", len(pkgs))
	if runTests {
		n := min(20, len(pkgs))
		if out, ok := goCmd(t, root, append([]string{"test", "-count=1"}, pkgs[:n]...)...); !ok {
			t.Fatalf("go test of the generated packages:\n%s", out)
		}
		t.Logf("and the generated tests of %d passed", n)
	}
}

func numbered(src string) string {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%4d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

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

// goCmd runs the go command in dir and returns its combined output and
// whether it succeeded.
func goCmd(t testing.TB, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(slices.Clone(os.Environ()), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}
