package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// OpenEnv's HTTP routes, beside its WebSocket: POST /reset with the reset
// data ({"task_id", "world", "episode_id", "prefix", "seed"}), POST /step
// with {"action": {…}, "episode_id"} and GET /state?episode_id=, each
// answering what the WebSocket's data would be ({"observation", "reward",
// "done"}, the state) or, on an error, {"error": {"message", "code"}}
// with a 4xx status. HTTP has no connection to hold the episode: a step
// names it by the episode_id the reset answered. Grading is a control
// action, as on the WebSocket.

func (s *Server) openEnvHTTP(w http.ResponseWriter, r *http.Request, p plane, kind string) {
	var out []byte
	c := &wsConn{s: s, world: r.URL.Query().Get("world"), control: s.controlAllowed(p, r), reply: func(b []byte) { out = b }}
	ctx := r.Context()
	switch kind {
	case "reset":
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
		if err != nil {
			s.writeError(w, &apiError{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: err.Error()})
			return
		}
		c.reset(ctx, body)
	case "step":
		var req struct {
			Action    json.RawMessage `json:"action"`
			EpisodeID string          `json:"episode_id"`
		}
		if err := s.readJSONLoose(w, r, &req); err != nil {
			s.writeError(w, err)
			return
		}
		var a wsAction
		if err := json.Unmarshal(orEmpty(req.Action), &a); err != nil {
			c.fail(ctx, WSInvalidJSON, "invalid action: "+err.Error())
			break
		}
		if a.Type == "list_tools" {
			if e, err := s.get(req.EpisodeID); err == nil {
				c.ep = e // its world's tools; without one, as before a reset
			}
		} else if !c.attach(req.EpisodeID) {
			break
		}
		c.step(ctx, a)
	case "state":
		if c.attach(r.URL.Query().Get("episode_id")) {
			c.handle(ctx, []byte(`{"type":"state"}`))
		}
	}
	writeOpenEnvHTTP(w, out)
}

// attach takes the episode a request names; it reports false (with the
// error as the reply) when there is none.
func (c *wsConn) attach(id string) bool {
	ctx := context.Background()
	if id == "" {
		c.fail(ctx, WSNoEpisode, "no episode_id: give the one the reset answered")
		return false
	}
	e, err := c.s.get(id)
	if err != nil {
		c.failErr(ctx, err)
		return false
	}
	c.ep = e
	return true
}

// writeOpenEnvHTTP answers a WebSocket message as OpenEnv's HTTP routes
// do: the message's data, or its error with a status.
func writeOpenEnvHTTP(w http.ResponseWriter, msg []byte) {
	var m struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		writeRaw(w, http.StatusInternalServerError, []byte(`{"error":{"message":"no answer","code":"INTERNAL_ERROR"}}`))
		return
	}
	if m.Type != "error" {
		writeRaw(w, http.StatusOK, append(m.Data, '\n'))
		return
	}
	var e struct {
		Code string `json:"code"`
	}
	json.Unmarshal(m.Data, &e)
	status := http.StatusBadRequest
	switch e.Code {
	case WSUnknownWorld, WSUnknownTask, WSEpisodeClosed:
		status = http.StatusNotFound
	case WSCapacityReached:
		status = http.StatusTooManyRequests
	case WSUnauthorized:
		status = http.StatusUnauthorized
		w.Header().Set("WWW-Authenticate", `Bearer realm="worldc control plane"`)
	case WSEpisodeExists:
		status = http.StatusConflict
	case WSInternal:
		status = http.StatusInternalServerError
	}
	writeRaw(w, status, fmt.Appendf(nil, `{"error":%s}`+"\n", m.Data))
}
