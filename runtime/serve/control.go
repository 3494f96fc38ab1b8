package serve

import (
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"net/http"
	"strings"
)

// The two planes of the server.
//
// The agent plane is what an agent reaches: tools. The JSON API's tool
// calls (POST /v1/episodes/{id}/calls), MCP (/mcp/{world}, /mcp,
// /v1/episodes/{id}/mcp: tools/list and tools/call, nothing else), the
// OpenEnv WebSocket's reset, steps and list_tools, the NeMo Gym tool
// routes, and the read-only descriptions (worlds, tasks without their
// solutions, tools, health, metrics).
//
// The control plane is what a trainer reaches: opening and deleting
// episodes, their state, grade and trajectory, and the OpenEnv grade
// action and state hash. With Options.ControlToken set, its routes answer
// 401 unless the request carries `Authorization: Bearer TOKEN`; served on
// a listener of its own (ControlHandler, the serve command's
// --control-addr), the agent's listener (AgentHandler) does not route
// them at all.

// CodeUnauthorized is the error code of a control-plane request without
// the control token (HTTP 401).
const CodeUnauthorized = "unauthorized"

// plane says which routes a handler serves.
type plane int

const (
	planeAll     plane = iota // Handler: both planes, the control plane behind the token
	planeAgent                // AgentHandler: the agent plane only
	planeControl              // ControlHandler: both planes, on the trainer's listener
)

// AgentHandler serves the agent plane only: the control routes answer 404
// (they are on the control listener). Serve it where agents can reach and
// ControlHandler where only the trainer can.
func (s *Server) AgentHandler() http.Handler { return s.handler(planeAgent) }

// ControlHandler serves both planes, the control plane behind the token
// when Options.ControlToken is set: the trainer's listener.
func (s *Server) ControlHandler() http.Handler { return s.handler(planeControl) }

// authorized reports whether r carries the control token (always, when
// the server has none).
func (s *Server) authorized(r *http.Request) bool {
	if s.opts.ControlToken == "" {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	// Compared as digests: equal lengths, constant time.
	a, b := sha256.Sum256([]byte(strings.TrimSpace(got))), sha256.Sum256([]byte(s.opts.ControlToken))
	return subtle.ConstantTimeCompare(a[:], b[:]) == 1
}

// control guards a control-plane handler: on the agent plane it is not
// routed; elsewhere it needs the token.
func (s *Server) control(p plane, h http.HandlerFunc) http.HandlerFunc {
	if p == planeAgent {
		return func(w http.ResponseWriter, r *http.Request) {
			s.writeError(w, &apiError{Status: http.StatusNotFound, Code: CodeNotFound, Message: fmt.Sprintf("%s %s is on the control plane, which this address does not serve (see the server's --control-addr)", r.Method, r.URL.Path)})
		}
	}
	return func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			s.m.unauthorized.Inc()
			w.Header().Set("WWW-Authenticate", `Bearer realm="worldc control plane"`)
			s.writeError(w, &apiError{Status: http.StatusUnauthorized, Code: CodeUnauthorized, Message: fmt.Sprintf("%s %s is on the control plane: send Authorization: Bearer <the server's control token>", r.Method, r.URL.Path)})
			return
		}
		h(w, r)
	}
}

// controlAllowed reports whether a connection made with r may use the
// control actions of a protocol (the OpenEnv grade action, the state
// hash): on a handler that serves the control plane, with the token.
func (s *Server) controlAllowed(p plane, r *http.Request) bool {
	return p != planeAgent && s.authorized(r)
}
