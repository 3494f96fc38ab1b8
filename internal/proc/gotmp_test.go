package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoWorkDir(t *testing.T) {
	gotmp, tmp := t.TempDir(), t.TempDir()
	for _, tt := range []struct {
		env  []string
		base string
	}{
		{[]string{"TMPDIR=" + tmp, "GOTMPDIR=" + gotmp}, gotmp},
		{[]string{"GOTMPDIR=/nowhere", "TMPDIR=" + tmp, "GOTMPDIR=" + gotmp}, gotmp},
		{[]string{"GOTMPDIR=", "TMPDIR=" + tmp}, tmp},
	} {
		env, remove, err := GoWorkDir(tt.env)
		if err != nil {
			t.Fatal(err)
		}
		dir := lookup(env, "GOTMPDIR")
		if filepath.Dir(dir) != tt.base || !strings.HasPrefix(filepath.Base(dir), "worldc-go-") {
			t.Errorf("GoWorkDir(%q): GOTMPDIR=%s, want a worldc-go-* directory in %s", tt.env, dir, tt.base)
		}
		if len(env) != len(tt.env)+1 || strings.Join(env[:len(tt.env)], " ") != strings.Join(tt.env, " ") {
			t.Errorf("GoWorkDir(%q) changed the environment it was given: %q", tt.env, env)
		}
		// What a killed go command leaves: its $WORK, with files.
		if err := os.MkdirAll(filepath.Join(dir, "go-build1", "b001"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "go-build1", "b001", "_pkg_.a"), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := remove(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Errorf("%s is still there after the removal: %v", dir, err)
		}
	}
	if _, _, err := GoWorkDir([]string{"GOTMPDIR=" + filepath.Join(tmp, "missing")}); err == nil {
		t.Error("GoWorkDir in a directory that does not exist: no error")
	}
}

// The go command takes the directory for its work directory.
func TestGoWorkDirGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	env, remove, err := GoWorkDir(append(os.Environ(), "GOTMPDIR="+t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer remove()
	cmd := CommandContext(context.Background(), "go", "env", "GOTMPDIR")
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), lookup(env, "GOTMPDIR"); got != want {
		t.Errorf("go env GOTMPDIR = %s, want %s", got, want)
	}
}
