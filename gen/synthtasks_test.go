package gen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/internal/specgen"
)

// TestSynthesizedTasksInThePackage is issue 21's property test over the
// `worldc synth` corpus (and two example and two red-team worlds), in the generated
// package, not only in the evaluator: the tasks `worldc tasks` writes
// check clean as part of the spec; each one's rubric is false at its start
// (a refusal's is `unchanged`) and its golden solution reaches reward 1 in
// the evaluator; the generated package's own tests pass (their
// conformance checks replay every golden solution and require reward 1);
// and the evaluator and the generated code agree call by call on every
// task (observations, states, invariants, each rubric assertion and the
// reward, at the start and after each step: the differential test).
func TestSynthesizedTasksInThePackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	type spec struct {
		path string
		src  []byte
	}
	var specs []spec
	dir := t.TempDir()
	for i := range 4 {
		name, src := specgen.CorpusSpec(1, i)
		specs = append(specs, spec{filepath.Join(dir, name+".world"), []byte(src)})
	}
	// Two example worlds, and two of the red team's, written from briefs
	// as an LLM would and never tuned for synthesis (money, dates and
	// times, working days from a holiday file, rules on actions).
	for _, name := range []string{"worlds/insurance_claims", "worlds/it_service_desk", "redteam/worlds/iberia_hr_leave", "redteam/worlds/lago_rail_travel"} {
		path := filepath.Join(moduleRoot(t), "testdata", filepath.FromSlash(name)+".world")
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, spec{path, src})
	}
	root := scratch(t)
	var dirs []string
	synthesised := 0
	for _, sp := range specs {
		data := os.DirFS(filepath.Dir(sp.path))
		w, ds := compiler.CheckSource(sp.path, sp.src, compiler.WithData(data))
		if w == nil {
			t.Fatalf("%s does not check:\n%s", sp.path, ds.Text())
		}
		r, err := tasks.Synthesize(w, sp.src, tasks.Options{N: 30, Seed: 1, Filename: sp.path, Data: data})
		if err != nil {
			t.Fatalf("%s: %v", sp.path, err)
		}
		w2, ds := compiler.CheckSource(sp.path, r.Spec, compiler.WithData(data))
		if w2 == nil || ds.HasErrors() {
			t.Fatalf("%s: the written spec does not check:\n%s", sp.path, ds.Text())
		}
		byName := map[string]*ir.Task{}
		for _, task := range w2.Tasks {
			byName[task.Name] = task
		}
		for _, m := range r.Tasks {
			task := byName[m.ID]
			if task == nil {
				t.Fatalf("%s: task %s is not in the written spec", w.Name, m.ID)
			}
			synthesised++
			start, err := eval.NewState(w2, task)
			if err != nil {
				t.Fatal(err)
			}
			if m.Origin != tasks.OriginRefusal {
				if g := start.Grade(task, start); g.Reward >= 1 {
					t.Errorf("%s: task %s: the rubric holds at the start", w.Name, m.ID)
				}
			}
			if res, err := eval.RunSolution(w2, task); err != nil || !res.OK() || res.Grade.Reward != 1 {
				t.Errorf("%s: task %s: the golden solution is not golden in the evaluator (%v)", w.Name, m.ID, err)
			}
		}
		// The generated package with the differential test beside its own.
		runs, err := json.MarshalIndent(evalRuns(t, w2, nil, nil), "", " ")
		if err != nil {
			t.Fatal(err)
		}
		pkg := filepath.Join(root, w2.Name)
		writeFiles(t, pkg, mustGenerate(t, w2))
		if err := os.WriteFile(filepath.Join(pkg, "difftest.json"), runs, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "difftest_test.go"), []byte(fmt.Sprintf(diffTestFile, w2.Name)), 0o644); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, pkg)
	}
	if synthesised < 100 {
		t.Errorf("only %d tasks synthesised over %d worlds: the test tests little", synthesised, len(specs))
	}
	// go vet, then every test of every package: conformance (each golden
	// solution replayed and graded in the package) and the differential.
	vetAndTest(t, dirs...)
}
