package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// childEnv, when set, makes the test binary a bundle server of the test
// world with the flags it holds: the durability tests kill it.
const childEnv = "WORLDC_SERVE_TEST_CHILD"

func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		os.Exit(Run("t", []runtime.World{worldtest.World}, strings.Fields(args), os.Stdin, os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestDurableRestart: a server on a state dir, stopped cleanly and started
// again, has every open episode back, with its trajectory, state hash
// and a session id an MCP client resumes with; closed episodes stay
// closed.
func TestDurableRestart(t *testing.T) {
	dir := t.TempDir()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	s, err := New([]runtime.World{worldtest.World}, Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: ln, Config: &http.Server{Handler: s.Handler()}}
	ts.Start()
	url := ts.URL
	var a, b, gone EpisodeStart
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &a)
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme","prefix":1}`, &b)
	do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{}`, &gone)
	for _, c := range calls {
		do(t, "POST", url+"/v1/episodes/"+a.EpisodeID+"/calls", fmt.Sprintf(`{"tool":%q,"arguments":%s}`, c[0], c[1]), nil)
	}
	do(t, "POST", url+"/v1/episodes/"+b.EpisodeID+"/calls", `{"tool":"get_invoice","arguments":{"id":"inv1"}}`, nil)
	do(t, "DELETE", url+"/v1/episodes/"+gone.EpisodeID, "", nil)
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "mark_paid", Arguments: map[string]any{"invoice": "inv1"}}); err != nil {
		t.Fatal(err)
	}
	sid := sess.ID()
	before := map[string]StateResponse{}
	for _, id := range []string{a.EpisodeID, b.EpisodeID, sid} {
		var st StateResponse
		do(t, "GET", url+"/v1/episodes/"+id+"/state", "", &st)
		before[id] = st
	}
	s.Drain() // as SIGTERM: the MCP session's end keeps its episode
	s.EndStreams(ctx)
	ts.Close()
	sess.Close()
	s.Close()

	ln2, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New([]runtime.World{worldtest.World}, Options{StateDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ts2 := &httptest.Server{Listener: ln2, Config: &http.Server{Handler: s2.Handler()}}
	ts2.Start()
	defer func() { ts2.Close(); s2.Close() }()
	if n := s2.openCount(); n != 3 {
		t.Fatalf("%d episodes rebuilt, want 3", n)
	}
	for id, want := range before {
		var st StateResponse
		if code := do(t, "GET", url+"/v1/episodes/"+id+"/state", "", &st); code != 200 || st.StateHash != want.StateHash || st.Steps != want.Steps {
			t.Errorf("episode %s after the restart: %d %s/%d, before %s/%d", id, code, st.StateHash, st.Steps, want.StateHash, want.Steps)
		}
	}
	var e errBody
	if code := do(t, "GET", url+"/v1/episodes/"+gone.EpisodeID+"/state", "", &e); code != 404 {
		t.Errorf("a deleted episode came back: %d", code)
	}
	// The MCP session resumes by its id: tools/list and tools/call without
	// a new initialize, in the same episode.
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_invoice","arguments":{"customer":"globex","amount":500}}}`,
	} {
		req, _ := http.NewRequest("POST", url+"/mcp/worldtest?task=settle_acme", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"result"`)) {
			t.Fatalf("resumed MCP request %d: %d %s", i+1, resp.StatusCode, out)
		}
	}
	var st StateResponse
	if do(t, "GET", url+"/v1/episodes/"+sid+"/state", "", &st); st.Steps != before[sid].Steps+1 {
		t.Errorf("the resumed session's call: %d steps, before %d", st.Steps, before[sid].Steps)
	}
	// Replaying checks the world: a journal from another world's binary
	// is refused episode by episode.
	s2.Close()
	j := filepath.Join(dir, "*.wal")
	if m, _ := filepath.Glob(j); len(m) != 1 {
		t.Errorf("segments after a restart and a stop: %v", m)
	}
}

// child is a bundle server in a child process.
type child struct {
	t    *testing.T
	cmd  *exec.Cmd
	url  string
	done chan struct{}
	out  bytes.Buffer // stdout after the first line; read after done
	err  syncBuffer   // stderr
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startChild(t *testing.T, addr, dir string, extra ...string) *child {
	t.Helper()
	args := append([]string{"serve", "--addr", addr, "--state-dir", dir, "--control-token", testToken, "--grace", "10s"}, extra...)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, " "))
	stdout, _ := cmd.StdoutPipe()
	c := &child{t: t, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = &c.err
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		cmd.Wait()
		t.Fatalf("the server printed nothing: %s", c.err.String())
	}
	c.url = strings.TrimPrefix(sc.Text(), "listening on ")
	go func() {
		for sc.Scan() {
			c.out.WriteString(sc.Text() + "\n")
		}
		cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); <-c.done })
	return c
}

func (c *child) wait() {
	select {
	case <-c.done:
	case <-time.After(20 * time.Second):
		c.t.Fatal("the server did not stop")
	}
}

// acked is what the clients were answered: per episode, the tools of the
// calls, in order.
type acked struct {
	mu    sync.Mutex
	calls map[string][]string
	proto map[string]string // episode → protocol
}

func (a *acked) opened(id, proto string) {
	a.mu.Lock()
	if a.proto == nil {
		a.proto = map[string]string{}
	}
	a.proto[id] = proto
	a.mu.Unlock()
}

func (a *acked) add(id, tool string) {
	a.mu.Lock()
	a.calls[id] = append(a.calls[id], tool)
	a.mu.Unlock()
}

// drive runs clients of the three protocols against url until stop is
// closed, each its own episode with calls one after another; it records
// every answered call. A request the server never answered (refused,
// cut) is not recorded.
func drive(t *testing.T, url string, stop <-chan struct{}, a *acked, wg *sync.WaitGroup) {
	hc := &http.Client{Transport: &http.Transport{}}
	tools := []string{"get_invoice", "find_invoices"}
	args := map[string]string{"get_invoice": `{"id":"inv1"}`, "find_invoices": `{}`}
	for i := range 4 { // the JSON API
		wg.Go(func() {
			req, _ := http.NewRequest("POST", url+"/v1/worlds/worldtest/episodes", strings.NewReader(`{"task":"settle_acme","lite":true}`))
			req.Header.Set("Authorization", "Bearer "+testToken)
			resp, err := hc.Do(req)
			if err != nil {
				return
			}
			var ep EpisodeStart
			json.NewDecoder(resp.Body).Decode(&ep)
			resp.Body.Close()
			a.opened(ep.EpisodeID, "json")
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := tools[(n+i)%2]
				resp, err := hc.Post(url+"/v1/episodes/"+ep.EpisodeID+"/calls", "application/json", strings.NewReader(fmt.Sprintf(`{"tool":%q,"arguments":%s}`, tool, args[tool])))
				if err != nil {
					return
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					return
				}
				a.add(ep.EpisodeID, tool)
			}
		})
	}
	for i := range 4 { // OpenEnv
		wg.Go(func() {
			ctx := context.Background()
			c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			c.SetReadLimit(1 << 20)
			c.Write(ctx, websocket.MessageText, []byte(`{"type":"reset","data":{"task_id":"settle_acme"}}`))
			_, data, err := c.Read(ctx)
			if err != nil {
				return
			}
			var reset struct {
				Data struct {
					Observation struct {
						EpisodeID string `json:"episode_id"`
					} `json:"observation"`
				} `json:"data"`
			}
			json.Unmarshal(data, &reset)
			id := reset.Data.Observation.EpisodeID
			a.opened(id, "websocket")
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := tools[(n+i)%2]
				if err := c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"type":"step","data":{"type":"call_tool","tool_name":%q,"arguments":%s}}`, tool, args[tool])); err != nil {
					return
				}
				_, data, err := c.Read(ctx)
				if err != nil || !bytes.Contains(data, []byte(`"observation"`)) {
					return
				}
				a.add(id, tool)
			}
		})
	}
	for i := range 2 { // MCP
		wg.Go(func() {
			ctx := context.Background()
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme", MaxRetries: -1}, nil)
			if err != nil {
				return
			}
			defer sess.Close()
			a.opened(sess.ID(), "mcp")
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				tool := tools[(n+i)%2]
				var am map[string]any
				json.Unmarshal([]byte(args[tool]), &am)
				res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: am})
				if err != nil || res.IsError {
					t.Logf("MCP client %s: %v", sess.ID(), err)
					return
				}
				a.add(sess.ID(), tool)
			}
		})
	}
}

