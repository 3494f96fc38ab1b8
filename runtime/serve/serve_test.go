package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

const task = "settle_acme"

// start runs a server of the test world on a loopback port.
func start(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s, err := New([]runtime.World{worldtest.World}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts.URL
}

// do sends a request and decodes the JSON answer into out (when not nil);
// it returns the status.
func do(t *testing.T, method, url, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %q", method, url, err, data)
		}
	}
	return resp.StatusCode
}

type errBody struct {
	Error struct {
		Code, Message string
	} `json:"error"`
}

// inProcessHash is the state hash after calls made directly in an episode.
func inProcessHash(t *testing.T, calls [][2]string) string {
	t.Helper()
	ep, err := worldtest.World.NewEpisode(task)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		ep.Call(c[0], json.RawMessage(c[1]))
	}
	return ep.StateHash()
}

var calls = [][2]string{
	{"mark_paid", `{"invoice":"inv1"}`},
	{"create_invoice", `{"customer":"globex","amount":500}`},
	{"mark_paid", `{"invoice":"nope"}`},
}

func TestJSONAPI(t *testing.T) {
	_, url := start(t, Options{})
	var worlds []WorldSummary
	if st := do(t, "GET", url+"/v1/worlds", "", &worlds); st != 200 || len(worlds) != 1 || worlds[0].Name != "worldtest" || worlds[0].Tools != 4 {
		t.Fatalf("GET /v1/worlds: %d %+v", st, worlds)
	}
	var tasks []TaskSummary
	if st := do(t, "GET", url+"/v1/worlds/worldtest/tasks", "", &tasks); st != 200 || len(tasks) != 1 || tasks[0].ID != task {
		t.Fatalf("tasks: %d %+v", st, tasks)
	}
	var ep EpisodeStart
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep); st != 201 || ep.EpisodeID == "" || ep.Instruction == "" || len(ep.Tools) != 4 || ep.Policy == "" {
		t.Fatalf("open: %d %+v", st, ep)
	}
	base := url + "/v1/episodes/" + ep.EpisodeID
	for _, c := range calls {
		var obs runtime.Observation
		if st := do(t, "POST", base+"/calls", fmt.Sprintf(`{"tool":%q,"arguments":%s}`, c[0], c[1]), &obs); st != 200 {
			t.Fatalf("call %s: status %d", c[0], st)
		}
	}
	var bad runtime.Observation
	do(t, "POST", base+"/calls", `{"tool":"mark_payed","arguments":{}}`, &bad)
	if bad.OK || bad.Error == nil || bad.Error.Code != runtime.CodeUnknownTool {
		t.Errorf("unknown tool: %+v", bad)
	}
	var state StateResponse
	if st := do(t, "GET", base+"/state", "", &state); st != 200 || state.StateHash != inProcessHash(t, calls) || state.Steps != 4 {
		t.Errorf("state: %d hash %s steps %d, want the in-process hash %s", st, state.StateHash, state.Steps, inProcessHash(t, calls))
	}
	var g runtime.Grade
	if st := do(t, "POST", base+"/grade", "", &g); st != 200 || len(g.Assertions) == 0 {
		t.Errorf("grade: %d %+v", st, g)
	}
	resp, err := http.Get(base + "/trajectory")
	if err != nil {
		t.Fatal(err)
	}
	steps, err := runtime.ReadTrajectory(resp.Body)
	resp.Body.Close()
	if err != nil || len(steps) != 4 {
		t.Fatalf("trajectory: %v, %d steps", err, len(steps))
	}
	fresh, _ := worldtest.World.NewEpisode(task)
	if err := runtime.Replay(fresh, steps); err != nil {
		t.Errorf("the trajectory does not replay: %v", err)
	}
	if st := do(t, "DELETE", base, "", nil); st != 200 {
		t.Errorf("delete: %d", st)
	}
	var e errBody
	if st := do(t, "POST", base+"/calls", `{"tool":"get_invoice","arguments":{"id":"inv1"}}`, &e); st != 404 || e.Error.Code != CodeUnknownEpisode {
		t.Errorf("call on a closed episode: %d %+v", st, e)
	}
}

