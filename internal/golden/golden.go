// Package golden compares test output with golden files and rewrites them
// on request. It is a test helper, internal to worldc, shared by the tests
// of dsl and gen.
//
// A mismatch is reported with a unified diff (golden file first, test
// output second, so that "+" lines are what the test produces now). A
// golden directory must hold exactly the files the test produces: a file
// the test produces with no golden file, and a golden file the test no
// longer produces, both fail. With update set, the golden files are
// rewritten instead, and stale ones removed.
//
// The -update flag stays with each test package (dsl and gen define their
// own); the callers pass its value.
package golden

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/diff"
	"golang.org/x/tools/txtar"
)

// MaxDiffLines bounds the lines of one diff in a failure message; the
// rest is counted, not shown (run with -update and read git diff for the
// whole change).
const MaxDiffLines = 300

// hint is appended to every mismatch.
const hint = "rerun the test with -update to rewrite the golden files, then review the change with git diff"

// Diff is the unified diff from want (named wantName) to got (named
// gotName), at most MaxDiffLines lines of it, or "" when they are equal.
func Diff(wantName string, want []byte, gotName string, got []byte) string {
	d := diff.Diff(wantName, want, gotName, got)
	if d == nil {
		return ""
	}
	lines := strings.SplitAfter(string(d), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= MaxDiffLines {
		return string(d)
	}
	return strings.Join(lines[:MaxDiffLines], "") +
		fmt.Sprintf("… %d more lines of diff\n", len(lines)-MaxDiffLines)
}

// File compares got with the golden file at path. With update, it writes
// got to path instead (creating its directory), unless the test has
// already failed.
func File(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if t.Failed() {
			t.Fatalf("golden: not rewriting %s: the test failed before the comparison", path)
		}
		write(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden: %v (%s)", err, hint)
		return
	}
	if d := Diff(path, want, path+" (got)", got); d != "" {
		t.Errorf("golden: %s differs from the test output (%s):\n%s", path, hint, d)
	}
}

// Archive compares got, a txtar archive, with the golden archive at path,
// section by section: a section of got that the golden file lacks, a
// golden section that got no longer has, and each section that differs
// (with its diff) are reported by name. With update, it writes got to
// path instead, unless the test has already failed.
func Archive(t testing.TB, path string, got *txtar.Archive, update bool) {
	t.Helper()
	data := txtar.Format(got)
	// What is compared is what is written: Format ends every section with
	// a newline, and a line in a section that reads as a section header
	// would split it.
	ga := txtar.Parse(data)
	if len(ga.Files) != len(got.Files) {
		t.Fatalf("golden: the test output for %s does not read back as the same %d sections (a line in a section reads as a section header)", path, len(got.Files))
	}
	if update {
		File(t, path, data, update)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("golden: %v (%s)", err, hint)
		return
	}
	if bytes.Equal(want, data) {
		return
	}
	sections := func(a *txtar.Archive, what string) map[string][]byte {
		m := map[string][]byte{}
		for _, f := range a.Files {
			if _, dup := m[f.Name]; dup {
				t.Errorf("golden: %s holds section %s twice", what, f.Name)
			}
			m[f.Name] = f.Data
		}
		return m
	}
	wa := txtar.Parse(want)
	ws, gs := sections(wa, path), sections(ga, "the test output for "+path)
	n := 0
	if d := Diff(path+" (comment)", wa.Comment, path+" (comment, got)", ga.Comment); d != "" {
		t.Errorf("golden: the comment of %s differs from the test output (%s):\n%s", path, hint, d)
		n++
	}
	for _, f := range wa.Files {
		if _, ok := gs[f.Name]; !ok {
			t.Errorf("golden: %s holds section %s, which the test no longer produces (%s)", path, f.Name, hint)
			n++
		}
	}
	for _, f := range ga.Files {
		w, ok := ws[f.Name]
		if !ok {
			t.Errorf("golden: the test produces section %s, which %s does not hold (%s):\n%s", f.Name, path, hint, Diff("/dev/null", nil, path+":"+f.Name, f.Data))
			n++
			continue
		}
		if d := Diff(path+":"+f.Name, w, path+":"+f.Name+" (got)", f.Data); d != "" {
			t.Errorf("golden: section %s of %s differs from the test output (%s):\n%s", f.Name, path, hint, d)
			n++
		}
	}
	if n == 0 { // the same sections, in another order or layout
		t.Errorf("golden: %s differs from the test output (%s):\n%s", path, hint, Diff(path, want, path+" (got)", data))
	}
}

// Dir compares files (slash-separated paths relative to dir → contents)
// with the golden directory dir: every file must be there with the same
// bytes, and dir must hold no other file. With update, it rewrites dir to
// hold exactly files instead, unless the test has already failed.
func Dir(t testing.TB, dir string, files map[string][]byte, update bool) {
	t.Helper()
	DirMatch(t, dir, "*", files, update)
}

// DirMatch is Dir for a directory whose golden files sit beside files of
// other kinds (the inputs of the test, say): only the files of dir whose
// base name matches pattern (path.Match) are golden files, and every name
// in files must match it too.
func DirMatch(t testing.TB, dir, pattern string, files map[string][]byte, update bool) {
	t.Helper()
	if _, err := path.Match(pattern, ""); err != nil {
		t.Fatalf("golden: bad pattern %q: %v", pattern, err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		if !fs.ValidPath(name) || name == "." {
			t.Fatalf("golden: %q is not a relative slash-separated path", name)
		}
		if ok, _ := path.Match(pattern, path.Base(name)); !ok {
			t.Fatalf("golden: %s does not match the golden pattern %q of %s", name, pattern, dir)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	onDisk, err := list(dir, pattern)
	if err != nil && !(update && os.IsNotExist(err)) {
		t.Fatalf("golden: %v (%s)", err, hint)
	}
	if update {
		if t.Failed() {
			t.Fatalf("golden: not rewriting %s: the test failed before the comparison", dir)
		}
		for _, name := range names {
			write(t, filepath.Join(dir, filepath.FromSlash(name)), files[name])
		}
		for _, name := range onDisk {
			if _, ok := files[name]; !ok {
				p := filepath.Join(dir, filepath.FromSlash(name))
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
				t.Logf("golden: removed %s, which the test no longer produces", p)
			}
		}
		return
	}
	for _, name := range onDisk {
		if _, ok := files[name]; !ok {
			t.Errorf("golden: %s is a golden file that the test no longer produces (%s)", filepath.Join(dir, filepath.FromSlash(name)), hint)
		}
	}
	for _, name := range names {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if !slices.Contains(onDisk, name) {
			t.Errorf("golden: the test produces %s (%d bytes), which has no golden file (%s)", p, len(files[name]), hint)
			continue
		}
		want, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("golden: %v", err)
			continue
		}
		if d := Diff(p, want, p+" (got)", files[name]); d != "" {
			t.Errorf("golden: %s differs from the test output (%s):\n%s", p, hint, d)
		}
	}
}

// list is every file below dir whose base name matches pattern, as sorted
// slash-separated paths relative to dir. Anything but a regular file or a
// directory there is an error.
func list(dir, pattern string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if ok, _ := path.Match(pattern, d.Name()); !ok {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	slices.Sort(names)
	return names, err
}

// write writes data to p if its bytes differ, and logs the change.
func write(t testing.TB, p string, data []byte) {
	t.Helper()
	old, err := os.ReadFile(p)
	if err == nil && bytes.Equal(old, data) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("golden: wrote %s", p)
}
