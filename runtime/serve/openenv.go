package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"

	"github.com/worldc/worldc/runtime"
)

// The error codes of the OpenEnv WebSocket ({"type":"error","data":{"message","code"}}).
const (
	WSInvalidJSON     = "INVALID_JSON"      // the message is not a JSON object of a known shape
	WSUnknownType     = "UNKNOWN_TYPE"      // a message or action type the server does not know
	WSNoEpisode       = "NO_EPISODE"        // a step or state before any reset
	WSUnknownWorld    = "UNKNOWN_WORLD"     // reset names no world of the server (or none, with several)
	WSUnknownTask     = "UNKNOWN_TASK"      // reset names no task of the world
	WSCapacityReached = "CAPACITY_REACHED"  // the server holds its maximum of episodes
	WSEpisodeClosed   = "EPISODE_CLOSED"    // the episode was reaped or closed elsewhere
	WSInternal        = "INTERNAL_ERROR"    // the server failed
	WSMessageTooLarge = "MESSAGE_TOO_LARGE" // sent as the close reason when a message exceeds the limit
	WSUnauthorized    = "UNAUTHORIZED"      // a control action (grade) on a connection opened without the control token
	WSEpisodeExists   = "EPISODE_EXISTS"    // reset's episode_id names an episode another connection holds
	// WSInvalidAnswer (answer.go): the grade's answer is not a string or too long.
)

// wsMessage is a client message: reset, step, list_tools, state or close.
type wsMessage struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
}

// wsReset is the data of a reset: the task (and the world when the server
// has several); OpenEnv's own seed and episode_id are accepted and ignored
// (worlds are deterministic, ids are the server's).
type wsReset struct {
	TaskID    string `json:"task_id"`
	Task      string `json:"task"`
	World     string `json:"world"`
	Seed      *int64 `json:"seed"`
	EpisodeID string `json:"episode_id"`
	Prefix    int    `json:"prefix"` // start after this many steps of the golden solution
}

// wsAction is the data of a step: call_tool, list_tools or grade.
type wsAction struct {
	Type      string          `json:"type"`
	ToolName  string          `json:"tool_name"`
	Arguments json.RawMessage `json:"arguments"`
	Metadata  json.RawMessage `json:"metadata"`
	World     string          `json:"world"` // list_tools before a reset, with several worlds
	// Answer is grade's: the agent's final message, a JSON string (see
	// answer.go); absent, the episode is graded without one.
	Answer json.RawMessage `json:"answer"`
}

// wsTool is a tool as OpenEnv's list_tools observation shows it.
type wsTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// wsObservation is the data of an observation reply.
type wsObservation struct {
	Observation any      `json:"observation"`
	Reward      *float64 `json:"reward"`
	Done        bool     `json:"done"`
}

// openEnvRoutes registers the OpenEnv-compatible endpoints.
func (s *Server) openEnvRoutes(mux *http.ServeMux, p plane) {
	mux.HandleFunc("GET /ws", func(w http.ResponseWriter, r *http.Request) { s.handleWS(w, r, s.controlAllowed(p, r)) })
	// OpenEnv's HTTP routes (openenv_http.go).
	mux.HandleFunc("POST /reset", func(w http.ResponseWriter, r *http.Request) { s.openEnvHTTP(w, r, p, "reset") })
	mux.HandleFunc("POST /step", func(w http.ResponseWriter, r *http.Request) { s.openEnvHTTP(w, r, p, "step") })
	mux.HandleFunc("GET /state", func(w http.ResponseWriter, r *http.Request) { s.openEnvHTTP(w, r, p, "state") })
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "healthy"})
	})
	mux.HandleFunc("GET /metadata", func(w http.ResponseWriter, r *http.Request) {
		var titles []string
		for _, n := range s.names {
			titles = append(titles, fmt.Sprintf("%s (%s)", n, s.worlds[n].info.Title))
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"name":        "worldc",
			"description": "Compiled business worlds: " + strings.Join(titles, "; ") + ". Reset with data.task_id (and data.world), step with call_tool, list_tools or grade (with the agent's final message as answer when the reset says answer: true).",
			"version":     mcpVersion,
			"worlds":      s.names,
		})
	})
	mux.HandleFunc("GET /schema", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(openEnvSchema))
	})
}

