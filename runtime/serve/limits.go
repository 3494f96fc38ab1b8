package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Limits on slow and idle clients, and on connections. The serve command
// sets them with flags (defaults in parentheses):
//
//   - --read-header-timeout (10s): a request's header must arrive within
//     it (http.Server.ReadHeaderTimeout; the connection is closed);
//   - --read-body-timeout (30s): its body too, counted from when the
//     handler starts reading (408 timeout);
//   - --conn-idle-timeout (2m): a keep-alive connection with no request is
//     closed (http.Server.IdleTimeout);
//   - --ws-idle-timeout (5m): a WebSocket with no message is closed (1008);
//   - --ws-ping (30s): a WebSocket is pinged that often, and closed when
//     the pong does not come back within the same time;
//   - --max-conns (4096): connections open at once on a listener; beyond
//     it a connection is answered 503 capacity_reached and closed.
//
// /metrics counts them: worldc_connections_rejected_total,
// worldc_timeouts_total{kind="body"|"ws_idle"|"ws_ping"}, beside
// worldc_episodes_reaped_total (idle episodes) and
// worldc_capacity_refusals_total (episodes refused when full).

// Defaults of the limits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadBodyTimeout   = 30 * time.Second
	DefaultConnIdleTimeout   = 2 * time.Minute
	DefaultWSIdleTimeout     = 5 * time.Minute
	DefaultWSPing            = 30 * time.Second
	DefaultMaxConns          = 4096
)

// CodeTimeout (408): the request's body did not arrive in time.
const CodeTimeout = "timeout"

// withBodyDeadline gives the handler's reads of a request body a deadline
// (Options.ReadBodyTimeout), for requests that have one; streams (GET,
// WebSocket upgrades) are left alone.
// It also counts the requests with a body in flight, which Drain waits
// for.
func (s *Server) withBodyDeadline(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost && r.Method != http.MethodPut {
			h.ServeHTTP(w, r)
			return
		}
		s.active.Add(1)
		defer s.active.Add(-1)
		if s.opts.ReadBodyTimeout > 0 {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(s.opts.ReadBodyTimeout)) == nil {
				tb := &timedBody{ReadCloser: r.Body, s: s, w: w}
				r.Body = tb
				defer func() {
					if !tb.timedOut {
						rc.SetReadDeadline(time.Time{})
					}
				}()
			}
		}
		h.ServeHTTP(w, r)
	})
}

// timedBody counts a body read that timed out, once.
type timedBody struct {
	io.ReadCloser
	s        *Server
	w        http.ResponseWriter
	timedOut bool
}

func (b *timedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && errors.Is(err, os.ErrDeadlineExceeded) {
		if !b.timedOut {
			b.timedOut = true
			b.s.m.timeouts("body").Inc()
			// The rest of the body will not come: no keep-alive.
			b.w.Header().Set("Connection", "close")
		}
		return n, errBodyTimeout
	}
	return n, err
}

var errBodyTimeout = &apiError{Status: http.StatusRequestTimeout, Code: CodeTimeout, Message: "the request's body did not arrive within the read-body timeout"}

// wsKeepAlive pings a WebSocket every Options.WSPing and closes it when a
// pong does not come back in as long; it returns when ctx is done.
func (s *Server) wsKeepAlive(ctx context.Context, conn *websocket.Conn) {
	if s.opts.WSPing <= 0 {
		return
	}
	t := time.NewTicker(s.opts.WSPing)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, s.opts.WSPing)
			err := conn.Ping(pctx)
			cancel()
			if err != nil {
				if ctx.Err() == nil {
					s.m.timeouts("ws_ping").Inc()
					conn.Close(websocket.StatusPolicyViolation, "no pong")
				}
				return
			}
		}
	}
}

// LimitListener accepts at most n connections at once on ln; beyond
// that, a connection is answered 503 capacity_reached and closed (counted
// in worldc_connections_rejected_total).
func (s *Server) LimitListener(ln net.Listener, n int) net.Listener {
	if n <= 0 {
		return ln
	}
	return &limitListener{Listener: ln, s: s, sem: make(chan struct{}, n)}
}

type limitListener struct {
	net.Listener
	s   *Server
	sem chan struct{}
}

var connRefusal = func() string {
	body := `{"error":{"code":"capacity_reached","message":"the server holds its maximum of connections; try later"}}` + "\n"
	return fmt.Sprintf("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
}()

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.sem <- struct{}{}:
			return &limitConn{Conn: c, release: func() { <-l.sem }}, nil
		default:
			l.s.m.connRejected.Inc()
			go func() {
				c.SetWriteDeadline(time.Now().Add(time.Second))
				c.Write([]byte(connRefusal))
				c.Close()
			}()
		}
	}
}

type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// read reads the next message, closing a connection that is silent for
// longer than Options.WSIdleTimeout.
func (c *wsConn) read(ctx context.Context) ([]byte, error) {
	if c.s.opts.WSIdleTimeout <= 0 {
		_, msg, err := c.conn.Read(ctx)
		return msg, err
	}
	// A timer, not the read's context: a cancelled read closes the
	// connection without a close frame.
	idle := time.AfterFunc(c.s.opts.WSIdleTimeout, func() {
		c.s.m.timeouts("ws_idle").Inc()
		c.conn.Close(websocket.StatusPolicyViolation, "idle")
	})
	_, msg, err := c.conn.Read(ctx)
	idle.Stop()
	return msg, err
}
