package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
	"github.com/worldc/worldc/runtime/serve/rollback"
)

// Options configures a Server.
type Options struct {
	// MaxEpisodes bounds the episodes open at once, over all protocols;
	// beyond it, opening one fails with CodeCapacityReached. 0 means
	// DefaultMaxEpisodes.
	MaxEpisodes int
	// IdleTimeout closes episodes unused for that long (0: never). MCP
	// sessions time out after the same duration.
	IdleTimeout time.Duration
	// MaxBodyBytes bounds a request body or WebSocket message; 0 means
	// DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// ReadBodyTimeout bounds the reading of a request's body (0: none);
	// WSIdleTimeout closes a WebSocket with no message for that long (0:
	// never); WSPing pings WebSockets that often and closes those whose
	// pong does not come back in as long (0: no pings). See limits.go.
	ReadBodyTimeout time.Duration
	WSIdleTimeout   time.Duration
	WSPing          time.Duration
	// Logger receives structured logs; nil discards them.
	Logger *slog.Logger
	// StateDir, when set, makes episodes durable: their openings and
	// accepted calls are journaled there and the open ones rebuilt when a
	// server starts on it (see durable.go).
	StateDir string
	// Fsync is the journal's fsync policy: "interval" (default), "always"
	// or "none" (see durable.go).
	Fsync string
	// ControlToken, when set, guards the control plane (opening and
	// deleting episodes, their state, grade and trajectory): its requests
	// must carry `Authorization: Bearer ControlToken`, else they answer
	// 401 unauthorized. See AgentHandler and ControlHandler.
	ControlToken string
	// Now is the clock for idle times (tests give their own); nil means
	// time.Now. Worlds never see it: their clock is their own.
	Now func() time.Time
}

// Defaults of Options.
const (
	DefaultMaxEpisodes  = 10000
	DefaultMaxBodyBytes = 4 << 20
)

// Server holds the worlds of a bundle and their open episodes.
type Server struct {
	opts   Options
	log    *slog.Logger
	worlds map[string]*world
	names  []string // sorted
	m      *serverMetrics

	worldsJSON []byte // GET /v1/worlds, encoded once
	allToolsWS []byte // OpenEnv list_tools before a reset with several worlds

	wsOwners map[string]*wsConn // episode → the WebSocket that holds it

	mu          sync.Mutex
	episodes    map[string]*episode
	mcpServers  map[mcpKey]*mcp.Server        // session servers by world and task
	mcpSessions map[string]string             // MCP session id → episode id
	mcpSS       map[string]*mcp.ServerSession // MCP session id → the SDK's session

	stop chan struct{}
	wg   sync.WaitGroup

	j         *journal        // nil without Options.StateDir
	replaying bool            // New is rebuilding episodes from the journal
	resumable map[string]bool // MCP session ids of episodes rebuilt from the journal
	draining  atomic.Bool     // SIGTERM: connections that end keep their episodes

	active      atomic.Int64    // requests with a body being served (see withBodyDeadline)
	busyConns   atomic.Int64    // connections reading or serving a request (ConnState)
	connBusy    sync.Map        // the busy connections
	streams     atomic.Int64    // MCP event streams (GET) being served
	drainCtx    context.Context // cancelled by Drain
	drainCancel context.CancelFunc
	wsMu        sync.Mutex
	ws          map[*wsConn]struct{} // open WebSockets
	wsWG        sync.WaitGroup
}

// world is a World with what the server derives from it once.
type world struct {
	w     runtime.World
	info  runtime.WorldInfo
	tools []runtime.ToolInfo
	tasks map[string]runtime.TaskInfo
	order []string // task ids in declaration order
	enc   encoded  // its answers that never change, encoded once

	// clock is each task's clock ("" included: the world's), the date and
	// time its agent is told; policies the policy document as an agent on
	// each clock is shown it (eval.TaskPolicy), one per distinct clock.
	clock    map[string]eval.Clock
	policies map[eval.Clock]string

	toolIndex map[string]struct{} // the tools' names
}