// lost compares the answered calls with the trajectories of the restarted
// server: lost are answered calls it does not have; extra are calls it
// has that were not answered.
func lost(t *testing.T, url string, a *acked) (lostCalls, extra, answered int) {
	t.Helper()
	for id, tools := range a.calls {
		answered += len(tools)
		req, _ := http.NewRequest("GET", url+"/v1/episodes/"+id+"/trajectory", nil)
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		steps, err := runtime.ReadTrajectory(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || err != nil {
			t.Errorf("episode %s after the restart: %d %v", id, resp.StatusCode, err)
			lostCalls += len(tools)
			continue
		}
		for i, tool := range tools {
			if i >= len(steps) || steps[i].Tool != tool {
				lostCalls += len(tools) - i
				break
			}
		}
		if len(steps) > len(tools) {
			extra += len(steps) - len(tools)
			t.Logf("episode %s (%s): %d calls answered, %d in the journal", id, a.proto[id], len(tools), len(steps))
		}
	}
	return
}

// TestKillAndSigterm: a server on a state dir, driven over the JSON API,
// the OpenEnv WebSocket and MCP, killed with SIGKILL and started again
// loses no answered call; stopped with SIGTERM it answers every call it
// took (none ran unanswered) and loses none either.
func TestKillAndSigterm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills server processes (-short skips it)")
	}
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			first := startChild(t, "127.0.0.1:0", dir)
			addr := strings.TrimPrefix(first.url, "http://")
			a := &acked{calls: map[string][]string{}}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			drive(t, first.url, stop, a, &wg)
			// Let the clients run, then signal in the middle of their calls.
			deadline := time.Now().Add(5 * time.Second)
			for time.Now().Before(deadline) {
				a.mu.Lock()
				n := 0
				for _, c := range a.calls {
					n += len(c)
				}
				a.mu.Unlock()
				if n >= 1500 {
					break
				}
				time.Sleep(5 * time.Millisecond)
			}
			first.cmd.Process.Signal(sig)
			first.wait()
			close(stop)
			wg.Wait()
			if sig == syscall.SIGTERM && (!strings.Contains(first.out.String(), "stopped") || first.cmd.ProcessState.ExitCode() != 0) {
				t.Errorf("no clean stop after SIGTERM: exit %d\n%s\n%s", first.cmd.ProcessState.ExitCode(), first.out.String(), first.err.String())
			}
			var total atomic.Int64
			for _, c := range a.calls {
				total.Add(int64(len(c)))
			}
			second := startChild(t, addr, dir)
			lostCalls, extra, answered := lost(t, second.url, a)
			t.Logf("%s: %d calls answered in %d episodes; after the restart %d lost, %d that ran unanswered", sig, answered, len(a.calls), lostCalls, extra)
			if answered < 100 || len(a.calls) < 8 {
				t.Fatalf("too few calls to tell: %d in %d episodes", answered, len(a.calls))
			}
			if lostCalls != 0 {
				t.Errorf("%d answered calls lost", lostCalls)
			}
			// SIGKILL may cut a call after it ran and before its answer
			// (at most one per client); SIGTERM answers every call it ran.
			if sig == syscall.SIGTERM && extra != 0 {
				t.Errorf("%d calls ran and were not answered", extra)
			}
			if sig == syscall.SIGKILL && extra > 10 {
				t.Errorf("%d calls ran unanswered, more than the 10 clients had in flight", extra)
			}
			second.cmd.Process.Signal(syscall.SIGTERM)
			second.wait()
		})
	}
}
