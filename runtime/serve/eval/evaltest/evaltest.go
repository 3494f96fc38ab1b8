// Package evaltest is an OpenAI-compatible chat-completions endpoint for
// tests of agent harnesses, with scripted agents and users: it speaks real
// HTTP (httptest), so the harness's client, its retries and its request
// encoding are exercised as against a real endpoint. It is the only fake
// of eval's tests; the worlds, episodes and graders are real.
//
// Handlers decide each reply from the request: Golden plays every task's
// golden solution as tool calls (finding the task by its instruction and
// the ids its solution binds in the observations), TextOnly answers
// without calling a tool, ByTurn replays a script by the turn of the
// conversation, ByModel routes an agent's and a user simulator's requests.
package evaltest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// Reply is the answer to a request: a message, or an HTTP error.
type Reply struct {
	Message openai.ChatCompletionMessage
	// Status, when not 0 or 200, answers with that status and Body (an
	// OpenAI error body with Body as its message when Body is not JSON).
	Status int
	Body   string
	// Usage is reported as it is; zero reports prompt tokens as the
	// request's bytes/4 and 10 completion tokens.
	Usage openai.Usage
}

// Handler chooses the reply to a request.
type Handler func(req openai.ChatCompletionRequest) Reply

// Request is a request the server received.
type Request struct {
	openai.ChatCompletionRequest
	Auth string // the Authorization header
}

// Server is a running endpoint; clients use BaseURL.
type Server struct {
	*httptest.Server
	handler Handler
	mu      sync.Mutex
	reqs    []Request
}

// New starts a server answering with h.
func New(h Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL for clients: URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	var req openai.ChatCompletionRequest
	size := r.ContentLength
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, "bad request: "+err.Error())
		return
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{req, r.Header.Get("Authorization")})
	s.mu.Unlock()
	rep := s.handler(req)
	if rep.Status != 0 && rep.Status != http.StatusOK {
		body := rep.Body
		if !json.Valid([]byte(body)) {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": body, "type": "error"}})
			body = string(b)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rep.Status)
		fmt.Fprint(w, body)
		return
	}
	m := rep.Message
	if m.Role == "" {
		m.Role = openai.ChatMessageRoleAssistant
	}
	finish := openai.FinishReasonStop
	if len(m.ToolCalls) > 0 {
		finish = openai.FinishReasonToolCalls
	}
	u := rep.Usage
	if u == (openai.Usage{}) {
		u = openai.Usage{PromptTokens: int(size / 4), CompletionTokens: 10}
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	resp := openai.ChatCompletionResponse{ID: "chatcmpl-test", Object: "chat.completion", Model: req.Model,
		Choices: []openai.ChatCompletionChoice{{Index: 0, Message: m, FinishReason: finish}}, Usage: u}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(resp)
}

// Text is an assistant message without tool calls.
func Text(s string) Reply {
	return Reply{Message: openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: s}}
}

// Calls is an assistant message calling tools: name, arguments, name,
// arguments…
func Calls(nameArgs ...string) Reply {
	m := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant}
	for i := 0; i+1 < len(nameArgs); i += 2 {
		m.ToolCalls = append(m.ToolCalls, openai.ToolCall{ID: fmt.Sprintf("call_%d", i/2+1), Type: openai.ToolTypeFunction,
			Function: openai.FunctionCall{Name: nameArgs[i], Arguments: nameArgs[i+1]}})
	}
	return Reply{Message: m}
}

// TextOnly answers every request with text and never calls a tool.
func TextOnly(text string) Handler {
	return func(openai.ChatCompletionRequest) Reply { return Text(text) }
}

// Turn is the number of assistant messages in a conversation: 0 for its
// first request.
func Turn(req openai.ChatCompletionRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleAssistant {
			n++
		}
	}
	return n
}

// ByTurn answers the request of turn t with replies[t], and with the last
// reply after them.
func ByTurn(replies ...Reply) Handler {
	return func(req openai.ChatCompletionRequest) Reply { return replies[min(Turn(req), len(replies)-1)] }
}

// ByModel routes requests by their model; an unknown model is a 404.
func ByModel(hs map[string]Handler) Handler {
	return func(req openai.ChatCompletionRequest) Reply {
		if h, ok := hs[req.Model]; ok {
			return h(req)
		}
		return Reply{Status: http.StatusNotFound, Body: fmt.Sprintf("the model %q does not exist", req.Model)}
	}
}

