package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/worldc/worldc/internal/cache"
)

// TestHolidaysFileIsADependency: a world's `holidays from "FILE"` is read
// through the spec directory's root like a load's data file, so the check
// records it among its dependencies (with its hash) and the verdict cache
// sees a change to it.
func TestHolidaysFileIsADependency(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "w.world")
	src := `world w { title "W" today 2026-03-30 holidays from "cal/holidays.csv" }
service s "S" {
  entity E { due date }
  tool get_e: get E
  tool due_in(e: ref E, n: int) "Set the due date" {
    set e.due = add_working_days(today, n)
    return e
  }
}
seed { s.E e1 { due: 2026-03-01 } }
`
	if err := os.MkdirAll(filepath.Join(dir, "cal"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("w.world", src)
	write("cal/holidays.csv", "date\n2026-04-03\n")
	check := func() Checked {
		t.Helper()
		r := Check([]Spec{{Name: "w.world", Path: spec}}, nil)[0]
		if len(r.Errors()) > 0 {
			t.Fatalf("check: %v", r.Diags)
		}
		return r
	}
	first := check()
	if !slices.Equal(first.World.Holidays, []string{"2026-04-03"}) {
		t.Errorf("holidays %v", first.World.Holidays)
	}
	i := slices.IndexFunc(first.Deps, func(d cache.FileSum) bool {
		return filepath.ToSlash(d.Path) == "cal/holidays.csv" || filepath.Base(d.Path) == "holidays.csv"
	})
	if i < 0 {
		t.Fatalf("deps %v lack the holidays file", first.Deps)
	}
	write("cal/holidays.csv", "date\n2026-04-03\n2026-04-06\n")
	second := check()
	j := slices.IndexFunc(second.Deps, func(d cache.FileSum) bool { return d.Path == first.Deps[i].Path })
	if j < 0 || second.Deps[j].SHA256 == first.Deps[i].SHA256 {
		t.Errorf("the holidays file's hash did not follow its content: %v then %v", first.Deps, second.Deps)
	}
}
