package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// checked holds the example worlds, checked once for all the tests
// (checking tau2_retail replays its 114 solutions: seconds).
var checked struct {
	once   sync.Once
	worlds []*ir.World
	err    string
}

// specs checks every example world.
func specs(t *testing.T) []*ir.World {
	t.Helper()
	checked.once.Do(func() {
		files, _ := filepath.Glob("../../testdata/worlds/*.world")
		if len(files) == 0 {
			checked.err = "no example worlds"
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				checked.err = err.Error()
				return
			}
			w, ds := compiler.CheckSource(f, src)
			if w == nil {
				checked.err = fmt.Sprintf("%s does not check:\n%s", f, ds.Text())
				return
			}
			checked.worlds = append(checked.worlds, w)
		}
	})
	if checked.err != "" {
		t.Fatal(checked.err)
	}
	return checked.worlds
}

func TestCorpusIsCovered(t *testing.T) {
	for _, w := range specs(t) {
		if compiled[w.Name] == nil {
			t.Errorf("world %s is not in the differential test: add its generated package to worlds_test.go", w.Name)
		}
	}
}

// TestDescriptionsAgree compares what the checked spec says about each
// world with what its generated package tells agents and harnesses: the
// policy document (verbatim with `policy from`, else the invariants'
// texts) and each task's description and metadata.
func TestDescriptionsAgree(t *testing.T) {
	for _, w := range specs(t) {
		gw := compiled[w.Name]
		if gw == nil {
			continue
		}
		t.Run(w.Name, func(t *testing.T) {
			if w.PolicyFile != "" {
				if gw.Policy() != w.Policy {
					t.Errorf("Policy() is not the document %s", w.PolicyFile)
				}
			} else {
				for _, inv := range w.Invariants {
					if !strings.Contains(gw.Policy(), strings.Join(strings.Fields(inv.Policy), " ")) {
						t.Errorf("Policy() lacks invariant %s's text", inv.Name)
					}
				}
				for _, r := range w.Rules {
					if !strings.Contains(gw.Policy(), strings.Join(strings.Fields(r.Policy), " ")) {
						t.Errorf("Policy() lacks rule %s's text", r.Name)
					}
				}
			}
			infos := gw.Tasks()
			if len(infos) != len(w.Tasks) {
				t.Fatalf("%d tasks in the spec, %d in the package", len(w.Tasks), len(infos))
			}
			for i, task := range w.Tasks {
				info := infos[i]
				var meta runtime.Meta
				for _, e := range task.Meta {
					meta = append(meta, runtime.MetaEntry{Key: e.Key, Value: e.Value})
				}
				want := runtime.TaskInfo{ID: task.Name, Persona: task.Persona, Instruction: task.Instruction, Meta: meta,
					Tags: runtime.TaskTags{Domain: task.Domain, Capabilities: task.Capabilities, Difficulty: task.Difficulty}, Answer: eval.ExpectsAnswer(task)}
				if task.Now != "" {
					now, err := runtime.ParseDateTime(task.Now)
					if err != nil {
						t.Fatal(err)
					}
					want.Now = &now
				}
				info.Solution = nil
				if !reflect.DeepEqual(info, want) {
					t.Errorf("task %s: the package describes it as\n%+v\nthe spec as\n%+v", task.Name, info, want)
				}
			}
		})
	}
}

// TestDifferential compares compile-time and run-time semantics.
func TestDifferential(t *testing.T) {
	for _, w := range specs(t) {
		gw := compiled[w.Name]
		if gw == nil {
			continue
		}
		t.Run(w.Name, func(t *testing.T) {
			t.Parallel()
			if testing.Short() && w.Name == "tau2_retail" {
				t.Skip("the tau2 world takes most of this test's time: make test runs it, -short does not")
			}
			tasks := append([]*ir.Task{nil}, w.Tasks...)
			for _, task := range tasks {
				name := "seed"
				if task != nil {
					name = task.Name
				}
				t.Run(name, func(t *testing.T) { compareTask(t, w, gw, task) })
			}
		})
	}
}

