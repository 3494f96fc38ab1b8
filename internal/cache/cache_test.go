package cache

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/testfs"
)

// TestCache: an entry holds while its data files and outputs are
// unchanged, and never when damaged or made under another salt.
func TestCache(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(filepath.Join(dir, "cache"), "worldc-1")
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "specs", "rows.csv")
	testfs.WriteFiles(t, dir, map[string]string{"specs/rows.csv": "a,b\n", "out/w/world.go": "package w\n"})
	rec := &RecordingFS{FS: os.DirFS(filepath.Join(dir, "specs")), Base: filepath.Join(dir, "specs")}
	if _, err := rec.Open("rows.csv"); err != nil {
		t.Fatal(err)
	}
	deps := rec.Deps()
	if len(deps) != 1 || deps[0].Path != data {
		t.Fatalf("deps = %v", deps)
	}
	key := c.Key(Input{Spec: []byte("world w {}")})
	if key == c.Key(Input{Spec: []byte("world w {} ")}) || key == c.Key(Input{Spec: []byte("world w {}"), Options: "x"}) {
		t.Error("different inputs share a key")
	}
	e := Entry{Deps: deps, Outputs: OutputSums(map[string][]byte{"world.go": []byte("package w\n")}), Result: gate.WorldResult{World: "w", OK: true}}
	if err := c.Put(key, e); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if got, ok := c.Get(key, out); !ok || !got.Result.OK {
		t.Fatal("a fresh entry is not found")
	}
	other, _ := Open(filepath.Join(dir, "cache"), "worldc-2")
	if _, ok := other.Get(other.Key(Input{Spec: []byte("world w {}")}), out); ok {
		t.Error("an entry made by another worldc was found")
	}
	os.WriteFile(data, []byte("a,c\n"), 0o644)
	if _, ok := c.Get(key, out); ok {
		t.Error("the entry holds after its data file changed")
	}
	os.WriteFile(data, []byte("a,b\n"), 0o644)
	os.WriteFile(filepath.Join(out, "w", "extra.go"), []byte("package w\n"), 0o644)
	if _, ok := c.Get(key, out); ok {
		t.Error("the entry holds with an extra file in the world's directory")
	}
	os.Remove(filepath.Join(out, "w", "extra.go"))
	if _, ok := c.Get(key, out); !ok {
		t.Fatal("the entry does not hold once the inputs are back")
	}
	p := c.file(key)
	raw, _ := os.ReadFile(p)
	raw[len(raw)/2] ^= 1
	os.WriteFile(p, raw, 0o644)
	if _, ok := c.Get(key, out); ok {
		t.Error("a damaged entry was trusted")
	}
}

// TestCacheHostile (issue 20): an entry never holds past a change it
// cannot see, and a hostile cache directory neither hangs nor floods Get.
func TestCacheHostile(t *testing.T) {
	dir := t.TempDir()
	c, err := Open(filepath.Join(dir, "cache"), "worldc-1")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	testfs.WriteFiles(t, dir, map[string]string{"out/w/world.go": "package w\n"})
	put := func(spec string, deps []FileSum) string {
		t.Helper()
		key := c.Key(Input{Spec: []byte(spec)})
		e := Entry{Deps: deps, Outputs: OutputSums(map[string][]byte{"world.go": []byte("package w\n")}), Result: gate.WorldResult{World: "w", OK: true}}
		if err := c.Put(key, e); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Get(key, out); !ok {
			t.Fatal("a fresh entry is not found")
		}
		return key
	}

	// A .go file added as a symbolic link (or a directory) changes the
	// package although no regular file changed.
	key := put("world w {}", nil)
	link := filepath.Join(out, "w", "extra.go")
	if err := os.Symlink(filepath.Join(out, "w", "world.go"), link); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Get(key, out); ok {
		t.Error("the entry holds with a symbolic link added to the package")
	}
	os.Remove(link)
	os.Mkdir(filepath.Join(out, "w", "sub"), 0o755)
	if _, ok := c.Get(key, out); ok {
		t.Error("the entry holds with a directory added to the package")
	}
	os.Remove(filepath.Join(out, "w", "sub"))

	// A data file the check looked for and did not find: the entry holds
	// while it is absent, not once it appears.
	specs := filepath.Join(dir, "specs")
	os.MkdirAll(specs, 0o755)
	root, err := os.OpenRoot(specs)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	rec := &RecordingFS{FS: root.FS(), Base: specs}
	if _, err := rec.Open("rows.csv"); err == nil {
		t.Fatal("rows.csv exists")
	}
	key = put("world w { } // with rows", rec.Deps())
	testfs.WriteFiles(t, dir, map[string]string{"specs/rows.csv": "a,b\n"})
	if _, ok := c.Get(key, out); ok {
		t.Error("the entry holds after a data file it looked for appeared")
	}

	// An entry that is a FIFO is a miss, at once; so is one linked to a
	// device.
	for _, spec := range []string{"fifo", "device"} {
		key := put("world w {} // "+spec, nil)
		p := c.file(key)
		os.Remove(p)
		if spec == "fifo" {
			if err := mkfifo(p); err != nil {
				t.Fatal(err)
			}
		} else if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
		done := make(chan bool)
		go func() {
			_, ok := c.Get(key, out)
			done <- ok
		}()
		if <-done {
			t.Errorf("an entry that is a %s was trusted", spec)
		}
	}
}
