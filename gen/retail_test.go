package gen

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
// testdata/golden/retail; -update rewrites it.
func TestRetailGolden(t *testing.T) {
	files := mustGenerate(t, retail().World)
	dir := filepath.Join("testdata", "golden", "retail")
	if *update {
		os.RemoveAll(dir)
		writeFiles(t, dir, files)
		return
	}
	for name, content := range files {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%v (run go test ./gen -update)", err)
			continue
		}
		if !bytes.Equal(content, want) {
			t.Errorf("%s differs from the golden file (run go test ./gen -update and review the diff)", name)
		}
	}
}