func compareTask(t *testing.T, w *ir.World, gw runtime.World, task *ir.Task) {
	st, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	taskID := ""
	if task != nil {
		taskID = task.Name
	}
	ep, err := gw.NewEpisode(taskID)
	if err != nil {
		t.Fatal(err)
	}
	start := st.Clone()
	var tr eval.Trace
	tr.Start(st)
	compareStates(t, "start", w, task, st, start, &tr, ep)
	if task == nil || task.Solution == nil {
		return
	}
	res, err := eval.RunSolution(w, task)
	if err != nil {
		t.Fatal(err)
	}
	var info runtime.TaskInfo
	for _, ti := range gw.Tasks() {
		if ti.ID == task.Name {
			info = ti
		}
	}
	if len(info.Solution) != len(task.Solution) {
		t.Fatalf("solution has %d calls in the spec, %d in the generated package", len(task.Solution), len(info.Solution))
	}
	bound := map[string]string{}
	for i, step := range res.Steps {
		label := fmt.Sprintf("after step %d (%s)", i+1, step.Step.Tool.Name)
		tr.Before(st, step.Step.Tool, step.Args)
		data, terr := st.Call(step.Step.Tool, step.Args)
		tr.After(st, step.Step.Tool.Name, terr == nil)
		want := eval.ObservationJSON(data, terr)
		if !bytes.Equal(want, step.Observation()) {
			t.Fatalf("%s: the evaluator is not deterministic: %s vs %s", label, want, step.Observation())
		}
		call := info.Solution[i]
		args, err := bindArgs(call, bound)
		if err != nil {
			t.Fatalf("%s: %v", label, err)
		}
		obs := ep.Call(call.Tool, args)
		got, err := json.Marshal(obs)
		if err != nil {
			t.Fatal(err)
		}
		if !jsonEqual(want, got) {
			t.Errorf("%s: observations differ\ncompile time: %s\nrun time:     %s", label, want, got)
		}
		if call.Bind != "" && obs.OK {
			var rec struct{ ID string }
			if err := json.Unmarshal(obs.Data, &rec); err == nil {
				bound[call.Bind] = rec.ID
			}
		}
		compareStates(t, label, w, task, st, start, &tr, ep)
		if t.Failed() {
			return
		}
	}
}

// bindArgs returns a call's arguments with bound ids filled in.
func bindArgs(call runtime.Call, bound map[string]string) (json.RawMessage, error) {
	if len(call.Uses) == 0 {
		return call.Args, nil
	}
	args := map[string]json.RawMessage{}
	if err := json.Unmarshal(call.Args, &args); err != nil {
		return nil, err
	}
	for _, u := range call.Uses {
		id, ok := bound[u.Name]
		if !ok {
			return nil, fmt.Errorf("%s is not bound", u.Name)
		}
		args[u.Arg], _ = json.Marshal(id)
	}
	return json.Marshal(args)
}

// compareStates compares the whole state, the invariant verdicts (those
// of the always-invariants along the calls so far, which tr followed,
// included) and the rubric on both sides.
func compareStates(t *testing.T, label string, w *ir.World, task *ir.Task, st, start *eval.State, tr *eval.Trace, ep runtime.Episode) {
	t.Helper()
	// Both sides usually write the same bytes; decoding a large state
	// (tau2_retail's 1.4 MB) to compare values is the slow path.
	if x, y := st.JSON(), ep.Snapshot(); !bytes.Equal(x, y) && !jsonEqual(x, y) {
		t.Errorf("%s: states differ at %s", label, firstDiff(x, y))
	}
	var want, got []string
	for _, v := range st.Violations() {
		want = append(want, v.Invariant+" "+v.Entity+" "+v.ID)
	}
	for _, v := range ep.Violations() {
		got = append(got, v.Invariant+" "+v.Entity+" "+v.ID)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		t.Errorf("%s: invariant verdicts differ\ncompile time: %v\nrun time:     %v", label, want, got)
	}
	rg := ep.Grade()
	want, got = nil, nil
	for _, v := range tr.Violations {
		want = append(want, fmt.Sprintf("%s %s %s %d", v.Invariant, v.Entity, v.ID, v.Step))
	}
	for _, v := range rg.StepViolations {
		got = append(got, fmt.Sprintf("%s %s %s %d", v.Invariant, v.Entity, v.ID, v.Step))
	}
	if !slices.Equal(want, got) {
		t.Errorf("%s: violations of always-invariants along the calls differ\ncompile time: %v\nrun time:     %v", label, want, got)
	}
	if task == nil {
		return
	}
	eg := st.GradeEpisode(task, start, tr)
	if len(eg.Results) != len(rg.Assertions) {
		t.Fatalf("%s: %d assertions at compile time, %d at run time", label, len(eg.Results), len(rg.Assertions))
	}
	for i, a := range eg.Results {
		if a.Passed != rg.Assertions[i].Passed {
			t.Errorf("%s: assertion %q: %v at compile time (%s), %v at run time (%s)", label, a.Text, a.Passed, a.Detail, rg.Assertions[i].Passed, rg.Assertions[i].Detail)
		}
	}
	if eg.Reward != rg.Reward {
		t.Errorf("%s: reward %v at compile time, %v at run time", label, eg.Reward, rg.Reward)
	}
	compareAnswers(t, label, task, st, start, tr, ep)
}

