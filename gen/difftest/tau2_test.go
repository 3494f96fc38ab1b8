package difftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/runtime"
)

// The tau2-bench retail fidelity test: every task's gold actions, replayed
// on the compiled world (generated/tau2_retail) from its seed, must raise
// exactly where tau2 raises, with the same messages, and end in exactly
// the state tau2 ends in. tau2's files are in testdata/tau2 (MIT, © 2025
// Sierra Research; PROVENANCE.md says where each comes from): tasks.json
// for the gold actions, expected_final_states.json for the records each
// task changes and the actions that raise; db.json, for every other record,
// is the world's own seed data file.

// tau2Dir holds tau2's tasks and expected states; tau2DB is its database.
var (
	tau2Dir = filepath.Join("testdata", "tau2")
	tau2DB  = filepath.Join("..", "..", "testdata", "worlds", "tau2_retail", "db.json")
)

// tau2Tables maps tau2's tables to the world's entities and their keys.
var tau2Tables = []struct{ table, entity, key string }{
	{"products", "Product", "product_id"},
	{"users", "User", "user_id"},
	{"orders", "Order", "order_id"},
}

type tau2Action struct {
	Name      string
	Arguments json.RawMessage
}

type tau2Task struct {
	ID                 string
	EvaluationCriteria struct {
		Actions []tau2Action
	} `json:"evaluation_criteria"`
}

type tau2Error struct {
	ActionIndex int `json:"action_index"`
	Name        string
	Message     string
}

type tau2Expected struct {
	Changed map[string]map[string]any // table → key → final record
	Errors  []tau2Error
}

type tau2Data struct {
	tasks    []tau2Task
	expected map[string]tau2Expected
	initial  map[string]map[string]any // table → key → record, from db.json
}

// loadTau2 reads tau2's files; a missing file is a failure.
func loadTau2(tb testing.TB) *tau2Data {
	tb.Helper()
	d := &tau2Data{}
	var exp struct{ Tasks map[string]tau2Expected }
	for _, f := range []struct {
		name string
		dst  any
	}{{filepath.Join(tau2Dir, "tasks.json"), &d.tasks}, {filepath.Join(tau2Dir, "expected_final_states.json"), &exp}, {tau2DB, &d.initial}} {
		b, err := os.ReadFile(f.name)
		if err != nil {
			tb.Fatal(err)
		}
		if err := decodeNumbers(b, f.dst); err != nil {
			tb.Fatalf("%s: %v", f.name, err)
		}
	}
	d.expected = exp.Tasks
	if len(d.tasks) == 0 || len(d.expected) != len(d.tasks) {
		tb.Fatalf("%d tasks in tasks.json, %d in expected_final_states.json", len(d.tasks), len(d.expected))
	}
	return d
}

// decodeNumbers decodes JSON keeping numbers as json.Number (their text),
// so that each is parsed to a float64 exactly once, when compared.
func decodeNumbers(b []byte, dst any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(dst)
}

// replayTau2 replays a task's gold actions from the world seed and returns
// the episode and the actions that failed, written as
// "<index> <tool>: <message>".
func replayTau2(tb testing.TB, task tau2Task) (runtime.Episode, []string) {
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		tb.Fatal(err)
	}
	var failed []string
	for i, a := range task.EvaluationCriteria.Actions {
		o := ep.Call(a.Name, a.Arguments)
		if o.OK {
			continue
		}
		msg := o.Error.Message
		if o.Error.Code != runtime.CodePreconditionFailed {
			// tau2 raises only ValueErrors, which worldc answers as
			// precondition_failed: any other code is a difference.
			msg = fmt.Sprintf("%s (code %s)", msg, o.Error.Code)
		}
		failed = append(failed, fmt.Sprintf("%d %s: %s", i, a.Name, msg))
	}
	return ep, failed
}