// openEnvSchema describes the actions, observations and state of /ws.
const openEnvSchema = `{"action":{"oneOf":[` +
	`{"type":"object","properties":{"type":{"const":"call_tool"},"tool_name":{"type":"string"},"arguments":{"type":"object"}},"required":["type","tool_name"]},` +
	`{"type":"object","properties":{"type":{"const":"list_tools"}},"required":["type"]},` +
	`{"type":"object","properties":{"type":{"const":"grade"},"answer":{"type":"string","description":"the agent's final message (at most 65536 bytes of UTF-8), for tasks that grade it (answer: true in the reset observation); absent: graded without one"}},"required":["type"]}]},` +
	`"observation":{"type":"object","properties":{"tool_name":{"type":"string"},"result":{"type":"object","description":"the tool's observation: {ok, data} or {ok:false, error:{code, message}}"},"tools":{"type":"array"},"grade":{"type":"object"},"done":{"type":"boolean"},"reward":{"type":["number","null"]}}},` +
	`"state":{"type":"object","properties":{"episode_id":{"type":"string"},"step_count":{"type":"integer"},"world":{"type":"string"},"task":{"type":"string"},"state_hash":{"type":"string"}}}}` + "\n"

// handleWS serves one WebSocket connection: one episode at a time, reset
// by each reset message, closed with the connection. control says whether
// the connection may grade (see controlAllowed).
func (s *Server) handleWS(w http.ResponseWriter, r *http.Request, control bool) {
	// A connection is for an episode: a full server refuses it at
	// connect (429), not at its first reset.
	if s.openCount() >= s.opts.MaxEpisodes {
		s.m.capacity.Inc()
		s.writeError(w, &apiError{Status: http.StatusTooManyRequests, Code: CodeCapacityReached, Message: fmt.Sprintf("the server holds %d episodes, its maximum; try later", s.opts.MaxEpisodes)})
		return
	}
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered
	}
	// The 32 KiB default is too small for tool arguments that carry lists.
	conn.SetReadLimit(s.opts.MaxBodyBytes)
	c := &wsConn{s: s, conn: conn, world: r.URL.Query().Get("world"), control: control}
	if !s.trackWS(c) {
		conn.Close(websocket.StatusGoingAway, "server shutting down")
		return
	}
	defer s.untrackWS(c)
	defer func() {
		if c.ep != nil {
			s.closeOnDisconnect(c.ep.id, "websocket closed")
		}
	}()
	ctx := r.Context()
	kctx, stopPings := context.WithCancel(ctx)
	defer stopPings()
	go s.wsKeepAlive(kctx, conn)
	for {
		msg, err := c.read(ctx)
		if err != nil {
			if errors.Is(err, websocket.ErrMessageTooBig) {
				conn.Close(websocket.StatusMessageTooBig, WSMessageTooLarge)
			}
			return
		}
		// A message read while the server stops is answered before the
		// connection closes (see goAway).
		if !c.begin() {
			return
		}
		done := c.handle(ctx, msg)
		stopping := c.end()
		if done {
			conn.Close(websocket.StatusNormalClosure, "closed")
			return
		}
		if stopping {
			conn.Close(websocket.StatusGoingAway, "server shutting down")
			return
		}
	}
}

type wsConn struct {
	s     *Server
	conn  *websocket.Conn
	world string // from ?world=, the default for resets
	ep    *episode
	// control: the connection was opened with the control token (or on a
	// server without one), so grade and the state hash are answered.
	control bool

	mu      sync.Mutex
	busy    bool // handling a message
	closing bool // the server is stopping

	reply func([]byte) // set: the connection is one HTTP request (openenv_http.go)
}

