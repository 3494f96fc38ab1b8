package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler"
)

// TestCorpus is the real test: every example world under testdata/worlds
// is checked, generated, vetted and its generated tests run.
func TestCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	specs, err := filepath.Glob(filepath.Join(moduleRoot(t), "testdata", "worlds", "*.world"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example worlds: %v", err)
	}
	root := scratch(t)
	var dirs []string
	for _, spec := range specs {
		src, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		w, diags := compiler.CheckSource(spec, src)
		if w == nil {
			t.Errorf("%s does not check:\n%s", spec, diags.Text())
			continue
		}
		dir := filepath.Join(root, w.Name)
		writeFiles(t, dir, mustGenerate(t, w))
		dirs = append(dirs, dir)
	}
	if len(dirs) > 0 {
		vetAndTest(t, dirs...)
	}
}
