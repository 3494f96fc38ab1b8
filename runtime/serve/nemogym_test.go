package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// nemoAgent posts as NeMo Gym's simple_agent does (responses_api_agents/
// simple_agent/app.py): JSON bodies, no cookie jar, each request with the
// cookies of the answer before it (aiohttp's response.cookies).
type nemoAgent struct {
	t       *testing.T
	base    string
	cookies []*http.Cookie
}

func (a *nemoAgent) post(path string, body any) (int, []byte) {
	a.t.Helper()
	var data []byte
	if body != nil {
		data, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest("POST", a.base+path, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	for _, c := range a.cookies {
		req.AddCookie(c)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	a.cookies = resp.Cookies()
	return resp.StatusCode, out
}

// TestNemoGym drives the NeMo Gym endpoints with NeMo Gym's documented
// request shapes: seed_session with a row of trainers/nemo_gym, the
// golden calls as tool routes, verify with the row and a Responses-API
// response; the reward is the episode's grade.
func TestNemoGym(t *testing.T) {
	s, err := New([]runtime.World{worldtest.World}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.NemoGymHandler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	var taskInfo runtime.TaskInfo
	for _, tk := range worldtest.World.Tasks() {
		if tk.ID == task {
			taskInfo = tk
		}
	}
	row := nemoRow(worldtest.World.Info(), worldtest.World.Policy(), eval.TaskClock(worldtest.World.Info(), taskInfo), taskInfo, worldtest.World.Tools())
	a := &nemoAgent{t: t, base: ts.URL}

	// A tool call before any session: an error the model can read.
	if st, out := a.post("/get_invoice", map[string]any{"id": "inv1"}); st != 400 || !strings.Contains(string(out), "seed_session") {
		t.Errorf("call without a session: %d %s", st, out)
	}
	if st, out := a.post("/seed_session", row); st != 200 || string(out) != "{}" || len(a.cookies) != 1 {
		t.Fatalf("seed_session: %d %s %v", st, out, a.cookies)
	}
	if s.openCount() != 1 {
		t.Fatalf("%d episodes after seed_session", s.openCount())
	}
	ep, _ := worldtest.World.NewEpisode(task)
	for _, c := range calls {
		want, _ := ep.Call(c[0], json.RawMessage(c[1])).AppendJSON(nil)
		var args map[string]any
		json.Unmarshal([]byte(c[1]), &args)
		st, out := a.post("/"+c[0], args)
		if st != 200 || !bytes.Equal(out, want) {
			t.Errorf("%s: %d %s, in process %s", c[0], st, out, want)
		}
	}
	// verify: the request with "reward" (and "resolved") added.
	verify := map[string]any{}
	for k, v := range row.(map[string]any) {
		verify[k] = v
	}
	verify["response"] = map[string]any{"id": "resp_1", "object": "response", "created_at": 0, "model": "policy", "output": []any{
		map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "done"}}},
	}, "parallel_tool_calls": true, "tool_choice": "auto", "tools": []any{}}
	// Through the observability prefix, as NeMo Gym's client sends it.
	st, out := a.post("/ng-rollout/r-1/verify", verify)
	var got map[string]any
	if err := json.Unmarshal(out, &got); st != 200 || err != nil {
		t.Fatalf("verify: %d %s", st, out)
	}
	want := ep.Grade().Reward
	if got["reward"] != want || got["resolved"] != ep.Grade().Solved() || got["task_id"] != task || got["response"] == nil || got["responses_create_params"] == nil {
		t.Errorf("verify: %v, want reward %v", got, want)
	}
	if s.openCount() != 0 {
		t.Errorf("%d episodes after verify", s.openCount())
	}
	// Verify again: the same reward.
	if _, out := a.post("/verify", verify); !strings.Contains(string(out), `"reward":`) {
		t.Errorf("verify again: %s", out)
	}
	st, out = a.post("/aggregate_metrics", map[string]any{"verify_responses": []any{
		map[string]any{"_ng_task_index": 0, "reward": 1.0}, map[string]any{"_ng_task_index": 0, "reward": 0.5}, map[string]any{"_ng_task_index": 1, "reward": 0.0},
	}})
	var agg struct {
		Groups []map[string]any `json:"group_level_metrics"`
		Agent  map[string]any   `json:"agent_metrics"`
		Key    map[string]any   `json:"key_metrics"`
	}
	if json.Unmarshal(out, &agg); st != 200 || len(agg.Groups) != 2 || agg.Agent["mean/reward"] != 0.5 || agg.Key["mean/reward"] != 0.5 || agg.Groups[0]["mean/reward"] != 0.75 {
		t.Errorf("aggregate_metrics: %d %s", st, out)
	}
	resp, err := http.Get(ts.URL + "/reverify_mode")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `"unsupported"` {
		t.Errorf("reverify_mode: %s", body)
	}
	// Another agent's cookie-less verify grades nothing.
	b := &nemoAgent{t: t, base: ts.URL}
	if st, _ := b.post("/verify", verify); st != 404 {
		t.Errorf("verify without a session: %d", st)
	}
}
