package serve

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/worldc/worldc/runtime"
)

// MCP's hot path. Profiled, a tools/call through the official SDK cost
// ~5× the CPU of the same call over the JSON API, most of it in the SDK's
// JSON decoding (each decode allocates and clears a 32 KiB buffer, then
// the garbage collector reclaims it) and its event-stream framing. The
// SDK keeps everything else (initialize, sessions and their ids, tools/
// list, notifications, event streams, DELETE, capacity at initialize);
// a plain tools/call request on a live session of this process is
// answered here instead, with the answer the SDK gives (a JSON-RPC result
// holding one text content, the observation, and isError when it failed;
// TestMCPFastPath holds the two equal), as application/json, which the
// transport lets a server choose. Anything else — a batch, a progress
// token, an unknown tool, another protocol version, a session this process
// does not hold — goes to the SDK.

// fastVersions are the protocol versions whose tools/call the fast path
// answers (the session-based ones).
var fastVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// mcpFastCall answers r when it is a plain tools/call of a live session
// (and reports true); otherwise r is left for the SDK, its body intact.
func (s *Server) mcpFastCall(w http.ResponseWriter, r *http.Request, wd *world) bool {
	sid := r.Header.Get("Mcp-Session-Id")
	if r.Method != http.MethodPost || sid == "" {
		return false
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" && !slices.Contains(fastVersions, v) {
		return false
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return false
	}
	accept := strings.Join(r.Header.Values("Accept"), ",")
	if !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		return false
	}
	s.mu.Lock()
	id, live := s.mcpSessions[sid]
	s.mu.Unlock()
	if !live {
		return false
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil {
		return false
	}
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
			Meta      json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("[")) || json.Unmarshal(body, &req) != nil {
		return false
	}
	if req.JSONRPC != "2.0" || req.Method != "tools/call" || len(req.ID) == 0 || req.ID[0] == 'n' || len(req.Params.Meta) > 0 {
		return false
	}
	if !wd.hasTool(req.Params.Name) {
		return false
	}
	e, err := s.get(id)
	var res *mcp.CallToolResult
	if err != nil {
		res = toolFailure(err)
	} else if obs, err := s.call(e, req.Params.Name, req.Params.Arguments); err != nil {
		res = toolFailure(err)
	} else {
		text, err := obs.AppendJSON(make([]byte, 0, 512))
		if err != nil {
			return false
		}
		out := make([]byte, 0, len(text)+len(req.ID)+96)
		out = append(out, `{"jsonrpc":"2.0","id":`...)
		out = append(out, req.ID...)
		out = append(out, `,"result":{"content":[{"type":"text","text":`...)
		// The observation's bytes as a JSON string, escaped as the
		// generated encoders escape every string (encoding/json's rules
		// without HTML escaping). text is not written again: viewing it
		// as a string copies nothing.
		out = runtime.AppendString(out, unsafe.String(unsafe.SliceData(text), len(text)))
		out = append(out, `}]`...)
		if !obs.OK {
			out = append(out, `,"isError":true`...)
		}
		out = append(out, "}}\n"...)
		s.m.mcpFast.Inc()
		writeRaw(w, http.StatusOK, out)
		return true
	}
	b, err := json.Marshal(struct {
		JSONRPC string              `json:"jsonrpc"`
		ID      json.RawMessage     `json:"id"`
		Result  *mcp.CallToolResult `json:"result"`
	}{"2.0", req.ID, res})
	if err != nil {
		return false
	}
	s.m.mcpFast.Inc()
	writeRaw(w, http.StatusOK, append(b, '\n'))
	return true
}

// hasTool reports whether the world has a tool of that name.
func (wd *world) hasTool(name string) bool {
	_, ok := wd.toolIndex[name]
	return ok
}

// endMCPSession ends the SDK's session of a closed episode, if it has
// one (a reaped or deleted MCP session's episode).
func (s *Server) endMCPSession(id string) {
	s.mu.Lock()
	ss := s.mcpSS[id]
	delete(s.mcpSS, id)
	s.mu.Unlock()
	if ss != nil {
		go ss.Close()
	}
}
