package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/tools/txtar"
)

// recorder is a testing.TB that keeps what a check reports instead of
// failing the test that runs it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errs   []string
	logs   []string
	failed bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.failed = true
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.Errorf(format, args...)
	runtime.Goexit()
}

func (r *recorder) Fatal(args ...any) {
	r.Errorf("%s", fmt.Sprint(args...))
	runtime.Goexit()
}

func (r *recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

// run runs check on a recorder, in a goroutine of its own so that Fatalf
// ends only the check, and returns the recorder.
func run(t *testing.T, check func(tb testing.TB)) *recorder {
	t.Helper()
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		check(r)
	}()
	<-done
	return r
}

// writeTree writes files (slash paths → contents) below dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree is every file below dir, as slash paths → contents.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	names, err := list(dir, "*")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = string(data)
	}
	return out
}

func bytesMap(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

// wantErrs checks that r reported one error per element of want, each
// containing every string of its element, in order.
func wantErrs(t *testing.T, r *recorder, want ...[]string) {
	t.Helper()
	if len(r.errs) != len(want) {
		t.Fatalf("%d errors, want %d:\n%s", len(r.errs), len(want), strings.Join(r.errs, "\n---\n"))
	}
	for i, parts := range want {
		for _, p := range parts {
			if !strings.Contains(r.errs[i], p) {
				t.Errorf("error %d does not contain %q:\n%s", i, p, r.errs[i])
			}
		}
	}
}

func TestFileEqual(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.golden")
	writeTree(t, dir, map[string]string{"a.golden": "one\ntwo\n"})
	r := run(t, func(tb testing.TB) { File(tb, p, []byte("one\ntwo\n"), false) })
	wantErrs(t, r)
}

func TestFileDiffers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.golden")
	writeTree(t, dir, map[string]string{"a.golden": "one\ntwo\nthree\n"})
	r := run(t, func(tb testing.TB) { File(tb, p, []byte("one\nTWO\nthree\n"), false) })
	wantErrs(t, r, []string{p + " differs", "-update", "--- " + p + "\n", "+++ " + p + " (got)\n", "\n-two\n", "\n+TWO\n", "\n one\n"})
}

func TestFileMissing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.golden")
	r := run(t, func(tb testing.TB) { File(tb, p, []byte("x\n"), false) })
	wantErrs(t, r, []string{"a.golden", "no such file", "-update"})
}

func TestFileUpdate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "sub", "a.golden")
	r := run(t, func(tb testing.TB) { File(tb, p, []byte("new\n"), true) })
	wantErrs(t, r)
	if got := readTree(t, dir); got["sub/a.golden"] != "new\n" || len(got) != 1 {
		t.Errorf("after update: %q", got)
	}
	// Once the test has failed, an update would record a broken output.
	r = run(t, func(tb testing.TB) {
		tb.Errorf("the output is broken")
		File(tb, p, []byte("broken\n"), true)
	})
	wantErrs(t, r, []string{"the output is broken"}, []string{"not rewriting", p})
	if got := readTree(t, dir); got["sub/a.golden"] != "new\n" {
		t.Errorf("a failed test rewrote the golden file: %q", got)
	}
}

func TestDir(t *testing.T) {
	golden := map[string]string{"a.go": "package a\n", "b.json": "{}\n", "sub/c.txt": "c\n"}
	for _, tc := range []struct {
		name  string
		files map[string]string
		errs  [][]string
	}{
		{"equal", golden, nil},
		{"differs", map[string]string{"a.go": "package b\n", "b.json": "{}\n", "sub/c.txt": "c\n"},
			[][]string{{"a.go differs", "-package a\n", "+package b\n"}}},
		{"extra on disk", map[string]string{"a.go": "package a\n", "sub/c.txt": "c\n"},
			[][]string{{"b.json is a golden file that the test no longer produces", "-update"}}},
		{"missing on disk", map[string]string{"a.go": "package a\n", "b.json": "{}\n", "sub/c.txt": "c\n", "d.go": "package d\n"},
			[][]string{{"d.go (10 bytes), which has no golden file", "-update"}}},
		{"all three", map[string]string{"a.go": "package b\n", "sub/c.txt": "c\n", "d.go": "package d\n"},
			[][]string{{"b.json is a golden file"}, {"a.go differs"}, {"d.go (10 bytes)"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTree(t, dir, golden)
			r := run(t, func(tb testing.TB) { Dir(tb, dir, bytesMap(tc.files), false) })
			wantErrs(t, r, tc.errs...)
			if got := readTree(t, dir); !equalMaps(got, golden) {
				t.Errorf("a comparison changed the golden directory: %q", got)
			}
		})
	}
}

func TestDirMissing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "none")
	r := run(t, func(tb testing.TB) { Dir(tb, dir, map[string][]byte{"a": []byte("a")}, false) })
	wantErrs(t, r, []string{"none", "no such file", "-update"})
}

