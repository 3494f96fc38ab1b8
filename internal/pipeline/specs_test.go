package pipeline

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/testfs"
)

func TestExpandPaths(t *testing.T) {
	dir := t.TempDir()
	testfs.WriteFiles(t, dir, map[string]string{
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
		{[]string{"-", "-"}, []string{StdinName}},
	}
	for _, tt := range tests {
		files, err := Expand(cwd, tt.args)
		if err != nil {
			t.Errorf("Expand(%q): %v", tt.args, err)
			continue
		}
		var got []string
		for _, f := range files {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("Expand(%q) = %q, want %q", tt.args, got, tt.want)
		}
	}
	for _, bad := range [][]string{{"missing.world"}, {"z.world/..."}, {"../outside/../a/b/c/deeper.world/..."}} {
		if _, err := Expand(cwd, bad); err == nil {
			t.Errorf("Expand(%q): no error", bad)
		} else if _, ok := err.(*UsageError); !ok {
			t.Errorf("Expand(%q): %T is not a usage error", bad, err)
		}
	}
}
