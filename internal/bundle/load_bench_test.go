package bundle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/internal/cpubench"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve"
)

// benchServeEnv, when set, makes this test binary the bundle server of
// the tau2 retail world with the flags it holds (TestMain): the load
// benchmark runs its server in a child process, so that the server's CPU
// time is measured apart from its clients'.
const benchServeEnv = "WORLDC_BENCH_SERVE"

func TestMain(m *testing.M) {
	if args := os.Getenv(benchServeEnv); args != "" {
		// WORLDC_BENCH_CPUPROFILE: the server's CPU profile, written when
		// it stops (SIGTERM), for `go tool pprof`.
		if p := os.Getenv("WORLDC_BENCH_CPUPROFILE"); p != "" {
			f, err := os.Create(p)
			if err != nil {
				panic(err)
			}
			pprof.StartCPUProfile(f)
			code := serve.Run("bench", []runtime.World{tau2_retail.New()}, strings.Fields(args), os.Stdin, os.Stdout, io.Discard)
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
		os.Exit(serve.Run("bench", []runtime.World{tau2_retail.New()}, strings.Fields(args), os.Stdin, os.Stdout, io.Discard))
	}
	os.Exit(m.Run())
}

// benchToken is the control token of the benchmark's server.
const benchToken = "bench-control-token"

// benchServer is a bundle server in a child process.
type benchServer struct {
	cmd *exec.Cmd
	url string
}

func startBenchServer(b *testing.B, extra ...string) *benchServer {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchServeEnv+"=serve --addr 127.0.0.1:0 --max-episodes 1000000 --idle-timeout 0 --control-token "+benchToken+" "+strings.Join(extra, " "))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatal("the benchmark's server printed nothing")
	}
	url, ok := strings.CutPrefix(sc.Text(), "listening on ")
	if !ok {
		cmd.Process.Kill()
		cmd.Wait()
		b.Fatalf("the benchmark's server: %q", sc.Text())
	}
	go io.Copy(io.Discard, stdout)
	s := &benchServer{cmd: cmd, url: url}
	b.Cleanup(func() {
		// SIGTERM: a profiling server writes its profile as it stops.
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return s
}

// cpu is the server's CPU time so far (ns).
func (s *benchServer) cpu() int64 { return cpubench.ProcessCPU(s.cmd.Process.Pid) }

// measure runs f b.N times (through lat) and reports the server's CPU
// time per op and what it makes per CPU-second.
func (s *benchServer) measure(b *testing.B, lat *latencies, f func()) {
	c0 := s.cpu()
	n := 0
	for lat.loop() {
		f()
		n++
	}
	s.report(b, c0, n)
}

func (s *benchServer) report(b *testing.B, c0 int64, n int) {
	c1 := s.cpu()
	if c0 < 0 || c1 < 0 || n == 0 {
		return
	}
	per := float64(c1-c0) / float64(n)
	b.ReportMetric(per, "server-cpu-ns/op")
	b.ReportMetric(1e9/per, "ops/server-cpu-s")
}

// benchClient is an HTTP client with enough idle connections for the
// loaded runs.
var benchClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}}

func (s *benchServer) post(b *testing.B, path, body string, want int) []byte {
	req, err := http.NewRequest("POST", s.url+path, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+benchToken)
	resp, err := benchClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != want {
		b.Fatalf("POST %s: %d %v %s", path, resp.StatusCode, err, data)
	}
	return data
}

func (s *benchServer) open(b *testing.B, task string) string {
	var start serve.EpisodeStart
	if err := json.Unmarshal(s.post(b, "/v1/worlds/tau2_retail/episodes", fmt.Sprintf(`{"task":%q}`, task), 201), &start); err != nil || start.EpisodeID == "" {
		b.Fatalf("open: %v %+v", err, start)
	}
	return start.EpisodeID
}

// benchCall is the golden call the step benchmarks repeat.
func benchCall(b *testing.B) (task string, args json.RawMessage) {
	for _, t := range tau2_retail.New().Tasks() {
		for _, c := range t.Solution {
			if c.Tool == "get_order_details" {
				return t.ID, c.Args
			}
		}
	}
	b.Fatal("no golden call of get_order_details")
	return "", nil
}

// stepper makes one step over one protocol; each has its own connection
// and episode.
type stepper interface {
	step(b *testing.B)
	close()
}