// tau2Records splits a snapshot of the world into its records' JSON text,
// by table and key.
func tau2Records(tb testing.TB, snap json.RawMessage) map[string]map[string]json.RawMessage {
	var rows map[string][]json.RawMessage
	if err := json.Unmarshal(snap, &rows); err != nil {
		tb.Fatal(err)
	}
	out := map[string]map[string]json.RawMessage{}
	for _, t := range tau2Tables {
		out[t.table] = map[string]json.RawMessage{}
		for _, r := range rows[t.entity] {
			var k struct {
				Product string `json:"product_id"`
				User    string `json:"user_id"`
				Order   string `json:"order_id"`
			}
			if err := json.Unmarshal(r, &k); err != nil {
				tb.Fatal(err)
			}
			key := map[string]string{"products": k.Product, "users": k.User, "orders": k.Order}[t.table]
			out[t.table][key] = r
		}
	}
	return out
}

// compareTau2Records reports every record of got that differs from its
// value in want, or from its value in base when want has none; a record of
// got whose text equals its text in same is not compared (it was found
// equal to base before).
func compareTau2Records(t *testing.T, got, same map[string]map[string]json.RawMessage, want, base map[string]map[string]any) {
	t.Helper()
	for _, tb := range tau2Tables {
		keys := make(map[string]any, len(got[tb.table]))
		for k := range got[tb.table] {
			keys[k] = nil
		}
		for _, key := range sortedKeys(base[tb.table], keys) {
			w, changed := want[tb.table][key]
			if !changed {
				w = base[tb.table][key]
			}
			raw, inWorld := got[tb.table][key]
			switch {
			case !inWorld:
				t.Errorf("%s %s: missing from the world", tb.table, key)
				continue
			case w == nil:
				t.Errorf("%s %s: not in tau2's database", tb.table, key)
				continue
			case !changed && same != nil && bytes.Equal(raw, same[tb.table][key]):
				continue
			}
			var g any
			if err := decodeNumbers(raw, &g); err != nil {
				t.Fatal(err)
			}
			if diffs := diffValues(tb.table+"["+strconv.Quote(key)+"]", g, w, nil); len(diffs) > 0 {
				what := "unchanged"
				if changed {
					what = "changed"
				}
				t.Errorf("%s %s (%s in tau2) differs:\n%s", tb.table, key, what, strings.Join(diffs, "\n"))
			}
		}
	}
}

// TestTau2Fidelity is the fidelity test of issue 4: 114 of 114 tasks.
// With -short it replays every eighth task (make test replays them all).
func TestTau2Fidelity(t *testing.T) {
	t.Parallel()
	d := loadTau2(t)
	tasks := d.tasks
	if testing.Short() {
		tasks = nil
		for i, task := range d.tasks {
			if i%8 == 0 {
				tasks = append(tasks, task)
			}
		}
		t.Logf("-short: replaying %d of the %d tasks (make test replays all)", len(tasks), len(d.tasks))
	}
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	seed := tau2Records(t, ep.Snapshot())
	if !t.Run("seed", func(t *testing.T) { compareTau2Records(t, seed, nil, nil, d.initial) }) {
		t.Fatal("the world's seed is not tau2's db.json")
	}
	good := 0
	for _, task := range tasks {
		ok := t.Run("task_"+task.ID, func(t *testing.T) {
			exp, found := d.expected[task.ID]
			if !found {
				t.Fatalf("task %s is not in expected_final_states.json", task.ID)
			}
			ep, failed := replayTau2(t, task)
			var want []string
			for _, e := range exp.Errors {
				want = append(want, fmt.Sprintf("%d %s: %s", e.ActionIndex, e.Name, e.Message))
			}
			if !slices.Equal(failed, want) {
				t.Errorf("raising actions differ\n got  %s\n want %s", listOrNone(failed), listOrNone(want))
			}
			compareTau2Records(t, tau2Records(t, ep.Snapshot()), seed, exp.Changed, d.initial)
		})
		if ok {
			good++
		}
	}
	t.Logf("tau2 fidelity: %d of %d tasks end in tau2's expected state with the same raising actions", good, len(tasks))
	if good != len(tasks) {
		t.Errorf("tau2 fidelity: %d of %d", good, len(tasks))
	}
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "(none)"
	}
	return "[" + strings.Join(xs, "; ") + "]"
}