// New returns a server for worlds (names must be distinct). Close stops
// its idle reaper.
func New(worlds []runtime.World, opts Options) (*Server, error) {
	if opts.MaxEpisodes <= 0 {
		opts.MaxEpisodes = DefaultMaxEpisodes
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{opts: opts, log: log, worlds: map[string]*world{}, episodes: map[string]*episode{},
		mcpServers: map[mcpKey]*mcp.Server{}, mcpSessions: map[string]string{}, stop: make(chan struct{})}
	for _, w := range worlds {
		info := w.Info()
		if _, dup := s.worlds[info.Name]; dup {
			return nil, fmt.Errorf("two worlds named %s", info.Name)
		}
		wd := &world{w: w, info: info, tools: w.Tools(), tasks: map[string]runtime.TaskInfo{}}
		for _, t := range w.Tasks() {
			wd.tasks[t.ID] = t
			wd.order = append(wd.order, t.ID)
		}
		if err := wd.encode(); err != nil {
			return nil, fmt.Errorf("world %s: %w", info.Name, err)
		}
		s.worlds[info.Name] = wd
		s.names = append(s.names, info.Name)
	}
	sort.Strings(s.names)
	if err := s.encodeWorlds(); err != nil {
		return nil, err
	}
	s.m = newMetrics(s)
	s.resumable = map[string]bool{}
	s.mcpSS = map[string]*mcp.ServerSession{}
	s.wsOwners = map[string]*wsConn{}
	s.ws = map[*wsConn]struct{}{}
	s.drainCtx, s.drainCancel = context.WithCancel(context.Background())
	if opts.StateDir != "" {
		if opts.Fsync == "" {
			opts.Fsync = "interval"
			s.opts.Fsync = "interval"
		}
		if !slices.Contains(FsyncPolicies, opts.Fsync) {
			return nil, fmt.Errorf("fsync policy %q: use one of %s", opts.Fsync, strings.Join(FsyncPolicies, ", "))
		}
		s.replaying = true
		err := s.recover(opts.StateDir, opts.Fsync)
		s.replaying = false
		if err != nil {
			return nil, fmt.Errorf("state dir %s: %w", opts.StateDir, err)
		}
	}
	if opts.IdleTimeout > 0 {
		s.wg.Add(1)
		go s.reapLoop()
	}
	return s, nil
}

// Close stops the reaper and closes every episode.
func (s *Server) Close() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.wg.Wait()
	if err := s.checkpoint(); err != nil {
		s.log.Error("journal: the last checkpoint", "err", err)
	}
	s.mu.Lock()
	eps := s.episodes
	s.episodes = map[string]*episode{}
	s.mu.Unlock()
	for _, e := range eps {
		e.close()
	}
}

// Handler is the server's HTTP handler: the JSON episode API, MCP over
// streamable HTTP and the OpenEnv WebSocket, with JSON errors for unknown
// paths; both planes, the control plane behind Options.ControlToken when
// it is set (see AgentHandler and ControlHandler to serve them apart).
func (s *Server) Handler() http.Handler { return s.handler(planeAll) }

func (s *Server) handler(p plane) http.Handler {
	mux := http.NewServeMux()
	s.routes(mux, p)
	s.mcpRoutes(mux)
	s.openEnvRoutes(mux, p)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("no endpoint %s %s; see GET /v1/worlds", r.Method, r.URL.Path)})
	})
	return s.withBodyDeadline(mux)
}

// Worlds returns the server's world names, sorted.
func (s *Server) Worlds() []string { return slices.Clone(s.names) }

// open starts an episode of a task ("" for the world seed alone).
func (s *Server) open(worldName, task string) (*episode, error) {
	return s.openID(worldName, task, newID())
}

// openID is open with the episode's id chosen by the caller (an MCP
// session's, so that the session id names the episode).
func (s *Server) openID(worldName, task, id string) (*episode, error) {
	return s.openAt(worldName, task, id, 0)
}

