package gen

import (
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/internal/golden"
)

// TestRetailBuildsAndPasses generates the retail fixture (records,
// variants, lists, maps, keys; every issue-4 node), vets it and runs its
// conformance tests.
func TestRetailBuildsAndPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := retail()
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, mustGenerate(t, w.World))
	vetAndTest(t, dir)
}

// TestRetailGolden compares the generated retail package with
// testdata/golden/retail, as TestGolden does northwind's; -update rewrites
// it.
func TestRetailGolden(t *testing.T) {
	golden.Dir(t, filepath.Join("testdata", "golden", "retail"), mustGenerate(t, retail().World), *update)
}
