package gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// tau2Data is where the tau2-bench retail data lives (../shared from the
// module root, see /work/shared/README.md).
func tau2Data(t testing.TB) string {
	dir := filepath.Join(moduleRoot(t), "..", "shared", "peers", "tau2-retail")
	if _, err := os.Stat(filepath.Join(dir, "db.json")); err != nil {
		t.Skipf("no tau2 data: %v", err)
	}
	return dir
}

// orderedObject decodes a JSON object keeping its members in file order.
func orderedObject(raw json.RawMessage) (keys []string, vals []json.RawMessage, err error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not an object")
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, tok.(string))
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// jsonToIR converts a JSON value of db.json to a constant of type t.
func jsonToIR(t *ir.Type, raw json.RawMessage) (*ir.Value, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return vNull(), nil
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef, ir.KindEnum:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		return &ir.Value{Kind: t.Kind, Str: s}, nil
	case ir.KindDecimal, ir.KindMoney:
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return nil, err
		}
		return &ir.Value{Kind: t.Kind, Num: f}, nil
	case ir.KindInt:
		var i int64
		if err := json.Unmarshal(raw, &i); err != nil {
			return nil, err
		}
		return vInt(i), nil
	case ir.KindBool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, err
		}
		return vBool(b), nil
	case ir.KindList:
		var xs []json.RawMessage
		if err := json.Unmarshal(raw, &xs); err != nil {
			return nil, err
		}
		out := &ir.Value{Kind: ir.KindList, List: []*ir.Value{}}
		for _, x := range xs {
			v, err := jsonToIR(t.Elem, x)
			if err != nil {
				return nil, err
			}
			out.List = append(out.List, v)
		}
		return out, nil
	case ir.KindMap:
		keys, vals, err := orderedObject(raw)
		if err != nil {
			return nil, err
		}
		out := &ir.Value{Kind: ir.KindMap}
		for i, k := range keys {
			v, err := jsonToIR(t.Elem, vals[i])
			if err != nil {
				return nil, err
			}
			out.Entries = append(out.Entries, ir.MapEntry{Key: k, Value: v})
		}
		sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Key < out.Entries[j].Key })
		return out, nil
	case ir.KindStruct:
		var members map[string]json.RawMessage
		if err := json.Unmarshal(raw, &members); err != nil {
			return nil, err
		}
		out := &ir.Value{Kind: ir.KindStruct}
		for _, f := range t.Struct.AllFields() {
			v, err := jsonToIR(f.Type, members[f.Name])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", f.Name, err)
			}
			out.Fields = append(out.Fields, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s", t)
}

// tau2World checks the tau2 spec with its seed loaded from the tau2 data.
func tau2World(t testing.TB) *ir.World {
	spec := filepath.Join("testdata", "tau2", "tau2_retail.world")
	src, err := os.ReadFile(spec)
	if err != nil {
		t.Fatal(err)
	}
	w, diags := compiler.CheckSource(spec, src, compiler.WithData(os.DirFS(tau2Data(t))))
	if w == nil {
		t.Fatalf("%s does not check:\n%s", spec, diags.Text())
	}
	addGoldTasks(t, w)
	return w
}