// compareAnswers holds the grading of answers (`answer EXPR`) on both
// sides: the golden answer, and the verdicts on it and on other final
// messages.
func compareAnswers(t *testing.T, label string, task *ir.Task, st, start *eval.State, tr *eval.Trace, ep runtime.Episode) {
	t.Helper()
	if !eval.ExpectsAnswer(task) {
		return
	}
	ag, ok := ep.(runtime.AnswerGrader)
	if !ok {
		t.Fatalf("%s: task %s expects an answer, but its episode grades none", label, task.Name)
	}
	golden := st.GoldenAnswer(task)
	if got := ag.GoldenAnswer(); got != golden {
		t.Errorf("%s: golden answer %q at compile time, %q at run time", label, golden, got)
	}
	for _, answer := range []string{golden, "", "none", "It is " + golden + " EUR.", "0", "1,000,000.00", strings.ToUpper(golden)} {
		eg := st.GradeAnswer(task, start, tr, &answer)
		rg := ag.GradeAnswer(answer)
		for i, a := range eg.Results {
			if i < len(rg.Assertions) && a.Passed != rg.Assertions[i].Passed {
				t.Errorf("%s: answer %q, assertion %q: %v at compile time (%s), %v at run time (%s)", label, answer, a.Text, a.Passed, a.Detail, rg.Assertions[i].Passed, rg.Assertions[i].Detail)
			}
		}
	}
}

// jsonEqual compares two JSON documents as values: numbers by value, keys
// in any order.
func jsonEqual(a, b []byte) bool {
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	if da.Decode(&x) != nil || db.Decode(&y) != nil {
		return false
	}
	return reflect.DeepEqual(normalize(x), normalize(y))
}

// normalize turns json.Numbers into float64 so 1 and 1.0 compare equal.
func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return v.String()
		}
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
	}
	return v
}

// firstDiff names the first place where two JSON documents differ, with
// both values there.
func firstDiff(a, b []byte) string {
	var x, y any
	json.Unmarshal(a, &x)
	json.Unmarshal(b, &y)
	path, l, r := diffAt("$", x, y)
	return fmt.Sprintf("%s\ncompile time: %s\nrun time:     %s", path, show(l), show(r))
}

func diffAt(path string, x, y any) (string, any, any) {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return path, x, y
		}
		keys := make([]string, 0, len(xv)+len(yv))
		for k := range xv {
			keys = append(keys, k)
		}
		for k := range yv {
			if _, dup := xv[k]; !dup {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			if !reflect.DeepEqual(xv[k], yv[k]) {
				return diffAt(path+"."+k, xv[k], yv[k])
			}
		}
	case []any:
		yv, ok := y.([]any)
		if !ok {
			return path, x, y
		}
		for i := range min(len(xv), len(yv)) {
			if !reflect.DeepEqual(xv[i], yv[i]) {
				return diffAt(fmt.Sprintf("%s[%d]", path, i), xv[i], yv[i])
			}
		}
		if len(xv) > len(yv) {
			return fmt.Sprintf("%s[%d] (only at compile time)", path, len(yv)), xv[len(yv)], nil
		}
		return fmt.Sprintf("%s[%d] (only at run time)", path, len(xv)), nil, yv[len(xv)]
	}
	return path, x, y
}

func show(v any) string {
	b, _ := json.Marshal(v)
	s := string(b)
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return strings.TrimSpace(s)
}
