package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// goldenSteps is the task's golden trajectory, run in process, and the
// start state's hash.
func goldenSteps(t *testing.T) ([]runtime.Step, string) {
	t.Helper()
	ep, err := worldtest.World.NewEpisode(task)
	if err != nil {
		t.Fatal(err)
	}
	start := ep.StateHash()
	var sol []runtime.Call
	for _, ti := range worldtest.World.Tasks() {
		if ti.ID == task {
			sol = ti.Solution
		}
	}
	steps, err := runtime.Run(ep, sol)
	if err != nil || len(steps) != 3 {
		t.Fatalf("golden: %v, %d steps", err, len(steps))
	}
	return steps, start
}

// hashAt is the golden trajectory's state hash after k steps.
func hashAt(golden []runtime.Step, start string, k int) string {
	if k == 0 {
		return start
	}
	return golden[k-1].StateHash
}

// TestPrefixJSONAPI: for every k, an episode opened with {"task",
// "prefix": k} has the golden state hash at step k, its start answer and
// its trajectory hold the k golden steps marked given, the rest of the
// solution solves it, and a prefix out of range is a 400 invalid_prefix.
func TestPrefixJSONAPI(t *testing.T) {
	_, url := start(t, Options{})
	golden, startHash := goldenSteps(t)
	for k := 0; k <= len(golden); k++ {
		var ep EpisodeStart
		if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", fmt.Sprintf(`{"task":%q,"prefix":%d}`, task, k), &ep); st != 201 {
			t.Fatalf("k=%d: status %d", k, st)
		}
		if ep.Prefix != k || len(ep.Given) != k {
			t.Fatalf("k=%d: start answer prefix %d with %d given steps", k, ep.Prefix, len(ep.Given))
		}
		base := url + "/v1/episodes/" + ep.EpisodeID
		var state StateResponse
		do(t, "GET", base+"/state", "", &state)
		if state.StateHash != hashAt(golden, startHash, k) || state.Steps != k {
			t.Errorf("k=%d: state hash %s after %d steps, the golden trajectory's is %s", k, state.StateHash, state.Steps, hashAt(golden, startHash, k))
		}
		for _, s := range golden[k:] {
			var obs runtime.Observation
			do(t, "POST", base+"/calls", fmt.Sprintf(`{"tool":%q,"arguments":%s}`, s.Tool, s.Args), &obs)
			if !obs.OK {
				t.Fatalf("k=%d: %s failed: %+v", k, s.Tool, obs)
			}
		}
		var g runtime.Grade
		if do(t, "POST", base+"/grade", "", &g); !g.Solved() {
			t.Errorf("k=%d: not solved: %+v", k, g)
		}
		resp, err := http.Get(base + "/trajectory")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		steps, err := runtime.ReadTrajectory(bytes.NewReader(body))
		if err != nil || len(steps) != len(golden) {
			t.Fatalf("k=%d: trajectory: %v, %d steps", k, err, len(steps))
		}
		for i, s := range steps {
			if s.Given != (i < k) {
				t.Errorf("k=%d: step %d given=%v", k, i+1, s.Given)
			}
		}
		if n := bytes.Count(body, []byte(`"given":true`)); n != k {
			t.Errorf("k=%d: %d lines marked given:\n%s", k, n, body)
		}
		fresh, _ := worldtest.World.NewEpisode(task)
		if err := runtime.Replay(fresh, steps); err != nil {
			t.Errorf("k=%d: the trajectory does not replay: %v", k, err)
		}
	}
	for _, body := range []string{`{"task":"settle_acme","prefix":4}`, `{"task":"settle_acme","prefix":-1}`, `{"prefix":1}`} {
		var e errBody
		if st := do(t, "POST", url+"/v1/worlds/worldtest/episodes", body, &e); st != 400 || e.Error.Code != CodeInvalidPrefix || e.Error.Message == "" {
			t.Errorf("%s: %d %+v", body, st, e)
		}
	}
}

