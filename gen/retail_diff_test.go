package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// The differential test of gen/difftest covers the example corpus, which
// the checker compiles; the composite types are not in the language yet,
// so this test compares compiler/eval with the generated code on the
// hand-built retail fixture instead: compile time records what eval
// observes after every call (the golden solutions, then probe calls that
// take the error paths), and a test inside the generated package replays
// the same calls and compares observations, states, invariant verdicts and
// rubric results.

// diffCall is one call and what compiler/eval observed after it.
type diffCall struct {
	Tool       string          `json:"tool"`
	Args       json.RawMessage `json:"args"`
	Obs        json.RawMessage `json:"obs"`
	State      json.RawMessage `json:"state"`
	Violations []string        `json:"violations"`
	// Steps are the violations of always-invariants seen so far in the
	// run, each "invariant entity id step", in order.
	Steps  []string `json:"steps"`
	Passed []bool   `json:"passed,omitempty"`
	Reward float64  `json:"reward"`
}

// diffRun is a sequence of calls from a task's start state ("" for the
// world seed).
type diffRun struct {
	Task  string     `json:"task"`
	Start diffCall   `json:"start"`
	Calls []diffCall `json:"calls"`
}

// retailProbes are calls from the world seed that take error paths:
// strict decoding of records and variants, bounds and cases of nested
// values, index and key errors, keyed inserts, `k in E`, conversions to
// enums, first(…) and index(…).
var retailProbes = []probe{
	{"find_item", `{"order_id":"#W1","item_id":"2001","email":"sara@example.com"}`},
	{"get_order_details", `{"order_id":"#W2"}`},
	{"get_order_details", `{"order_id":"#NOPE"}`},
	{"get_product_details", `{"product_id":"6086499569"}`},
	{"get_item_details", `{"item_id":"2001"}`},
	{"get_item_details", `{"item_id":"zzz"}`},
	{"list_all_product_types", `{}`},
	{"list_orders", `{"offset":1}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"credit_card","id":"cc2","brand":"amex","last_four":"0005"}}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"credit_card","id":"cc3","brand":"amex","last_four":"0005","balance":3}}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"paypal"}}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"bitcoin","id":"b1"}}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"gift_card","id":"gc3","balance":-5}}`},
	{"add_payment_method", `{"user":"sara_doe_1","method":{"source":"gift_card","id":"gc4","balance":5,"extra":1}}`},
	{"set_gift_card_balance", `{"user":"sara_doe_1","payment_method_id":"gift_card_1","balance":-1}`},
	{"set_gift_card_balance", `{"user":"sara_doe_1","payment_method_id":"nope","balance":5}`},
	{"set_gift_card_balance", `{"user":"sara_doe_1","payment_method_id":"gift_card_1","balance":12.5}`},
	{"cancel_pending_order", `{"order":"#W1","reason":"no longer needed"}`},
	{"cancel_pending_order", `{"order":"#W1","reason":"no longer needed"}`},
	{"modify_pending_order_items", `{"order":"#W1","item_ids":["1001"],"new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":[null],"new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":[1001],"new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":"1001","new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":["9999"],"new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":["1001"],"new_item_ids":[]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":["1001"],"new_item_ids":["2001"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":["1001","1001"],"new_item_ids":["1002","1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":["1001"],"new_item_ids":["1002"]}`},
	{"modify_pending_order_items", `{"order":"#W3","item_ids":[],"new_item_ids":[]}`},
	{"cancel_pending_order", `{"order":"#W3","reason":"ordered by mistake"}`},
	{"update_order", `{"order_id":"#W2","tags":{"x":["y"],"a":[]},"exchange_items":[]}`},
	{"update_order", `{"order_id":"#W2","status":"cancelled","gift_address":{"address1":"a","address2":"","city":"c","country":"US","zip":"1"}}`},
	{"update_order", `{"order_id":"#W2","items":[{"name":"x","product_id":"nope","item_id":"1","price":1,"options":{}}]}`},
	{"create_order", `{"order_id":"#W7","user_id":"tom_li_2","address":{"address1":"a","address2":"","city":"c","country":"US","zip":"1"},"items":[],"status":"pending","payment_history":[],"tags":{}}`},
	{"create_order", `{"order_id":"#W1","user_id":"tom_li_2","address":{"address1":"a","address2":"","city":"c","country":"US","zip":"1"},"items":[],"status":"pending","payment_history":[],"tags":{}}`},
	{"create_order", `{"order_id":"#W8","user_id":"nobody","address":{"address1":"a","address2":"","city":"c","country":"US","zip":"1"},"items":[],"status":"pending","payment_history":[],"tags":{}}`},
	{"create_order", `{"order_id":"#W8","user_id":"tom_li_2","address":{"address1":"a","city":"c","country":"US","zip":"1"},"items":[],"status":"pending","payment_history":[],"tags":{}}`},
	{"create_order", `{"order_id":"#W8","user_id":"tom_li_2","address":{"address1":"a","address2":"","city":"c","country":"US","zip":"1"},"items":[{"name":"x","product_id":"6086499569","item_id":"1","price":-1,"options":{}}],"status":"pending","payment_history":[{"transaction_type":"gift","amount":1,"payment_method_id":"p"}],"tags":{}}`},
	{"place_order", `{"user":"tom_li_2","order_id":"#W8","items":[]}`},
	{"place_order", `{"user":"tom_li_2","order_id":"#W1","items":[{"name":"x","product_id":"6086499569","item_id":"1001","price":19.5,"options":{}}]}`},
	{"place_order", `{"user":"tom_li_2","order_id":"#W8","items":[{"name":"x","product_id":"6086499569","item_id":"1001","price":19.5,"options":{"size":"M"}}]}`},
	{"modify_user_address", `{"user":"tom_li_2","address":{"address1":"a","address2":"","city":"c","country":"US"}}`},
	{"modify_user_address", `{"user":"tom_li_2","address":{"address1":"a","address2":null,"city":"c","country":"US","zip":"9"}}`},
	{"cancel_with_reason", `{"order_id":"#W2","reason":"changed my mind"}`},
	{"cancel_with_reason", `{"order_id":"#W2","reason":"Ordered by mistake"}`},
	{"cancel_with_reason", `{"order_id":"#W9","reason":"no longer needed"}`},
	{"cancel_with_reason", `{"order_id":"sara_doe_1","reason":"no longer needed"}`},
	{"cancel_with_reason", `{"order_id":"#W2","reason":"ordered by mistake"}`},
	{"find_item", `{"order_id":"#W1","item_id":"2001","email":"sara@example.com"}`},
	{"find_item", `{"order_id":"#W1","item_id":"1001","email":"sara@example.com"}`},
	{"find_item", `{"order_id":"#W1","item_id":"9999","email":"sara@example.com"}`},
	{"find_item", `{"order_id":"#W1","item_id":"1001","email":"nobody@example.com"}`},
	{"find_item", `{"order_id":"#W3","item_id":"1002","email":"tom@example.com"}`},
	{"find_item", `{"order_id":"#W9","item_id":"1001","email":"tom@example.com"}`},
}

