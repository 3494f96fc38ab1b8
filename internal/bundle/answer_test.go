package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
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

// The answer tasks of the example worlds, graded through every protocol of
// the server with the agent's final message: each grade must be the one
// runtime.GradeWithAnswer gives in process on the generated package (a
// right answer 1, a wrong one and none less), and bad answers are refused
// with a 4xx error, the episode unchanged.

// answerTask is an answer task of insurance_claims with its golden steps
// and the final messages it is graded with.
type answerTask struct {
	id    string
	steps []runtime.Step
	cases []answerCase
}

type answerCase struct {
	name   string
	answer *string // nil: graded without one
	want   runtime.Grade
}

func strp(s string) *string { return &s }

// answerTasks are insurance_claims' tasks that grade an answer (there must
// be some), each with its golden steps and the grades in process of a
// right answer, a wrong one and none.
func answerTasks(t *testing.T) (runtime.World, []answerTask) {
	t.Helper()
	w := insurance_claims.New()
	var out []answerTask
	for _, tk := range w.Tasks() {
		if !tk.Answer {
			continue
		}
		ep, _ := w.NewEpisode(tk.ID)
		steps, err := runtime.Run(ep, tk.Solution)
		if err != nil {
			t.Fatal(err)
		}
		golden := ep.(runtime.AnswerGrader).GoldenAnswer()
		at := answerTask{id: tk.ID, steps: steps}
		for _, c := range []answerCase{
			{name: "right", answer: strp("Here is what I found:\n" + golden)},
			{name: "wrong", answer: strp("It is 12.50 EUR, due 2025-01-01, claim SIN-2026-0419.")},
			{name: "none"},
		} {
			c.want = eval.Grade(ep, c.answer)
			at.cases = append(at.cases, c)
		}
		if r := at.cases[0].want.Reward; r != 1 {
			t.Fatalf("%s: the right answer's reward in process is %v", tk.ID, r)
		}
		for _, c := range at.cases[1:] {
			if c.want.Reward >= 1 {
				t.Fatalf("%s: the %s answer's reward in process is %v", tk.ID, c.name, c.want.Reward)
			}
		}
		if d := at.cases[2].want.Failed()[0].Detail; !strings.Contains(d, "no answer given") {
			t.Fatalf("%s: graded without an answer, the detail is %q", tk.ID, d)
		}
		out = append(out, at)
	}
	if len(out) < 2 {
		t.Fatalf("insurance_claims has %d tasks that grade an answer, want 2", len(out))
	}
	return w, out
}

func sameGrade(t *testing.T, where string, got, want runtime.Grade) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Errorf("%s: grade\n%s\nin process\n%s", where, g, w)
	}
}

func post(t *testing.T, url, body string, out any) int {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("POST %s: %v in %s", url, err, data)
		}
	}
	return resp.StatusCode
}

func answerBody(a *string) string {
	if a == nil {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"answer": *a})
	return string(b)
}

