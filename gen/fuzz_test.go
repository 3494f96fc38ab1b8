package gen

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/internal/cpubench"
)

// Budgets of FuzzCheckGenerate for one input of at most dsl.MaxFileSize
// bytes: checking it and, when it checks, generating its package. The
// example worlds take a few hundred milliseconds and megabytes at most
// (tau2_retail, 250 kB with its data, the most); an input that takes more
// is a cost the limits of docs/language.md do not bound.
const (
	fuzzCPUBudget   = 3 * time.Second
	fuzzAllocBudget = 1 << 30 // bytes allocated, not live
)

// FuzzCheckGenerate is issue 10's property: for every spec, check and
// generate end within a time and allocation budget, never panic, and give
// either a package or positioned diagnostics with a code and a short
// message. Under go test it runs its seed corpus: the example worlds, the
// validators' failing examples, the checker's cases and hostile specs, and
// the generator's bounds and clash worlds.
func FuzzCheckGenerate(f *testing.F) {
	root := moduleRoot(f)
	for _, pattern := range []string{
		"testdata/worlds/*.world",
		"compiler/testdata/validators/*.world",
		"compiler/testdata/check/*.world",
		"compiler/testdata/hostile/*.world",
		"gen/testdata/*.world",
	} {
		files, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil || len(files) == 0 {
			f.Fatalf("no seeds %s: %v", pattern, err)
		}
		for i, file := range files {
			// -short runs every fourth file of each set as a seed (make
			// test runs them all).
			if testing.Short() && i%4 != 0 {
				continue
			}
			src, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(src)
		}
	}
	f.Add([]byte(nestedRecordsWorld(11)))
	f.Add([]byte(nestedRecordsWorld(20)))
	f.Add([]byte(boundsWorld()))
	f.Add([]byte(clashWorld))
	f.Add([]byte(optionalRecordsWorld(20, 4)))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > dsl.MaxFileSize {
			return
		}
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		var m0, m1 goruntime.MemStats
		goruntime.ReadMemStats(&m0)
		c0 := cpubench.ThreadCPU()
		w, ds := compiler.CheckSource("fuzz.world", src)
		var files map[string][]byte
		var err error
		if w != nil {
			files, err = Generate(w)
		}
		c1 := cpubench.ThreadCPU()
		goruntime.ReadMemStats(&m1)
		if c0 >= 0 && time.Duration(c1-c0) > fuzzCPUBudget {
			t.Errorf("check and generate took %v of CPU; the budget is %v", time.Duration(c1-c0), fuzzCPUBudget)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > fuzzAllocBudget {
			t.Errorf("check and generate allocated %d MB; the budget is %d MB", alloc>>20, fuzzAllocBudget>>20)
		}
		if err != nil {
			if len(err.Error()) > 1000 || strings.Contains(err.Error(), "\n") {
				t.Errorf("generator error of %d bytes", len(err.Error()))
			}
			t.Errorf("a world that checks does not generate: %.300s", err)
		}
		if ds.HasErrors() == (w != nil) {
			t.Fatalf("errors=%v but world=%v", ds.HasErrors(), w != nil)
		}
		for _, d := range ds {
			if d.Line < 1 || d.Col < 1 || d.Code == "" || d.Message == "" || len(d.Message) > 2000 {
				t.Errorf("malformed diagnostic %.300s", d)
			}
		}
		for name, b := range files {
			if strings.HasSuffix(name, ".go") && !strings.HasPrefix(string(b), ir.Header+"\n") {
				t.Errorf("%s does not start with the header", name)
			}
		}
	})
}
