package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve"
)

// BenchmarkStep is the latency of one `get_order_details` call on the
// tau2 retail world, in process and through each protocol of the server
// on loopback (a client and the server in this process, one connection).
// Compare the protocols' ns/op with the inprocess baseline of the same run.
func BenchmarkStep(b *testing.B) {
	w := tau2_retail.New()
	var task string
	var args json.RawMessage
	for _, t := range w.Tasks() {
		for _, c := range t.Solution {
			if c.Tool == "get_order_details" && args == nil {
				task, args = t.ID, c.Args
			}
		}
	}
	if args == nil {
		b.Fatal("no golden call of get_order_details")
	}
	s, err := serve.New([]runtime.World{w}, serve.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	ctx := context.Background()

	b.Run("inprocess", func(b *testing.B) {
		ep, _ := w.NewEpisode(task)
		buf := make([]byte, 0, 4096) // the observation buffer a server reuses
		lat := newLatencies(b)
		defer lat.report()
		for lat.loop() {
			obs := ep.Call("get_order_details", args)
			if _, err := obs.AppendJSON(buf[:0]); err != nil || !obs.OK {
				b.Fatal(obs)
			}
		}
	})
	b.Run("json", func(b *testing.B) {
		resp, err := http.Post(ts.URL+"/v1/worlds/tau2_retail/episodes", "application/json", strings.NewReader(fmt.Sprintf(`{"task":%q}`, task)))
		if err != nil {
			b.Fatal(err)
		}
		var start serve.EpisodeStart
		json.NewDecoder(resp.Body).Decode(&start)
		resp.Body.Close()
		body := fmt.Sprintf(`{"tool":"get_order_details","arguments":%s}`, args)
		url := ts.URL + "/v1/episodes/" + start.EpisodeID + "/calls"
		lat := newLatencies(b)
		defer lat.report()
		for lat.loop() {
			resp, err := http.Post(url, "application/json", strings.NewReader(body))
			if err != nil || resp.StatusCode != 200 {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	b.Run("websocket", func(b *testing.B) {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/ws", nil)
		if err != nil {
			b.Fatal(err)
		}
		defer c.CloseNow()
		c.SetReadLimit(1 << 20)
		c.Write(ctx, websocket.MessageText, fmt.Appendf(nil, `{"type":"reset","data":{"task_id":%q}}`, task))
		c.Read(ctx)
		msg := fmt.Appendf(nil, `{"type":"step","data":{"type":"call_tool","tool_name":"get_order_details","arguments":%s}}`, args)
		lat := newLatencies(b)
		defer lat.report()
		for lat.loop() {
			if err := c.Write(ctx, websocket.MessageText, msg); err != nil {
				b.Fatal(err)
			}
			if _, _, err := c.Read(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("mcp", func(b *testing.B) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp/tau2_retail?task=" + task}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		var a map[string]any
		json.Unmarshal(args, &a)
		lat := newLatencies(b)
		defer lat.report()
		for lat.loop() {
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_order_details", Arguments: a}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hold", func(b *testing.B) {
		// Episodes opened and kept: the heap an open, idle episode of the
		// tau2 world costs (a copy-on-write clone of the task's state).
		goruntime.GC()
		var before, after goruntime.MemStats
		goruntime.ReadMemStats(&before)
		var ids []string
		for b.Loop() {
			resp, err := http.Post(ts.URL+"/v1/worlds/tau2_retail/episodes", "application/json", strings.NewReader(fmt.Sprintf(`{"task":%q}`, task)))
			if err != nil || resp.StatusCode != 201 {
				b.Fatal(err)
			}
			var start serve.EpisodeStart
			json.NewDecoder(resp.Body).Decode(&start)
			resp.Body.Close()
			ids = append(ids, start.EpisodeID)
		}
		goruntime.GC()
		goruntime.ReadMemStats(&after)
		b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(len(ids)), "heap-B/episode")
		for _, id := range ids {
			req, _ := http.NewRequest("DELETE", ts.URL+"/v1/episodes/"+id, nil)
			if r, err := http.DefaultClient.Do(req); err == nil {
				io.Copy(io.Discard, r.Body)
				r.Body.Close()
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		lat := newLatencies(b)
		defer lat.report()
		for lat.loop() {
			resp, err := http.Post(ts.URL+"/v1/worlds/tau2_retail/episodes", "application/json", strings.NewReader(fmt.Sprintf(`{"task":%q}`, task)))
			if err != nil || resp.StatusCode != 201 {
				b.Fatal(err)
			}
			var start serve.EpisodeStart
			json.NewDecoder(resp.Body).Decode(&start)
			resp.Body.Close()
			req, _ := http.NewRequest("DELETE", ts.URL+"/v1/episodes/"+start.EpisodeID, nil)
			r2, err := http.DefaultClient.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, r2.Body)
			r2.Body.Close()
		}
	})
}

// latencies records the duration of every iteration of a benchmark loop
// and reports their median and 99th percentile beside ns/op.
type latencies struct {
	b    *testing.B
	last time.Time
	d    []time.Duration
}

func newLatencies(b *testing.B) *latencies { return &latencies{b: b} }

// loop is b.Loop that also times each iteration.
func (l *latencies) loop() bool {
	now := time.Now()
	if !l.last.IsZero() {
		l.d = append(l.d, now.Sub(l.last))
	}
	if !l.b.Loop() {
		return false
	}
	l.last = time.Now()
	return true
}

func (l *latencies) report() {
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	l.b.ReportMetric(float64(l.d[len(l.d)/2].Nanoseconds()), "p50-ns")
	l.b.ReportMetric(float64(l.d[len(l.d)*99/100].Nanoseconds()), "p99-ns")
}