// TestPrefixOpenEnv: a reset with data.prefix starts at the golden state
// of step k and shows the given steps; a bad one is INVALID_PREFIX.
func TestPrefixOpenEnv(t *testing.T) {
	_, url := start(t, Options{})
	golden, startHash := goldenSteps(t)
	ctx := context.Background()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	for k := 0; k <= len(golden); k++ {
		r := wsRoundTrip(t, ctx, c, fmt.Sprintf(`{"type":"reset","data":{"task_id":%q,"prefix":%d}}`, task, k))
		obs, _ := r["data"].(map[string]any)["observation"].(map[string]any)
		if given, _ := obs["given"].([]any); obs["prefix"] != float64(k) || len(given) != k {
			t.Fatalf("k=%d: reset answer %v", k, r)
		}
		st := wsRoundTrip(t, ctx, c, `{"type":"state"}`)
		data := st["data"].(map[string]any)
		if data["state_hash"] != hashAt(golden, startHash, k) || data["step_count"] != float64(k) {
			t.Errorf("k=%d: state %v, golden hash %s", k, data, hashAt(golden, startHash, k))
		}
	}
	r := wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"task_id":"settle_acme","prefix":9}}`)
	if r["type"] != "error" || r["data"].(map[string]any)["code"] != WSInvalidPrefix {
		t.Errorf("prefix 9: %v", r)
	}
}

// TestPrefixMCP: a session of /mcp/{world}?task=T&prefix=k is an episode
// at the golden state of step k; a bad prefix is refused before the
// session starts.
func TestPrefixMCP(t *testing.T) {
	s, url := start(t, Options{})
	golden, startHash := goldenSteps(t)
	ctx := context.Background()
	for k := 0; k <= len(golden); k++ {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("%s/mcp/worldtest?task=%s&prefix=%d", url, task, k)}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := sess.ListTools(ctx, nil); err != nil {
			t.Fatal(err)
		}
		e, err := s.get(sess.ID())
		if err != nil {
			t.Fatalf("k=%d: %v", k, err)
		}
		if _, h, _ := e.state(time.Now()); h != hashAt(golden, startHash, k) || len(e.given()) != k {
			t.Errorf("k=%d: hash %s with %d given steps, golden %s", k, h, len(e.given()), hashAt(golden, startHash, k))
		}
		sess.Close()
	}
	for _, q := range []string{"prefix=4", "prefix=x"} {
		var e errBody
		if st := do(t, "POST", url+"/mcp/worldtest?task=settle_acme&"+q, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, &e); st != 400 || e.Error.Code != CodeInvalidPrefix {
			t.Errorf("%s: %d %+v", q, st, e)
		}
	}
}

// TestPrefixStdio: stdio --prefix k: the trajectory given at the end starts
// with the k golden steps, marked given, and the state is the golden one.
func TestPrefixStdio(t *testing.T) {
	golden, _ := goldenSteps(t)
	for k := 0; k <= len(golden); k++ {
		s, err := New([]runtime.World{worldtest.World}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		cr, sw := io.Pipe()
		sr, cw := io.Pipe()
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		var graded runtime.Grade
		var steps []runtime.Step
		go func() {
			done <- s.ServeStdioAt(ctx, "worldtest", task, k, sr, sw, func(end *StdioEnd) error {
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
		for _, st := range golden[k:] {
			var args map[string]any
			json.Unmarshal(st.Args, &args)
			if res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: st.Tool, Arguments: args}); err != nil || res.IsError {
				t.Fatalf("k=%d %s: %v %+v", k, st.Tool, err, res)
			}
		}
		sess.Close()
		cw.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		cancel()
		s.Close()
		if len(steps) != len(golden) || !graded.Solved() {
			t.Fatalf("k=%d: %d steps, grade %+v", k, len(steps), graded)
		}
		for i, st := range steps {
			if st.Given != (i < k) || (i < k && st.StateHash != golden[i].StateHash) {
				t.Errorf("k=%d step %d: given %v hash %s", k, i+1, st.Given, st.StateHash)
			}
		}
	}
	s, _ := New([]runtime.World{worldtest.World}, Options{})
	defer s.Close()
	err := s.ServeStdioAt(context.Background(), "worldtest", task, 7, strings.NewReader(""), io.Discard, nil)
	if ae := asAPIError(err); ae.Code != CodeInvalidPrefix {
		t.Errorf("stdio prefix 7: %v", err)
	}
}
