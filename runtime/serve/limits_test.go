package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// TestMCPCapacityAtInitialize: with room for 5 episodes, of 20 MCP
// clients connecting at once 5 connect and 15 are refused at initialize;
// the 5 call tools.
func TestMCPCapacityAtInitialize(t *testing.T) {
	s, url := start(t, Options{MaxEpisodes: 5})
	ctx := context.Background()
	var mu sync.Mutex
	var ok []*mcp.ClientSession
	refused := 0
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
			sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme", MaxRetries: -1}, nil)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				refused++
				return
			}
			ok = append(ok, sess)
		})
	}
	wg.Wait()
	if len(ok) != 5 || refused != 15 || s.openCount() != 5 {
		t.Fatalf("%d sessions connected, %d refused, %d episodes; want 5, 15, 5", len(ok), refused, s.openCount())
	}
	for _, sess := range ok {
		res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "get_invoice", Arguments: map[string]any{"id": "inv1"}})
		if err != nil || res.IsError {
			t.Errorf("a connected session's call: %v %+v", err, res)
		}
		sess.Close()
	}
}

// slowServer serves the test world with short limits.
func slowServer(t *testing.T, maxConns int, opts Options, readHeader, connIdle time.Duration) (*Server, string) {
	t.Helper()
	s, err := New([]runtime.World{worldtest.World}, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &httptest.Server{Listener: s.LimitListener(ln, maxConns), Config: &http.Server{Handler: s.Handler(), ReadHeaderTimeout: readHeader, IdleTimeout: connIdle}}
	ts.Start()
	t.Cleanup(func() { ts.Close(); s.Close() })
	return s, ts.URL
}

// closedWithin reports whether the server closes c (a read ends) within d,
// and what it sent.
func closedWithin(c net.Conn, d time.Duration) (bool, string) {
	c.SetReadDeadline(time.Now().Add(d))
	data, err := io.ReadAll(c)
	var ne net.Error
	if err != nil && (errorsAs(err, &ne) && ne.Timeout()) {
		return false, string(data)
	}
	return true, string(data)
}

func errorsAs(err error, target *net.Error) bool {
	ne, ok := err.(net.Error)
	if ok {
		*target = ne
	}
	return ok
}

func metricsText(t *testing.T, url string) string {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// TestSlowClients: a client that sends half a header, half a body, keeps
// a connection idle, keeps a WebSocket silent or does not answer its
// pings is cut off after the limit, and /metrics counts it; a connection
// beyond the limit is answered 503.
func TestSlowClients(t *testing.T) {
	s, url := slowServer(t, 0, Options{ReadBodyTimeout: 200 * time.Millisecond, WSIdleTimeout: 300 * time.Millisecond, WSPing: 150 * time.Millisecond}, 200*time.Millisecond, 300*time.Millisecond)
	addr := strings.TrimPrefix(url, "http://")
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	t.Run("header", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "POST /v1/episodes/x/calls HTTP/1.1\r\nHost: t\r\n")
		if closed, _ := closedWithin(c, 2*time.Second); !closed {
			t.Error("a half-sent header held the connection")
		}
	})
	t.Run("body", func(t *testing.T) {
		var ep EpisodeStart
		do(t, "POST", url+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep)
		c := dial()
		io.WriteString(c, "POST /v1/episodes/"+ep.EpisodeID+"/calls HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"tool\":")
		closed, got := closedWithin(c, 2*time.Second)
		if !closed || !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, `"code":"timeout"`) {
			t.Errorf("a half-sent body: closed %v, answer %q", closed, got)
		}
		if m := metricsText(t, url); !strings.Contains(m, `worldc_timeouts_total{kind="body"} 1`) {
			t.Errorf("/metrics lacks the body timeout:\n%s", m)
		}
	})
	t.Run("idle connection", func(t *testing.T) {
		c := dial()
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("healthz: %v", err)
		}
		io.Copy(io.Discard, resp.Body)
		t0 := time.Now()
		c.SetReadDeadline(time.Now().Add(2 * time.Second))
		if _, err := br.ReadByte(); err == nil || time.Since(t0) > 1500*time.Millisecond {
			t.Errorf("an idle keep-alive connection: %v after %v", err, time.Since(t0))
		}
	})
	ctx := context.Background()
	t.Run("silent websocket", func(t *testing.T) {
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		wsRoundTrip(t, ctx, c, `{"type":"reset","data":{"task_id":"settle_acme"}}`)
		// The client reads (and so answers pings) but sends nothing.
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, _, err = c.Read(rctx)
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
			t.Errorf("a silent WebSocket: %v", err)
		}
		if m := metricsText(t, url); !strings.Contains(m, `worldc_timeouts_total{kind="ws_idle"} 1`) {
			t.Errorf("/metrics lacks the WebSocket idle timeout:\n%s", m)
		}
	})
	t.Run("websocket without pongs", func(t *testing.T) {
		_, url := slowServer(t, 0, Options{WSPing: 150 * time.Millisecond}, time.Second, time.Second)
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/ws", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		// Never reading, the client never answers a ping.
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && !strings.Contains(metricsText(t, url), `worldc_timeouts_total{kind="ws_ping"} 1`) {
			time.Sleep(20 * time.Millisecond)
		}
		if m := metricsText(t, url); !strings.Contains(m, `worldc_timeouts_total{kind="ws_ping"} 1`) {
			t.Errorf("a WebSocket without pongs was not cut:\n%s", m)
		}
	})
	_ = s

	t.Run("connections", func(t *testing.T) {
		_, url := slowServer(t, 2, Options{}, 10*time.Second, 10*time.Second)
		addr := strings.TrimPrefix(url, "http://")
		var held []net.Conn
		for range 2 {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			held = append(held, c)
		}
		time.Sleep(50 * time.Millisecond) // accepted
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		closed, got := closedWithin(c, 2*time.Second)
		if !closed || !strings.HasPrefix(got, "HTTP/1.1 503") || !strings.Contains(got, "capacity_reached") {
			t.Errorf("a third connection: closed %v, %q", closed, got)
		}
		// Once one closes (and the server has seen it), a connection is
		// served again.
		held[0].Close()
		served := false
		refusedBefore := 0
		for deadline := time.Now().Add(3 * time.Second); !served && time.Now().Before(deadline); {
			c2, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			io.WriteString(c2, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
			_, got := closedWithin(c2, 2*time.Second)
			c2.Close()
			switch {
			case strings.HasPrefix(got, "HTTP/1.1 200") && !bytes.Contains([]byte(got), []byte("capacity")):
				served = true
			case strings.HasPrefix(got, "HTTP/1.1 503"):
				refusedBefore++ // the server had not yet seen the close
				time.Sleep(20 * time.Millisecond)
			default:
				t.Fatalf("a connection once one closed: %q", got)
			}
		}
		if !served {
			t.Fatal("no connection served after one of the two closed")
		}
		if m := metricsText(t, url); !strings.Contains(m, fmt.Sprintf("worldc_connections_rejected_total %d", 1+refusedBefore)) {
			t.Errorf("/metrics lacks the refused connections (%d):\n%s", 1+refusedBefore, m)
		}
	})
}