func answerServer(t *testing.T, w runtime.World) (*serve.Server, *httptest.Server) {
	t.Helper()
	s, err := serve.New([]runtime.World{w}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts
}

type apiErr struct {
	Error struct{ Code, Message string }
}

func TestAnswerJSONAPI(t *testing.T) {
	w, tasks := answerTasks(t)
	_, ts := answerServer(t, w)
	var listed []serve.TaskSummary
	resp, _ := http.Get(ts.URL + "/v1/worlds/insurance_claims/tasks")
	json.NewDecoder(resp.Body).Decode(&listed)
	resp.Body.Close()
	for _, ls := range listed {
		want := false
		for _, at := range tasks {
			want = want || at.id == ls.ID
		}
		if ls.Answer != want {
			t.Errorf("GET tasks: %s answer %v, want %v", ls.ID, ls.Answer, want)
		}
	}
	for _, at := range tasks {
		for _, c := range at.cases {
			var start serve.EpisodeStart
			if st := post(t, ts.URL+"/v1/worlds/insurance_claims/episodes", fmt.Sprintf(`{"task":%q,"lite":true}`, at.id), &start); st != 201 || !start.Answer {
				t.Fatalf("open %s: %d, answer %v", at.id, st, start.Answer)
			}
			ep := ts.URL + "/v1/episodes/" + start.EpisodeID
			for _, s := range at.steps {
				body, _ := json.Marshal(map[string]any{"tool": s.Tool, "arguments": s.Args})
				post(t, ep+"/calls", string(body), nil)
			}
			hash := stateHash(t, ep)
			// Bad answers: 400, and the episode open and as it was.
			for _, bad := range []struct{ body, code string }{
				{`{"answer":`, "invalid_json"},
				{`{"answer":5800}`, "invalid_answer"},
				{`{"answer":["5800"]}`, "invalid_answer"},
				{`{"answer":"5800","extra":1}`, "invalid_json"},
				{answerBody(strp(strings.Repeat("a", serve.MaxAnswerBytes+1))), "invalid_answer"},
				{`{"answer":"` + strings.Repeat(`\u0061`, serve.MaxAnswerBytes+1) + `"}`, "invalid_answer"},
			} {
				var e apiErr
				if st := post(t, ep+"/grade", bad.body, &e); st != 400 || e.Error.Code != bad.code || e.Error.Message == "" {
					t.Errorf("%s: grade with %.40s: %d %+v, want 400 %s", at.id, bad.body, st, e, bad.code)
				}
			}
			if h := stateHash(t, ep); h != hash {
				t.Errorf("%s: the state changed on refused grades", at.id)
			}
			var g runtime.Grade
			if st := post(t, ep+"/grade", answerBody(c.answer), &g); st != 200 {
				t.Fatalf("%s %s: grade %d", at.id, c.name, st)
			}
			sameGrade(t, "JSON API "+at.id+" "+c.name, g, c.want)
		}
		// An answer of exactly MaxAnswerBytes is taken.
		var start serve.EpisodeStart
		post(t, ts.URL+"/v1/worlds/insurance_claims/episodes", fmt.Sprintf(`{"task":%q}`, at.id), &start)
		var g runtime.Grade
		if st := post(t, ts.URL+"/v1/episodes/"+start.EpisodeID+"/grade", answerBody(strp(strings.Repeat("a", serve.MaxAnswerBytes))), &g); st != 200 {
			t.Errorf("%s: an answer of %d bytes: %d", at.id, serve.MaxAnswerBytes, st)
		}
	}
}

func stateHash(t *testing.T, ep string) string {
	t.Helper()
	resp, err := http.Get(ep + "/state")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st serve.StateResponse
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || st.StateHash == "" {
		t.Fatalf("state of %s: %v", ep, err)
	}
	return st.StateHash
}

func TestAnswerOpenEnv(t *testing.T) {
	w, tasks := answerTasks(t)
	_, ts := answerServer(t, w)
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(16 << 20)
	roundTrip := func(msg any) map[string]json.RawMessage {
		t.Helper()
		b, _ := json.Marshal(msg)
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
		_, data, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Type string
			Data map[string]json.RawMessage
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		m.Data["type"], _ = json.Marshal(m.Type)
		return m.Data
	}
	for _, at := range tasks {
		for _, cs := range at.cases {
			reset := roundTrip(map[string]any{"type": "reset", "data": map[string]any{"task_id": at.id}})
			var obs struct{ Answer bool }
			if json.Unmarshal(reset["observation"], &obs); !obs.Answer {
				t.Errorf("%s: the reset observation does not say answer: true", at.id)
			}
			for _, s := range at.steps {
				roundTrip(map[string]any{"type": "step", "data": map[string]any{"type": "call_tool", "tool_name": s.Tool, "arguments": s.Args}})
			}
			for _, bad := range []any{5800, strings.Repeat("x", serve.MaxAnswerBytes+1)} {
				e := roundTrip(map[string]any{"type": "step", "data": map[string]any{"type": "grade", "answer": bad}})
				if !strings.Contains(string(e["code"]), serve.WSInvalidAnswer) {
					t.Errorf("%s: grade with a bad answer: %s", at.id, e["code"])
				}
			}
			grade := map[string]any{"type": "grade"}
			if cs.answer != nil {
				grade["answer"] = *cs.answer
			}
			// A grade step, and the grade as a message of its own.
			for _, msg := range []any{map[string]any{"type": "step", "data": grade}, map[string]any{"type": "grade", "data": grade}} {
				out := roundTrip(msg)
				var o struct {
					Grade runtime.Grade `json:"grade"`
				}
				var reward float64
				json.Unmarshal(out["observation"], &o)
				json.Unmarshal(out["reward"], &reward)
				sameGrade(t, "OpenEnv "+at.id+" "+cs.name, o.Grade, cs.want)
				if reward != cs.want.Reward {
					t.Errorf("OpenEnv %s %s: reward %v, want %v", at.id, cs.name, reward, cs.want.Reward)
				}
			}
		}
	}
	// OpenEnv over HTTP: POST /step with the grade action.
	at := tasks[0]
	var reset struct {
		Observation struct {
			EpisodeID string `json:"episode_id"`
		}
	}
	post(t, ts.URL+"/reset", fmt.Sprintf(`{"task_id":%q}`, at.id), &reset)
	for _, s := range at.steps {
		body, _ := json.Marshal(map[string]any{"episode_id": reset.Observation.EpisodeID, "action": map[string]any{"type": "call_tool", "tool_name": s.Tool, "arguments": s.Args}})
		post(t, ts.URL+"/step", string(body), nil)
	}
	var e struct{ Error struct{ Code string } }
	if st := post(t, ts.URL+"/step", fmt.Sprintf(`{"episode_id":%q,"action":{"type":"grade","answer":{"x":1}}}`, reset.Observation.EpisodeID), &e); st != 400 || e.Error.Code != serve.WSInvalidAnswer {
		t.Errorf("POST /step grade with an object answer: %d %+v", st, e)
	}
	body, _ := json.Marshal(map[string]any{"episode_id": reset.Observation.EpisodeID, "action": map[string]any{"type": "grade", "answer": *at.cases[0].answer}})
	var out struct {
		Observation struct {
			Grade runtime.Grade `json:"grade"`
		}
		Reward float64
	}
	if st := post(t, ts.URL+"/step", string(body), &out); st != 200 || out.Reward != 1 {
		t.Errorf("POST /step grade: %d reward %v", st, out.Reward)
	}
	sameGrade(t, "OpenEnv HTTP", out.Observation.Grade, at.cases[0].want)
}

// TestAnswerMCP: an MCP session (the official Go SDK's client) calls the
// tools; the trainer grades its episode with the control API, by the
// session's id, with the final message.
func TestAnswerMCP(t *testing.T) {
	w, tasks := answerTasks(t)
	_, ts := answerServer(t, w)
	ctx := context.Background()
	for _, at := range tasks {
		for _, cs := range at.cases {
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp/insurance_claims?task=" + at.id}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range at.steps {
				var args map[string]any
				json.Unmarshal(s.Args, &args)
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: s.Tool, Arguments: args})
				if err != nil || res.IsError != !s.Observation.OK {
					t.Fatalf("%s %s: %v %+v", at.id, s.Tool, err, res)
				}
			}
			var e apiErr
			if st := post(t, ts.URL+"/v1/episodes/"+sess.ID()+"/grade", `{"answer":true}`, &e); st != 400 || e.Error.Code != serve.CodeInvalidAnswer {
				t.Errorf("MCP %s: grade with a bool answer: %d %+v", at.id, st, e)
			}
			var g runtime.Grade
			if st := post(t, ts.URL+"/v1/episodes/"+sess.ID()+"/grade", answerBody(cs.answer), &g); st != 200 {
				t.Fatalf("MCP %s: grade %d", at.id, st)
			}
			sameGrade(t, "MCP "+at.id+" "+cs.name, g, cs.want)
			sess.Close()
		}
	}
}