type jsonStepper struct {
	s    *benchServer
	url  string
	body string
}

func (j *jsonStepper) step(b *testing.B) {
	resp, err := benchClient.Post(j.url, "application/json", strings.NewReader(j.body))
	if err != nil || resp.StatusCode != 200 {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func (j *jsonStepper) close() {}

type wsStepper struct {
	c   *websocket.Conn
	msg []byte
}

func (w *wsStepper) step(b *testing.B) {
	ctx := context.Background()
	if err := w.c.Write(ctx, websocket.MessageText, w.msg); err != nil {
		b.Fatal(err)
	}
	if _, _, err := w.c.Read(ctx); err != nil {
		b.Fatal(err)
	}
}

func (w *wsStepper) close() { w.c.CloseNow() }

type mcpStepper struct {
	sess *mcp.ClientSession
	args map[string]any
}

func (m *mcpStepper) step(b *testing.B) {
	res, err := m.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_order_details", Arguments: m.args})
	if err != nil || res.IsError {
		b.Fatal(err, res)
	}
}

func (m *mcpStepper) close() { m.sess.Close() }

func newStepper(b *testing.B, s *benchServer, protocol, task string, args json.RawMessage) stepper {
	ctx := context.Background()
	switch protocol {
	case "json":
		id := s.open(b, task)
		return &jsonStepper{s: s, url: s.url + "/v1/episodes/" + id + "/calls", body: fmt.Sprintf(`{"tool":"get_order_details","arguments":%s}`, args)}
	case "websocket":
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.url, "http")+"/ws", nil)
		if err != nil {
			b.Fatal(err)
		}
		c.SetReadLimit(1 << 20)
		c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"type":"reset","data":{"task_id":%q}}`, task))
		if _, _, err := c.Read(ctx); err != nil {
			b.Fatal(err)
		}
		return &wsStepper{c: c, msg: fmt.Appendf(nil, `{"type":"step","data":{"type":"call_tool","tool_name":"get_order_details","arguments":%s}}`, args)}
	case "mcp-raw":
		// MCP's tools/call as JSON-RPC over HTTP without an SDK on the
		// client's side: the server's part of an MCP step.
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp/tau2_retail?task=" + task, HTTPClient: benchClient}, nil)
		if err != nil {
			b.Fatal(err)
		}
		return &rawMCPStepper{sess: sess, url: s.url + "/mcp/tau2_retail?task=" + task,
			body: fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_order_details","arguments":%s}}`, args)}
	case "mcp":
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: s.url + "/mcp/tau2_retail?task=" + task, HTTPClient: benchClient}, nil)
		if err != nil {
			b.Fatal(err)
		}
		var a map[string]any
		json.Unmarshal(args, &a)
		return &mcpStepper{sess: sess, args: a}
	}
	b.Fatalf("no protocol %s", protocol)
	return nil
}

var protocols = []string{"json", "websocket", "mcp", "mcp-raw"}

type rawMCPStepper struct {
	sess      *mcp.ClientSession // holds the session open
	url, body string
}

