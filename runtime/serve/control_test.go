package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

const testToken = "s3cret-control-token"

// doAuth is do with an Authorization header (none when token is "").
func doAuth(t *testing.T, method, url, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if out != nil && buf.Len() > 0 {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, url, err, buf.Bytes())
		}
	}
	if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("%s %s: 401 without WWW-Authenticate: Bearer", method, url)
	}
	return resp.StatusCode
}

// TestControlPlane: with a control token, the control routes (open,
// state, grade, trajectory, delete) answer 401 without it or with another
// one, and work with it; the agent's routes (tool calls, MCP, the OpenEnv
// steps) need no token and reach neither the grade nor the state.
func TestControlPlane(t *testing.T) {
	s, url := start(t, Options{ControlToken: testToken})
	var ep EpisodeStart
	if st := doAuth(t, "POST", url+"/v1/worlds/worldtest/episodes", testToken, `{"task":"settle_acme"}`, &ep); st != 201 {
		t.Fatalf("open with the token: %d", st)
	}
	base := url + "/v1/episodes/" + ep.EpisodeID
	control := []struct{ method, url, body string }{
		{"POST", url + "/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`},
		{"GET", base + "/state", ""},
		{"POST", base + "/grade", ""},
		{"GET", base + "/trajectory", ""},
		{"DELETE", base, ""},
	}
	for _, token := range []string{"", "wrong", testToken + "x", strings.ToUpper(testToken)} {
		for _, c := range control {
			var e errBody
			if st := doAuth(t, c.method, c.url, token, c.body, &e); st != 401 || e.Error.Code != CodeUnauthorized {
				t.Errorf("%s %s with token %q: %d %+v, want 401 %s", c.method, c.url, token, st, e, CodeUnauthorized)
			}
		}
	}
	// The agent's call needs no token; the episode is still open (no
	// refused delete went through).
	var obs runtime.Observation
	if st := doAuth(t, "POST", base+"/calls", "", `{"tool":"mark_paid","arguments":{"invoice":"inv1"}}`, &obs); st != 200 || !obs.OK {
		t.Fatalf("agent call: %d %+v", st, obs)
	}
	var g runtime.Grade
	if st := doAuth(t, "POST", base+"/grade", testToken, "", &g); st != 200 || len(g.Assertions) == 0 {
		t.Errorf("grade with the token: %d %+v", st, g)
	}
	var state StateResponse
	if st := doAuth(t, "GET", base+"/state", testToken, "", &state); st != 200 || state.Steps != 1 {
		t.Errorf("state with the token: %d %+v", st, state)
	}
	if st := doAuth(t, "DELETE", base, testToken, "", nil); st != 200 {
		t.Errorf("delete with the token: %d", st)
	}

	// MCP: the session's id is its episode's, and it reaches only tools.
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if strings.Contains(tool.Name, "grade") || strings.Contains(tool.Name, "state") {
			t.Errorf("MCP offers %s", tool.Name)
		}
	}
	for _, name := range []string{"grade", "state", "trajectory"} {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err == nil && !res.IsError {
			t.Errorf("MCP tools/call %s succeeded: %+v", name, res)
		}
	}
	for _, c := range []struct{ method, path string }{{"POST", "/grade"}, {"GET", "/state"}, {"GET", "/trajectory"}} {
		if st := doAuth(t, c.method, url+"/v1/episodes/"+sess.ID()+c.path, "", "", nil); st != 401 {
			t.Errorf("%s of the MCP session's episode without the token: %d", c.path, st)
		}
	}

	// OpenEnv: reset and steps need no token; grade does, and the state
	// holds no hash without it.
	wsURL := "ws" + strings.TrimPrefix(url, "http") + "/ws"
	agent, _, err := websocket.Dial(ctx, wsURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.CloseNow()
	agent.SetReadLimit(1 << 20)
	if m := wsRoundTrip(t, ctx, agent, `{"type":"reset","data":{"task_id":"settle_acme"}}`); m["type"] != "observation" {
		t.Fatalf("reset: %v", m)
	}
	if m := wsRoundTrip(t, ctx, agent, `{"type":"step","data":{"type":"call_tool","tool_name":"mark_paid","arguments":{"invoice":"inv1"}}}`); m["type"] != "observation" {
		t.Errorf("step: %v", m)
	}
	if m := wsRoundTrip(t, ctx, agent, `{"type":"step","data":{"type":"grade"}}`); m["type"] != "error" || m["data"].(map[string]any)["code"] != WSUnauthorized {
		t.Errorf("grade without the token: %v", m)
	}
	if m := wsRoundTrip(t, ctx, agent, `{"type":"grade"}`); m["type"] != "error" {
		t.Errorf("grade message without the token: %v", m)
	}
	if m := wsRoundTrip(t, ctx, agent, `{"type":"state"}`); m["type"] != "state" || m["data"].(map[string]any)["state_hash"] != nil {
		t.Errorf("state without the token: %v", m)
	}
	trainer, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer trainer.CloseNow()
	trainer.SetReadLimit(1 << 20)
	wsRoundTrip(t, ctx, trainer, `{"type":"reset","data":{"task_id":"settle_acme"}}`)
	if m := wsRoundTrip(t, ctx, trainer, `{"type":"step","data":{"type":"grade"}}`); m["type"] != "observation" || m["data"].(map[string]any)["reward"] == nil {
		t.Errorf("grade with the token: %v", m)
	}
	if m := wsRoundTrip(t, ctx, trainer, `{"type":"state"}`); m["data"].(map[string]any)["state_hash"] == nil {
		t.Errorf("state with the token: %v", m)
	}
	if got := s.m.unauthorized.Get(); got != uint64(4*len(control)+3) {
		t.Errorf("worldc_unauthorized_total %d, want %d", got, 4*len(control)+3)
	}
}

// TestControlAddr: served apart, the agent's handler does not route the
// control plane at all (not even with the token), and the control
// handler serves both planes behind the token.
func TestControlAddr(t *testing.T) {
	s, err := New([]runtime.World{worldtest.World}, Options{ControlToken: testToken})
	if err != nil {
		t.Fatal(err)
	}
	agent := httptest.NewServer(s.AgentHandler())
	ctl := httptest.NewServer(s.ControlHandler())
	t.Cleanup(func() { agent.Close(); ctl.Close(); s.Close() })
	var e errBody
	if st := doAuth(t, "POST", agent.URL+"/v1/worlds/worldtest/episodes", testToken, `{}`, &e); st != 404 || e.Error.Code != CodeNotFound || !strings.Contains(e.Error.Message, "control") {
		t.Errorf("open on the agent's address: %d %+v", st, e)
	}
	if st := doAuth(t, "POST", ctl.URL+"/v1/worlds/worldtest/episodes", "", `{}`, nil); st != 401 {
		t.Errorf("open on the control address without the token: %d", st)
	}
	var ep EpisodeStart
	if st := doAuth(t, "POST", ctl.URL+"/v1/worlds/worldtest/episodes", testToken, `{"task":"settle_acme"}`, &ep); st != 201 {
		t.Fatalf("open on the control address: %d", st)
	}
	// The agent calls on its own address; the trainer grades on its own.
	if st := doAuth(t, "POST", agent.URL+"/v1/episodes/"+ep.EpisodeID+"/calls", "", `{"tool":"mark_paid","arguments":{"invoice":"inv1"}}`, nil); st != 200 {
		t.Errorf("call on the agent's address: %d", st)
	}
	for _, path := range []string{"/grade", "/state", "/trajectory"} {
		method := "GET"
		if path == "/grade" {
			method = "POST"
		}
		if st := doAuth(t, method, agent.URL+"/v1/episodes/"+ep.EpisodeID+path, testToken, "", nil); st != 404 {
			t.Errorf("%s on the agent's address: %d", path, st)
		}
		if st := doAuth(t, method, ctl.URL+"/v1/episodes/"+ep.EpisodeID+path, testToken, "", nil); st != 200 {
			t.Errorf("%s on the control address: %d", path, st)
		}
	}
	// A WebSocket on the agent's address cannot grade, token or not.
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(agent.URL, "http")+"/ws", &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + testToken}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"task_id":"settle_acme"}}`)
	if m := wsRoundTrip(t, ctx, c, `{"type":"step","data":{"type":"grade"}}`); m["type"] != "error" {
		t.Errorf("grade on the agent's address: %v", m)
	}
}

// TestEpisodeIDs: episode and MCP session ids are 128 random bits.
func TestEpisodeIDs(t *testing.T) {
	hex := regexp.MustCompile(`^[0-9a-f]{32}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := newID()
		if !hex.MatchString(id) || seen[id] {
			t.Fatalf("id %q (seen before: %v)", id, seen[id])
		}
		seen[id] = true
	}
}

