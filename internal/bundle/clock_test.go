package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/generated/insurance_claims"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve"
	"github.com/worldc/worldc/runtime/serve/eval"
	"github.com/worldc/worldc/runtime/serve/eval/evaltest"
)

// The agent is told its task's date and time on every protocol: for
// insurance_claims' decide_overdue_windscreen_claim, which runs on a clock
// of its own (`today 2026-05-22` in the spec), that clock, and for a task
// without one the world's (2026-05-12) — as the "today" and "now" members
// and in the policy it is shown, which never gives the world's date beside
// the task's.

// clockCase is a task and the clock its agent must be told, written out
// from the spec (not computed by the code under test).
type clockCase struct {
	task, today, now, sentence string
}

var clockCases = []clockCase{
	{"decide_overdue_windscreen_claim", "2026-05-22", "2026-05-22T00:00:00Z", "Today is Friday, 2026-05-22; the time is 00:00 UTC (2026-05-22T00:00:00Z)."},
	{"settle_water_damage_claim", "2026-05-12", "2026-05-12T00:00:00Z", "Today is Tuesday, 2026-05-12; the time is 00:00 UTC (2026-05-12T00:00:00Z)."},
}

// worldDateLine is how policy.md gives the world's date: the agent of a
// task is shown the task's instead.
const worldDateLine = "- Today's date: 2026-05-12"

// clockWorld is insurance_claims, checked to hold the two cases: the
// first task on its own clock, the second on the world's.
func clockWorld(t *testing.T) runtime.World {
	t.Helper()
	w := insurance_claims.New()
	own := map[string]*runtime.DateTime{}
	for _, tk := range w.Tasks() {
		own[tk.ID] = tk.Now
	}
	if n, ok := own[clockCases[0].task]; !ok || n == nil || n.String() != clockCases[0].now {
		t.Fatalf("insurance_claims' %s has no clock of its own at %s: %v", clockCases[0].task, clockCases[0].now, n)
	}
	if n, ok := own[clockCases[1].task]; !ok || n != nil {
		t.Fatalf("insurance_claims' %s should run on the world's clock: %v %v", clockCases[1].task, ok, n)
	}
	if !strings.Contains(w.Policy(), worldDateLine+" ") {
		t.Fatalf("policy.md does not give the world's date as %q:\n%s", worldDateLine, w.Policy())
	}
	return w
}

// checkPolicy fails unless policy tells c's clock, and the world's date
// only for a task on the world's clock.
func checkPolicy(t *testing.T, where string, c clockCase, policy string) {
	t.Helper()
	if !strings.Contains(policy, "- "+c.sentence+"\n") {
		t.Errorf("%s %s: the policy does not say %q:\n%.600s", where, c.task, c.sentence, policy)
	}
	if strings.Contains(policy, worldDateLine) {
		t.Errorf("%s %s: the policy still gives the world's date line", where, c.task)
	}
	if !strings.Contains(policy, "claims_acknowledged_in_time") && !strings.Contains(policy, "10 working days") {
		t.Errorf("%s %s: the policy lost its rules", where, c.task)
	}
}

// checkClock fails unless the members today and now of a decoded object
// are c's.
func checkClock(t *testing.T, where string, c clockCase, obj map[string]json.RawMessage) {
	t.Helper()
	var today, now string
	json.Unmarshal(obj["today"], &today)
	json.Unmarshal(obj["now"], &now)
	if today != c.today || now != c.now {
		t.Errorf("%s %s: today %q now %q, want %s %s", where, c.task, today, now, c.today, c.now)
	}
}

func decodeObject(t *testing.T, data []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return m
}