func (m *rawMCPStepper) step(b *testing.B) {
	req, _ := http.NewRequest("POST", m.url, strings.NewReader(m.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", m.sess.ID())
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := benchClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		b.Fatal(err, resp)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

func (m *rawMCPStepper) close() { m.sess.Close() }

// BenchmarkLoad is the load table of the bundle server: the tau2 retail
// world served by a child process over loopback, measured by the
// server's own CPU time (server-cpu-ns/op, and ops/server-cpu-s: steps
// or episodes per CPU-second of the server) and by the latency clients
// see (p50-ns, p99-ns):
//
//   - create/json: POST /v1/worlds/{w}/episodes, one connection (and
//     create/json-lite: the answer without the policy and tools;
//     create/json-lite-x16: 16 at once, the CPU per episode);
//   - step/{protocol}: one golden call (get_order_details) after another
//     on one connection, unloaded;
//   - load/{protocol}: 32 connections with an episode each, stepping at
//     once.
//
// `inprocess` is the same call made directly in an episode: the floor
// the protocols' costs compare to, measured in the same run.
func BenchmarkLoad(b *testing.B) {
	task, args := benchCall(b)
	b.Run("inprocess", func(b *testing.B) {
		ep, _ := tau2_retail.New().NewEpisode(task)
		buf := make([]byte, 0, 4096)
		lat := newLatencies(b)
		defer lat.report()
		goruntime.LockOSThread()
		defer goruntime.UnlockOSThread()
		c0, n := cpubench.ThreadCPU(), 0
		for lat.loop() {
			obs := ep.Call("get_order_details", args)
			if _, err := obs.AppendJSON(buf[:0]); err != nil || !obs.OK {
				b.Fatal(obs)
			}
			n++
		}
		if c1 := cpubench.ThreadCPU(); c0 >= 0 && n > 0 {
			b.ReportMetric(float64(c1-c0)/float64(n), "cpu-ns/op")
			b.ReportMetric(1e9*float64(n)/float64(c1-c0), "ops/cpu-s")
		}
	})
	s := startBenchServer(b)
	b.Run("create/json", func(b *testing.B) {
		lat := newLatencies(b)
		defer lat.report()
		body := fmt.Sprintf(`{"task":%q}`, task)
		s.measure(b, lat, func() { s.post(b, "/v1/worlds/tau2_retail/episodes", body, 201) })
	})
	b.Run("create/json-lite", func(b *testing.B) {
		lat := newLatencies(b)
		defer lat.report()
		body := fmt.Sprintf(`{"task":%q,"lite":true}`, task)
		s.measure(b, lat, func() { s.post(b, "/v1/worlds/tau2_retail/episodes", body, 201) })
	})
	b.Run("create/json-lite-x16", func(b *testing.B) {
		// Groups of 16 (GRPO's rollouts of one prompt): op is one episode.
		lat := newLatencies(b)
		defer lat.report()
		body := fmt.Sprintf(`{"task":%q,"lite":true,"count":16}`, task)
		c0, n := s.cpu(), 0
		for lat.loop() {
			s.post(b, "/v1/worlds/tau2_retail/episodes", body, 201)
			n++
		}
		s.report(b, c0, 16*n)
	})
	b.Run("step/json-durable", func(b *testing.B) {
		// The JSON step on a server that journals (--state-dir, fsync
		// every second): the cost of durability.
		d := startBenchServer(b, "--state-dir", b.TempDir())
		st := newStepper(b, d, "json", task, args)
		st.step(b)
		lat := newLatencies(b)
		defer lat.report()
		d.measure(b, lat, func() { st.step(b) })
	})
	b.Run("load/create-lite", func(b *testing.B) {
		body := fmt.Sprintf(`{"task":%q,"lite":true}`, task)
		s.concurrently(b, 32, func(int) { s.post(b, "/v1/worlds/tau2_retail/episodes", body, 201) })
	})
	for _, p := range protocols {
		b.Run("step/"+p, func(b *testing.B) {
			st := newStepper(b, s, p, task, args)
			defer st.close()
			st.step(b) // warm the connection
			lat := newLatencies(b)
			defer lat.report()
			s.measure(b, lat, func() { st.step(b) })
		})
	}
	for _, p := range protocols {
		b.Run("load/"+p, func(b *testing.B) {
			const conns = 32
			steppers := make([]stepper, conns)
			for i := range steppers {
				steppers[i] = newStepper(b, s, p, task, args)
				steppers[i].step(b)
			}
			defer func() {
				for _, st := range steppers {
					st.close()
				}
			}()
			s.concurrently(b, conns, func(i int) { steppers[i].step(b) })
		})
	}
}

// concurrently runs f b.N times in all from n goroutines (f(i) in the
// i-th) and reports the server's CPU per op and the latencies' p50, p99.
func (s *benchServer) concurrently(b *testing.B, n int, f func(i int)) {
	var next atomic.Int64
	durs := make([][]time.Duration, n)
	c0 := s.cpu()
	b.ResetTimer()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			for next.Add(1) <= int64(b.N) {
				t0 := time.Now()
				f(i)
				durs[i] = append(durs[i], time.Since(t0))
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	s.report(b, c0, b.N)
	all := slices.Concat(durs...)
	slices.Sort(all)
	if len(all) > 0 {
		b.ReportMetric(float64(all[len(all)/2].Nanoseconds()), "p50-ns")
		b.ReportMetric(float64(all[len(all)*99/100].Nanoseconds()), "p99-ns")
	}
}