// addGoldTasks adds to the tau2 world one task per write tool whose
// arguments the conformance probes cannot guess (an order's own items, a
// second method of the order's user): its first tau2 gold call that comes
// after read-only calls and succeeds, graded `unchanged except` the records
// tau2 says the task changes.
func addGoldTasks(t testing.TB, w *ir.World) {
	dir := tau2Data(t)
	var tasks []struct {
		ID                 string
		EvaluationCriteria struct {
			Actions []struct {
				Name      string
				Arguments json.RawMessage
			}
		} `json:"evaluation_criteria"`
	}
	var expected struct {
		Tasks map[string]struct {
			Changed map[string]map[string]json.RawMessage
			Errors  []struct {
				ActionIndex int `json:"action_index"`
			}
		}
	}
	for f, v := range map[string]any{"tasks.json": &tasks, "expected_final_states.json": &expected} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	entity := map[string]*ir.Entity{}
	for _, e := range w.Entities {
		entity[e.Name] = e
	}
	tables := map[string]string{"products": "Product", "users": "User", "orders": "Order"}
	writes := map[string]bool{}
	for _, tl := range w.Tools {
		if tl.Service.Name == "store" && strings.HasPrefix(tl.Name, "modify_") || strings.HasPrefix(tl.Name, "exchange_") {
			writes[tl.Name] = true
		}
	}
	for _, tl := range w.Tools {
		if tl.Name != "modify_pending_order_items" && tl.Name != "modify_pending_order_payment" && tl.Name != "exchange_delivered_order_items" {
			continue
		}
	search:
		for _, task := range tasks {
			want := expected.Tasks[task.ID]
			for i, a := range task.EvaluationCriteria.Actions {
				failed := false
				for _, e := range want.Errors {
					failed = failed || e.ActionIndex == i
				}
				if a.Name != tl.Name || failed {
					if writes[a.Name] {
						continue search // the state is no longer the seed's
					}
					continue
				}
				var args map[string]json.RawMessage
				if err := json.Unmarshal(a.Arguments, &args); err != nil {
					t.Fatal(err)
				}
				step := &ir.Step{Tool: tl}
				for _, p := range tl.Params {
					v, err := jsonToIR(p.Type, args[p.Name])
					if err != nil {
						t.Fatal(err)
					}
					step.Args = append(step.Args, &ir.Arg{Param: p, Value: v})
				}
				var except []*ir.Lookup
				var names []string
				for table, recs := range want.Changed {
					for k := range recs {
						except = append(except, keyLookup(entity[tables[table]], k))
						names = append(names, tables[table]+"["+k+"]")
					}
				}
				sort.Slice(except, func(i, j int) bool { return names[i] < names[j] })
				sort.Strings(names)
				w.Tasks = append(w.Tasks, &ir.Task{Name: "gold_" + tl.Name, Persona: "Customer of the online store",
					Instruction: "tau2 retail task " + task.ID + ", its call of " + tl.Name + " alone.", Domain: "ToC/retail/tau2",
					Capabilities: []string{"tool_use"},
					Assertions:   []*ir.Assertion{{Kind: ir.AssertUnchanged, Text: "unchanged except " + strings.Join(names, ", "), Except: except}},
					Solution:     []*ir.Step{step}})
				break search
			}
		}
	}
}

