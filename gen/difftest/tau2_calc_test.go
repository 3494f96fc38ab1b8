package difftest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/runtime"
)

// tau2Spec is the checked tau2_retail world.
func tau2Spec(t *testing.T) *ir.World {
	t.Helper()
	for _, w := range specs(t) {
		if w.Name == "tau2_retail" {
			return w
		}
	}
	t.Fatal("no tau2_retail world")
	return nil
}

// calculateBoth calls calculate in the generated package and in
// compiler/eval and returns both observations.
func calculateBoth(t *testing.T, st *eval.State, ep runtime.Episode, expr string) (gen, ev runtime.Observation) {
	t.Helper()
	args, _ := json.Marshal(map[string]string{"expression": expr})
	gen = ep.Call("calculate", args)
	data, terr := st.CallJSON("calculate", args)
	if err := json.Unmarshal(eval.ObservationJSON(data, terr), &ev); err != nil {
		t.Fatal(err)
	}
	return gen, ev
}

// TestTau2Calculate holds the world's calculate to tau2-bench on its 13
// gold calls: testdata/worlds/tau2_retail/calculate.json, which
// calculate.py wrote from tasks.json with tau2's own formula, lists them
// with tau2's answers. The world's task solutions hold the same calls (and
// tasks.json, when tau2's data is at hand), and the generated package and
// compiler/eval answer each exactly as tau2 does.
func TestTau2Calculate(t *testing.T) {
	var file struct {
		Calls []struct {
			Task, Expression, Result, Error string
			Action                          int
		}
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "worlds", "tau2_retail", "calculate.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	var want, inWorld []string
	for _, c := range file.Calls {
		want = append(want, fmt.Sprintf("%s/%d %s", c.Task, c.Action, c.Expression))
	}
	for _, ti := range tau2_retail.New().Tasks() {
		for i, c := range ti.Solution {
			if c.Tool == "calculate" {
				var a struct{ Expression string }
				if err := json.Unmarshal(c.Args, &a); err != nil {
					t.Fatal(err)
				}
				id, _ := ti.Meta.Get("tau2_id")
				inWorld = append(inWorld, fmt.Sprintf("%v/%d %s", id, i, a.Expression))
			}
		}
	}
	if len(file.Calls) != 13 || !slices.Equal(want, inWorld) {
		t.Errorf("calculate.json holds\n%q\nthe world's solutions\n%q", want, inWorld)
	}
	{
		var fromTau2 []string
		for _, task := range loadTau2(t).tasks {
			for i, a := range task.EvaluationCriteria.Actions {
				if a.Name == "calculate" {
					var args struct{ Expression string }
					if err := json.Unmarshal(a.Arguments, &args); err != nil {
						t.Fatal(err)
					}
					fromTau2 = append(fromTau2, fmt.Sprintf("%s/%d %s", task.ID, i, args.Expression))
				}
			}
		}
		if !slices.Equal(want, fromTau2) {
			t.Errorf("calculate.json holds\n%q\ntasks.json\n%q", want, fromTau2)
		}
	}
	st, err := eval.NewState(tau2Spec(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range file.Calls {
		answer, _ := json.Marshal(c.Result)
		gen, ev := calculateBoth(t, st, ep, c.Expression)
		for _, o := range []struct {
			side string
			obs  runtime.Observation
		}{{"generated", gen}, {"compiler/eval", ev}} {
			if c.Error != "" {
				if o.obs.OK || o.obs.Error.Code != runtime.CodePreconditionFailed || o.obs.Error.Message != c.Error {
					t.Errorf("task %s: calculate(%q) in %s: %v, tau2 raises %q", c.Task, c.Expression, o.side, o.obs.Err(), c.Error)
				}
			} else if !o.obs.OK || string(o.obs.Data) != string(answer) {
				t.Errorf("task %s: calculate(%q) in %s: %s %v, tau2 answers %s", c.Task, c.Expression, o.side, o.obs.Data, o.obs.Err(), answer)
			}
		}
	}
}

// TestTau2CalculateCorpus runs calc's probe corpus
// (runtime/pycalc/testdata/probes.json, 7,116 expressions with CPython's
// answers) through the world's calculate, in the generated package and in
// compiler/eval: each answers Python's string, or fails with
// precondition_failed and Python's message (calc's own for the limit
// probes), the same on both sides.
func TestTau2CalculateCorpus(t *testing.T) {
	var corpus struct {
		Probes []struct{ Expr, Kind, Result, Error, Message string }
	}
	b, err := os.ReadFile(filepath.Join("..", "..", "runtime", "pycalc", "testdata", "probes.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	st, err := eval.NewState(tau2Spec(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	failed, failures := 0, 0
	for _, p := range corpus.Probes {
		gen, ev := calculateBoth(t, st, ep, p.Expr)
		g, e := mustJSON(t, gen), mustJSON(t, ev)
		bad := g != e
		switch {
		case bad:
		case p.Error != "":
			failures++
			bad = gen.OK || gen.Error.Code != runtime.CodePreconditionFailed ||
				p.Error != "LimitError" && gen.Error.Message != p.Message
		default:
			answer, _ := json.Marshal(p.Result)
			bad = !gen.OK || string(gen.Data) != string(answer)
		}
		if bad {
			if failed++; failed <= 20 {
				t.Errorf("calculate(%q): generated %s, compiler/eval %s; Python: %q %s: %s", p.Expr, g, e, p.Result, p.Error, p.Message)
			}
		}
	}
	t.Logf("%d of %d expressions (%d of them failing) answer as Python does, the same in both implementations", len(corpus.Probes)-failed, len(corpus.Probes), failures)
}

func mustJSON(t *testing.T, o runtime.Observation) string {
	t.Helper()
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
