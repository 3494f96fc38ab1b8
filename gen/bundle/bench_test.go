package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
		for b.Loop() {
			obs := ep.Call("get_order_details", args)
			if _, err := json.Marshal(obs); err != nil || !obs.OK {
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
		for b.Loop() {
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
		for b.Loop() {
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
		for b.Loop() {
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_order_details", Arguments: a}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open", func(b *testing.B) {
		for b.Loop() {
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
