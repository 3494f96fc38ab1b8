package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Answers: a task whose rubric says `answer EXPR` grades the agent's final
// message too (runtime.GradeWithAnswer). Every grade request of the
// server takes it, as the member "answer" (a JSON string) of:
//
//   - the JSON API's POST /v1/episodes/{id}/grade body (an empty body or
//     {} grades without one); an MCP session's episode is graded there
//     too, by its Mcp-Session-Id;
//   - the OpenEnv grade action ({"type":"grade","answer":"…"}, in a step
//     or as the data of a grade message, on the WebSocket or POST /step);
//   - NeMo Gym's verify: the text of the response's assistant messages
//     after its last function call;
//   - stdio's --answer-file, read when the client disconnects.
//
// A grade without an answer is the state's grade (runtime.Episode.Grade):
// each answer assertion fails with the detail "no answer given; expected
// one stating …". An answer that is not a string, or longer than
// MaxAnswerBytes, is refused with a 4xx error (invalid_answer,
// INVALID_ANSWER) and nothing is graded or closed. Tasks that need an
// answer say "answer": true in GET /v1/worlds/{w}/tasks, an episode's
// start, tasks.jsonl and the trainers' rows.

// MaxAnswerBytes bounds an answer: a final message longer than 64 KiB is
// refused (the rubric reads values, not documents).
const MaxAnswerBytes = 64 << 10

// CodeInvalidAnswer (400): the grade request's answer is not a JSON
// string, or is longer than MaxAnswerBytes.
const CodeInvalidAnswer = "invalid_answer"

// WSInvalidAnswer is CodeInvalidAnswer on the OpenEnv WebSocket.
const WSInvalidAnswer = "INVALID_ANSWER"

// parseAnswer reads the answer member of a grade request: nil when it is
// absent or null, else the string, which must be at most MaxAnswerBytes.
func parseAnswer(raw json.RawMessage) (*string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '"' {
		return nil, invalidAnswer("the answer must be a JSON string: the agent's final message")
	}
	if len(raw) > 6*MaxAnswerBytes+2 {
		// More than any escaping of MaxAnswerBytes could take.
		return nil, answerTooLong()
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, invalidAnswer("the answer is not a valid JSON string: " + strings.TrimPrefix(err.Error(), "json: "))
	}
	return checkAnswer(s)
}

// checkAnswer holds an answer to MaxAnswerBytes.
func checkAnswer(s string) (*string, error) {
	if len(s) > MaxAnswerBytes {
		return nil, answerTooLong()
	}
	return &s, nil
}

func invalidAnswer(msg string) error {
	return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidAnswer, Message: msg}
}

func answerTooLong() error {
	return invalidAnswer(fmt.Sprintf("the answer is longer than %d bytes: send the agent's final message only", MaxAnswerBytes))
}

// responseAnswer is the final assistant text of a Responses-API response
// (NeMo Gym's verify request): the output_text of the assistant messages
// after the response's last function call, joined by new lines; nil when
// there is none (the model's last act was a call) or no response.
func responseAnswer(raw json.RawMessage) (*string, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var resp struct {
		Output []struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"output"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "the response is not a Responses-API response: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	var texts []string
	found := false
	for _, item := range resp.Output {
		switch item.Type {
		case "function_call", "function_call_output":
			texts, found = nil, false
		case "message":
			if item.Role != "assistant" {
				continue
			}
			found = true
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			var text string
			if json.Unmarshal(item.Content, &text) == nil {
				texts = append(texts, text) // a message's content may be a string
				continue
			}
			if err := json.Unmarshal(item.Content, &parts); err != nil {
				return nil, &apiError{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: "an assistant message's content is neither a string nor a list of parts: " + strings.TrimPrefix(err.Error(), "json: ")}
			}
			for _, p := range parts {
				if p.Type == "output_text" || p.Type == "text" {
					texts = append(texts, p.Text)
				}
			}
		}
	}
	if !found {
		return nil, nil
	}
	return checkAnswer(strings.Join(texts, "\n"))
}
