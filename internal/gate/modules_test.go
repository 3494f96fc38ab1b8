package gate

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/testfs"
)

// TestGroupByModule: directory patterns go to the module of their go.mod,
// relative to its root; import paths stay with the directory given.
func TestGroupByModule(t *testing.T) {
	base := t.TempDir()
	testfs.WriteFiles(t, base, map[string]string{
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
