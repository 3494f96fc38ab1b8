package serve

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// The stable error codes of the JSON API (in the body's error.code, beside
// the HTTP status). Tool errors are not among them: a failed tool call is
// an observation ({"ok":false,"error":{…}}) with status 200.
const (
	CodeInvalidJSON      = "invalid_json"       // 400: the body is not the JSON the endpoint takes
	CodeBodyTooLarge     = "body_too_large"     // 413: the body exceeds Options.MaxBodyBytes
	CodeUnknownWorld     = "unknown_world"      // 404
	CodeUnknownTask      = "unknown_task"       // 404
	CodeUnknownEpisode   = "unknown_episode"    // 404: never opened, closed or reaped
	CodeEpisodeClosed    = "episode_closed"     // 410: closed while the request waited
	CodeCapacityReached  = "capacity_reached"   // 429: Options.MaxEpisodes episodes are open
	CodeNotFound         = "not_found"          // 404: no such endpoint
	CodeMethodNotAllowed = "method_not_allowed" // 405
	CodeInternal         = "internal"           // 500
	// CodeUnauthorized (401): a control-plane request without the
	// control token; see control.go.
)

// apiError is an error with its HTTP status and code.
type apiError struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *apiError) Error() string { return e.Code + ": " + e.Message }

// asAPIError classifies any error.
func asAPIError(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	return &apiError{Status: http.StatusInternalServerError, Code: CodeInternal, Message: err.Error()}
}

// writeError answers {"error":{"code","message"}} with the error's status.
func (s *Server) writeError(w http.ResponseWriter, err error) {
	ae := asAPIError(err)
	s.m.apiErrors(ae.Code).Inc()
	writeJSON(w, ae.Status, struct {
		Error *apiError `json:"error"`
	}{ae})
}

// writeJSON answers v as JSON (HTML characters not escaped: the bodies
// are data for programs and agents, as the observations are).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"error":{"code":"internal","message":"encoding the response failed"}}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// readJSON decodes a request body of at most MaxBodyBytes into v, strictly:
// one JSON object, no unknown members.
func (s *Server) readJSON(w http.ResponseWriter, r *http.Request, v any) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		var ae *apiError
		if errors.As(err, &ae) {
			return ae // the read-body timeout
		}
		if errors.As(err, &mbe) {
			return &apiError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: fmt.Sprintf("the body exceeds %d bytes", s.opts.MaxBodyBytes)}
		}
		return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "reading the body: " + err.Error()}
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "the body is not valid: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if dec.More() {
		return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "the body holds more than one JSON value"}
	}
	return nil
}

// WorldSummary is an entry of GET /v1/worlds.
type WorldSummary struct {
	runtime.WorldInfo
	Tools int `json:"tools"` // how many tools
	Tasks int `json:"tasks"` // how many tasks
}

// TaskSummary is an entry of GET /v1/worlds/{w}/tasks: a task as an agent
// harness needs it, without its solution.
type TaskSummary struct {
	ID          string `json:"id"`
	Persona     string `json:"persona"`
	Instruction string `json:"instruction"`
	// Clock is the date and time the task runs on ("today", "now"): its
	// own clock, else the world's.
	eval.Clock
	Tags runtime.TaskTags `json:"tags"`
	Meta runtime.Meta     `json:"meta,omitempty"`
	// Answer: the rubric grades the agent's final message, which the
	// grade request must carry (see answer.go).
	Answer bool `json:"answer,omitempty"`
}

// EpisodeStart is the answer to POST /v1/worlds/{w}/episodes: what an agent
// needs to begin.
type EpisodeStart struct {
	EpisodeID   string `json:"episode_id"`
	World       string `json:"world"`
	Task        string `json:"task"`
	Persona     string `json:"persona"`
	Instruction string `json:"instruction"`
	// Clock is the date and time of the episode ("today", "now"): the
	// task's own clock, else the world's; the policy says it too.
	eval.Clock
	// Policy is the world's policy document with the task's date and time
	// in place of the world's date (eval.TaskPolicy).
	Policy string            `json:"policy"`
	Tools  []json.RawMessage `json:"tools"` // OpenAI chat-completions function tools
	// Prefix and Given: an episode that starts after the first Prefix steps
	// of its task's golden solution has them in Given (with their
	// observations), for the agent's conversation.
	Prefix int            `json:"prefix,omitempty"`
	Given  []runtime.Step `json:"given,omitempty"`
	// Answer: the task grades the agent's final message; send it with
	// the grade (POST /v1/episodes/{id}/grade {"answer": "…"}).
	Answer bool `json:"answer,omitempty"`
}

// routes registers the JSON API on mux: the agent plane, and the
// control plane as p serves it.
func (s *Server) routes(mux *http.ServeMux, p plane) {
	mux.HandleFunc("GET /v1/worlds", s.handleWorlds)
	mux.HandleFunc("GET /v1/worlds/{world}/tasks", s.handleTasks)
	mux.HandleFunc("GET /v1/worlds/{world}/tools", s.handleTools)
	mux.HandleFunc("POST /v1/episodes/{id}/calls", s.handleCall)
	mux.HandleFunc("POST /v1/worlds/{world}/episodes", s.control(p, s.handleOpen))
	mux.HandleFunc("GET /v1/episodes/{id}/state", s.control(p, s.handleState))
	mux.HandleFunc("POST /v1/episodes/{id}/grade", s.control(p, s.handleGrade))
	mux.HandleFunc("GET /v1/episodes/{id}/trajectory", s.control(p, s.handleTrajectory))
	mux.HandleFunc("DELETE /v1/episodes/{id}", s.control(p, s.handleClose))
	mux.HandleFunc("GET /healthz", s.handleHealth)
	mux.HandleFunc("GET /metrics", s.handleMetrics)
}

