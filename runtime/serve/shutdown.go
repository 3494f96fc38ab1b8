package serve

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"time"

	"github.com/coder/websocket"
)

// Stopping (SIGTERM): the serve command stops accepting connections and
// lets every call in flight finish and be answered on every protocol, then
// exits:
//
//   - Drain marks the server stopping: an MCP session or WebSocket that
//     ends from now on keeps its episode (journaled, it is rebuilt on the
//     next start); every WebSocket closes with 1001 (going away) once the
//     message it is handling, if any, is answered;
//   - http.Server.Shutdown closes the listeners and idle connections and
//     waits for the requests being served (tool calls among them);
//   - EndStreams, once no connection is busy with anything but an MCP
//     event stream (ConnState), ends those streams, so that no open stream
//     holds the stop (ending them first would make clients drop the
//     answers of their calls in flight);
//   - WaitWS waits for the WebSockets' handlers to end;
//   - Close writes each open episode's state hash into the journal, fsyncs
//     and closes it.

// Drain starts the stop (see above). It returns at once.
func (s *Server) Drain() {
	s.draining.Store(true)
	s.wsMu.Lock()
	conns := make([]*wsConn, 0, len(s.ws))
	for c := range s.ws {
		conns = append(conns, c)
	}
	s.wsMu.Unlock()
	for _, c := range conns {
		c.goAway()
	}
}

// WaitWS waits until every WebSocket handler has returned, or the context
// is done.
func (s *Server) WaitWS(ctx context.Context) error {
	done := make(chan struct{})
	go func() { s.wsWG.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// trackWS registers a WebSocket; false when the server is stopping.
func (s *Server) trackWS(c *wsConn) bool {
	s.wsMu.Lock()
	defer s.wsMu.Unlock()
	if s.draining.Load() {
		return false
	}
	s.ws[c] = struct{}{}
	s.wsWG.Add(1)
	return true
}

func (s *Server) untrackWS(c *wsConn) {
	s.releaseWS(c)
	s.wsMu.Lock()
	delete(s.ws, c)
	s.wsMu.Unlock()
	s.wsWG.Done()
}

// begin marks a message being handled; false when the connection is
// closing already (the message goes unanswered: it never ran).
func (c *wsConn) begin() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.busy = true
	return true
}

// end marks the message answered and reports whether the server is
// stopping (the handler then closes the connection).
func (c *wsConn) end() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.busy = false
	return c.closing
}

// goAway closes an idle connection at once, a busy one after its answer.
func (c *wsConn) goAway() {
	c.mu.Lock()
	c.closing = true
	busy := c.busy
	c.mu.Unlock()
	if !busy {
		go c.conn.Close(websocket.StatusGoingAway, "server shutting down")
	}
}

// untilDrain is ctx, also cancelled when the server starts to stop; stop
// releases it.
func (s *Server) untilDrain(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(s.drainCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// clientIDRE is what an OpenEnv client may name its episode.
var clientIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

// holdWS records that the WebSocket c holds episode e.
func (s *Server) holdWS(c *wsConn, e *episode) {
	s.mu.Lock()
	s.wsOwners[e.id] = c
	s.mu.Unlock()
}

// attachWS gives the open episode id to the WebSocket c when no other
// live connection holds it.
func (s *Server) attachWS(c *wsConn, id string) (*episode, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.episodes[id]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownEpisode, Message: fmt.Sprintf("no open episode %q", id)}
	}
	if owner := s.wsOwners[id]; owner != nil && owner != c {
		return nil, &apiError{Status: http.StatusConflict, Code: CodeInternal, Message: fmt.Sprintf("episode %s is held by another connection", id)}
	}
	s.wsOwners[id] = c
	return e, nil
}

// releaseWS forgets the episodes c held.
func (s *Server) releaseWS(c *wsConn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, owner := range s.wsOwners {
		if owner == c {
			delete(s.wsOwners, id)
		}
	}
}

// EndStreams ends the MCP event streams once every busy connection of the
// server's listeners (see ConnState) is one of them, checked twice 5 ms
// apart, or when ctx is done. Call it after the listeners' Shutdown began:
// from then on no connection takes a new request.
func (s *Server) EndStreams(ctx context.Context) {
	quiet := 0
	for quiet < 2 {
		select {
		case <-ctx.Done():
			quiet = 2
			continue
		case <-time.After(5 * time.Millisecond):
		}
		if s.busyConns.Load()-s.streams.Load() <= 0 && s.active.Load() == 0 {
			quiet++
		} else {
			quiet = 0
		}
	}
	s.drainCancel()
}

// ConnState is the http.Server hook that counts busy connections (a
// request being read or served), for EndStreams.
func (s *Server) ConnState(c net.Conn, state http.ConnState) {
	_, was := s.connBusy.Load(c)
	switch state {
	case http.StateActive:
		if !was {
			s.connBusy.Store(c, struct{}{})
			s.busyConns.Add(1)
		}
	default:
		if was {
			s.connBusy.Delete(c)
			s.busyConns.Add(-1)
		}
	}
}
