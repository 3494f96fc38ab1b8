package tasks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// dispatchSpec is a small world made for the programs, solvers and
// questions: drivers and jobs of depots. RATES and WEIGHTS are replaced
// by the test: equal values leave a solver nothing to tell the
// candidates apart by.
const dispatchSpec = `world dispatch {
  title    "Dispatch"
  industry "logistics"
  country  "DE"
  currency "EUR"
  today    2026-03-14
}

service ops "Operations" {
  entity Depot key code "A depot" {
    code string
    name string
  }
  entity Driver "A driver" {
    name    string
    depot   ref Depot
    rate    money >= 0
    on_duty bool = true
  }
  entity Job "A delivery job" {
    ref_no string unique
    depot  ref Depot
    weight int >= 0
    status enum { open assigned cancelled } = open
    driver ref Driver?
  }
  tool find_depots: search Depot by name "Find depots by name"
  tool find_drivers: search Driver by name, depot, on_duty "Find drivers"
  tool find_jobs: search Job by ref_no, depot, status "Find jobs"
  tool assign_job(job: ref Job, driver: ref Driver) "Assign an open job to a driver of its depot" {
    require job.status == open else "only an open job can be assigned"
    require driver.on_duty else "the driver is off duty"
    require driver.depot == job.depot else "the driver works at another depot"
    set job.driver = driver
    set job.status = assigned
    return job
  }
  tool cancel_job(job: ref Job) "Cancel an open job" {
    require job.status == open else "only an open job can be cancelled"
    set job.status = cancelled
    return job
  }
}

seed {
  ops.Depot ham { code: "HAM", name: "Hamburg" }
  ops.Driver dr_anna { name: "Anna Berg", depot: ham, rate: R1 }
  ops.Driver dr_ben { name: "Ben Vogt", depot: ham, rate: R2 }
  ops.Driver dr_cem { name: "Cem Aksoy", depot: ham, rate: R3, on_duty: false }
  ops.Job j1 { ref_no: "J-101", depot: ham, weight: W1 }
  ops.Job j2 { ref_no: "J-102", depot: ham, weight: W2 }
  ops.Job j3 { ref_no: "J-103", depot: ham, weight: W3 }
  ops.Job j4 { ref_no: "J-104", depot: ham, weight: W4 }
}
`

// dispatch checks the dispatch world with the given driver rates and job
// weights and returns it, its source and its path.
func dispatch(t *testing.T, rates, weights []string) (*ir.World, []byte, string) {
	t.Helper()
	src := dispatchSpec
	for i, r := range rates {
		src = strings.Replace(src, "R"+string(rune('1'+i)), r, 1)
	}
	for i, w := range weights {
		src = strings.Replace(src, "W"+string(rune('1'+i)), w, 1)
	}
	path := filepath.Join(t.TempDir(), "dispatch.world")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	w, ds := compiler.CheckSource(path, []byte(src))
	if ds.HasErrors() || w == nil {
		t.Fatalf("the dispatch world does not check:\n%s", ds.Text())
	}
	return w, []byte(src), path
}