func TestClockJSONAPI(t *testing.T) {
	w := clockWorld(t)
	_, ts := answerServer(t, w)
	resp, err := http.Get(ts.URL + "/v1/worlds/insurance_claims/tasks")
	if err != nil {
		t.Fatal(err)
	}
	var listed []map[string]json.RawMessage
	json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	byID := map[string]map[string]json.RawMessage{}
	for _, ls := range listed {
		var id string
		json.Unmarshal(ls["id"], &id)
		byID[id] = ls
	}
	// GET /v1/worlds: the world's clock.
	var worlds []map[string]json.RawMessage
	resp, err = http.Get(ts.URL + "/v1/worlds")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(resp.Body).Decode(&worlds)
	resp.Body.Close()
	checkClock(t, "GET /v1/worlds", clockCases[1], worlds[0])
	for _, c := range clockCases {
		checkClock(t, "GET tasks", c, byID[c.task])
		for _, body := range []string{`{"task":%q}`, `{"task":%q,"lite":true}`, `{"task":%q,"prefix":1}`} {
			var raw json.RawMessage
			if st := post(t, ts.URL+"/v1/worlds/insurance_claims/episodes", fmt.Sprintf(body, c.task), &raw); st != 201 {
				t.Fatalf("open %s: %d %s", c.task, st, raw)
			}
			start := decodeObject(t, raw)
			checkClock(t, "episode start "+body, c, start)
			var typed serve.EpisodeStart
			json.Unmarshal(raw, &typed)
			if typed.Today.String() != c.today || typed.Now.String() != c.now {
				t.Errorf("EpisodeStart %s: %s %s", c.task, typed.Today, typed.Now)
			}
			if !strings.Contains(body, "lite") {
				checkPolicy(t, "episode start "+body, c, typed.Policy)
			}
		}
		// A group of rollouts: each start has the clock.
		var group []map[string]json.RawMessage
		if st := post(t, ts.URL+"/v1/worlds/insurance_claims/episodes", fmt.Sprintf(`{"task":%q,"count":2,"lite":true}`, c.task), &group); st != 201 || len(group) != 2 {
			t.Fatalf("open a group of %s: %d", c.task, st)
		}
		for _, start := range group {
			checkClock(t, "group start", c, start)
		}
	}
}

func TestClockOpenEnv(t *testing.T) {
	w := clockWorld(t)
	_, ts := answerServer(t, w)
	ctx := context.Background()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(16 << 20)
	for _, c := range clockCases {
		msg, _ := json.Marshal(map[string]any{"type": "reset", "data": map[string]any{"task_id": c.task}})
		if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
			t.Fatal(err)
		}
		_, data, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var reply struct {
			Data struct {
				Observation map[string]json.RawMessage
			}
		}
		json.Unmarshal(data, &reply)
		obs := reply.Data.Observation
		checkClock(t, "OpenEnv reset", c, obs)
		var policy string
		json.Unmarshal(obs["policy"], &policy)
		checkPolicy(t, "OpenEnv reset", c, policy)
		// OpenEnv over HTTP: POST /reset.
		var httpReset struct {
			Observation map[string]json.RawMessage
		}
		post(t, ts.URL+"/reset", fmt.Sprintf(`{"task_id":%q}`, c.task), &httpReset)
		checkClock(t, "POST /reset", c, httpReset.Observation)
	}
}

// TestClockMCP: the official Go SDK's client reads the task's clock in
// the server's instructions, on a session of the task and on the
// per-episode endpoint.
func TestClockMCP(t *testing.T) {
	w := clockWorld(t)
	_, ts := answerServer(t, w)
	ctx := context.Background()
	for _, c := range clockCases {
		var start serve.EpisodeStart
		post(t, ts.URL+"/v1/worlds/insurance_claims/episodes", fmt.Sprintf(`{"task":%q,"lite":true}`, c.task), &start)
		for _, endpoint := range []string{"/mcp/insurance_claims?task=" + c.task, "/mcp?task=" + c.task, "/v1/episodes/" + start.EpisodeID + "/mcp"} {
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + endpoint}, nil)
			if err != nil {
				t.Fatalf("%s: %v", endpoint, err)
			}
			checkPolicy(t, "MCP "+endpoint, c, sess.InitializeResult().Instructions)
			sess.Close()
		}
	}
}

// TestClockStdio: `stdio --task T` gives the task's clock in its MCP
// instructions.
func TestClockStdio(t *testing.T) {
	w := clockWorld(t)
	for _, c := range clockCases {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		var stderr bytes.Buffer
		code := make(chan int, 1)
		go func() {
			code <- serve.Run("b", []runtime.World{w}, []string{"stdio", "--task", c.task}, sr, sw, &stderr)
			sw.Close()
		}()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkPolicy(t, "stdio", c, sess.InitializeResult().Instructions)
		sess.Close()
		cw.Close()
		if st := <-code; st != 0 {
			t.Fatalf("stdio: exit %d: %s", st, stderr.String())
		}
	}
}

