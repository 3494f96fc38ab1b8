package gate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupByModule: directory patterns go to the module of their go.mod,
// relative to its root; import paths stay with the directory given.
func TestGroupByModule(t *testing.T) {
	base := t.TempDir()
	writeTestFiles(t, base, map[string]string{
		"a/go.mod":          "module example.com/a\n",
		"a/w/x.go":          "package w\n",
		"b/go.mod":          "module worlds\n",
		"b/sub/w2/x.go":     "package w2\n",
		"plain/nothing.txt": "",
	})
	groups, err := groupByModule([]string{"./w/...", filepath.Join(base, "b", "sub") + "/...", "../b", "example.com/a/..."}, filepath.Join(base, "a"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	for _, g := range groups {
		got[g.dir] = g.patterns
	}
	want := map[string][]string{
		filepath.Join(base, "a"): {"./w/...", "example.com/a/..."},
		filepath.Join(base, "b"): {"./sub/...", "."},
	}
	if len(got) != len(want) {
		t.Fatalf("groups = %v, want %v", got, want)
	}
	for dir, pats := range want {
		if strings.Join(got[dir], " ") != strings.Join(pats, " ") {
			t.Errorf("%s: patterns %v, want %v", dir, got[dir], pats)
		}
	}
	if _, err := groupByModule([]string{"./plain/..."}, base); err == nil || !strings.Contains(err.Error(), "not inside a Go module") {
		t.Errorf("err = %v, want not inside a Go module", err)
	}
}

func writeTestFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