const tau2TestFile = `package tau2_retail

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"testing"
)

func norm(v any) any {
	switch v := v.(type) {
	case json.Number:
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = norm(x)
		}
	case []any:
		for i, x := range v {
			v[i] = norm(x)
		}
	}
	return v
}

func decode(b []byte, v any) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		panic(err)
	}
}

// TestTau2Fidelity replays the gold actions of tau2's 114 retail tasks and
// compares the raising actions and the changed records with
// expected_final_states.json.
func TestTau2Fidelity(t *testing.T) {
	var tasks []struct {
		ID   string
		EvaluationCriteria struct {
			Actions []struct {
				Name      string
				Arguments json.RawMessage
			}
		} ` + "`json:\"evaluation_criteria\"`" + `
	}
	data, _ := os.ReadFile("tasks.json")
	if err := json.Unmarshal(data, &tasks); err != nil {
		t.Fatal(err)
	}
	var expected struct {
		Tasks map[string]struct {
			Changed map[string]map[string]any
			Errors  []struct {
				ActionIndex int    ` + "`json:\"action_index\"`" + `
				Name        string
				Message     string
			}
		}
	}
	data, _ = os.ReadFile("expected_final_states.json")
	decode(data, &expected)
	keyOf := map[string]string{"Product": "product_id", "User": "user_id", "Order": "order_id"}
	tableOf := map[string]string{"products": "Product", "users": "User", "orders": "Order"}
	records := func(snap json.RawMessage) map[string]map[string]any {
		var s map[string][]map[string]any
		decode(snap, &s)
		out := map[string]map[string]any{}
		for table, rows := range s {
			for _, r := range rows {
				out[table+" "+r[keyOf[table]].(string)] = norm(r).(map[string]any)
			}
		}
		return out
	}
	seed, err := NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	initial := records(seed.Snapshot())
	good, bad := 0, 0
	for _, task := range tasks {
		ep, _ := NewEpisode("")
		want := expected.Tasks[task.ID]
		var errs []string
		for i, a := range task.EvaluationCriteria.Actions {
			if obs := ep.Call(a.Name, a.Arguments); !obs.OK {
				errs = append(errs, fmt.Sprintf("%d %s %s", i, a.Name, obs.Error.Message))
			}
		}
		var wantErrs []string
		for _, e := range want.Errors {
			wantErrs = append(wantErrs, fmt.Sprintf("%d %s %s", e.ActionIndex, e.Name, e.Message))
		}
		ok := fmt.Sprint(errs) == fmt.Sprint(wantErrs)
		if !ok {
			t.Errorf("task %s: raising actions %v, want %v", task.ID, errs, wantErrs)
		}
		final := records(ep.Snapshot())
		changed := map[string]any{}
		for table, recs := range want.Changed {
			for k, r := range recs {
				changed[tableOf[table]+" "+k] = norm(r)
			}
		}
		for k, r := range final {
			w, isChanged := changed[k]
			if !isChanged {
				w = initial[k]
			}
			if !reflect.DeepEqual(r, w) {
				got, _ := json.Marshal(r)
				exp, _ := json.Marshal(w)
				t.Errorf("task %s: %s differs\n got  %s\n want %s", task.ID, k, got, exp)
				ok = false
			}
		}
		if ok {
			good++
		} else {
			bad++
		}
	}
	t.Logf("tau2 fidelity: %d of %d tasks reach tau2's expected final state", good, good+bad)
}

var sink any

func BenchmarkSeedDecodeAndBuild(b *testing.B) {
	for b.Loop() {
		d := json.NewDecoder(bytes.NewReader(seedJSON))
		d.DisallowUnknownFields()
		var sd seedData
		if err := d.Decode(&sd); err != nil {
			b.Fatal(err)
		}
		s := NewState()
		if err := s.insert(&sd.World); err != nil {
			b.Fatal(err)
		}
		s.Freeze()
		sink = s
	}
}

func BenchmarkReset(b *testing.B) {
	NewEpisode("")
	for b.Loop() {
		sink, _ = NewEpisode("")
	}
}

func call(b *testing.B, tool, args string, fresh bool) {
	e, _ := NewEpisode("")
	raw := json.RawMessage(args)
	if o := e.Call(tool, raw); !o.OK {
		b.Fatal(o.Err())
	}
	for b.Loop() {
		if fresh {
			e, _ = NewEpisode("")
		}
		if o := e.Call(tool, raw); !o.OK {
			b.Fatal(o.Err())
		}
	}
}

func BenchmarkGetOrderDetails(b *testing.B) {
	call(b, "get_order_details", ` + "`" + `{"order_id":"#W9911714"}` + "`" + `, false)
}

func BenchmarkGetUserDetails(b *testing.B) {
	call(b, "get_user_details", ` + "`" + `{"user_id":"ethan_garcia_1261"}` + "`" + `, false)
}

func BenchmarkGetProductDetails(b *testing.B) {
	call(b, "get_product_details", ` + "`" + `{"product_id":"1656367028"}` + "`" + `, false)
}

func BenchmarkFindUserByNameZip(b *testing.B) {
	call(b, "find_user_id_by_name_zip", ` + "`" + `{"first_name":"Ethan","last_name":"Garcia","zip":"80280"}` + "`" + `, false)
}

func BenchmarkModifyItemsFreshEpisode(b *testing.B) {
	call(b, "modify_pending_order_items", ` + "`" + `{"order_id":"#W9911714","item_ids":["9791469541","1340995114"],"new_item_ids":["4107812777","1421289881"],"payment_method_id":"gift_card_4332117"}` + "`" + `, true)
}

func BenchmarkModifyAddressRepeated(b *testing.B) {
	call(b, "modify_user_address", ` + "`" + `{"user_id":"ethan_garcia_1261","address1":"1 A St","address2":"","city":"Denver","state":"CO","country":"USA","zip":"80280"}` + "`" + `, false)
}

func BenchmarkHashAfterWrite(b *testing.B) {
	e, _ := NewEpisode("")
	e.Call("modify_user_address", json.RawMessage(` + "`" + `{"user_id":"ethan_garcia_1261","address1":"1 A St","address2":"","city":"Denver","state":"CO","country":"USA","zip":"80280"}` + "`" + `))
	e.StateHash()
	for b.Loop() {
		sink = e.StateHash()
	}
}

func BenchmarkCheckInvariants(b *testing.B) {
	s, _ := Seed()
	for b.Loop() {
		sink = s.CheckInvariants()
	}
}

func BenchmarkValidate(b *testing.B) {
	s, _ := Seed()
	for b.Loop() {
		sink = s.Validate()
	}
}
`