// openAt is openID for an episode that starts after the first prefix steps
// of its task's golden solution (rollback.Start): those steps are its
// first, marked given.
func (s *Server) openAt(worldName, task, id string, prefix int) (*episode, error) {
	w, ok := s.worlds[worldName]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownWorld, Message: fmt.Sprintf("unknown world %q; worlds: %s", worldName, joinNames(s.names))}
	}
	if _, ok := w.tasks[task]; !ok && task != "" {
		return nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownTask, Message: fmt.Sprintf("world %s has no task %q; tasks: %s", worldName, task, joinNames(w.order))}
	}
	if err := rollback.Check(w.tasks[task], prefix); err != nil {
		return nil, invalidPrefix(err)
	}
	s.mu.Lock()
	if len(s.episodes) >= s.opts.MaxEpisodes {
		s.mu.Unlock()
		s.m.capacity.Inc()
		return nil, &apiError{Status: http.StatusTooManyRequests, Code: CodeCapacityReached, Message: fmt.Sprintf("the server holds %d episodes, its maximum; close some or try later", s.opts.MaxEpisodes)}
	}
	if _, taken := s.episodes[id]; taken {
		s.mu.Unlock()
		return nil, &apiError{Status: http.StatusConflict, Code: CodeInternal, Message: fmt.Sprintf("episode %s exists already", id)}
	}
	e := &episode{id: id, world: w, task: task, lastUsed: s.opts.Now()}
	s.episodes[e.id] = e // reserve the slot before the (cheap) clone
	s.mu.Unlock()
	ep, given, err := rollback.Start(w.w, w.tasks[task], prefix)
	if err != nil {
		s.remove(e.id)
		return nil, &apiError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
	}
	e.ep, e.steps = ep, given
	if err := s.journalOpen(e, prefix); err != nil {
		s.remove(e.id)
		return nil, err
	}
	s.m.opened.Inc()
	s.log.Debug("episode opened", "episode", e.id, "world", worldName, "task", task)
	return e, nil
}

// get finds an open episode.
func (s *Server) get(id string) (*episode, error) {
	s.mu.Lock()
	e, ok := s.episodes[id]
	s.mu.Unlock()
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownEpisode, Message: fmt.Sprintf("no open episode %q (closed, reaped or never opened)", id)}
	}
	return e, nil
}

// closeEpisode closes and forgets an episode; it reports whether it was
// open.
func (s *Server) closeEpisode(id, why string) bool {
	e := s.remove(id)
	if e == nil || !e.close() {
		return false
	}
	s.journalClose(e)
	s.endMCPSession(id)
	s.m.closed.Inc()
	s.log.Debug("episode closed", "episode", id, "why", why, "steps", e.stepCount())
	return true
}

func (s *Server) remove(id string) *episode {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.episodes[id]
	delete(s.episodes, id)
	return e
}

// openCount is the number of open episodes.
func (s *Server) openCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.episodes)
}

// reapLoop closes idle episodes every quarter of the idle timeout.
func (s *Server) reapLoop() {
	defer s.wg.Done()
	t := time.NewTicker(max(s.opts.IdleTimeout/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			s.reap()
		}
	}
}

// reap closes the episodes idle for longer than the timeout.
func (s *Server) reap() {
	cutoff := s.opts.Now().Add(-s.opts.IdleTimeout)
	s.mu.Lock()
	var idle []string
	for id, e := range s.episodes {
		if e.idleSince(cutoff) {
			idle = append(idle, id)
		}
	}
	s.mu.Unlock()
	for _, id := range idle {
		if s.closeEpisode(id, "idle") {
			s.m.reaped.Inc()
		}
	}
}

// call runs a tool in an episode and counts it.
func (s *Server) call(e *episode, tool string, args json.RawMessage) (runtime.Observation, error) {
	start := time.Now()
	obs, err := e.call(tool, args, s.opts.Now())
	if err != nil {
		return obs, err
	}
	s.m.observe(obs, time.Since(start))
	return obs, nil
}

// newID is a random episode id: 128 bits, hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

func errClosed(id string) error {
	return &apiError{Status: http.StatusGone, Code: CodeEpisodeClosed, Message: fmt.Sprintf("episode %s is closed", id)}
}

// joinNames lists names for a message, at most 20 of them.
func joinNames(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	out := ""
	for i, n := range names {
		if i == 20 {
			return out + fmt.Sprintf(", … (%d more)", len(names)-20)
		}
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out
}
