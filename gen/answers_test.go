package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// answerCandidates are final messages graded on both sides, beside the
// golden answer.
var answerCandidates = []string{"", "none", "no", "yes", "1244.5", "It is 1,244.50 EUR, due 14 March 2026.", "l1, l2 and yes", "L1 L2", "1244.50 on 2026-03-14"}

// answerRun is what compiler/eval says about a task after its golden
// solution: the golden answer and, per final message, each assertion's
// verdict.
type answerRun struct {
	Task     string
	Golden   string
	Answers  []string
	Verdicts [][]bool
}

// TestAnswersDifferential holds the generated grading of answers to
// compiler/eval's on testdata/answers_edges.world: the golden answer after
// each task's golden solution, and the verdict of every assertion on the
// golden answer and on answerCandidates.
func TestAnswersDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	answersDifferential(t, testdataWorld(t, "answers_edges.world"), answerCandidates)
}

// answersDifferential holds the generated grading of w's answers to
// compiler/eval's: the golden answer after the golden solution of each
// task that expects one, and the verdict of every assertion on it and on
// candidates.
func answersDifferential(t *testing.T, w *ir.World, candidates []string) {
	t.Helper()
	var runs []answerRun
	for _, task := range w.Tasks {
		if !eval.ExpectsAnswer(task) {
			continue
		}
		res, err := eval.RunSolution(w, task)
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() {
			t.Fatalf("task %s: %s", task.Name, res.Problem())
		}
		start, err := eval.NewState(w, task)
		if err != nil {
			t.Fatal(err)
		}
		run := answerRun{Task: task.Name, Golden: res.Final.GoldenAnswer(task)}
		for _, a := range append([]string{run.Golden}, candidates...) {
			g := res.Final.GradeAnswer(task, start, nil, &a)
			var v []bool
			for _, r := range g.Results {
				v = append(v, r.Passed)
			}
			run.Answers = append(run.Answers, a)
			run.Verdicts = append(run.Verdicts, v)
		}
		runs = append(runs, run)
	}
	data, err := json.Marshal(runs)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, mustGenerate(t, w))
	if err := os.WriteFile(filepath.Join(dir, "answers.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "answers_test.go"), []byte(fmt.Sprintf(answersTestFile, w.Name)), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(moduleRoot(t), dir)
	out, ok := goCmd(t, "test", "-count=1", "-run", "TestAnswers", "./"+filepath.ToSlash(rel))
	if !ok {
		t.Fatalf("%s", bytes.TrimSpace([]byte(out)))
	}
}

const answersTestFile = `package %s

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/worldc/worldc/runtime"
)

func TestAnswers(t *testing.T) {
	data, err := os.ReadFile("answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		Task     string
		Golden   string
		Answers  []string
		Verdicts [][]bool
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	for _, run := range runs {
		var info runtime.TaskInfo
		for _, ti := range (World{}).Tasks() {
			if ti.ID == run.Task {
				info = ti
			}
		}
		if !info.Answer {
			t.Errorf("task %%s: TaskInfo.Answer is not set", run.Task)
		}
		ep, err := NewEpisode(run.Task)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range info.Solution {
			if o := ep.Call(c.Tool, c.Args); !o.OK {
				t.Fatalf("task %%s: %%s failed: %%v", run.Task, c.Tool, o.Err())
			}
		}
		if got := ep.GoldenAnswer(); got != run.Golden {
			t.Errorf("task %%s: golden answer %%q, compiler/eval says %%q", run.Task, got, run.Golden)
		}
		for i, a := range run.Answers {
			g := ep.GradeAnswer(a)
			for j, r := range g.Assertions {
				if r.Passed != run.Verdicts[i][j] {
					t.Errorf("task %%s, answer %%q, assertion %%q: %%v, compiler/eval says %%v (%%s)", run.Task, a, r.Text, r.Passed, run.Verdicts[i][j], r.Detail)
				}
			}
		}
		if g := runtime.GradeGolden(ep); !g.Solved() {
			t.Errorf("task %%s: the golden answer does not solve it: %%v", run.Task, g.Failed())
		}
	}
}
`