// TestAnswerNemoGym: verify grades the response's final assistant text,
// the text after its last function call.
func TestAnswerNemoGym(t *testing.T) {
	w, tasks := answerTasks(t)
	s, err := serve.New([]runtime.World{w}, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.NemoGymHandler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	message := func(text string) map[string]any {
		return map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": text}}}
	}
	call := map[string]any{"type": "function_call", "name": "find_claims", "arguments": "{}", "call_id": "c1"}
	for _, at := range tasks {
		for _, cs := range at.cases {
			var outputs [][]any
			if cs.answer != nil {
				// The text before a call is not the final message.
				outputs = [][]any{{message("Let me check. 1 2 3"), call, map[string]any{"type": "function_call_output", "call_id": "c1", "output": "{}"}, message(*cs.answer)}}
			} else {
				outputs = [][]any{{message(*at.cases[0].answer), call}, {}}
			}
			for _, output := range outputs {
				a := &nemoClient{t: t, base: ts.URL}
				if st := a.post("/seed_session", map[string]any{"world": "insurance_claims", "task_id": at.id}, nil); st != 200 {
					t.Fatalf("seed_session: %d", st)
				}
				for _, s := range at.steps {
					var args map[string]any
					json.Unmarshal(s.Args, &args)
					a.post("/"+s.Tool, args, nil)
				}
				var e apiErr
				long := map[string]any{"task_id": at.id, "response": map[string]any{"output": []any{message(strings.Repeat("x", serve.MaxAnswerBytes+1))}}}
				if st := a.post("/verify", long, &e); st != 400 || e.Error.Code != serve.CodeInvalidAnswer {
					t.Errorf("verify with a long answer: %d %+v", st, e)
				}
				if st := a.post("/verify", map[string]any{"task_id": at.id, "response": map[string]any{"output": "text"}}, &e); st != 400 {
					t.Errorf("verify with a malformed response: %d %+v", st, e)
				}
				var v struct {
					Reward   float64
					Resolved bool
				}
				if st := a.post("/verify", map[string]any{"task_id": at.id, "response": map[string]any{"id": "r", "object": "response", "output": output}}, &v); st != 200 {
					t.Fatalf("verify: %d", st)
				}
				if v.Reward != cs.want.Reward || v.Resolved != cs.want.Solved() {
					t.Errorf("NeMo Gym %s %s: reward %v resolved %v, in process %v %v", at.id, cs.name, v.Reward, v.Resolved, cs.want.Reward, cs.want.Solved())
				}
			}
		}
	}
}

// nemoClient posts as NeMo Gym's agent server does: the cookies of each
// answer with the next request.
type nemoClient struct {
	t       *testing.T
	base    string
	cookies []*http.Cookie
}

func (a *nemoClient) post(path string, body, out any) int {
	a.t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", a.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range a.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if c := resp.Cookies(); len(c) > 0 {
		a.cookies = c
	}
	if out != nil {
		json.Unmarshal(b, out)
	}
	return resp.StatusCode
}

