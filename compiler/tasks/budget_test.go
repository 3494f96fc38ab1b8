package tasks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler"
)

// TestAttemptBudget holds the sampling's work per kept task on red-team
// worlds whose distinct tasks run out before 100: drawing on after a
// world has given what it has cost lago_rail_travel 6200 attempts and
// 12 CPU-seconds for 87 tasks (71 attempts a task; a chain's first write
// that only led to duplicates or broken invariants was made again and
// again). The bounds are counts, not time: attempts and tool calls
// executed per kept task, and a note that says why fewer were kept.
func TestAttemptBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("synthesises 100 tasks on four worlds")
	}
	const (
		maxAttemptsPerTask = 40
		maxCallsPerTask    = 400
	)
	for _, name := range []string{"lago_rail_travel", "kista_leases", "prairie_b2b_supply", "dublin_council_complaints"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(redteamDir, name+".world")
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			data := os.DirFS(redteamDir)
			w, ds := compiler.CheckSource(path, src, compiler.WithData(data))
			if ds.HasErrors() {
				t.Fatalf("%s does not check:\n%s", path, ds.Text())
			}
			x, err := newSynth(w, Options{N: 100, Seed: 1, Filename: path, Data: data})
			if err != nil {
				t.Fatal(err)
			}
			cands := x.sample()
			r, err := x.finish(src, cands)
			if err != nil {
				t.Fatal(err)
			}
			s := r.Summary
			if s.Kept < 40 {
				t.Errorf("kept %d tasks, want at least 40: %s", s.Kept, s.Note)
			}
			kept := max(s.Kept, 1)
			t.Logf("kept %d in %d attempts, %d calls (%.1f attempts, %.0f calls a task)", s.Kept, s.Attempts, x.executed,
				float64(s.Attempts)/float64(kept), float64(x.executed)/float64(kept))
			if s.Attempts > maxAttemptsPerTask*kept {
				t.Errorf("%d attempts for %d tasks, want at most %d a task", s.Attempts, s.Kept, maxAttemptsPerTask)
			}
			if x.executed > maxCallsPerTask*kept {
				t.Errorf("%d tool calls for %d tasks, want at most %d a task", x.executed, s.Kept, maxCallsPerTask)
			}
			if s.Kept < s.Wanted && (!x.spentAll || s.Note == "") {
				t.Errorf("kept %d of %d, and the sampling did not stop for having drawn all it could (spent %v); note %q", s.Kept, s.Wanted, x.spentAll, s.Note)
			}
		})
	}
}
