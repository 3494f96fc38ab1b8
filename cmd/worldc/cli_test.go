package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runIn runs the CLI in dir and returns its exit status and output.
func runIn(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdio{stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, cwd: dir})
	return code, stdout.String(), stderr.String()
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"a/z.world":          "",
		"a/b/y.world":        "",
		"a/b/notes.txt":      "",
		"a/.git/x.world":     "",
		"a/_old/x.world":     "",
		"a/.swap.world":      "",
		"c.world":            "",
		"outside/far.world":  "",
		"a/b/c/deeper.world": "",
	})
	cwd := filepath.Join(dir, "a")
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"."}, []string{"b/c/deeper.world", "b/y.world", "z.world"}},
		{[]string{"./..."}, []string{"b/c/deeper.world", "b/y.world", "z.world"}},
		{[]string{"..."}, []string{"b/c/deeper.world", "b/y.world", "z.world"}},
		{[]string{"z.world", "b/..."}, []string{"z.world", "b/c/deeper.world", "b/y.world"}},
		{[]string{"z.world", "./z.world", filepath.Join(cwd, "z.world")}, []string{"z.world"}},
		{[]string{"b/notes.txt"}, []string{"b/notes.txt"}},
		{[]string{"../outside"}, []string{"../outside/far.world"}},
		{[]string{filepath.Join(dir, "c.world")}, []string{filepath.Join(dir, "c.world")}},
		{[]string{"-", "-"}, []string{stdinName}},
	}
	for _, tt := range tests {
		files, err := expandPaths(cwd, tt.args)
		if err != nil {
			t.Errorf("expandPaths(%q): %v", tt.args, err)
			continue
		}
		var got []string
		for _, f := range files {
			got = append(got, f.name)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("expandPaths(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"missing.world"}, {"z.world/..."}, {"../outside/../a/b/c/deeper.world/..."}} {
		if _, err := expandPaths(cwd, bad); err == nil {
			t.Errorf("expandPaths(%q): no error", bad)
		} else if _, ok := err.(usageError); !ok {
			t.Errorf("expandPaths(%q): %T is not a usage error", bad, err)
		}
	}
}

// fmt -w must leave files that are already formatted alone: no new inode,
// no new modification time.
func TestFmtWriteOnlyChangedFiles(t *testing.T) {
	dir := t.TempDir()
	const clean = "world w {\n  title \"W\"\n}\n"
	writeFiles(t, dir, map[string]string{"clean.world": clean, "messy.world": "world w {\n    title   \"W\" }\n"})
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"clean.world", "messy.world"} {
		if err := os.Chtimes(filepath.Join(dir, name), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if code, _, stderr := runIn(t, dir, "", "fmt", "-w", "."); code != 0 {
		t.Fatalf("fmt -w: exit %d: %s", code, stderr)
	}
	for name, wantChanged := range map[string]bool{"clean.world": false, "messy.world": true} {
		info, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if changed := !info.ModTime().Equal(old); changed != wantChanged {
			t.Errorf("%s: rewritten = %v, want %v", name, changed, wantChanged)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "messy.world")); string(got) != clean {
		t.Errorf("messy.world after fmt -w:\n%s\nwant:\n%s", got, clean)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("fmt -w left temporary files: %v", entries)
	}
}

// fmt -w writes through a symbolic link the user named (as gofmt -w does)
// and keeps the file's mode.
func TestFmtWriteSymlinkAndMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.txt")
	if err := os.WriteFile(target, []byte("world  w {\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.world")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if code, _, stderr := runIn(t, dir, "", "fmt", "-w", "link.world"); code != exitOK {
		t.Fatalf("fmt -w: exit %d: %s", code, stderr)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", info.Mode(), err)
	}
	info, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "world w {}\n" {
		t.Errorf("target = %q, want it formatted", got)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
}

// A panic-free, one-line answer for every kind of bad usage.
func TestBadUsageIsOneLine(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		nil, {"nope"}, {"check"}, {"check", "--nope", "x"}, {"fmt", "-q", "x"},
		{"explain"}, {"explain", "W999"}, {"explain", "a", "b"}, {"validators", "extra"},
		{"grammar", "--json"}, {"check", "missing.world"},
	} {
		code, stdout, stderr := runIn(t, dir, "", args...)
		if code != exitUsage {
			t.Errorf("worldc %q: exit %d, want %d", args, code, exitUsage)
		}
		if stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "worldc") {
			t.Errorf("worldc %q: stdout %q, stderr %q; want one line on stderr", args, stdout, stderr)
		}
	}
}