// argsJSON renders the arguments of a solution step as compiler/eval
// passed them (bound names already replaced by ids).
func argsJSON(tool *ir.Tool, args map[string]*ir.Value) (json.RawMessage, error) {
	o := ordered{}
	for _, p := range tool.Params {
		v, ok := args[p.Name]
		if !ok || v == nil || v.Kind == ir.KindNull {
			continue
		}
		b, err := valueJSON(v, p.Type)
		if err != nil {
			return nil, err
		}
		o = append(o, kv(p.Name, json.RawMessage(b)))
	}
	return json.Marshal(o)
}

// record captures eval's state after a call, and the violations of
// always-invariants tr saw along the run.
func record(st *eval.State, task *ir.Task, start *eval.State, tr *eval.Trace, c *diffCall) {
	c.State = st.JSON()
	c.Violations = []string{}
	for _, v := range st.Violations() {
		c.Violations = append(c.Violations, v.Invariant+" "+v.Entity+" "+v.ID)
	}
	sort.Strings(c.Violations)
	c.Steps = []string{}
	for _, v := range tr.Violations {
		c.Steps = append(c.Steps, fmt.Sprintf("%s %s %s %d", v.Invariant, v.Entity, v.ID, v.Step))
	}
	if task != nil {
		g := st.GradeEpisode(task, start, tr)
		for _, r := range g.Results {
			c.Passed = append(c.Passed, r.Passed)
		}
		c.Reward = g.Reward
	}
}