func TestJSONAPIErrors(t *testing.T) {
	_, url := start(t, Options{MaxBodyBytes: 1024})
	var ep EpisodeStart
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep)
	cases := []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"POST", "/v1/worlds/nowhere/episodes", `{}`, 404, CodeUnknownWorld},
		{"POST", "/v1/worlds/worldtest/episodes", `{"task":"nope"}`, 404, CodeUnknownTask},
		{"POST", "/v1/worlds/worldtest/episodes", `{"task":`, 400, CodeInvalidJSON},
		{"POST", "/v1/worlds/worldtest/episodes", `{"tusk":"x"}`, 400, CodeInvalidJSON},
		{"POST", "/v1/episodes/" + ep.EpisodeID + "/calls", `{"arguments":{}}`, 400, CodeInvalidJSON},
		{"POST", "/v1/episodes/" + ep.EpisodeID + "/calls", `{"tool":"get_invoice","arguments":"` + strings.Repeat("x", 2000) + `"}`, 413, CodeBodyTooLarge},
		{"POST", "/v1/episodes/nope/calls", `{"tool":"x"}`, 404, CodeUnknownEpisode},
		{"GET", "/v1/nothing", ``, 404, CodeNotFound},
		{"GET", "/v1/worlds/nowhere/tasks", ``, 404, CodeUnknownWorld},
	}
	for _, c := range cases {
		var e errBody
		if st := do(t, c.method, url+c.path, c.body, &e); st != c.status || e.Error.Code != c.code || e.Error.Message == "" {
			t.Errorf("%s %s %.40s: %d %+v, want %d %s", c.method, c.path, c.body, st, e.Error, c.status, c.code)
		}
	}
	// Bad tool arguments are the agent's problem: an observation.
	var obs runtime.Observation
	if st := do(t, "POST", url+"/v1/episodes/"+ep.EpisodeID+"/calls", `{"tool":"mark_paid","arguments":{"invoice":7}}`, &obs); st != 200 || obs.OK || obs.Error.Code != runtime.CodeInvalidArguments {
		t.Errorf("bad arguments: %d %+v", st, obs)
	}
}

func TestCapacityAndReaping(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(0, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	s, url := start(t, Options{MaxEpisodes: 2, IdleTimeout: time.Hour, Now: clock})
	var a, b EpisodeStart
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &a)
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{}`, &b)
	var e errBody
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{}`, &e); st != 429 || e.Error.Code != CodeCapacityReached {
		t.Fatalf("third episode: %d %+v", st, e)
	}
	mu.Lock()
	now = now.Add(2 * time.Hour)
	mu.Unlock()
	s.reap()
	if n := s.openCount(); n != 0 {
		t.Fatalf("%d episodes open after reaping", n)
	}
	var c EpisodeStart
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{}`, &c); st != 201 {
		t.Errorf("after reaping: %d", st)
	}
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"worldc_episodes_open 1", "worldc_episodes_reaped_total 2", "worldc_capacity_refusals_total 1", `worldc_api_errors_total{code="capacity_reached"} 1`} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("/metrics lacks %q:\n%s", want, body)
		}
	}
}

// TestIsolation: many episodes of one task written concurrently never see
// each other's writes and leave the seed unchanged (run it with -race).
func TestIsolation(t *testing.T) {
	s, url := start(t, Options{})
	seedHash := inProcessHash(t, nil)
	want := inProcessHash(t, calls)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 32 {
		wg.Go(func() {
			var ep EpisodeStart
			req, _ := http.NewRequest("POST", url+"/v1/worlds/worldtest/episodes", strings.NewReader(`{"task":"settle_acme"}`))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs <- err
				return
			}
			json.NewDecoder(resp.Body).Decode(&ep)
			resp.Body.Close()
			e, err := s.get(ep.EpisodeID)
			if err != nil {
				errs <- err
				return
			}
			for _, c := range calls {
				s.call(e, c[0], json.RawMessage(c[1]))
			}
			if _, h, _ := e.state(time.Now()); h != want {
				errs <- fmt.Errorf("episode %s: hash %s, want %s", ep.EpisodeID, h, want)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if h := inProcessHash(t, nil); h != seedHash {
		t.Errorf("the task's start state changed: %s, was %s", h, seedHash)
	}
}

func TestMCPStreamable(t *testing.T) {
	s, url := start(t, Options{})
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != "create_invoice find_invoices get_invoice mark_paid" {
		t.Fatalf("tools: %v", names)
	}
	for _, c := range calls {
		var args map[string]any
		json.Unmarshal([]byte(c[1]), &args)
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c[0], Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		var obs runtime.Observation
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &obs); err != nil {
			t.Fatal(err)
		}
		if obs.OK == res.IsError {
			t.Errorf("%s: IsError %v for %+v", c[0], res.IsError, obs)
		}
	}
	if s.openCount() != 1 {
		t.Fatalf("%d episodes open, want the session's", s.openCount())
	}
	// The session id names the episode: the trainer grades it with the
	// JSON API.
	id := sess.ID()
	var g runtime.Grade
	if st := do(t, "POST", url+"/v1/episodes/"+id+"/grade", "", &g); st != 200 || len(g.Assertions) == 0 {
		t.Fatalf("grading the MCP session's episode %q: %d %+v", id, st, g)
	}
	e, err := s.get(id)
	if err != nil {
		t.Fatal(err)
	}
	if _, h, _ := e.state(time.Now()); h != inProcessHash(t, calls) {
		t.Errorf("MCP episode hash %s, in-process %s", h, inProcessHash(t, calls))
	}
	sess.Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.openCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.openCount() != 0 {
		t.Errorf("the episode outlived its MCP session")
	}
}

func TestMCPPerEpisode(t *testing.T) {
	_, url := start(t, Options{})
	var ep EpisodeStart
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep)
	ctx := context.Background()
	// A new session for every call, as verl's MCP tools do.
	for _, c := range calls {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/v1/episodes/" + ep.EpisodeID + "/mcp"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var args map[string]any
		json.Unmarshal([]byte(c[1]), &args)
		if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: c[0], Arguments: args}); err != nil {
			t.Fatal(err)
		}
		sess.Close()
	}
	var state StateResponse
	do(t, "GET", url+"/v1/episodes/"+ep.EpisodeID+"/state", "", &state)
	if state.StateHash != inProcessHash(t, calls) {
		t.Errorf("hash %s, in-process %s", state.StateHash, inProcessHash(t, calls))
	}
	var e errBody
	if st := do(t, "POST", url+"/v1/episodes/nope/mcp", `{}`, &e); st != 404 || e.Error.Code != CodeUnknownEpisode {
		t.Errorf("unknown episode: %d %+v", st, e)
	}
}

func TestMCPStdio(t *testing.T) {
	s, err := New([]runtime.World{worldtest.World}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	var graded runtime.Grade
	var steps []runtime.Step
	go func() {
		done <- s.ServeStdio(ctx, "worldtest", task, sr, sw, func(end *StdioEnd) error {
			g, err := end.Grade(nil)
			graded, steps = g, end.Trajectory
			return err
		})
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_invoice", Arguments: map[string]any{"id": "inv1"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"inv1"`) {
		t.Fatalf("get_invoice: %v %+v", err, res)
	}
	sess.Close()
	cw.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeStdio did not end with its client")
	}
	if s.openCount() != 0 {
		t.Error("the stdio episode outlived its client")
	}
	if len(graded.Assertions) == 0 || len(steps) != 1 || steps[0].Tool != "get_invoice" {
		t.Errorf("the grade and trajectory given at the end: %+v, %+v", graded, steps)
	}
}

