package output

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const goFile = Header + "\n\npackage w\n"

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return out
}

func changeList(cs []Change) string {
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Kind.String()+" "+c.Path)
	}
	return strings.Join(parts, "; ")
}

func TestPlanApply(t *testing.T) {
	dir := t.TempDir()
	v1 := []Output{
		{World: "alpha", Files: map[string][]byte{"a.go": []byte(goFile), "seed.json": []byte("{}"), "sub/x.txt": []byte("x")}},
		{World: "beta", Files: map[string][]byte{"b.go": []byte(goFile)}},
	}
	changes, err := Plan(dir, v1)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeList(changes), "missing alpha/a.go; missing alpha/seed.json; missing alpha/sub/x.txt; missing beta/b.go"; got != want {
		t.Fatalf("first plan: %s\nwant %s", got, want)
	}
	if err := Apply(dir, v1, changes); err != nil {
		t.Fatal(err)
	}
	if changes, _ := Plan(dir, v1); len(changes) != 0 {
		t.Fatalf("after apply: %s", changeList(changes))
	}

	// A second version changes one file, drops two and adds one; an
	// unchanged file keeps its modification time. Of the dropped files,
	// only the Go file with the header is worldc's to remove: the others
	// stay.
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Chtimes(filepath.Join(dir, "beta", "b.go"), old, old)
	v2 := []Output{
		{World: "alpha", Files: map[string][]byte{"a.go": []byte(goFile + "// v2\n"), "new.go": []byte(goFile)}},
		{World: "beta", Files: map[string][]byte{"b.go": []byte(goFile)}},
	}
	os.WriteFile(filepath.Join(dir, "alpha", "old.go"), []byte(goFile), 0o644)
	os.MkdirAll(filepath.Join(dir, "alpha", "gone"), 0o755)
	os.WriteFile(filepath.Join(dir, "alpha", "gone", "g.go"), []byte(goFile), 0o644)
	changes, err = Plan(dir, v2)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := changeList(changes), "out of date alpha/a.go; stale alpha/gone/g.go; missing alpha/new.go; stale alpha/old.go"; got != want {
		t.Fatalf("second plan: %s\nwant %s", got, want)
	}
	if err := Apply(dir, v2, changes); err != nil {
		t.Fatal(err)
	}
	got := readTree(t, dir)
	want := map[string]string{"alpha/a.go": goFile + "// v2\n", "alpha/new.go": goFile, "alpha/seed.json": "{}", "alpha/sub/x.txt": "x", "beta/b.go": goFile}
	if len(got) != len(want) {
		t.Fatalf("tree = %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "alpha", "gone")); !os.IsNotExist(err) {
		t.Errorf("the emptied directory alpha/gone is still there")
	}
	if info, _ := os.Stat(filepath.Join(dir, "beta", "b.go")); !info.ModTime().Equal(old) {
		t.Errorf("the unchanged beta/b.go was rewritten")
	}
}

// Specs come from LLMs: no world name or file name may lead outside the
// output directory.
func TestPlanRefusesToLeaveTheOutputDir(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	os.MkdirAll(dir, 0o755)
	bad := []Output{
		{World: "..", Files: map[string][]byte{"x.go": nil}},
		{World: "../evil", Files: map[string][]byte{"x.go": nil}},
		{World: "/abs", Files: map[string][]byte{"x.go": nil}},
		{World: "", Files: map[string][]byte{"x.go": nil}},
		{World: "Upper", Files: map[string][]byte{"x.go": nil}},
		{World: "a/b", Files: map[string][]byte{"x.go": nil}},
		{World: strings.Repeat("a", 65), Files: map[string][]byte{"x.go": nil}},
		{World: "w", Files: map[string][]byte{"../escape.go": nil}},
		{World: "w", Files: map[string][]byte{"../../escape.go": nil}},
		{World: "w", Files: map[string][]byte{"/etc/passwd": nil}},
		{World: "w", Files: map[string][]byte{"a/../../b.go": nil}},
		{World: "w", Files: map[string][]byte{"./a.go": nil}},
		{World: "w", Files: map[string][]byte{"": nil}},
		{World: "w", Files: map[string][]byte{`..\x.go`: nil}},
	}
	for _, out := range bad {
		if _, err := Plan(dir, []Output{out}); err == nil {
			t.Errorf("Plan(world %q, files %v): no error", out.World, out.Files)
		}
	}
	// Nothing was written anywhere.
	if tree := readTree(t, parent); len(tree) != 0 {
		t.Errorf("files written: %v", tree)
	}
	// Apply checks again, whatever it is given.
	if err := Apply(dir, nil, []Change{{Missing, "../escape.go"}}); err == nil {
		t.Errorf("Apply(../escape.go): no error")
	}
	if err := Apply(dir, nil, []Change{{Stale, "../out2/x.go"}}); err == nil {
		t.Errorf("Apply(stale ../out2/x.go): no error")
	}
}

func TestPlanRefusesSymlinksAndForeignDirs(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	elsewhere := filepath.Join(parent, "elsewhere")
	os.MkdirAll(dir, 0o755)
	os.MkdirAll(elsewhere, 0o755)
	if err := os.Symlink(elsewhere, filepath.Join(dir, "linked")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := Plan(dir, []Output{{World: "linked", Files: map[string][]byte{"a.go": []byte(goFile)}}}); err == nil {
		t.Errorf("writing through a symlinked world directory: no error")
	}
	// A directory holding Go code worldc did not write is not a world's.
	os.MkdirAll(filepath.Join(dir, "cmd"), 0o755)
	os.WriteFile(filepath.Join(dir, "cmd", "main.go"), []byte("package main\n"), 0o644)
	_, err := Plan(dir, []Output{{World: "cmd", Files: map[string][]byte{"a.go": []byte(goFile)}}})
	if err == nil || !strings.Contains(err.Error(), "not generated by worldc") {
		t.Errorf("foreign directory: err = %v", err)
	}
	// Two specs for one world.
	_, err = Plan(dir, []Output{{World: "w", Source: "a.world"}, {World: "w", Source: "b.world"}})
	var dup *DuplicateWorldError
	if !errors.As(err, &dup) || dup.First != "a.world" || dup.Second != "b.world" {
		t.Errorf("duplicate world: err = %v", err)
	}
}

// TestPlanRemovesOnlyWhatWorldcWrote is issue 10's reproducers 7 and 9:
// files in a world's directory that worldc did not write are never
// removed (a README, notes/x.csv, a Go file whose header is not on its
// first line), anything of that kind standing where a generated file goes
// is an error naming it, and a FIFO is never opened.
func TestPlanRemovesOnlyWhatWorldcWrote(t *testing.T) {
	gen := Output{World: "docs", Files: map[string][]byte{"world.go": []byte(goFile), "policy.md": []byte("# p\n")}}
	t.Run("foreign files stay", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "docs", "notes"), 0o755)
		os.WriteFile(filepath.Join(dir, "docs", "README.md"), []byte("read me"), 0o644)
		os.WriteFile(filepath.Join(dir, "docs", "notes", "x.csv"), []byte("a,b"), 0o644)
		os.WriteFile(filepath.Join(dir, "docs", "old.go"), []byte(goFile), 0o644)
		changes, err := Plan(dir, []Output{gen})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := changeList(changes), "stale docs/old.go; missing docs/policy.md; missing docs/world.go"; got != want {
			t.Fatalf("plan: %s\nwant %s", got, want)
		}
		if err := Apply(dir, []Output{gen}, changes); err != nil {
			t.Fatal(err)
		}
		tree := readTree(t, dir)
		if tree["docs/README.md"] != "read me" || tree["docs/notes/x.csv"] != "a,b" {
			t.Errorf("files worldc did not write were touched: %v", tree)
		}
		if _, ok := tree["docs/old.go"]; ok {
			t.Errorf("the stale generated docs/old.go is still there")
		}
	})
	t.Run("header not on the first line", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
		p := filepath.Join(dir, "docs", "hand.go")
		os.WriteFile(p, []byte("package docs\n\n"+Header+"\n"), 0o644)
		_, err := Plan(dir, []Output{gen})
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not generated by worldc") {
			t.Fatalf("err = %v, want one naming %s", err, p)
		}
		// Apply refuses to remove it whatever it is told.
		if err := Apply(dir, nil, []Change{{Stale, "docs/hand.go"}}); err == nil {
			t.Errorf("Apply removed a file without the header on its first line")
		}
		if _, err := os.Stat(p); err != nil {
			t.Errorf("hand.go: %v", err)
		}
	})
	t.Run("a file in the way", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
		p := filepath.Join(dir, "docs", "policy.md")
		os.WriteFile(p, []byte("my own policy"), 0o644)
		_, err := Plan(dir, []Output{gen})
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "did not write it") {
			t.Fatalf("err = %v, want one naming %s", err, p)
		}
		// Beside worldc's own Go files, its other files are replaced.
		os.WriteFile(filepath.Join(dir, "docs", "world.go"), []byte(goFile), 0o644)
		changes, err := Plan(dir, []Output{gen})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := changeList(changes), "out of date docs/policy.md"; got != want {
			t.Fatalf("plan: %s\nwant %s", got, want)
		}
	})
	t.Run("directory in the way", func(t *testing.T) {
		dir := t.TempDir()
		p := filepath.Join(dir, "docs", "world.go")
		os.MkdirAll(p, 0o755)
		_, err := Plan(dir, []Output{gen})
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("err = %v, want one naming %s", err, p)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
		p := filepath.Join(dir, "docs", "world.go")
		if err := mkfifo(p); err != nil {
			t.Skip("no FIFOs:", err)
		}
		done := make(chan error, 1)
		go func() { _, err := Plan(dir, []Output{gen}); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "not a regular file") {
				t.Fatalf("err = %v, want one naming %s", err, p)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("Plan blocks on a FIFO named like a generated file")
		}
	})
}
