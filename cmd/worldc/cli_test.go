package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runIn runs the CLI in dir and returns its exit status and output.
func runIn(t *testing.T, dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	return runCtx(t, context.Background(), nil, dir, stdin, args...)
}

// runCtx is runIn with the command's context and release function.
func runCtx(t *testing.T, ctx context.Context, release func(), dir string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdio{ctx: ctx, release: release, stdin: strings.NewReader(stdin), stdout: &stdout, stderr: &stderr, cwd: dir})
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

// An interrupted command says so in one line and exits 128 plus the
// signal's number, whatever error its interrupted work returned; vet
// prints no verdict and no summary.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"go.mod":   "module example.com/w\n\ngo 1.26\n",
		"w/w/w.go": "package w\n\nfunc F() int { return 1 }\n",
	})
	for _, tt := range []struct {
		sig  syscall.Signal
		code int
	}{
		{syscall.SIGINT, 130},
		{syscall.SIGTERM, 143},
	} {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(interrupt{tt.sig})
		code, stdout, stderr := runCtx(t, ctx, nil, dir, "", "vet", "w")
		if code != tt.code || stdout != "" || stderr != "worldc: interrupted\n" {
			t.Errorf("vet interrupted by %v: exit %d, stdout %q, stderr %q; want exit %d, no stdout, stderr %q",
				tt.sig, code, stdout, stderr, tt.code, "worldc: interrupted\n")
		}
	}
	// The same vet, not interrupted, passes: what stopped it above is the
	// context.
	if code, stdout, stderr := runIn(t, dir, "", "vet", "--typecheck-only", "w"); code != exitOK {
		t.Errorf("vet: exit %d\n%s%s", code, stdout, stderr)
	}
}

// The commands that do not watch their context get the signals' default
// effect back before they run; those that do keep the handler.
func TestRelease(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args    []string
		release bool
	}{
		{[]string{"explain", "W001"}, true},
		{[]string{"validators"}, true},
		{[]string{"vet", "--workers=-1"}, false},
		{[]string{"build", "--workers=-1", "x.world"}, false},
	} {
		released := false
		runCtx(t, context.Background(), func() { released = true }, dir, "", tt.args...)
		if released != tt.release {
			t.Errorf("worldc %q: released %v, want %v", tt.args, released, tt.release)
		}
	}
	// Every name in watchesContext is a command.
	code, stdout, _ := runIn(t, dir, "", "--help")
	if code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	for name := range watchesContext {
		if !strings.Contains(stdout, "\n  "+name+" ") {
			t.Errorf("watchesContext names %q, which --help does not list:\n%s", name, stdout)
		}
	}
}