// TestSolverTie: when two feasible candidates tie on every number (and
// the only other one breaks a rule), no solver task is made, and the
// drop is counted as solver_tie.
func TestSolverTie(t *testing.T) {
	w, _, _ := dispatch(t, []string{"30", "30", "30"}, []string{"5", "5", "5", "5"})
	x, err := newSynth(w, Options{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	ties := 0
	for i := 0; i < 200; i++ {
		tk, reason := x.sampleSolver()
		if tk != nil {
			t.Fatalf("a solver task on tied candidates: %s", tk.instruction)
		}
		if reason == "solver_tie" {
			ties++
		}
	}
	if ties == 0 {
		t.Error("no draw was dropped as solver_tie")
	}
}

// TestSolverUnique: a solver task's answer is the one candidate that
// gives its end state: every other candidate of the group, put in its
// place, fails or ends elsewhere (so the rubric, from the state diff,
// accepts exactly one); and the cheapest driver, off duty, is never the
// answer.
func TestSolverUnique(t *testing.T) {
	w, _, _ := dispatch(t, []string{"30", "25", "20"}, []string{"5", "12", "20", "3"})
	x, err := newSynth(w, Options{N: 1, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	for i := 0; i < 200; i++ {
		tk, _ := x.sampleSolver()
		if tk == nil {
			continue
		}
		made++
		final := tk.calls[len(tk.calls)-1]
		// The chosen parameter and record are the second of the
		// task's records (see sampleSolver).
		var q *ir.Param
		name, chosen, _ := strings.Cut(tk.records[1], ":")
		for _, p := range final.tool.Params {
			if p.Name == name {
				q = p
			}
		}
		if q == nil {
			t.Fatalf("%s: no chosen parameter", tk.instruction)
		}
		if chosen == "dr_cem" {
			t.Errorf("%s: the off-duty driver was chosen", tk.instruction)
		}
		e := x.byTool[final.tool].names[q]
		others := 0
		for _, c := range tk.calls {
			if !c.lookup || c.tool.Entity != e {
				continue
			}
			for _, m := range resultRecords(c.obs, e) {
				id := recordID(m, e)
				if id == chosen {
					continue
				}
				others++
				args := append([]arg(nil), final.args...)
				argOf(args, q).v = id
				st := x.start.Clone()
				if _, terr, _ := x.call(st, final.tool, args); terr == nil && st.Equal(tk.end) {
					t.Errorf("%s: %s ends where the answer %s does", tk.instruction, id, chosen)
				}
			}
		}
		if others < 2 {
			t.Errorf("%s: %d other candidates", tk.instruction, others)
		}
	}
	if made == 0 {
		t.Fatal("no solver task on the dispatch world")
	}
}

// TestBranchProgram: a program with a branch decides on every job of a
// group by a condition the words state; doing the first write on every
// job (not looking) ends elsewhere than the golden run.
func TestBranchProgram(t *testing.T) {
	w, _, _ := dispatch(t, []string{"30", "25", "20"}, []string{"5", "12", "20", "3"})
	x, err := newSynth(w, Options{N: 1, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	for i := 0; i < 100; i++ {
		tk, _ := x.sampleBranch()
		if tk == nil {
			continue
		}
		made++
		if tk.profile.Branches < 2 || tk.profile.LoopIterations < 1 || !strings.Contains(tk.instruction, "if ") {
			t.Errorf("%s: branches %d, iterations %d", tk.instruction, tk.profile.Branches, tk.profile.LoopIterations)
		}
		var list *call
		var writes []*call
		for _, c := range tk.calls {
			switch {
			case c.lookup && c.tool.Entity != nil && c.tool.Entity.Name == "Job":
				list = c
			case !c.lookup:
				writes = append(writes, c)
			}
		}
		if list == nil || len(writes) == 0 {
			t.Fatalf("%s: no group listed or no write", tk.instruction)
		}
		job := list.tool.Entity
		members := resultRecords(list.obs, job)
		if len(writes) == len(members) && writes[0].tool == writes[len(writes)-1].tool {
			sameTool := true
			for _, c := range writes {
				sameTool = sameTool && c.tool == writes[0].tool
			}
			if sameTool {
				t.Errorf("%s: the same write on every job: no branch", tk.instruction)
			}
		}
		// The naive run: the first write on every member.
		st := x.start.Clone()
		for _, m := range members {
			args := append([]arg(nil), writes[0].args...)
			for i := range args {
				if x.byTool[writes[0].tool].names[args[i].p] == job {
					args[i].v = recordID(m, job)
				}
			}
			x.call(st, writes[0].tool, args)
		}
		if st.Equal(tk.end) {
			t.Errorf("%s: the first write on every job ends where the golden run does", tk.instruction)
		}
	}
	if made == 0 {
		t.Fatal("no program with a branch on the dispatch world")
	}
}

// TestDispatchWorld: every origin on the dispatch world, verified as on
// the example worlds.
func TestDispatchWorld(t *testing.T) {
	w, src, path := dispatch(t, []string{"30", "25", "20"}, []string{"5", "12", "20", "3"})
	r, err := Synthesize(w, src, Options{N: 30, Seed: 1, Filename: path})
	if err != nil {
		t.Fatal(err)
	}
	w2, ds := compiler.CheckSource(path, r.Spec)
	if ds.HasErrors() || w2 == nil {
		t.Fatalf("the written spec does not check:\n%s", ds.Text())
	}
	verify(t, r, w, w2)
	for _, o := range []string{OriginDAG, OriginProgram, OriginSolver, OriginQuestion} {
		if r.Summary.Origins[o] == 0 {
			t.Errorf("no task of origin %s: %v, few: %v", o, r.Summary.Origins, r.Summary.Few)
		}
	}
}