// TestAnswerEval: the eval loop grades an episode with the agent's last
// message without a tool call; the golden agent states the golden
// answer; the replay of a run (verify --eval) gives the same rewards.
func TestAnswerEval(t *testing.T) {
	w, tasks := answerTasks(t)
	ids := map[string]answerTask{}
	var only []string
	for _, at := range tasks {
		ids[at.id] = at
		only = append(only, at.id)
	}
	golden := evaltest.Golden(w)
	for _, cs := range []string{"right", "wrong", "none"} {
		h := golden
		switch cs {
		case "wrong":
			h = func(req openai.ChatCompletionRequest) evaltest.Reply {
				r := golden(req)
				if len(r.Message.ToolCalls) == 0 {
					return evaltest.Text("It is 12.50 EUR, due 2025-01-01, claim SIN-2026-0419.")
				}
				return r
			}
		case "none":
			h = func(req openai.ChatCompletionRequest) evaltest.Reply {
				r := golden(req)
				if len(r.Message.ToolCalls) == 0 {
					return evaltest.Calls("find_claims", `{}`) // never answers
				}
				return r
			}
		}
		_, results, dir := runEval(t, h, []runtime.World{w}, func(c *eval.Config) {
			c.Tasks = only
			c.MaxTurns = 6
		})
		for _, at := range tasks {
			r, ok := results["insurance_claims/"+at.id]
			if !ok {
				t.Fatalf("%s: no result", at.id)
			}
			var want float64
			for _, c := range at.cases {
				if c.name == cs {
					want = c.want.Reward
				}
			}
			if cs == "none" {
				// The extra calls are reads: the grade is the one without an answer.
				if r.End != eval.EndMaxTurns || r.Reward != want {
					t.Errorf("eval %s %s: end %s reward %v, want max_turns %v", at.id, cs, r.End, r.Reward, want)
				}
				continue
			}
			if r.Reward != want || (cs == "right") != r.Solved {
				t.Errorf("eval %s %s: reward %v solved %v (answer %q), want %v", at.id, cs, r.Reward, r.Solved, r.Answer, want)
			}
		}
		problems, n, err := eval.Replay([]runtime.World{w}, dir)
		if err != nil || len(problems) > 0 || n != len(tasks) {
			t.Errorf("replay of the %s run: %v %d %v", cs, err, n, problems)
		}
	}
}

