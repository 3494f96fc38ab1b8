package compiler

import (
	"os"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// TestExampleRepairTask: insurance_claims' decide_overdue_windscreen_claim
// runs on its own clock (2026-05-22), on which its start state breaks
// claims_acknowledged_in_time (SIN-2026-0419 has waited 12 working days,
// two public holidays not counted) while the world seed, on the world's
// clock, keeps it: the violation is the task's job, and its rubric grades
// the repair.
func TestExampleRepairTask(t *testing.T) {
	const path = "../testdata/worlds/insurance_claims.world"
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, ds := CheckSource(path, src)
	if w == nil || ds.HasErrors() {
		t.Fatalf("%s", ds.Text())
	}
	var task *ir.Task
	for _, x := range w.Tasks {
		if x.Name == "decide_overdue_windscreen_claim" {
			task = x
		}
	}
	if task == nil || task.Today != "2026-05-22" || task.Now != "2026-05-22T00:00:00Z" {
		t.Fatalf("task %+v: want its own clock 2026-05-22", task)
	}
	broken := func(s *eval.State) []string {
		var out []string
		for _, v := range s.Violations() {
			out = append(out, v.Invariant+" "+v.ID)
		}
		return out
	}
	seed, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := broken(seed); len(got) != 0 {
		t.Errorf("the world seed breaks %v", got)
	}
	start, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	if got := broken(start); len(got) != 1 || got[0] != "claims_acknowledged_in_time clm_0419" {
		t.Errorf("the task's start state breaks %v, want claims_acknowledged_in_time by clm_0419", got)
	}
	if g := start.Grade(task, start); g.Passed != 0 {
		t.Errorf("at the start %d of %d assertions hold, want none", g.Passed, g.Total)
	}
}