// probe is a call made from the world seed (or, in taskProbes, from a
// task's start state).
type probe struct{ tool, args string }

// evalRuns runs the solutions, the probes from the world seed, and the
// probes of taskProbes from their tasks' start states, with compiler/eval.
func evalRuns(t *testing.T, w *ir.World, probes []probe, taskProbes map[string][]probe) []diffRun {
	var runs []diffRun
	tasks := append([]*ir.Task{nil}, w.Tasks...)
	for _, task := range tasks {
		st, err := eval.NewState(w, task)
		if err != nil {
			t.Fatal(err)
		}
		start := st.Clone()
		run := diffRun{}
		if task != nil {
			run.Task = task.Name
		}
		var tr eval.Trace
		tr.Start(st)
		record(st, task, start, &tr, &run.Start)
		if task != nil && task.Solution != nil {
			res, err := eval.RunSolution(w, task)
			if err != nil {
				t.Fatal(err)
			}
			for _, step := range res.Steps {
				args, err := argsJSON(step.Step.Tool, step.Args)
				if err != nil {
					t.Fatal(err)
				}
				tr.Before(st, step.Step.Tool, step.Args)
				data, terr := st.Call(step.Step.Tool, step.Args)
				tr.After(st, step.Step.Tool.Name, terr == nil)
				c := diffCall{Tool: step.Step.Tool.Name, Args: args, Obs: eval.ObservationJSON(data, terr)}
				record(st, task, start, &tr, &c)
				run.Calls = append(run.Calls, c)
			}
		}
		if task == nil {
			run.Calls = append(run.Calls, probeCalls(st, nil, nil, &tr, probes)...)
		}
		runs = append(runs, run)
		if task == nil || taskProbes[task.Name] == nil {
			continue
		}
		st, start, tr = start.Clone(), start.Clone(), eval.Trace{}
		tr.Start(st)
		run = diffRun{Task: task.Name}
		record(st, task, start, &tr, &run.Start)
		run.Calls = probeCalls(st, task, start, &tr, taskProbes[task.Name])
		runs = append(runs, run)
	}
	return runs
}

// probeCalls makes the probe calls on st, recording what eval observes
// after each.
func probeCalls(st *eval.State, task *ir.Task, start *eval.State, tr *eval.Trace, probes []probe) []diffCall {
	var out []diffCall
	for _, p := range probes {
		tr.BeforeJSON(st, p.tool, []byte(p.args))
		data, terr := st.CallJSON(p.tool, []byte(p.args))
		tr.After(st, p.tool, terr == nil)
		c := diffCall{Tool: p.tool, Args: json.RawMessage(p.args), Obs: eval.ObservationJSON(data, terr)}
		record(st, task, start, tr, &c)
		out = append(out, c)
	}
	return out
}