// wsRoundTrip sends a message and reads the reply.
func wsRoundTrip(t *testing.T, ctx context.Context, c *websocket.Conn, msg string) map[string]any {
	t.Helper()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, data, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("%v in %s", err, data)
	}
	return out
}

func TestOpenEnvWebSocket(t *testing.T) {
	s, url := start(t, Options{MaxEpisodes: 1, MaxBodyBytes: 64 << 10})
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	errCode := func(m map[string]any) string {
		if m["type"] != "error" {
			return ""
		}
		return m["data"].(map[string]any)["code"].(string)
	}
	if got := errCode(wsRoundTrip(t, ctx, c, `{"type":"step","data":{"type":"call_tool","tool_name":"get_invoice","arguments":{"id":"inv1"}}}`)); got != WSNoEpisode {
		t.Errorf("step before reset: %q", got)
	}
	if got := errCode(wsRoundTrip(t, ctx, c, `{"type":`)); got != WSInvalidJSON {
		t.Errorf("malformed: %q", got)
	}
	if got := errCode(wsRoundTrip(t, ctx, c, `{"type":"dance"}`)); got != WSUnknownType {
		t.Errorf("unknown type: %q", got)
	}
	tools := wsRoundTrip(t, ctx, c, `{"type":"list_tools"}`)
	if n := len(tools["data"].(map[string]any)["observation"].(map[string]any)["tools"].([]any)); n != 4 {
		t.Errorf("list_tools before reset: %d tools", n)
	}
	reset := wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"task_id":"settle_acme","seed":1}}`)
	obs := reset["data"].(map[string]any)["observation"].(map[string]any)
	if reset["type"] != "observation" || obs["instruction"] == "" || obs["episode_id"] == "" {
		t.Fatalf("reset: %v", reset)
	}
	// A second client is over capacity: refused at connect.
	if c2, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil); err == nil || resp == nil || resp.StatusCode != 429 {
		t.Errorf("second connection: %v %v", err, resp)
		if c2 != nil {
			c2.CloseNow()
		}
	}
	for _, call := range calls {
		m := wsRoundTrip(t, ctx, c, fmt.Sprintf(`{"type":"step","data":{"type":"call_tool","tool_name":%q,"arguments":%s}}`, call[0], call[1]))
		if m["type"] != "observation" || m["data"].(map[string]any)["done"] != false {
			t.Errorf("step %s: %v", call[0], m)
		}
	}
	st := wsRoundTrip(t, ctx, c, `{"type":"state"}`)
	if h := st["data"].(map[string]any)["state_hash"]; h != inProcessHash(t, calls) {
		t.Errorf("state hash %v, in-process %s", h, inProcessHash(t, calls))
	}
	g := wsRoundTrip(t, ctx, c, `{"type":"step","data":{"type":"grade"}}`)
	if d := g["data"].(map[string]any); d["done"] != true || d["reward"] == nil {
		t.Errorf("grade: %v", g)
	}
	// Messages above the 32 KiB default of the library are read.
	big := fmt.Sprintf(`{"type":"step","data":{"type":"call_tool","tool_name":"get_invoice","arguments":{"id":%q}}}`, strings.Repeat("x", 40<<10))
	if m := wsRoundTrip(t, ctx, c, big); m["type"] != "observation" {
		t.Errorf("40 KiB message: %v", m)
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"type":"close"}`))
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Errorf("after close: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for s.openCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if s.openCount() != 0 {
		t.Error("the episode outlived its WebSocket")
	}
}

