package serve

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// renamed is the test world under another name: a second world.
type renamed struct{ runtime.World }

func (r renamed) Info() runtime.WorldInfo {
	i := r.World.Info()
	i.Name = "worldtest2"
	return i
}

// TestMCPQueryPath: /mcp?world=&task= (the MCP Inspector CLI's rewrite of
// /mcp/{world}?task=) opens the same sessions; with one world, ?world=
// may be left out.
func TestMCPQueryPath(t *testing.T) {
	_, url := start(t, Options{})
	ctx := context.Background()
	for _, endpoint := range []string{url + "/mcp?world=worldtest&task=settle_acme", url + "/mcp?task=settle_acme"} {
		client := mcp.NewClient(&mcp.Implementation{Name: "inspector", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		if err != nil {
			t.Fatalf("%s: %v", endpoint, err)
		}
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "mark_paid", Arguments: map[string]any{"invoice": "inv1"}})
		if err != nil || res.IsError {
			t.Errorf("%s: %v %+v", endpoint, err, res)
		}
		sess.Close()
	}
	var e errBody
	if st := do(t, "POST", url+"/mcp?world=nowhere", `{}`, &e); st != 404 || e.Error.Code != CodeUnknownWorld {
		t.Errorf("/mcp?world=nowhere: %d %+v", st, e)
	}
}

// TestOpenEnvParity: list_tools before a reset with several worlds, the
// client's episode_id, and a reconnecting client resuming its episode
// after a restart.
func TestOpenEnvParity(t *testing.T) {
	dir := t.TempDir()
	worlds := []runtime.World{worldtest.World, renamed{worldtest.World}}
	s, err := New(worlds, Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
	ts.Start()
	ctx := context.Background()
	dial := func(url string) *websocket.Conn {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		return c
	}
	c := dial(ts.URL)
	obs := func(m map[string]any) map[string]any {
		d, _ := m["data"].(map[string]any)
		o, _ := d["observation"].(map[string]any)
		return o
	}
	all := obs(wsRoundTrip(t, ctx, c, `{"type":"list_tools"}`))["tools"].([]any)
	if len(all) != 8 || all[0].(map[string]any)["world"] != "worldtest" || all[4].(map[string]any)["world"] != "worldtest2" {
		t.Errorf("list_tools before a reset, two worlds: %v", all)
	}
	if one := obs(wsRoundTrip(t, ctx, c, `{"type":"step","data":{"type":"list_tools","world":"worldtest2"}}`))["tools"].([]any); len(one) != 4 {
		t.Errorf("list_tools of one world: %v", one)
	}
	reset := obs(wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"world":"worldtest","task_id":"settle_acme","episode_id":"trainer-ep-1"}}`))
	if reset["episode_id"] != "trainer-ep-1" {
		t.Fatalf("reset with episode_id: %v", reset)
	}
	wsRoundTrip(t, ctx, c, `{"type":"step","data":{"type":"call_tool","tool_name":"mark_paid","arguments":{"invoice":"inv1"}}}`)
	other := dial(ts.URL)
	if m := wsRoundTrip(t, ctx, other, `{"type":"reset","data":{"world":"worldtest","task_id":"settle_acme","episode_id":"trainer-ep-1"}}`); m["type"] != "error" || m["data"].(map[string]any)["code"] != WSEpisodeExists {
		t.Errorf("a second connection on a held episode: %v", m)
	}
	other.CloseNow()
	if m := wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"world":"worldtest","episode_id":"bad id!"}}`); m["type"] != "error" {
		t.Errorf("a bad episode_id: %v", m)
	}
	// Restart: the client reconnects and resets with its episode_id.
	s.Drain()
	s.EndStreams(ctx)
	c.CloseNow()
	ts.Close()
	s.Close()
	s2, err := New(worlds, Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ts2 := &httptest.Server{Listener: ln2, Config: &http.Server{Handler: s2.Handler()}}
	ts2.Start()
	defer func() { ts2.Close(); s2.Close() }()
	c2 := dial(ts2.URL)
	defer c2.CloseNow()
	if r := obs(wsRoundTrip(t, ctx, c2, `{"type":"reset","data":{"world":"worldtest","task_id":"settle_acme","episode_id":"trainer-ep-1"}}`)); r["episode_id"] != "trainer-ep-1" {
		t.Fatalf("resume: %v", r)
	}
	if st := wsRoundTrip(t, ctx, c2, `{"type":"state"}`)["data"].(map[string]any); st["step_count"] != float64(1) {
		t.Errorf("the resumed episode: %v", st)
	}
}

// TestOpenEnvHTTP: OpenEnv's HTTP routes: /reset, /step with the episode
// the reset named, /state; grading needs the control token there too.
func TestOpenEnvHTTP(t *testing.T) {
	_, url := start(t, Options{ControlToken: testToken})
	var reset struct {
		Observation map[string]any `json:"observation"`
		Done        bool           `json:"done"`
	}
	if st := doAuth(t, "POST", url+"/reset", "", `{"task_id":"settle_acme"}`, &reset); st != 200 || reset.Observation["episode_id"] == nil || reset.Done {
		t.Fatalf("/reset: %d %+v", st, reset)
	}
	id := reset.Observation["episode_id"].(string)
	var step struct {
		Observation struct {
			ToolName string              `json:"tool_name"`
			Result   runtime.Observation `json:"result"`
		} `json:"observation"`
	}
	if st := doAuth(t, "POST", url+"/step", "", `{"episode_id":"`+id+`","action":{"type":"call_tool","tool_name":"mark_paid","arguments":{"invoice":"inv1"}}}`, &step); st != 200 || !step.Observation.Result.OK {
		t.Errorf("/step: %d %+v", st, step)
	}
	var state map[string]any
	if st := doAuth(t, "GET", url+"/state?episode_id="+id, "", "", &state); st != 200 || state["step_count"] != float64(1) || state["state_hash"] != nil {
		t.Errorf("/state: %d %v", st, state)
	}
	grade := `{"episode_id":"` + id + `","action":{"type":"grade"}}`
	if st := doAuth(t, "POST", url+"/step", "", grade, nil); st != 401 {
		t.Errorf("grade without the token: %d", st)
	}
	var graded struct {
		Reward *float64 `json:"reward"`
		Done   bool     `json:"done"`
	}
	if st := doAuth(t, "POST", url+"/step", testToken, grade, &graded); st != 200 || graded.Reward == nil || !graded.Done {
		t.Errorf("grade with the token: %d %+v", st, graded)
	}
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	if st := doAuth(t, "POST", url+"/step", "", `{"episode_id":"nope","action":{"type":"list_tools"}}`, &e); st != 200 {
		// list_tools needs no episode
		t.Errorf("list_tools: %d", st)
	}
	if st := doAuth(t, "POST", url+"/step", "", `{"episode_id":"nope","action":{"type":"call_tool","tool_name":"get_invoice"}}`, &e); st != 404 || e.Error.Code != WSEpisodeClosed {
		t.Errorf("/step of no episode: %d %+v", st, e)
	}
}