const diffTestFile = `package %s

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"testing"
)

type diffCall struct {
	Tool       string          ` + "`json:\"tool\"`" + `
	Args       json.RawMessage ` + "`json:\"args\"`" + `
	Obs        json.RawMessage ` + "`json:\"obs\"`" + `
	State      json.RawMessage ` + "`json:\"state\"`" + `
	Violations []string        ` + "`json:\"violations\"`" + `
	Steps      []string        ` + "`json:\"steps\"`" + `
	Passed     []bool          ` + "`json:\"passed\"`" + `
	Reward     float64         ` + "`json:\"reward\"`" + `
}

type diffRun struct {
	Task  string     ` + "`json:\"task\"`" + `
	Start diffCall   ` + "`json:\"start\"`" + `
	Calls []diffCall ` + "`json:\"calls\"`" + `
}

func decode(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return err.Error()
	}
	return normalize(v)
}

func normalize(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
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

// TestDifferential replays the calls compiler/eval made and compares what
// each side observed.
func TestDifferential(t *testing.T) {
	data, err := os.ReadFile("difftest.json")
	if err != nil {
		t.Fatal(err)
	}
	var runs []diffRun
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		ep, err := NewEpisode(r.Task)
		if err != nil {
			t.Fatal(err)
		}
		check := func(label string, want diffCall) {
			if got := ep.Snapshot(); !reflect.DeepEqual(decode(got), decode(want.State)) {
				t.Errorf("task %%q %%s: states differ\ncompile time: %%s\nrun time:     %%s", r.Task, label, want.State, got)
			}
			var vs []string
			for _, v := range ep.Violations() {
				vs = append(vs, v.Invariant+" "+v.Entity+" "+v.ID)
			}
			slices.Sort(vs)
			if !slices.Equal(vs, want.Violations) && !(len(vs) == 0 && len(want.Violations) == 0) {
				t.Errorf("task %%q %%s: violations %%v at compile time, %%v at run time", r.Task, label, want.Violations, vs)
			}
			g := ep.Grade()
			var steps []string
			for _, v := range g.StepViolations {
				steps = append(steps, fmt.Sprintf("%%s %%s %%s %%d", v.Invariant, v.Entity, v.ID, v.Step))
			}
			if !slices.Equal(steps, want.Steps) && !(len(steps) == 0 && len(want.Steps) == 0) {
				t.Errorf("task %%q %%s: violations along the run %%v at compile time, %%v at run time", r.Task, label, want.Steps, steps)
			}
			if r.Task == "" {
				return
			}
			var passed []bool
			for _, a := range g.Assertions {
				passed = append(passed, a.Passed)
			}
			if !slices.Equal(passed, want.Passed) || g.Reward != want.Reward {
				t.Errorf("task %%q %%s: rubric %%v (reward %%v) at compile time, %%v (reward %%v) at run time: %%+v", r.Task, label, want.Passed, want.Reward, passed, g.Reward, g.Assertions)
			}
		}
		check("start", r.Start)
		for i, c := range r.Calls {
			obs := ep.Call(c.Tool, c.Args)
			got, _ := json.Marshal(obs)
			var want struct {
				OK    bool
				Error *struct{ Code string }
			}
			json.Unmarshal(c.Obs, &want)
			if want.Error != nil && want.Error.Code == "invalid_arguments" {
				// Only the code of argument problems is meant to agree.
				if obs.OK || obs.Error.Code != "invalid_arguments" {
					t.Errorf("task %%q call %%d %%s %%s: observations differ\ncompile time: %%s\nrun time:     %%s", r.Task, i+1, c.Tool, c.Args, c.Obs, got)
				}
			} else if !reflect.DeepEqual(decode(got), decode(c.Obs)) {
				t.Errorf("task %%q call %%d %%s %%s: observations differ\ncompile time: %%s\nrun time:     %%s", r.Task, i+1, c.Tool, c.Args, c.Obs, got)
			}
			check("after call "+c.Tool+" "+string(c.Args), c)
		}
	}
}
`

// TestRetailDifferential compares compiler/eval with the generated retail
// package, call by call.
func TestRetailDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, retail().World, retailProbes)
}

// differential generates w into a scratch package with a test that
// replays what compiler/eval observed (the solutions, and the probes from
// the world seed), and runs it.
func differential(t *testing.T, w *ir.World, probes []probe) {
	t.Helper()
	differentialWith(t, w, probes, nil)
}

// differentialWith is differential with probes from tasks' start states
// too (by task name).
func differentialWith(t *testing.T, w *ir.World, probes []probe, taskProbes map[string][]probe) {
	t.Helper()
	runs := evalRuns(t, w, probes, taskProbes)
	data, err := json.MarshalIndent(runs, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, mustGenerate(t, w))
	if err := os.WriteFile(filepath.Join(dir, "difftest.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "difftest_test.go"), []byte(fmt.Sprintf(diffTestFile, w.Name)), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(moduleRoot(t), dir)
	out, ok := goCmd(t, "test", "-count=1", "-run", "TestDifferential", "./"+filepath.ToSlash(rel))
	if !ok {
		t.Fatalf("%s", bytes.TrimSpace([]byte(out)))
	}
}