// sortedKeys are the keys of both maps, sorted.
func sortedKeys(a, b map[string]any) []string {
	var out []string
	for k := range a {
		out = append(out, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// maxDiffs bounds the differences reported for one record.
const maxDiffs = 10

// diffValues compares two decoded JSON values by value and appends one line
// per difference ("path: got X, want Y"): objects member by member, an
// absent member equal to null; lists element by element, in order; numbers
// as float64 (so 0 equals 0.0 and 68.92000000000004 its shortest form).
func diffValues(path string, got, want any, out []string) []string {
	if len(out) >= maxDiffs {
		return out
	}
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			break
		}
		for _, k := range sortedKeys(w, g) {
			out = diffValues(path+"."+k, g[k], w[k], out)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok {
			break
		}
		for i := range max(len(g), len(w)) {
			var gi, wi any = missing{}, missing{}
			if i < len(g) {
				gi = g[i]
			}
			if i < len(w) {
				wi = w[i]
			}
			out = diffValues(fmt.Sprintf("%s[%d]", path, i), gi, wi, out)
		}
		return out
	case json.Number:
		if g, ok := got.(json.Number); ok {
			gf, err1 := strconv.ParseFloat(string(g), 64)
			wf, err2 := strconv.ParseFloat(string(w), 64)
			if err1 == nil && err2 == nil && gf == wf {
				return out
			}
		}
	default:
		if got == want {
			return out
		}
	}
	return append(out, fmt.Sprintf("  %s: got %s, want %s", path, jsonText(got), jsonText(want)))
}

// missing stands for an element past the end of a list.
type missing struct{}

func jsonText(v any) string {
	if _, ok := v.(missing); ok {
		return "(no element)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// TestTau2DiffIsReadable checks the failure report of the fidelity test on
// a made-up difference.
func TestTau2DiffIsReadable(t *testing.T) {
	var got, want any
	if err := decodeNumbers([]byte(`{"a": [1, 2.0], "b": null, "c": {"x": "y"}, "f": 0}`), &got); err != nil {
		t.Fatal(err)
	}
	if err := decodeNumbers([]byte(`{"a": [1.0, 3], "c": {"x": "z"}, "d": "new", "f": 0.0}`), &want); err != nil {
		t.Fatal(err)
	}
	diffs := diffValues("orders[\"#W1\"]", got, want, nil)
	wantDiffs := []string{
		`  orders["#W1"].a[1]: got 2.0, want 3`,
		`  orders["#W1"].c.x: got "y", want "z"`,
		`  orders["#W1"].d: got null, want "new"`,
	}
	if !slices.Equal(diffs, wantDiffs) {
		t.Errorf("diffs\n%s\nwant\n%s", strings.Join(diffs, "\n"), strings.Join(wantDiffs, "\n"))
	}
}

// TestTau2Probes replays testdata/worlds/tau2_retail/probes.json: 400
// random sequences of one to three calls, aimed at every check of every
// tool, that tau2-bench's own tools answered (probes.py says how). Each
// call must fail with tau2's message or answer tau2's result (as a value:
// a model_dump, or tau2's string as a JSON string), and the records tau2
// changed, and only those, must end with tau2's values.
func TestTau2Probes(t *testing.T) {
	if testing.Short() {
		t.Skip("400 probes on both sides: make test runs them, -short does not")
	}
	var probes struct {
		Probes []struct {
			Steps []struct {
				Tool   string
				Args   json.RawMessage
				Result any
				Error  *string
			}
			Changed map[string]map[string]any
		}
	}
	var initial map[string]map[string]any
	for _, f := range []struct {
		name string
		dst  any
	}{{"probes.json", &probes}, {"db.json", &initial}} {
		b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "worlds", "tau2_retail", f.name))
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeNumbers(b, f.dst); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
	}
	ep, err := tau2_retail.New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	seed := tau2Records(t, ep.Snapshot())
	good := 0
	for n, p := range probes.Probes {
		ok := t.Run(fmt.Sprintf("probe_%d", n), func(t *testing.T) {
			ep, err := tau2_retail.New().NewEpisode("")
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range p.Steps {
				o := ep.Call(s.Tool, s.Args)
				call := fmt.Sprintf("call %d, %s(%s)", i, s.Tool, s.Args)
				switch {
				case s.Error != nil && o.OK:
					t.Errorf("%s: succeeded, tau2 raises %q", call, *s.Error)
				case s.Error != nil && (o.Error.Message != *s.Error || o.Error.Code != runtime.CodePreconditionFailed):
					t.Errorf("%s: fails with %s: %s, tau2 raises %q", call, o.Error.Code, o.Error.Message, *s.Error)
				case s.Error == nil && !o.OK:
					t.Errorf("%s: fails with %v, tau2 succeeds", call, o.Err())
				case s.Error == nil:
					var got any
					if err := decodeNumbers(o.Data, &got); err != nil {
						t.Fatal(err)
					}
					if diffs := diffValues("result", got, s.Result, nil); len(diffs) > 0 {
						t.Errorf("%s: the result differs from tau2's:\n%s", call, strings.Join(diffs, "\n"))
					}
				}
			}
			compareTau2Records(t, tau2Records(t, ep.Snapshot()), seed, p.Changed, initial)
		})
		if ok {
			good++
		}
	}
	t.Logf("tau2 probes: %d of %d agree with tau2", good, len(probes.Probes))
}

// TestTau2PolicyAndMeta checks what the agent and the harness read beside
// the state: the policy document is tau2's policy.md byte for byte (the
// generated file and World.Policy), and every task's metadata carries
// tau2's split, reward basis, NL assertions and communicate_info, read here
// from tau2's own files rather than from the converter.
func TestTau2PolicyAndMeta(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(tau2Dir, "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	file, err := os.ReadFile(filepath.Join("..", "..", "generated", "tau2_retail", "policy.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, want) {
		t.Error("generated/tau2_retail/policy.md is not tau2's policy.md")
	}
	if tau2_retail.New().Policy() != string(want) {
		t.Error("World.Policy is not tau2's policy.md")
	}

	var tasks []struct {
		ID                 string
		EvaluationCriteria struct {
			NLAssertions    []string `json:"nl_assertions"`
			CommunicateInfo []string `json:"communicate_info"`
			RewardBasis     []string `json:"reward_basis"`
		} `json:"evaluation_criteria"`
	}
	var splits map[string][]string
	for name, dst := range map[string]any{"tasks.json": &tasks, "split_tasks.json": &splits} {
		b, err := os.ReadFile(filepath.Join(tau2Dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	infos := map[string]runtime.TaskInfo{}
	for _, ti := range tau2_retail.New().Tasks() {
		infos[ti.ID] = ti
	}
	get := func(m runtime.Meta, key string) []string {
		v, ok := m.Get(key)
		if !ok {
			return nil
		}
		return v.([]string)
	}
	for _, task := range tasks {
		info, ok := infos["retail_"+task.ID]
		if !ok {
			t.Errorf("task %s is not in the world", task.ID)
			continue
		}
		if id, _ := info.Meta.Get("tau2_id"); id != task.ID {
			t.Errorf("task %s: tau2_id %v", task.ID, id)
		}
		var split []string
		for _, name := range []string{"train", "test", "base"} {
			if slices.Contains(splits[name], task.ID) {
				split = append(split, name)
			}
		}
		ec := task.EvaluationCriteria
		for _, c := range []struct {
			key       string
			got, want []string
		}{
			{"split", get(info.Meta, "split"), split},
			{"reward_basis", get(info.Meta, "reward_basis"), ec.RewardBasis},
			{"nl_assertions", get(info.Meta, "nl_assertions"), ec.NLAssertions},
			{"communicate_info", get(info.Meta, "communicate_info"), ec.CommunicateInfo},
		} {
			if !slices.Equal(c.got, c.want) {
				t.Errorf("task %s: %s %q, want %q", task.ID, c.key, c.got, c.want)
			}
		}
	}
}