func (s *Server) handleWorlds(w http.ResponseWriter, r *http.Request) {
	writeRaw(w, http.StatusOK, s.worldsJSON)
}

func (s *Server) world(name string) (*world, error) {
	wd, ok := s.worlds[name]
	if !ok {
		return nil, &apiError{Status: http.StatusNotFound, Code: CodeUnknownWorld, Message: fmt.Sprintf("unknown world %q; worlds: %s", name, joinNames(s.names))}
	}
	return wd, nil
}

func (s *Server) handleTasks(w http.ResponseWriter, r *http.Request) {
	wd, err := s.world(r.PathValue("world"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, wd.enc.tasks)
}

func taskSummary(t runtime.TaskInfo, c eval.Clock) TaskSummary {
	return TaskSummary{ID: t.ID, Persona: t.Persona, Instruction: t.Instruction, Clock: c, Tags: t.Tags, Meta: t.Meta, Answer: t.Answer}
}

func (s *Server) handleTools(w http.ResponseWriter, r *http.Request) {
	wd, err := s.world(r.PathValue("world"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeRaw(w, http.StatusOK, wd.enc.toolsOpenAI)
}

func openAITools(tools []runtime.ToolInfo) []json.RawMessage {
	out := make([]json.RawMessage, len(tools))
	for i, t := range tools {
		out[i] = t.OpenAI()
	}
	return out
}

func (s *Server) handleOpen(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Task   string `json:"task"`
		Prefix int    `json:"prefix"`
		// Lite: the answer without the policy and the tool list, which a
		// trainer fetches once (GET /v1/worlds/{w}/tools): ~15 KB less to
		// write per episode.
		Lite bool `json:"lite"`
		// Count > 0 opens that many episodes of the task at once (a
		// group of rollouts) and answers a JSON array of their starts.
		Count int `json:"count"`
	}
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, err)
		return
	}
	if req.Count != 0 {
		s.openMany(w, r.PathValue("world"), req.Task, req.Prefix, req.Count, req.Lite)
		return
	}
	e, err := s.openAt(r.PathValue("world"), req.Task, newID(), req.Prefix)
	if err != nil {
		s.writeError(w, err)
		return
	}
	if req.Lite {
		writeRaw(w, http.StatusCreated, s.startLiteJSON(e))
		return
	}
	writeRaw(w, http.StatusCreated, s.startJSON(e))
}

// start is what an agent is told when its episode opens.
func (s *Server) start(e *episode) EpisodeStart {
	t := e.world.tasks[e.task]
	given := e.given()
	c := e.world.clock[e.task]
	return EpisodeStart{EpisodeID: e.id, World: e.world.info.Name, Task: e.task, Persona: t.Persona,
		Instruction: t.Instruction, Clock: c, Policy: e.world.policies[c], Tools: openAITools(e.world.tools),
		Prefix: len(given), Given: given, Answer: t.Answer}
}

func (s *Server) handleCall(w http.ResponseWriter, r *http.Request) {
	e, err := s.get(r.PathValue("id"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	var req struct {
		Tool      string          `json:"tool"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, err)
		return
	}
	if req.Tool == "" {
		s.writeError(w, &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: `the body names no "tool"`})
		return
	}
	obs, err := s.call(e, req.Tool, req.Arguments)
	if err != nil {
		s.writeError(w, err)
		return
	}
	// The observation as the world wrote it, without a second encoding.
	body, err := obs.AppendJSON(make([]byte, 0, 512))
	if err != nil {
		s.writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(append(body, '\n'))
}

// StateResponse is the answer to GET /v1/episodes/{id}/state.
type StateResponse struct {
	StateHash string          `json:"state_hash"`
	State     json.RawMessage `json:"state"`
	Steps     int             `json:"steps"`
}

func (s *Server) handleState(w http.ResponseWriter, r *http.Request) {
	e, err := s.get(r.PathValue("id"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	snap, hash, err := e.state(s.opts.Now())
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, StateResponse{StateHash: hash, State: snap, Steps: e.stepCount()})
}

func (s *Server) handleGrade(w http.ResponseWriter, r *http.Request) {
	e, err := s.get(r.PathValue("id"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	// {"answer": "…"}: the agent's final message; an empty body grades
	// without one.
	var req struct {
		Answer json.RawMessage `json:"answer"`
	}
	if err := s.readJSON(w, r, &req); err != nil {
		s.writeError(w, err)
		return
	}
	answer, err := parseAnswer(req.Answer)
	if err != nil {
		s.writeError(w, err)
		return
	}
	g, err := e.grade(s.opts.Now(), answer)
	if err != nil {
		s.writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, g)
}

func (s *Server) handleTrajectory(w http.ResponseWriter, r *http.Request) {
	e, err := s.get(r.PathValue("id"))
	if err != nil {
		s.writeError(w, err)
		return
	}
	var buf bytes.Buffer
	if err := runtime.WriteTrajectory(&buf, e.trajectory()); err != nil {
		s.writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.Write(buf.Bytes())
}

func (s *Server) handleClose(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.closeEpisode(id, "deleted") {
		s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeUnknownEpisode, Message: fmt.Sprintf("no open episode %q", id)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"episode_id": id, "closed": true})
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "worlds": len(s.names), "episodes": s.openCount()})
}

func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	s.m.set.WritePrometheus(w)
}