// TestClockEval: the eval loop's system prompt gives the task's clock;
// the golden agent still solves both tasks.
func TestClockEval(t *testing.T) {
	w := clockWorld(t)
	instruction := map[string]string{}
	for _, tk := range w.Tasks() {
		instruction[tk.Instruction] = tk.ID
	}
	golden := evaltest.Golden(w)
	var mu sync.Mutex
	system := map[string]string{}
	h := func(req openai.ChatCompletionRequest) evaltest.Reply {
		mu.Lock()
		system[instruction[evaltest.FirstUser(req)]] = req.Messages[0].Content
		mu.Unlock()
		return golden(req)
	}
	_, results, _ := runEval(t, h, []runtime.World{w}, func(cfg *eval.Config) {
		cfg.Tasks = []string{clockCases[0].task, clockCases[1].task}
	})
	for _, c := range clockCases {
		if r := results["insurance_claims/"+c.task]; !r.Solved {
			t.Errorf("eval %s: not solved: %+v", c.task, r)
		}
		sys, ok := system[c.task]
		if !ok {
			t.Fatalf("eval %s: no request", c.task)
		}
		checkPolicy(t, "eval system prompt", c, sys)
	}
}

// TestClockExport: tasks.jsonl, solutions.jsonl and the trainers' rows
// give the clock as today and now, and the rows' prompts say it.
func TestClockExport(t *testing.T) {
	w := clockWorld(t)
	dir := t.TempDir()
	if err := serve.Export([]runtime.World{w}, dir, serve.ExportOptions{Bundle: "b"}); err != nil {
		t.Fatal(err)
	}
	rows := func(p ...string) map[string]map[string]json.RawMessage {
		data, err := os.ReadFile(filepath.Join(append([]string{dir}, p...)...))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]json.RawMessage{}
		for line := range strings.Lines(string(data)) {
			m := decodeObject(t, []byte(line))
			if ei, ok := m["extra_info"]; ok { // verl: the row's clock is in extra_info
				m = decodeObject(t, ei)
				m["prompt"] = decodeObject(t, []byte(line))["prompt"]
			}
			var id string
			json.Unmarshal(m["task_id"], &id)
			out[id] = m
		}
		return out
	}
	tasks := rows("worlds", "insurance_claims", "tasks.jsonl")
	solutions := rows("worlds", "insurance_claims", "solutions.jsonl")
	verl := rows("trainers", "verl", "insurance_claims.jsonl")
	nemo := rows("trainers", "nemo_gym", "insurance_claims.jsonl")
	for _, c := range clockCases {
		checkClock(t, "tasks.jsonl", c, tasks[c.task])
		checkClock(t, "solutions.jsonl", c, solutions[c.task])
		checkClock(t, "verl extra_info", c, verl[c.task])
		checkClock(t, "NeMo Gym row", c, nemo[c.task])
		var prompt []struct{ Role, Content string }
		json.Unmarshal(verl[c.task]["prompt"], &prompt)
		if len(prompt) != 2 || prompt[0].Role != "system" {
			t.Fatalf("verl prompt: %+v", prompt)
		}
		checkPolicy(t, "verl system prompt", c, prompt[0].Content)
		var params struct {
			Input []struct{ Role, Content string }
		}
		json.Unmarshal(nemo[c.task]["responses_create_params"], &params)
		if len(params.Input) != 2 || params.Input[0].Role != "developer" {
			t.Fatalf("NeMo Gym input: %+v", params.Input)
		}
		checkPolicy(t, "NeMo Gym developer message", c, params.Input[0].Content)
	}
	// policy.md is the world's: its date, and the note that a task may
	// set its own.
	policy, _ := os.ReadFile(filepath.Join(dir, "worlds", "insurance_claims", "policy.md"))
	if !strings.Contains(string(policy), worldDateLine+" (the world's; a task may set its own date and time, given with the task)\n") {
		t.Errorf("policy.md does not give the world's date with the note:\n%.400s", policy)
	}
}