// TestAnswerExport: tasks.jsonl and the trainers' rows say which tasks
// grade an answer; solutions.jsonl carries the golden answer, with the
// reward graded with it, and verify replays it.
func TestAnswerExport(t *testing.T) {
	w, tasks := answerTasks(t)
	dir := t.TempDir()
	if err := serve.Export([]runtime.World{w}, dir, serve.ExportOptions{Bundle: "b"}); err != nil {
		t.Fatal(err)
	}
	need := map[string]bool{}
	for _, at := range tasks {
		need[at.id] = true
	}
	rows := readJSONL(t, filepath.Join(dir, "worlds", "insurance_claims", "tasks.jsonl"))
	for _, row := range rows {
		id := row["task_id"].(string)
		if (row["answer"] == true) != need[id] {
			t.Errorf("tasks.jsonl %s: answer %v", id, row["answer"])
		}
	}
	for _, row := range readJSONL(t, filepath.Join(dir, "worlds", "insurance_claims", "solutions.jsonl")) {
		id := row["task_id"].(string)
		_, has := row["answer"]
		if has != need[id] || row["reward"] != 1.0 {
			t.Errorf("solutions.jsonl %s: answer %v, reward %v", id, row["answer"], row["reward"])
		}
	}
	for _, row := range readJSONL(t, filepath.Join(dir, "trainers", "verl", "insurance_claims.jsonl")) {
		ei := row["extra_info"].(map[string]any)
		id := ei["task_id"].(string)
		wantAgent := "tool_agent"
		if need[id] {
			wantAgent = serve.VerlAgentLoop
		}
		if ei["worldc_answer"] != need[id] || row["agent_name"] != wantAgent {
			t.Errorf("verl row %s: worldc_answer %v agent %v", id, ei["worldc_answer"], row["agent_name"])
		}
	}
	for _, row := range readJSONL(t, filepath.Join(dir, "trainers", "nemo_gym", "insurance_claims.jsonl")) {
		if row["answer"] != need[row["task_id"].(string)] {
			t.Errorf("NeMo Gym row %s: answer %v", row["task_id"], row["answer"])
		}
	}
	loop, err := os.ReadFile(filepath.Join(dir, "trainers", "verl", "agent_loop.yaml"))
	if err != nil || !strings.Contains(string(loop), serve.VerlAgentLoopClass) {
		t.Errorf("agent_loop.yaml: %v %s", err, loop)
	}
	if problems, _, err := serve.Verify([]runtime.World{w}, dir); err != nil || len(problems) > 0 {
		t.Errorf("verify: %v %v", err, problems)
	}
	// A recorded answer that is not the golden one: verify sees the reward change.
	file := filepath.Join(dir, "worlds", "insurance_claims", "solutions.jsonl")
	data, _ := os.ReadFile(file)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var row serve.SolutionRow
		json.Unmarshal([]byte(l), &row)
		if row.TaskID == tasks[0].id {
			row.Answer = strp("I do not know")
			b, _ := json.Marshal(row)
			l = string(b)
		}
		lines = append(lines, l)
	}
	os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	problems, _, _ := serve.Verify([]runtime.World{w}, dir)
	found := false
	for _, p := range problems {
		found = found || strings.Contains(p, tasks[0].id+": reward")
	}
	if !found {
		t.Errorf("verify of a wrong recorded answer: %v", problems)
	}
}

// TestAnswerStdio: stdio grades with --answer-file when the client
// disconnects, and --grade-to records the answer.
func TestAnswerStdio(t *testing.T) {
	w, tasks := answerTasks(t)
	at := tasks[0]
	for _, cs := range at.cases {
		dir := t.TempDir()
		gradeTo, answerFile := filepath.Join(dir, "grade.json"), filepath.Join(dir, "answer.txt")
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		var stderr bytes.Buffer
		code := make(chan int, 1)
		go func() {
			code <- serve.Run("b", []runtime.World{w}, []string{"stdio", "--task", at.id, "--grade-to", gradeTo, "--answer-file", answerFile}, sr, sw, &stderr)
			sw.Close()
		}()
		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range at.steps {
			var args map[string]any
			json.Unmarshal(s.Args, &args)
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: s.Tool, Arguments: args}); err != nil {
				t.Fatal(err)
			}
		}
		if cs.answer != nil {
			os.WriteFile(answerFile, []byte(*cs.answer), 0o644)
		}
		sess.Close()
		cw.Close()
		if c := <-code; c != 0 {
			t.Fatalf("stdio: exit %d: %s", c, stderr.String())
		}
		var res serve.StdioResult
		data, _ := os.ReadFile(gradeTo)
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		sameGrade(t, "stdio "+cs.name, res.Grade, cs.want)
		if (res.Answer == nil) != (cs.answer == nil) || len(res.Trajectory) != len(at.steps) {
			t.Errorf("stdio %s: answer %v, %d steps", cs.name, res.Answer, len(res.Trajectory))
		}
	}
	// An answer file over the limit fails the command.
	dir := t.TempDir()
	answerFile := filepath.Join(dir, "answer.txt")
	os.WriteFile(answerFile, bytes.Repeat([]byte("x"), serve.MaxAnswerBytes+1), 0o644)
	var stderr bytes.Buffer
	if c := serve.Run("b", []runtime.World{w}, []string{"stdio", "--task", at.id, "--grade-to", filepath.Join(dir, "g.json"), "--answer-file", answerFile}, strings.NewReader(""), io.Discard, &stderr); c != 1 || !strings.Contains(stderr.String(), "longer than") {
		t.Errorf("stdio with a long answer file: exit %d: %s", c, stderr.String())
	}
}
