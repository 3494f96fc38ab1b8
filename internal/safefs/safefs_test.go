//go:build unix

package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFileReplacesALinkAndKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("theirs"), 0o600)
	link := filepath.Join(dir, "out.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("ours")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(target); string(got) != "theirs" {
		t.Errorf("written through the link: target = %q", got)
	}
	if info, _ := os.Lstat(link); !info.Mode().IsRegular() {
		t.Errorf("the link is still there: %v", info.Mode())
	}
	mine := filepath.Join(dir, "mine")
	os.WriteFile(mine, []byte("old"), 0o600)
	if err := WriteFile(mine, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(mine); info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	if err := WriteFile(dir, []byte("x")); err == nil {
		t.Error("a directory was replaced")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestCreateCommitsOrLeavesAlone(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "stream.jsonl")
	os.WriteFile(p, []byte("before\n"), 0o644)
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("half")
	f.Close() // abandoned
	if got, _ := os.ReadFile(p); string(got) != "before\n" {
		t.Errorf("an abandoned write changed the file: %q", got)
	}
	f, _ = Create(p)
	f.WriteString("after\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got, _ := os.ReadFile(p); string(got) != "after\n" {
		t.Errorf("committed = %q", got)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestReadsAreRegularAndBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("12345"), 0o644)
	if _, err := ReadRegularLimit(p, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: err = %v", err)
	}
	if data, err := ReadRegularLimit(p, 5); err != nil || string(data) != "12345" {
		t.Errorf("at the bound: %q, %v", data, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", link)
	for _, bad := range []string{fifo, link, "/dev/zero", dir} {
		if _, err := ReadRegular(bad); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("ReadRegular(%s): err = %v", bad, err)
		}
		if ok, err := IsGenerated(bad); ok || err != nil {
			t.Errorf("IsGenerated(%s) = %v, %v; want false, nil", bad, ok, err)
		}
	}
}

func TestIsGeneratedReadsTheFirstLine(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"ours.go":   Header + "\n\npackage w\n",
		"crlf.go":   Header + "\r\npackage w\n",
		"later.go":  "package w\n\n" + Header + "\n",
		"prefix.go": Header + " (not quite)\npackage w\n",
		"empty.go":  "",
	} {
		os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644)
	}
	for name, want := range map[string]bool{"ours.go": true, "crlf.go": true, "later.go": false, "prefix.go": false, "empty.go": false} {
		if got, err := IsGenerated(filepath.Join(dir, name)); got != want || err != nil {
			t.Errorf("IsGenerated(%s) = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := IsGenerated(filepath.Join(dir, "missing.go")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: err = %v", err)
	}
}

func TestInsideAndNoSymlinks(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{root, filepath.Join(root, ".."), filepath.Join(root, "../x"), "/etc/passwd"} {
		if Inside(root, p) == nil {
			t.Errorf("Inside(%s) accepted", p)
		}
	}
	if err := Inside(root, filepath.Join(root, "a/b")); err != nil {
		t.Error(err)
	}
	os.Symlink(t.TempDir(), filepath.Join(root, "out"))
	if err := NoSymlinks(root, filepath.Join(root, "out", "f")); err == nil {
		t.Error("a path through a link was accepted")
	}
	if err := NoSymlinks(root, filepath.Join(root, "in", "f")); err != nil {
		t.Error(err)
	}
}
