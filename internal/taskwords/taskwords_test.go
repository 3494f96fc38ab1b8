package taskwords

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/author/fakellm"
)

const apiKey = "sk-test-0123456789abcdefghijklmnop"

// synthesize makes n template tasks of an example world.
func synthesize(t *testing.T, n int) *tasks.Result {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "worlds", "insurance_claims.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data := os.DirFS(filepath.Dir(path))
	w, ds := compiler.CheckSource(path, src, compiler.WithData(data))
	if ds.HasErrors() {
		t.Fatal(ds.Text())
	}
	r, err := tasks.Synthesize(w, src, tasks.Options{N: n, Seed: 3, Filename: path, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func reply(persona, instruction string) fakellm.Reply {
	b, _ := json.Marshal(map[string]string{"persona": persona, "instruction": instruction})
	return fakellm.Reply{Content: "Here you are:\n```json\n" + string(b) + "\n```"}
}

func client(srv *fakellm.Server) *author.Client {
	o := author.DefaultClientOptions()
	o.BaseURL, o.Model, o.APIKey = srv.BaseURL(), "fake-model", apiKey
	o.Retries, o.BackoffMin, o.BackoffMax = 0, time.Millisecond, time.Millisecond
	return author.NewClient(o)
}

// TestWrite: against the fake endpoint, words that pass are kept (llm);
// a reply missing a value and one leaking an internal id are repaired in
// one round; a reply still bad, an unparsable one and a failed request
// fall back to the template's words, counted by reason; the traces hold
// every request in task order and never the API key; the same replies
// give the same spec, whatever order they arrive in.
func TestWrite(t *testing.T) {
	base := synthesize(t, 6)
	reqs := base.WordsRequests()
	leakAt := slices.IndexFunc(reqs, func(q tasks.WordsRequest) bool { return len(q.Forbidden) > 0 })
	if leakAt < 0 {
		t.Fatal("no task with an internal id")
	}
	// Task roles: ok, missing→repaired, leak→repaired, still bad,
	// unparsable twice, a request refused with the key echoed.
	order := []int{leakAt}
	for i := range reqs {
		if i != leakAt {
			order = append(order, i)
		}
	}
	script := fakellm.Script{}
	key := func(i int) string { return "Task " + reqs[i].Task }
	good := func(i int) fakellm.Reply {
		return reply("A claims handler", "Hi, here is what I need. "+reqs[i].Instruction)
	}
	missing := func(i int) fakellm.Reply {
		ins := reqs[i].Instruction
		for _, v := range reqs[i].Values {
			ins = strings.ReplaceAll(ins, v, "the usual")
		}
		return reply("A claims handler", ins)
	}
	leak, ok, miss, bad, garbled, refused := order[0], order[1], order[2], order[3], order[4], order[5]
	script[key(leak)] = []fakellm.Reply{reply("A claims handler", reqs[leak].Instruction+" Ref "+reqs[leak].Forbidden[0]+"."), good(leak)}
	script[key(ok)] = []fakellm.Reply{good(ok)}
	script[key(miss)] = []fakellm.Reply{missing(miss), good(miss)}
	script[key(bad)] = []fakellm.Reply{missing(bad), missing(bad)}
	script[key(garbled)] = []fakellm.Reply{{Content: "I would rather not."}, {Content: `{"persona": "x"}`}}
	script[key(refused)] = []fakellm.Reply{{Status: 401, EchoAuth: true}}
	if len(reqs[miss].Values) == 0 || len(reqs[bad].Values) == 0 {
		t.Fatalf("tasks without values: %+v %+v", reqs[miss], reqs[bad])
	}

	run := func(jobs int) (*tasks.Result, string, *fakellm.Server) {
		srv := fakellm.New(script)
		defer srv.Close()
		r := synthesize(t, 6)
		traces := filepath.Join(t.TempDir(), "traces", "insurance_claims.words.jsonl")
		n := 0
		err := Write(context.Background(), client(srv), r, Options{World: "insurance_claims", Title: "Claims", Jobs: jobs, Traces: traces, Progress: func() { n++ }})
		if err != nil {
			t.Fatal(err)
		}
		if n != len(reqs) {
			t.Errorf("progress told %d tasks, want %d", n, len(reqs))
		}
		data, err := os.ReadFile(traces)
		if err != nil {
			t.Fatal(err)
		}
		return r, string(data), srv
	}
	r, traces, srv := run(3)
	src := map[string]string{}
	for _, m := range r.Tasks {
		src[m.ID] = m.InstructionSource
	}
	for _, i := range []int{ok, miss, leak} {
		if src[reqs[i].Task] != "llm" || r.Tasks[i].Instruction != "Hi, here is what I need. "+reqs[i].Instruction {
			t.Errorf("%s: %s %q", reqs[i].Task, src[reqs[i].Task], r.Tasks[i].Instruction)
		}
	}
	for _, i := range []int{bad, garbled, refused} {
		if src[reqs[i].Task] != "template" || r.Tasks[i].Instruction != reqs[i].Instruction {
			t.Errorf("%s: %s %q, want the template's words", reqs[i].Task, src[reqs[i].Task], r.Tasks[i].Instruction)
		}
	}
	c := r.Summary.Words
	if c == nil || c.LLM != 3 || c.Repaired != 2 || c.Template != 3 || c.Fallbacks["missing"] != 1 || c.Fallbacks["unparsable"] != 1 || c.Fallbacks["error"] != 1 || c.Model != "fake-model" {
		t.Errorf("count: %+v", c)
	}
	if !bytes.Contains(r.Spec, []byte(`instruction_source: "llm"`)) || !bytes.Contains(r.Spec, []byte(`instruction_source: "template"`)) {
		t.Errorf("the spec does not mark both sources")
	}
	// The repair round says what is wrong, and names the task.
	var repairs []string
	for _, q := range srv.Requests() {
		if len(q.Messages) == 4 {
			repairs = append(repairs, q.Messages[3].Content)
		}
	}
	if !slices.ContainsFunc(repairs, func(s string) bool {
		return strings.Contains(s, "Task "+reqs[leak].Task) && strings.Contains(s, "must not hold "+reqs[leak].Forbidden[0])
	}) || !slices.ContainsFunc(repairs, func(s string) bool {
		return strings.Contains(s, "Task "+reqs[miss].Task) && strings.Contains(s, "must give this value")
	}) {
		t.Errorf("repair messages: %q", repairs)
	}
	// No step shows an internal id to the model.
	for _, q := range srv.Requests() {
		for _, id := range reqs[leak].Forbidden {
			if strings.Contains(q.Messages[1].Content, id) {
				t.Errorf("the prompt shows %s: %s", id, q.Messages[1].Content)
			}
		}
	}
	// Traces: a line per request, in the tasks' order (that of the spec,
	// not of their names) then attempt order; no key.
	lines := strings.Split(strings.TrimSpace(traces), "\n")
	if len(lines) != 1+2+2+2+2+1 {
		t.Errorf("%d trace lines, want 10", len(lines))
	}
	position := map[string]int{}
	for i, q := range reqs {
		position[q.Task] = i
	}
	var prev Trace
	for k, l := range lines {
		var tr Trace
		if err := json.Unmarshal([]byte(l), &tr); err != nil {
			t.Fatal(err)
		}
		if k > 0 && (position[tr.Task] < position[prev.Task] || (tr.Task == prev.Task && tr.Attempt != prev.Attempt+1)) {
			t.Errorf("trace %d (%s %d) after (%s %d)", k, tr.Task, tr.Attempt, prev.Task, prev.Attempt)
		}
		if tr.Task == reqs[refused].Task && (tr.Verdict != "error" || tr.Error == "") {
			t.Errorf("the refused request's trace: %+v", tr)
		}
		prev = tr
	}
	if strings.Contains(traces, apiKey) {
		t.Errorf("the traces hold the API key")
	}
	if !strings.Contains(traces, `"verdict":"leak"`) || !strings.Contains(traces, `"verdict":"missing"`) || !strings.Contains(traces, `"kind":"repair"`) {
		t.Errorf("traces lack verdicts: %s", traces)
	}
	// The same replies, one at a time: the same spec.
	r1, _, _ := run(1)
	if !bytes.Equal(r.Spec, r1.Spec) || !bytes.Equal(tasks.JSONL(r.Tasks), tasks.JSONL(r1.Tasks)) {
		t.Errorf("-j 3 and -j 1 write different specs from the same replies")
	}
}

// TestWriteCancelled: a context that ends stops the words with its error
// and leaves the template's words in place.
func TestWriteCancelled(t *testing.T) {
	r := synthesize(t, 3)
	spec := slices.Clone(r.Spec)
	srv := fakellm.New(fakellm.Script{"*": {reply("p", "i")}})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Write(ctx, client(srv), r, Options{Jobs: 2}); err == nil {
		t.Fatal("Write on a cancelled context succeeded")
	}
	if !bytes.Equal(spec, r.Spec) {
		t.Errorf("the spec changed")
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in, persona, instruction string
		ok                       bool
	}{
		{`{"persona": "Ann", "instruction": "Do it."}`, "Ann", "Do it.", true},
		{"Sure!\n```json\n{\"persona\": \" Ann \", \"instruction\": \"Do it.\"}\n```", "Ann", "Do it.", true},
		{`{"persona": "Ann"}`, "", "", false},
		{`no object`, "", "", false},
		{`{"persona": 3, "instruction": "x"}`, "", "", false},
	} {
		w, err := Parse(c.in)
		if (err == nil) != c.ok || w.Persona != c.persona || w.Instruction != c.instruction {
			t.Errorf("Parse(%q) = %+v, %v", c.in, w, err)
		}
	}
}
