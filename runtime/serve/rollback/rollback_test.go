package rollback_test

import (
	"errors"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
	"github.com/worldc/worldc/runtime/serve/rollback"
)

// TestStart: for every k of the task's golden solution, the episode
// started after k steps has the golden trajectory's state hash at step k
// (the fresh start's for k = 0), its k steps are the golden ones marked
// given, and the rest of the solution then reaches a full reward.
func TestStart(t *testing.T) {
	w := worldtest.World
	task, err := rollback.Task(w, "settle_acme")
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := w.NewEpisode(task.ID)
	startHash := fresh.StateHash()
	golden, err := runtime.Run(fresh, task.Solution)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k <= len(task.Solution); k++ {
		ep, steps, err := rollback.Start(w, task, k)
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		want := startHash
		if k > 0 {
			want = golden[k-1].StateHash
		}
		if h := ep.StateHash(); h != want {
			t.Errorf("k=%d: state hash %s, the golden trajectory's is %s", k, h, want)
		}
		if len(steps) != k {
			t.Fatalf("k=%d: %d steps", k, len(steps))
		}
		for i, s := range steps {
			if !s.Given || s.Tool != golden[i].Tool || string(s.Args) != string(golden[i].Args) || s.StateHash != golden[i].StateHash || !s.Observation.Equal(golden[i].Observation) {
				t.Errorf("k=%d step %d: %+v, golden %+v", k, i+1, s, golden[i])
			}
		}
		// The agent's part: the remaining golden calls, with the ids the
		// given steps bound (replayed from the golden trajectory's args).
		for _, s := range golden[k:] {
			ep.Call(s.Tool, s.Args)
		}
		if g := ep.Grade(); !g.Solved() {
			t.Errorf("k=%d: the rest of the solution does not solve the task: %+v", k, g)
		}
	}
}

func TestStartErrors(t *testing.T) {
	w := worldtest.World
	task, _ := rollback.Task(w, "settle_acme")
	for _, k := range []int{-1, len(task.Solution) + 1} {
		var re *rollback.RangeError
		if _, _, err := rollback.Start(w, task, k); !errors.As(err, &re) || re.Steps != 3 || re.Prefix != k {
			t.Errorf("prefix %d: %v", k, err)
		}
	}
	seed, _ := rollback.Task(w, "")
	if _, _, err := rollback.Start(w, seed, 1); err == nil {
		t.Error("prefix 1 of the world seed: no error")
	}
	if ep, steps, err := rollback.Start(w, seed, 0); err != nil || ep == nil || steps != nil {
		t.Errorf("the world seed: %v %v", err, steps)
	}
	if _, err := rollback.Task(w, "nope"); err == nil {
		t.Error("unknown task: no error")
	}
}
