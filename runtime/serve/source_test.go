package serve

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"strconv"
	"strings"
	"testing"
)

// TestSourceHoldsImports: every package of this module that a file of
// Source imports is in Source with all its non-test Go files, so that a
// bundle's source module builds (worldc bundle copies Source and nothing
// else of the server).
func TestSourceHoldsImports(t *testing.T) {
	src := Source()
	have := map[string]bool{}
	fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			have[p] = true
		}
		return err
	})
	const mod = "github.com/worldc/worldc/runtime/serve"
	for p := range have {
		if !strings.HasSuffix(p, ".go") {
			continue
		}
		data, _ := fs.ReadFile(src, p)
		f, err := parser.ParseFile(token.NewFileSet(), p, data, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if !strings.HasPrefix(ip, mod+"/") {
				continue
			}
			dir := strings.TrimPrefix(ip, mod+"/")
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatalf("%s imports %s: %v", p, ip, err)
			}
			for _, e := range entries {
				n := e.Name()
				if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") && !have[path.Join(dir, n)] {
					t.Errorf("%s imports %s, but Source lacks %s", p, ip, path.Join(dir, n))
				}
			}
		}
	}
	if !have["rollback/rollback.go"] || have["prefix_test.go"] {
		t.Errorf("Source: %v", have)
	}
}