// FirstUser is the content of a conversation's first user message.
func FirstUser(req openai.ChatCompletionRequest) string {
	for _, m := range req.Messages {
		if m.Role == openai.ChatMessageRoleUser {
			return m.Content
		}
	}
	return ""
}

// Golden plays the golden solution of the task whose instruction is the
// conversation's first user message (in the world whose policy the system
// message holds, as eval.TaskPolicy shows it to the task's agent, with the
// task's clock): the solution's next call, one a turn, with the ids its
// earlier calls bound read from their observations in the conversation
// (given calls of a prefix count as the solution's first), then "Done."
// (for a task that grades its final message, the golden answer instead).
// A task it cannot tell, or a solution it cannot continue, is a 400.
func Golden(worlds ...runtime.World) Handler {
	type entry struct {
		policy string
		task   runtime.TaskInfo
		answer string // the final message: the golden answer, or "Done."
	}
	byInstruction := map[string][]entry{}
	for _, w := range worlds {
		info := w.Info()
		for _, t := range w.Tasks() {
			// The policy as the task's agent is shown it, with its clock.
			p := eval.TaskPolicy(w.Policy(), info, eval.TaskClock(info, t))
			byInstruction[t.Instruction] = append(byInstruction[t.Instruction], entry{p, t, goldenAnswer(w, t)})
		}
	}
	return func(req openai.ChatCompletionRequest) Reply {
		system := ""
		if len(req.Messages) > 0 && req.Messages[0].Role == openai.ChatMessageRoleSystem {
			system = req.Messages[0].Content
		}
		var found []entry
		for _, e := range byInstruction[FirstUser(req)] {
			if strings.Contains(system, e.policy) {
				found = append(found, e)
			}
		}
		if len(found) != 1 {
			return Reply{Status: http.StatusBadRequest, Body: fmt.Sprintf("golden agent: %d tasks have this instruction and policy", len(found))}
		}
		sol := found[0].task.Solution
		// The calls made so far and their observations.
		obs := map[string]string{}
		for _, m := range req.Messages {
			if m.Role == openai.ChatMessageRoleTool {
				obs[m.ToolCallID] = m.Content
			}
		}
		bound := map[string]string{}
		n := 0
		for _, m := range req.Messages {
			for _, tc := range m.ToolCalls {
				if n < len(sol) && sol[n].Bind != "" {
					if id, ok := boundID(obs[tc.ID], sol[n].BindKey); ok {
						bound[sol[n].Bind] = id
					}
				}
				n++
			}
		}
		if n >= len(sol) {
			return Text(found[0].answer)
		}
		args, err := runtime.ResolveArgs(sol[n], bound)
		if err != nil {
			return Reply{Status: http.StatusBadRequest, Body: fmt.Sprintf("golden agent: step %d: %v", n+1, err)}
		}
		r := Calls(sol[n].Tool, string(args))
		r.Message.ToolCalls[0].ID = fmt.Sprintf("golden_%d", n+1)
		return r
	}
}

// goldenAnswer is the final message of a task's golden agent: for a
// task that grades one, what its golden solution's final state expects
// (runtime.AnswerGrader's GoldenAnswer); "Done." otherwise, or when the
// solution does not run.
func goldenAnswer(w runtime.World, t runtime.TaskInfo) string {
	if !t.Answer {
		return "Done."
	}
	ep, err := w.NewEpisode(t.ID)
	if err != nil {
		return "Done."
	}
	a, ok := ep.(runtime.AnswerGrader)
	if _, err := runtime.Run(ep, t.Solution); err != nil || !ok {
		return "Done."
	}
	return a.GoldenAnswer()
}

// boundID is the id an observation's data holds in key ("id" when empty).
func boundID(observation, key string) (string, bool) {
	if key == "" {
		key = "id"
	}
	var o struct {
		OK   bool                       `json:"ok"`
		Data map[string]json.RawMessage `json:"data"`
	}
	var id string
	if json.Unmarshal([]byte(observation), &o) != nil || !o.OK || json.Unmarshal(o.Data[key], &id) != nil || o.Data[key] == nil {
		return "", false
	}
	return id, true
}
