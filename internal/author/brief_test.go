package author

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadBriefsWithin is LoadBriefs, failing the test if it blocks (opening
// a FIFO for reading waits for a writer forever).
func loadBriefsWithin(t *testing.T, paths ...string) ([]Brief, error) {
	t.Helper()
	type result struct {
		bs  []Brief
		err error
	}
	done := make(chan result, 1)
	go func() {
		bs, err := LoadBriefs(paths)
		done <- result{bs, err}
	}()
	r := within(t, done, "LoadBriefs "+strings.Join(paths, " "))
	return r.bs, r.err
}

// TestBriefsReadRegularFilesOnly is issue 20's item 4: below a directory,
// a brief that is a symbolic link (to a file outside, to
// /proc/self/environ, to /dev/zero) or a special file (a FIFO) is refused
// with an error that names it, and nothing is read through it.
func TestBriefsReadRegularFilesOnly(t *testing.T) {
	const secret = "OPENAI_API_KEY=sk-secret-of-the-user"
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		make func(p string) error
		kind string
	}{
		{"link-outside", func(p string) error { return os.Symlink(outside, p) }, "a symbolic link"},
		{"link-environ", func(p string) error { return os.Symlink("/proc/self/environ", p) }, "a symbolic link"},
		{"link-zero", func(p string) error { return os.Symlink("/dev/zero", p) }, "a symbolic link"},
		{"fifo", mkfifo, "a named pipe (FIFO)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "acme.txt"), []byte("Acme bills its customers."), 0o644); err != nil {
				t.Fatal(err)
			}
			e := filepath.Join(dir, "e.txt")
			if err := c.make(e); err != nil {
				t.Skipf("cannot make %s here: %v", c.kind, err)
			}
			bs, err := loadBriefsWithin(t, dir)
			want := e + " is " + c.kind + ": briefs are read from regular files only"
			if err == nil || err.Error() != want {
				t.Fatalf("LoadBriefs: %d briefs, error %v; want the error %q", len(bs), err, want)
			}
			for _, b := range bs {
				if strings.Contains(b.Brief, "sk-secret") || strings.Contains(b.Brief, "PATH=") {
					t.Errorf("brief %s was read through the link: %.60q", b.ID, b.Brief)
				}
			}
		})
	}
}

// TestBriefNamedOnTheCommandLine: a link named on the command line is read
// as the regular file it leads to (the user chose it), with that file's
// bound; a FIFO or a device named there is refused without being opened.
func TestBriefNamedOnTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "drafts", "v3.txt")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("Acme bills its customers.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "acme.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	bs, err := loadBriefsWithin(t, link)
	if err != nil || len(bs) != 1 || bs[0].ID != "acme" || bs[0].Brief != "Acme bills its customers." {
		t.Fatalf("LoadBriefs(link): %+v, %v", bs, err)
	}
	if _, err := loadBriefsWithin(t, "/dev/zero"); err == nil || err.Error() != "/dev/zero is a device: briefs are read from regular files only" {
		t.Errorf("LoadBriefs(/dev/zero): %v", err)
	}
	fifo := filepath.Join(dir, "fifo.txt")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	if _, err := loadBriefsWithin(t, fifo); err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO): briefs are read from regular files only") {
		t.Errorf("LoadBriefs(fifo): %v", err)
	}
}

// TestBriefSizeIsBounded is issue 20's item 4: a brief file, or a JSONL
// file of briefs, over its bound is refused with an error that says so,
// and read no further than its bound (the files are sparse; an unbounded
// read of /dev/zero is the same read without an end).
func TestBriefSizeIsBounded(t *testing.T) {
	for _, c := range []struct {
		name string
		size int64
		want string
	}{
		{"big.txt", MaxBriefBytes + 1, "has more than 262144 bytes, the bound of a brief"},
		{"big.jsonl", MaxBriefsFileBytes + 1, "has more than 67108864 bytes, the bound of a JSONL file of briefs"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, c.name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(c.size); err != nil {
			t.Fatal(err)
		}
		f.Close()
		args := []string{p}
		if c.size < 1<<20 {
			args = append(args, dir) // the 64 MiB one is read once
		}
		for _, arg := range args {
			if _, err := loadBriefsWithin(t, arg); err == nil || err.Error() != p+" "+c.want {
				t.Errorf("LoadBriefs(%s): %v, want %q", arg, err, p+" "+c.want)
			}
		}
	}
	// A brief of a JSONL file has the bound of a brief too.
	p := filepath.Join(t.TempDir(), "long.jsonl")
	line := `{"id": "long", "brief": "` + strings.Repeat("x", MaxBriefBytes+1) + `"}` + "\n"
	if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := loadBriefsWithin(t, p); err == nil || !strings.Contains(err.Error(), "brief long has 262145 bytes, more than the bound of a brief (262144)") {
		t.Errorf("LoadBriefs(long.jsonl): %v", err)
	}
}