const tau2MainFile = `package main

import (
	"fmt"

	"github.com/worldc/worldc/%s"
)

func main() {
	e, err := tau2_retail.NewEpisode("")
	fmt.Println(e != nil, err)
}
`

const runtimeOnlyMainFile = `package main

import (
	"encoding/json"
	"fmt"

	"github.com/worldc/worldc/runtime"
)

func main() {
	r := runtime.NewRegistry[runtime.Stateful]()
	fmt.Println(r.Tools(), json.Valid(nil))
}
`

// TestTau2Scale measures the generated package of tau2-bench retail with
// its full seed (50 products, 500 users, 1,000 orders with nested lists,
// maps and variants): generation, build time, binary size, seed decoding,
// tool calls; and replays tau2's gold actions. It runs only with
// WORLDC_BENCH=1 (a minute or two); figures go to the log.
func TestTau2Scale(t *testing.T) {
	if os.Getenv("WORLDC_BENCH") == "" {
		t.Skip("set WORLDC_BENCH=1 to measure the tau2 retail package")
	}
	data := tau2Data(t)
	w := tau2World(t)
	start := time.Now()
	files := mustGenerate(t, w)
	t.Logf("%d seed records: Generate %v; seed.json %d KiB; Go sources %d KiB", len(w.Seed), time.Since(start).Round(time.Millisecond),
		len(files["seed.json"])>>10, goBytes(files)>>10)
	root := scratch(t)
	dir := filepath.Join(root, w.Name)
	writeFiles(t, dir, files)
	for _, f := range []string{"tasks.json", "expected_final_states.json"} {
		b, err := os.ReadFile(filepath.Join(data, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tau2_test.go"), []byte(tau2TestFile), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(moduleRoot(t), dir)
	pkg := "./" + filepath.ToSlash(rel)
	if out, ok := goCmd(t, "build", "./runtime"); !ok { // warm the cache for runtime
		t.Fatal(out)
	}
	start = time.Now()
	if out, ok := goCmd(t, "build", pkg); !ok {
		t.Fatal(out)
	}
	t.Logf("go build of the package (runtime cached): %v", time.Since(start).Round(time.Millisecond))
	for _, m := range []struct{ name, src string }{
		{"main_world", fmt.Sprintf(tau2MainFile, filepath.ToSlash(rel))},
		{"main_runtime", runtimeOnlyMainFile},
	} {
		mdir := filepath.Join(root, m.name)
		os.MkdirAll(mdir, 0o755)
		os.WriteFile(filepath.Join(mdir, "main.go"), []byte(m.src), 0o644)
		mrel, _ := filepath.Rel(moduleRoot(t), mdir)
		bin := filepath.Join(root, m.name+".bin")
		start = time.Now()
		if out, ok := goCmd(t, "build", "-o", bin, "./"+filepath.ToSlash(mrel)); !ok {
			t.Fatal(out)
		}
		st, _ := os.Stat(bin)
		t.Logf("%s: binary %d KiB (go build %v)", m.name, st.Size()>>10, time.Since(start).Round(time.Millisecond))
	}
	out, ok := goCmd(t, "test", "-count=1", "-run", "TestConformance|TestTau2Fidelity", "-v", pkg)
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "fidelity:") || strings.HasPrefix(strings.TrimSpace(l), "---") || strings.Contains(l, "ok ") || strings.Contains(l, "FAIL") {
			t.Log(l)
		}
	}
	if !ok {
		t.Errorf("%s", out[:min(len(out), 20000)])
	}
	out, ok = goCmd(t, "test", "-run=^$", "-bench=.", "-benchmem", "-benchtime=200x", pkg)
	t.Log(out)
	if !ok {
		t.Fatal("benchmarks failed")
	}
}

// goBytes is the size of the generated Go sources.
func goBytes(files map[string][]byte) int {
	n := 0
	for name, b := range files {
		if strings.HasSuffix(name, ".go") {
			n += len(b)
		}
	}
	return n
}
