package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
)

// mcpVersion is the version the MCP servers announce.
const mcpVersion = "1"

// mcpCapacityCode is the JSON-RPC error code of an initialize refused
// because the server holds its maximum of episodes (or cannot open one).
const mcpCapacityCode = -32000

// resolver finds the episode a tool call acts in.
type resolver func(ss *mcp.ServerSession) (*episode, error)

// newMCPServer is an MCP server with a world's tools, registered with their
// own JSON schemas; each call acts in the episode resolve gives, of task.
// Its instructions (initialize's) are the policy as the task's agent is
// shown it, with the task's date and time. The SDK runs calls
// concurrently; the episode serialises them.
func (s *Server) newMCPServer(wd *world, task string, resolve resolver, opts *mcp.ServerOptions) *mcp.Server {
	if opts == nil {
		opts = &mcp.ServerOptions{}
	}
	opts.Instructions = wd.policies[wd.clock[task]]
	opts.Capabilities = &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: wd.info.Name, Title: wd.info.Title, Version: mcpVersion}, opts)
	for _, t := range wd.tools {
		name := t.Name
		schema := t.Parameters
		if len(schema) == 0 || !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`)
		}
		srv.AddTool(&mcp.Tool{Name: name, Description: t.Description, InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			e, err := resolve(req.Session)
			if err != nil {
				return toolFailure(err), nil
			}
			obs, err := s.call(e, name, req.Params.Arguments)
			if err != nil {
				return toolFailure(err), nil
			}
			// The observation's bytes as the JSON API and the WebSocket send
			// them (written once by the world, no HTML escaping).
			text, err := obs.AppendJSON(nil)
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, IsError: !obs.OK}, nil
		})
	}
	return srv
}

// toolFailure is a tool result for a call that could not run at all (the
// episode is gone, the server is full).
func toolFailure(err error) *mcp.CallToolResult {
	ae := asAPIError(err)
	text, _ := json.Marshal(map[string]any{"ok": false, "error": ae})
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}, IsError: true}
}

// mcpKey names the session server of a world, task and prefix.
type mcpKey struct {
	world, task string
	prefix      int
}

// sessionServer is the MCP server of /mcp/{world}?task=…: every session
// gets an episode of its own, opened when the session initialises (or at
// its first call) and closed when the session ends.
func (s *Server) sessionServer(wd *world, task string, prefix int) *mcp.Server {
	key := mcpKey{wd.info.Name, task, prefix}
	s.mu.Lock()
	defer s.mu.Unlock()
	if srv, ok := s.mcpServers[key]; ok {
		return srv
	}
	resolve := func(ss *mcp.ServerSession) (*episode, error) {
		return s.sessionEpisode(ss, wd.info.Name, task, prefix)
	}
	srv := s.newMCPServer(wd, task, resolve, &mcp.ServerOptions{
		GetSessionID: newID,
		InitializedHandler: func(ctx context.Context, req *mcp.InitializedRequest) {
			if _, err := resolve(req.Session); err != nil {
				s.log.Warn("mcp session without an episode", "world", wd.info.Name, "task", task, "err", err)
			}
		},
	})
	// The episode opens with initialize, so that a full server refuses the
	// session there (a JSON-RPC error the client's connect returns), not at
	// its first call.
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "initialize" {
				if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss.ID() != "" {
					if _, err := resolve(ss); err != nil {
						return nil, &jsonrpc.Error{Code: mcpCapacityCode, Message: asAPIError(err).Message}
					}
				}
			}
			return next(ctx, method, req)
		}
	})
	s.mcpServers[key] = srv
	return srv
}

// sessionEpisode is the episode of an MCP session, opened on first use;
// it is closed when the session ends.
func (s *Server) sessionEpisode(ss *mcp.ServerSession, worldName, task string, prefix int) (*episode, error) {
	if ss == nil || ss.ID() == "" {
		return nil, &apiError{Status: http.StatusBadRequest, Code: CodeUnknownEpisode, Message: "an MCP call outside a session"}
	}
	s.mu.Lock()
	id, ok := s.mcpSessions[ss.ID()]
	s.mu.Unlock()
	if ok {
		return s.get(id)
	}
	// The session's id is the episode's (ServerOptions.GetSessionID makes
	// it one): a trainer grades the episode of an MCP session with the JSON
	// API, POST /v1/episodes/{Mcp-Session-Id}/grade.
	e, err := s.openAt(worldName, task, ss.ID(), prefix)
	if err != nil {
		if ae := asAPIError(err); ae.Status == http.StatusConflict {
			return s.get(ss.ID()) // a concurrent first call opened it
		}
		return nil, err
	}
	s.journalKind(e, "mcp")
	s.mu.Lock()
	s.mcpSessions[ss.ID()] = e.id
	s.mcpSS[ss.ID()] = ss
	s.mu.Unlock()
	go func() {
		ss.Wait()
		s.mu.Lock()
		delete(s.mcpSessions, ss.ID())
		delete(s.mcpSS, ss.ID())
		s.mu.Unlock()
		s.closeOnDisconnect(e.id, "mcp session ended")
	}()
	return e, nil
}

// episodeServer is the MCP server bound to one episode, for the
// per-episode endpoint and stdio.
func (s *Server) episodeServer(e *episode) *mcp.Server {
	e.mu.Lock()
	defer e.mu.Unlock()
	if srv, ok := e.mcp.(*mcp.Server); ok {
		return srv
	}
	srv := s.newMCPServer(e.world, e.task, func(*mcp.ServerSession) (*episode, error) {
		if _, err := s.get(e.id); err != nil {
			return nil, err
		}
		return e, nil
	}, nil)
	e.mcp = srv
	return srv
}

// mcpRoutes registers the MCP endpoints.
func (s *Server) mcpRoutes(mux *http.ServeMux) {
	sessions := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		wd, ok := s.worlds[r.PathValue("world")]
		if !ok {
			return nil
		}
		if _, ok := wd.tasks[r.URL.Query().Get("task")]; !ok && r.URL.Query().Get("task") != "" {
			return nil
		}
		prefix, err := parsePrefix(r.URL.Query().Get("prefix"))
		if err != nil {
			return nil
		}
		return s.sessionServer(wd, r.URL.Query().Get("task"), prefix)
	}, &mcp.StreamableHTTPOptions{Logger: s.log, MaxRequestBodyBytes: s.opts.MaxBodyBytes})
	// No SessionTimeout: the SDK's timer does not see the calls of the
	// fast path (mcpfast.go); the reaper closes idle episodes, and with
	// them their sessions (endMCPSession).
	resumed := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		e, err := s.get(r.Header.Get("Mcp-Session-Id"))
		if err != nil {
			return nil
		}
		return s.episodeServer(e)
	}, &mcp.StreamableHTTPOptions{Stateless: true, Logger: s.log, MaxRequestBodyBytes: s.opts.MaxBodyBytes})
	session := func(w http.ResponseWriter, r *http.Request) {
		wd, err := s.world(r.PathValue("world"))
		if err != nil {
			s.writeError(w, err)
			return
		}
		task := r.URL.Query().Get("task")
		if _, ok := wd.tasks[task]; !ok && task != "" {
			s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeUnknownTask, Message: fmt.Sprintf("world %s has no task %q; tasks: %s", wd.info.Name, task, joinNames(wd.order))})
			return
		}
		if err := checkPrefixQuery(wd, task, r.URL.Query().Get("prefix")); err != nil {
			s.writeError(w, err)
			return
		}
		// A session rebuilt from the journal after a restart: its episode
		// is served by its id (see resumedSession).
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && s.isResumable(sid) {
			s.resumedSession(w, r, sid, resumed)
			return
		}
		if s.mcpFastCall(w, r, wd) {
			return
		}
		// An event stream ends when the server stops (see Drain).
		if r.Method == http.MethodGet {
			ctx, stop := s.untilDrain(r.Context())
			defer stop()
			r = r.WithContext(ctx)
			s.streams.Add(1)
			defer s.streams.Add(-1)
		}
		// A new session opens an episode: refuse it up front when full.
		if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && s.openCount() >= s.opts.MaxEpisodes {
			s.m.capacity.Inc()
			s.writeError(w, &apiError{Status: http.StatusTooManyRequests, Code: CodeCapacityReached, Message: fmt.Sprintf("the server holds %d episodes, its maximum", s.opts.MaxEpisodes)})
			return
		}
		sessions.ServeHTTP(w, r)
	}
	mux.HandleFunc("/mcp/{world}", session)
	// /mcp?world=W&task=T, for clients that keep the query and drop the
	// path (the MCP Inspector's CLI rewrites /mcp/{w}?task= to /mcp); the
	// world may be left out when the bundle has one.
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		world := r.URL.Query().Get("world")
		if world == "" && len(s.names) == 1 {
			world = s.names[0]
		}
		if world == "" {
			s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeUnknownWorld, Message: "/mcp needs ?world= (or the path /mcp/{world}); worlds: " + joinNames(s.names)})
			return
		}
		r.SetPathValue("world", world)
		session(w, r)
	})
	perEpisode := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		e, err := s.get(r.PathValue("id"))
		if err != nil {
			return nil
		}
		return s.episodeServer(e)
	}, &mcp.StreamableHTTPOptions{Stateless: true, Logger: s.log, MaxRequestBodyBytes: s.opts.MaxBodyBytes})
	mux.HandleFunc("/v1/episodes/{id}/mcp", func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.get(r.PathValue("id")); err != nil {
			s.writeError(w, err)
			return
		}
		perEpisode.ServeHTTP(w, r)
	})
}

// ServeStdio runs one episode of a task over MCP on r and w (a client's
// stdio), until the client disconnects or ctx is done; the episode is
// closed then. When done is set, it is given the episode's end first, to
// grade (stdio has no side channel for the grader).
func (s *Server) ServeStdio(ctx context.Context, worldName, task string, r io.Reader, w io.Writer, done func(*StdioEnd) error) error {
	return s.ServeStdioAt(ctx, worldName, task, 0, r, w, done)
}

// StdioEnd is a stdio episode when its client has disconnected: its
// trajectory, and its grade with or without the agent's final message.
type StdioEnd struct {
	Trajectory []runtime.Step
	e          *episode
	now        time.Time
}

// Grade grades the episode's final state with answer, the agent's final
// message (nil: without one; see answer.go).
func (end *StdioEnd) Grade(answer *string) (runtime.Grade, error) {
	return end.e.grade(end.now, answer)
}

// ServeStdioAt is ServeStdio for an episode that starts after the first
// prefix steps of the task's golden solution (given steps, first in the
// trajectory done receives).
func (s *Server) ServeStdioAt(ctx context.Context, worldName, task string, prefix int, r io.Reader, w io.Writer, done func(*StdioEnd) error) error {
	e, err := s.openAt(worldName, task, newID(), prefix)
	if err != nil {
		return err
	}
	defer s.closeEpisode(e.id, "stdio ended")
	err = s.episodeServer(e).Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}})
	if err != nil && (ctx.Err() != nil || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")) {
		err = nil // the client went away: a normal end
	}
	if err == nil && done != nil {
		return done(&StdioEnd{Trajectory: e.trajectory(), e: e, now: s.opts.Now()})
	}
	return err
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