// handle answers one message; it reports whether the client closed.
func (c *wsConn) handle(ctx context.Context, raw []byte) bool {
	var m wsMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil || m.Type == "" {
		msg := "the message is not a JSON object with a type"
		if err != nil {
			msg = "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: ")
		}
		c.fail(ctx, WSInvalidJSON, msg)
		return false
	}
	switch m.Type {
	case "reset":
		c.reset(ctx, m.Data)
	case "step":
		var a wsAction
		if err := json.Unmarshal(orEmpty(m.Data), &a); err != nil {
			c.fail(ctx, WSInvalidJSON, "invalid step data: "+strings.TrimPrefix(err.Error(), "json: "))
			return false
		}
		c.step(ctx, a)
	case "list_tools", "call_tool", "grade":
		// The actions as messages of their own.
		var a wsAction
		if err := json.Unmarshal(orEmpty(m.Data), &a); err != nil {
			c.fail(ctx, WSInvalidJSON, "invalid data: "+strings.TrimPrefix(err.Error(), "json: "))
			return false
		}
		a.Type = m.Type
		c.step(ctx, a)
	case "state":
		if c.ep == nil {
			c.fail(ctx, WSNoEpisode, "no episode: send a reset first")
			return false
		}
		st := map[string]any{"episode_id": c.ep.id, "step_count": c.ep.stepCount(), "world": c.ep.world.info.Name, "task": c.ep.task}
		if c.control {
			// The hash of the hidden state is the trainer's, not the agent's.
			_, hash, err := c.ep.state(c.s.opts.Now())
			if err != nil {
				c.failErr(ctx, err)
				return false
			}
			st["state_hash"] = hash
		}
		c.send(ctx, "state", st)
	case "close":
		return true
	default:
		c.fail(ctx, WSUnknownType, fmt.Sprintf("unknown message type %q; known: reset, step, list_tools, state, close", m.Type))
	}
	return false
}

func (c *wsConn) reset(ctx context.Context, data json.RawMessage) {
	var d wsReset
	if err := json.Unmarshal(orEmpty(data), &d); err != nil {
		c.fail(ctx, WSInvalidJSON, "invalid reset data: "+strings.TrimPrefix(err.Error(), "json: "))
		return
	}
	world := d.World
	if world == "" {
		world = c.world
	}
	if world == "" && len(c.s.names) == 1 {
		world = c.s.names[0]
	}
	task := d.TaskID
	if task == "" {
		task = d.Task
	}
	if world == "" {
		c.fail(ctx, WSUnknownWorld, "reset names no world (data.world); worlds: "+joinNames(c.s.names))
		return
	}
	id := newID()
	if d.EpisodeID != "" {
		// OpenEnv's reset(episode_id=…): the client names the episode.
		if !clientIDRE.MatchString(d.EpisodeID) {
			c.fail(ctx, WSInvalidJSON, "episode_id: use 1 to 128 letters, digits and _ . : -")
			return
		}
		id = d.EpisodeID
	}
	e, err := c.s.openAt(world, task, id, d.Prefix)
	if err != nil && d.EpisodeID != "" && asAPIError(err).Status == http.StatusConflict {
		// The episode exists: a client that reconnects (after a restart,
		// say) resumes it, unless another connection holds it.
		if e, err = c.s.attachWS(c, id); err == nil {
			if c.ep != nil && c.ep != e {
				c.s.closeEpisode(c.ep.id, "websocket reset")
			}
			c.ep = e
			c.write(ctx, c.s.wsResetJSON(e))
			return
		}
	}
	if err != nil {
		c.failErr(ctx, err)
		return
	}
	c.s.holdWS(c, e)
	if c.ep != nil {
		c.s.closeEpisode(c.ep.id, "websocket reset")
	}
	c.ep = e
	c.write(ctx, c.s.wsResetJSON(e))
}

