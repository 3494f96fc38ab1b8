// Package fakellm is an OpenAI-compatible chat-completions endpoint that
// serves scripted replies, for the tests of the authoring loop: it speaks
// real HTTP, so the client, its retries and its timeouts are exercised as
// against a real endpoint. It is the only fake of those tests.
package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Reply is one scripted answer.
type Reply struct {
	// Status, when not 0 or 200, answers with that status and an OpenAI
	// error body; RetryAfter sets the Retry-After header.
	Status     int    `json:"status,omitempty"`
	RetryAfter string `json:"retry_after,omitempty"`
	// Content is the assistant message; File reads it from a file
	// (relative to the script's directory when loaded with Load), and
	// Fence wraps it in a ```world block.
	Content string `json:"content,omitempty"`
	File    string `json:"file,omitempty"`
	Fence   bool   `json:"fence,omitempty"`
	// Raw is sent as the response body instead of a chat completion (with
	// status 200): malformed JSON, say.
	Raw string `json:"raw,omitempty"`
	// EchoAuth makes the error message of a Status reply repeat the
	// request's Authorization header, as some endpoints do.
	EchoAuth bool `json:"echo_auth,omitempty"`
	// Redirect answers 307 Temporary Redirect to this URL (the client
	// sends the request again there, body included).
	Redirect string `json:"redirect,omitempty"`
	// Hold, when not nil, delays the answer until it is closed or the
	// client goes away (then the request is recorded with status 499): a
	// reply as slow as a test wants, on no clock. Arrived says when the
	// request is being held.
	Hold <-chan struct{} `json:"-"`
}

// Script maps keys to the replies served in order: a request is answered
// from the script of the longest key that its last message contains, or
// else from "*". A key whose replies are used up answers 400 (which the
// client does not retry), except "*", whose last reply repeats.
type Script map[string][]Reply

// Load reads a script from a JSON file, reading reply files relative to
// it.
func Load(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s Script
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	for k, rs := range s {
		for i := range rs {
			if rs[i].File == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(filepath.Dir(path), rs[i].File))
			if err != nil {
				return nil, err
			}
			rs[i].Content, rs[i].File = string(b), ""
		}
		s[k] = rs
	}
	return s, nil
}

// Request is a request the server received.
type Request struct {
	Key         string    `json:"key"`
	Model       string    `json:"model"`
	Messages    []Message `json:"messages"`
	Seed        *int      `json:"seed,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	// ResponseFormat is the type of response_format asked for, if any.
	ResponseFormat string `json:"response_format,omitempty"`
	Auth           string `json:"auth"`
	// Status is what the server answered.
	Status int `json:"status"`
}

// Message is a chat message.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Server is a running fake endpoint; its base URL for clients is URL+"/v1".
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	script  Script
	next    map[string]int
	log     []Request
	arrived int
	waiters []waiter
}

// waiter is a channel of Arrived or Recorded, closed once n requests have
// arrived (or been recorded).
type waiter struct {
	recorded bool
	n        int
	ch       chan struct{}
}

// New starts a server for the script.
func New(script Script) *Server {
	s := &Server{script: script, next: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is what a client's base URL is: URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.log)
}

// Arrived returns a channel that is closed once n chat-completion
// requests have arrived: read, and their reply chosen, but not yet
// answered (a Hold reply is being held). Tests wait on it instead of on a
// clock.
func (s *Server) Arrived(n int) <-chan struct{} { return s.wait(false, n) }

// Recorded returns a channel that is closed once n requests are in
// Requests: answered, or abandoned by the client (which the server learns
// some time after the client went away).
func (s *Server) Recorded(n int) <-chan struct{} { return s.wait(true, n) }

func (s *Server) wait(recorded bool, n int) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := waiter{recorded: recorded, n: n, ch: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.wake()
	return w.ch
}

// wake closes the channels of the waiters whose count is reached; s.mu is
// held.
func (s *Server) wake() {
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		count := s.arrived
		if w.recorded {
			count = len(s.log)
		}
		if count >= w.n {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	s.waiters = kept
}

func (s *Server) arrive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arrived++
	s.wake()
}

// Counts returns the number of requests per key, as "key n" lines sorted
// by key.
func (s *Server) Counts() string {
	n := map[string]int{}
	for _, r := range s.Requests() {
		n[r.Key]++
	}
	var keys []string
	for k := range n {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s %d\n", k, n[k])
	}
	return b.String()
}

type chatRequest struct {
	Model          string    `json:"model"`
	Messages       []Message `json:"messages"`
	Seed           *int      `json:"seed"`
	Temperature    *float64  `json:"temperature"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, http.StatusBadRequest, "bad request body: "+err.Error())
		return
	}
	last := ""
	if len(req.Messages) > 0 {
		last = req.Messages[len(req.Messages)-1].Content
	}
	rec := Request{Model: req.Model, Messages: req.Messages, Seed: req.Seed, Temperature: req.Temperature, Auth: r.Header.Get("Authorization")}
	if req.ResponseFormat != nil {
		rec.ResponseFormat = req.ResponseFormat.Type
	}
	reply, key, ok := s.take(last)
	rec.Key = key
	s.arrive()
	switch {
	case !ok:
		rec.Status = http.StatusBadRequest
		s.record(rec)
		writeError(w, rec.Status, fmt.Sprintf("fakellm: no scripted reply left for key %q", key))
		return
	case reply.Hold != nil:
		select {
		case <-reply.Hold:
		case <-r.Context().Done():
			rec.Status = 499 // the client went away
			s.record(rec)
			return
		}
	}
	rec.Status = http.StatusOK
	if reply.Status != 0 {
		rec.Status = reply.Status
	}
	if reply.Redirect != "" {
		rec.Status = http.StatusTemporaryRedirect
	}
	s.record(rec)
	if reply.RetryAfter != "" {
		w.Header().Set("Retry-After", reply.RetryAfter)
	}
	switch {
	case reply.Redirect != "":
		http.Redirect(w, r, reply.Redirect, http.StatusTemporaryRedirect)
	case rec.Status != http.StatusOK:
		msg := "fakellm: scripted status"
		if reply.EchoAuth {
			msg += "; you sent Authorization: " + rec.Auth
		}
		writeError(w, rec.Status, msg)
	case reply.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(reply.Raw))
	default:
		content := reply.Content
		if reply.Fence {
			content = "Here is the spec.\n\n```world\n" + strings.TrimRight(content, "\n") + "\n```\n"
		}
		prompt := 0
		for _, m := range req.Messages {
			prompt += (len(m.Content) + 3) / 4
		}
		resp := map[string]any{
			"id": "fake", "object": "chat.completion", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": (len(content) + 3) / 4,
				"total_tokens": prompt + (len(content)+3)/4},
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}
}

// take returns the next reply for a request whose last message is last.
func (s *Server) take(last string) (Reply, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := "*"
	for k := range s.script {
		if k != "*" && strings.Contains(last, k) && (key == "*" || len(k) > len(key) || len(k) == len(key) && k < key) {
			key = k
		}
	}
	rs := s.script[key]
	i := s.next[key]
	if i >= len(rs) {
		if key == "*" && len(rs) > 0 {
			return rs[len(rs)-1], key, true
		}
		return Reply{}, key, false
	}
	s.next[key] = i + 1
	return rs[i], key, true
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, r)
	s.wake()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "fakellm", "code": status}})
}