// panicWorld is the test world with a tool that panics past its registry.
type panicWorld struct{ runtime.World }

type panicEpisode struct{ runtime.Episode }

func (w panicWorld) NewEpisode(task string) (runtime.Episode, error) {
	ep, err := w.World.NewEpisode(task)
	return panicEpisode{ep}, err
}

func (e panicEpisode) Call(tool string, args json.RawMessage) runtime.Observation {
	if tool == "get_invoice" {
		panic("boom")
	}
	return e.Episode.Call(tool, args)
}

func TestPanicRecovered(t *testing.T) {
	s, err := New([]runtime.World{panicWorld{worldtest.World}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	var ep EpisodeStart
	do(t, "POST", ts.URL+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep)
	var obs runtime.Observation
	if st := do(t, "POST", ts.URL+"/v1/episodes/"+ep.EpisodeID+"/calls", `{"tool":"get_invoice","arguments":{"id":"inv1"}}`, &obs); st != 200 || obs.OK || obs.Error.Code != runtime.CodeInternal || !strings.Contains(obs.Error.Message, "boom") {
		t.Fatalf("panicking tool: %d %+v", st, obs)
	}
	if st := do(t, "POST", ts.URL+"/v1/episodes/"+ep.EpisodeID+"/calls", `{"tool":"mark_paid","arguments":{"invoice":"inv1"}}`, &obs); st != 200 || !obs.OK {
		t.Errorf("the episode after a panic: %d %+v", st, obs)
	}
}

// TestLoad holds 10,000 episodes open at once over loopback (1,000 with
// -short), steps every one of them, and reports the memory an idle episode
// costs: nothing is lost and nothing is refused below the limit.
func TestLoad(t *testing.T) {
	n := 10000
	if testing.Short() {
		n = 1000
	}
	s, url := start(t, Options{MaxEpisodes: n})
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	post := func(path, body string, out any) error {
		resp, err := client.Post(url+path, "application/json", strings.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if resp.StatusCode >= 300 {
			b, _ := io.ReadAll(resp.Body)
			return fmt.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
		return json.NewDecoder(resp.Body).Decode(out)
	}
	goruntime.GC()
	var before goruntime.MemStats
	goruntime.ReadMemStats(&before)
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	work := make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range work {
				var ep EpisodeStart
				if err := post("/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep); err != nil {
					errs <- err
					continue
				}
				ids[i] = ep.EpisodeID
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	goruntime.GC()
	var after goruntime.MemStats
	goruntime.ReadMemStats(&after)
	if s.openCount() != n {
		t.Fatalf("%d episodes open, want %d", s.openCount(), n)
	}
	t.Logf("%d episodes open: %.0f bytes of heap per idle episode", n, float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(n))
	work = make(chan int)
	for range 32 {
		wg.Go(func() {
			for i := range work {
				var obs runtime.Observation
				if err := post("/v1/episodes/"+ids[i]+"/calls", `{"tool":"mark_paid","arguments":{"invoice":"inv1"}}`, &obs); err != nil || !obs.OK {
					errs <- fmt.Errorf("episode %d: %v %+v", i, err, obs)
				}
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var e errBody
	if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{}`, &e); st != 429 {
		t.Errorf("episode %d: %d, want 429", n+1, st)
	}
}