func (c *wsConn) step(ctx context.Context, a wsAction) {
	if a.Type == "list_tools" {
		if c.ep != nil {
			c.write(ctx, c.ep.world.enc.listTools)
		} else if w, ok := c.s.worlds[cmp.Or(a.World, c.defaultWorld())]; ok {
			c.write(ctx, w.enc.listTools) // OpenEnv: tool discovery needs no reset
		} else if a.World != "" {
			c.fail(ctx, WSUnknownWorld, fmt.Sprintf("unknown world %q; worlds: %s", a.World, joinNames(c.s.names)))
		} else {
			c.write(ctx, c.s.allToolsWS) // every world's, each tool naming its world
		}
		return
	}
	if c.ep == nil {
		c.fail(ctx, WSNoEpisode, "no episode: send a reset first")
		return
	}
	switch a.Type {
	case "call_tool":
		if a.ToolName == "" {
			c.fail(ctx, WSInvalidJSON, "call_tool needs a tool_name")
			return
		}
		obs, err := c.s.call(c.ep, a.ToolName, a.Arguments)
		if err != nil {
			c.failErr(ctx, err)
			return
		}
		c.send(ctx, "observation", wsObservation{Observation: map[string]any{"tool_name": a.ToolName, "result": obs, "error": nil}})
	case "grade":
		if !c.control {
			c.fail(ctx, WSUnauthorized, "grade is a control action: open the connection with Authorization: Bearer <the server's control token>, on the control address")
			return
		}
		answer, err := parseAnswer(a.Answer)
		if err != nil {
			c.fail(ctx, WSInvalidAnswer, asAPIError(err).Message)
			return
		}
		g, err := c.ep.grade(c.s.opts.Now(), answer)
		if err != nil {
			c.failErr(ctx, err)
			return
		}
		reward := g.Reward
		c.send(ctx, "observation", wsObservation{Observation: map[string]any{"grade": g}, Reward: &reward, Done: true})
	default:
		c.fail(ctx, WSUnknownType, fmt.Sprintf("unknown action type %q; known: call_tool, list_tools, grade", a.Type))
	}
}

func (c *wsConn) defaultWorld() string {
	if c.world != "" {
		return c.world
	}
	if len(c.s.names) == 1 {
		return c.s.names[0]
	}
	return ""
}

func wsTools(tools []runtime.ToolInfo) []wsTool {
	out := make([]wsTool, len(tools))
	for i, t := range tools {
		out[i] = wsTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters}
	}
	return out
}

// failErr sends an API error as a WebSocket error.
func (c *wsConn) failErr(ctx context.Context, err error) {
	ae := asAPIError(err)
	code := WSInternal
	switch ae.Code {
	case CodeUnknownWorld:
		code = WSUnknownWorld
	case CodeUnknownTask:
		code = WSUnknownTask
	case CodeCapacityReached:
		code = WSCapacityReached
	case CodeInvalidPrefix:
		code = WSInvalidPrefix
	case CodeEpisodeClosed, CodeUnknownEpisode:
		code = WSEpisodeClosed
	}
	if ae.Status == http.StatusConflict {
		code = WSEpisodeExists
	}
	c.fail(ctx, code, ae.Message)
}

func (c *wsConn) fail(ctx context.Context, code, message string) {
	c.s.m.apiErrors(code).Inc()
	c.send(ctx, "error", map[string]string{"message": message, "code": code})
}

func (c *wsConn) send(ctx context.Context, typ string, data any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{"type": typ, "data": data}); err != nil {
		buf.Reset()
		fmt.Fprintf(&buf, `{"type":"error","data":{"message":%q,"code":%q}}`, err.Error(), WSInternal)
	}
	c.write(ctx, bytes.TrimRight(buf.Bytes(), "\n"))
}

// write sends one message that is JSON already.
func (c *wsConn) write(ctx context.Context, msg []byte) {
	if c.reply != nil { // OpenEnv over HTTP: the answer of one request
		c.reply(msg)
		return
	}
	_ = c.conn.Write(ctx, websocket.MessageText, msg)
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(b)) == 0 || string(bytes.TrimSpace(b)) == "null" {
		return json.RawMessage("{}")
	}
	return b
}