// TestStartJSON: the answers built from encoded parts are byte for byte
// what encoding the values gives, for every task and prefix.
func TestStartJSON(t *testing.T) {
	s, err := New([]runtime.World{worldtest.World, answering{renamed{worldtest.World}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, name := range []string{"worldtest", "worldtest2"} {
		testStartJSON(t, s, name)
	}
}

// answering is a world whose tasks all say they need an answer.
type answering struct{ runtime.World }

func (a answering) Tasks() []runtime.TaskInfo {
	ts := a.World.Tasks()
	for i := range ts {
		ts[i].Answer = true
	}
	return ts
}

func testStartJSON(t *testing.T, s *Server, name string) {
	wd := s.worlds[name]
	for _, task := range append([]string{""}, wd.order...) {
		for k := 0; k <= len(wd.tasks[task].Solution); k++ {
			e, err := s.openAt(name, task, newID(), k)
			if err != nil {
				t.Fatal(err)
			}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetEscapeHTML(false)
			start := s.start(e)
			enc.Encode(start)
			if got := s.startJSON(e); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("task %q prefix %d: startJSON\n%s\nencoding\n%s", task, k, got, want.Bytes())
			}
			lite := start
			lite.Policy, lite.Tools = "", []json.RawMessage{}
			want.Reset()
			enc.Encode(lite)
			if got := s.startLiteJSON(e); !bytes.Equal(got, want.Bytes()) {
				t.Errorf("task %q prefix %d: startLiteJSON\n%s\nencoding\n%s", task, k, got, want.Bytes())
			}
			want.Reset()
			obs := map[string]any{
				"episode_id": start.EpisodeID, "world": start.World, "task": start.Task, "persona": start.Persona,
				"instruction": start.Instruction, "policy": start.Policy, "tools": wsTools(e.world.tools),
				"prefix": start.Prefix, "given": nonNil(start.Given), "today": start.Today, "now": start.Now,
			}
			if start.Answer {
				obs["answer"] = true
			}
			enc.Encode(map[string]any{"type": "observation", "data": wsObservation{Observation: obs}})
			if got := s.wsResetJSON(e); !bytes.Equal(got, bytes.TrimRight(want.Bytes(), "\n")) {
				t.Errorf("task %q prefix %d: wsResetJSON\n%s\nencoding\n%s", task, k, got, want.Bytes())
			}
		}
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]any{"type": "observation", "data": wsObservation{Observation: map[string]any{"tools": wsTools(wd.tools)}}})
	if !bytes.Equal(wd.enc.listTools, bytes.TrimRight(want.Bytes(), "\n")) {
		t.Errorf("list_tools\n%s\nencoding\n%s", wd.enc.listTools, want.Bytes())
	}
	if got, _ := compactJSON(openAITools(wd.tools)); !bytes.Equal(got, wd.enc.toolsOpenAI) {
		t.Error("the encoded OpenAI tools differ from the tools'")
	}
}

// TestOpenMany: "count" opens a group of episodes at once (all or none:
// over capacity, none stays open).
func TestOpenMany(t *testing.T) {
	s, url := start(t, Options{MaxEpisodes: 5})
	var eps []EpisodeStart
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme","count":3,"lite":true}`, &eps); st != 201 || len(eps) != 3 {
		t.Fatalf("count 3: %d %+v", st, eps)
	}
	ids := map[string]bool{}
	for _, e := range eps {
		if e.Task != "settle_acme" || e.Instruction == "" || len(e.Tools) != 0 || e.Policy != "" {
			t.Errorf("lite start: %+v", e)
		}
		ids[e.EpisodeID] = true
	}
	if len(ids) != 3 || s.openCount() != 3 {
		t.Fatalf("%d distinct ids, %d open", len(ids), s.openCount())
	}
	var e errBody
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme","count":3}`, &e); st != 429 || e.Error.Code != CodeCapacityReached || s.openCount() != 3 {
		t.Errorf("over capacity: %d %+v, %d open", st, e, s.openCount())
	}
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"count":2000}`, &e); st != 400 {
		t.Errorf("count 2000: %d", st)
	}
	var full []EpisodeStart
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme","count":2}`, &full); st != 201 || len(full) != 2 || len(full[1].Tools) != 4 {
		t.Errorf("count 2: %d %+v", st, full)
	}
}