func TestDirUpdate(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.go": "old\n", "stale.go": "s\n", "same.go": "same\n", "sub/stale.txt": "s\n"})
	want := map[string]string{"a.go": "new\n", "same.go": "same\n", "b.go": "b\n"}
	r := run(t, func(tb testing.TB) { Dir(tb, dir, bytesMap(want), true) })
	wantErrs(t, r)
	if got := readTree(t, dir); !equalMaps(got, want) {
		t.Errorf("after update: %q, want %q", got, want)
	}
	wantLogs := []string{"wrote " + filepath.Join(dir, "a.go"), "wrote " + filepath.Join(dir, "b.go"), "removed " + filepath.Join(dir, "stale.go") + ",", "removed " + filepath.Join(dir, "sub", "stale.txt") + ","}
	if len(r.logs) != len(wantLogs) {
		t.Fatalf("logs %q, want %q", r.logs, wantLogs)
	}
	for _, l := range wantLogs {
		if !slices.ContainsFunc(r.logs, func(s string) bool { return strings.Contains(s, l) }) {
			t.Errorf("no log %q in %q", l, r.logs)
		}
	}
	// And a comparison now passes.
	r = run(t, func(tb testing.TB) { Dir(tb, dir, bytesMap(want), false) })
	wantErrs(t, r)

	// An update into a directory that does not exist creates it.
	fresh := filepath.Join(t.TempDir(), "x", "y")
	r = run(t, func(tb testing.TB) { Dir(tb, fresh, bytesMap(want), true) })
	wantErrs(t, r)
	if got := readTree(t, fresh); !equalMaps(got, want) {
		t.Errorf("after update: %q, want %q", got, want)
	}
}

func TestDirUpdateAfterFailure(t *testing.T) {
	dir := t.TempDir()
	golden := map[string]string{"a.go": "a\n", "b.go": "b\n"}
	writeTree(t, dir, golden)
	r := run(t, func(tb testing.TB) {
		tb.Errorf("generating b.go failed")
		Dir(tb, dir, map[string][]byte{"a.go": []byte("a\n")}, true)
	})
	wantErrs(t, r, []string{"generating b.go failed"}, []string{"not rewriting"})
	if got := readTree(t, dir); !equalMaps(got, golden) {
		t.Errorf("a failed test rewrote the golden directory: %q", got)
	}
}

func TestDirMatch(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a.input": "A", "a.golden": "a\n", "b.input": "B", "b.golden": "b\n", "gone.golden": "g\n"})
	got := map[string][]byte{"a.golden": []byte("a\n"), "b.golden": []byte("b\n")}
	r := run(t, func(tb testing.TB) { DirMatch(tb, dir, "*.golden", got, false) })
	wantErrs(t, r, []string{"gone.golden is a golden file that the test no longer produces"})

	r = run(t, func(tb testing.TB) { DirMatch(tb, dir, "*.golden", got, true) })
	wantErrs(t, r)
	want := map[string]string{"a.input": "A", "a.golden": "a\n", "b.input": "B", "b.golden": "b\n"}
	if got := readTree(t, dir); !equalMaps(got, want) {
		t.Errorf("after update: %q, want %q (inputs kept, stale golden removed)", got, want)
	}

	r = run(t, func(tb testing.TB) { DirMatch(tb, dir, "*.golden", map[string][]byte{"a.input": nil}, false) })
	wantErrs(t, r, []string{"a.input does not match the golden pattern"})
}

func TestArchive(t *testing.T) {
	ar := func(comment string, files ...string) *txtar.Archive {
		a := &txtar.Archive{Comment: []byte(comment)}
		for i := 0; i < len(files); i += 2 {
			a.Files = append(a.Files, txtar.File{Name: files[i], Data: []byte(files[i+1])})
		}
		return a
	}
	golden := ar("about\n", "a", "one\ntwo\n", "b", "b\n", "c", "c\n")
	for _, tc := range []struct {
		name string
		got  *txtar.Archive
		errs [][]string
	}{
		{"equal", golden, nil},
		{"equal, without the last newline", ar("about\n", "a", "one\ntwo\n", "b", "b\n", "c", "c"), nil},
		{"section differs", ar("about\n", "a", "one\nTWO\n", "b", "b\n", "c", "c\n"),
			[][]string{{"section a of", "--- " + "@@PATH@@:a\n", "-two\n", "+TWO\n", "-update"}}},
		{"comment differs", ar("About\n", "a", "one\ntwo\n", "b", "b\n", "c", "c\n"),
			[][]string{{"the comment of", "-about\n", "+About\n"}}},
		{"extra and missing", ar("about\n", "a", "one\ntwo\n", "c", "c\n", "d", "new\n"),
			[][]string{{"holds section b, which the test no longer produces"}, {"produces section d", "+new\n"}}},
		{"order", ar("about\n", "b", "b\n", "a", "one\ntwo\n", "c", "c\n"),
			[][]string{{"differs from the test output", "-b\n", "+b\n"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.txtar")
			if err := os.WriteFile(p, txtar.Format(golden), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.errs {
				for i := range e {
					e[i] = strings.ReplaceAll(e[i], "@@PATH@@", p)
				}
			}
			r := run(t, func(tb testing.TB) { Archive(tb, p, tc.got, false) })
			wantErrs(t, r, tc.errs...)
		})
	}

	p := filepath.Join(t.TempDir(), "x.txtar")
	r := run(t, func(tb testing.TB) { Archive(tb, p, golden, true) })
	wantErrs(t, r)
	if data, err := os.ReadFile(p); err != nil || string(data) != string(txtar.Format(golden)) {
		t.Errorf("after update: %q, %v", data, err)
	}
	r = run(t, func(tb testing.TB) { Archive(tb, p, ar("", "a", "x\n-- b --\ny\n"), true) })
	wantErrs(t, r, []string{"does not read back as the same 1 sections"})
}

func TestDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 2 * MaxDiffLines {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "LINE %d\n", i)
	}
	d := Diff("want", []byte(a.String()), "got", []byte(b.String()))
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) != MaxDiffLines+1 {
		t.Fatalf("%d lines of diff, want %d", len(lines), MaxDiffLines+1)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "… ") || !strings.HasSuffix(last, " more lines of diff") {
		t.Errorf("last line %q", last)
	}
	if Diff("want", []byte("x\n"), "got", []byte("x\n")) != "" {
		t.Error("a diff of equal texts")
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
