// Package eval runs an OpenAI-compatible model as the agent in the worlds
// of a bundle: `bin/<name> eval`. For every task and trial it opens an
// episode in process (optionally after a prefix of the task's golden
// solution), gives the model the world's policy with a short preamble, the
// world's tools as strict function schemas and the task's instruction (or
// a simulated user that holds it), runs the tool calls in the episode until
// the model answers without one, and grades the final state. It writes
//
//	DIR/run.json                                   the settings a resumed run must share
//	DIR/results.jsonl                              one Result a line
//	DIR/trajectories/<world>/<task>.<trial>.jsonl  every message and call (Line), replayable
//	DIR/summary.json                               pass^k, rewards, breakdowns, the failure report
//	DIR/report.html                                the same on one page
//
// A run into a DIR that holds results resumes it: episodes already there
// are not run again. An interrupted run keeps every episode that finished.
package eval

import (
	"encoding/json"

	"github.com/worldc/worldc/runtime"
)

// The ends of an episode (Result.End).
const (
	EndAnswered      = "answered"       // the agent answered without a tool call
	EndUserStop      = "user_stop"      // the simulated user ended the conversation
	EndMaxTurns      = "max_turns"      // --max-turns agent turns without an end
	EndContextLength = "context_length" // the conversation outgrew the model's context
	EndError         = "error"          // the endpoint failed (after its retries), or the user simulator did
)

// The user modes (--user).
const (
	UserInstruction = "instruction" // the first user message is the task's instruction
	UserSimulated   = "simulated"   // a second model plays the user, the instruction its private goal
)

// Result is a line of results.jsonl: one episode.
type Result struct {
	World string `json:"world"`
	Task  string `json:"task"`
	Trial int    `json:"trial"` // 0-based
	// Prefix is the number of golden steps the episode started after;
	// Curriculum marks the rollback curriculum's episodes (not counted in
	// pass^k).
	Prefix     int  `json:"prefix"`
	Curriculum bool `json:"curriculum,omitempty"`

	Reward float64 `json:"reward"` // the rubric's fraction of assertions passed
	Solved bool    `json:"solved"` // every assertion passed and no invariant is violated

	Turns       int                       `json:"turns"`       // the agent's replies
	UserTurns   int                       `json:"user_turns"`  // the simulated user's replies
	ToolCalls   int                       `json:"tool_calls"`  // the agent's calls (given steps not counted)
	ToolErrors  int                       `json:"tool_errors"` // of which failed
	ErrorsBy    []ToolErrorCount          `json:"tool_errors_by,omitempty"`
	WastedTurns int                       `json:"wasted_turns"` // turns whose every call failed, or that repeated an earlier call exactly
	Tokens      Tokens                    `json:"tokens"`
	Seconds     float64                   `json:"seconds"` // wall time of the episode
	Retries     int                       `json:"retries"` // HTTP retries of its requests
	End         string                    `json:"end"`
	Error       string                    `json:"error,omitempty"`
	Failed      []runtime.AssertionResult `json:"failed_assertions"`
	Violations  []string                  `json:"violations,omitempty"` // hidden invariants broken, now or along the way
	// Answer is the agent's last message without a tool call: the final
	// message a task's answer assertions grade (the trajectory's end line
	// says whether there was one).
	Answer         string `json:"answer,omitempty"`
	FinalStateHash string `json:"final_state_hash"`
	// Trajectory is the episode's trajectory file, relative to DIR.
	Trajectory string `json:"trajectory"`

	// What the summary groups by, copied from the task.
	Origin     string   `json:"origin"`
	Difficulty []string `json:"difficulty"`
	// GoldenSteps is the length of the task's golden solution.
	GoldenSteps int `json:"golden_steps"`
}

// ToolErrorCount counts the failed calls of one tool with one error code.
type ToolErrorCount struct {
	Tool  string `json:"tool"`
	Code  string `json:"code"`
	Count int    `json:"count"`
}

// Usage counts tokens as the endpoint reports them.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Tokens are an episode's tokens, the agent's and the simulated user's.
type Tokens struct {
	Agent Usage `json:"agent"`
	User  Usage `json:"user"`
}

// Line is a line of a trajectory file. Its Type says which members it
// has:
//
//   - "episode", first: World, Task, Trial, Prefix, Model, User, UserModel,
//     Prompts (the templates' versions), StartStateHash;
//   - "message": Role (system, user, assistant), Content, ToolCalls, Usage,
//     Retries, Reasoning; Given for the calls of a golden prefix;
//   - "step": a tool call as it ran — Tool, Args (or ArgsText, when the
//     model's arguments were not JSON), Observation, StateHash, CallID,
//     Given; it is the tool message the agent saw (its content is the
//     observation's JSON);
//   - "end", last: End, Error, Grade, FinalStateHash, Answer (the final
//     message graded, "answer": present when the agent answered).
//
// `bin/<name> verify --eval DIR` replays the steps of every trajectory in a
// fresh episode of its task and checks each observation and state hash,
// the final hash and the reward (graded with the end line's answer).
type Line struct {
	Type string `json:"type"`

	World          string            `json:"world,omitempty"`
	Task           string            `json:"task,omitempty"`
	Trial          *int              `json:"trial,omitempty"`
	Prefix         int               `json:"prefix,omitempty"`
	Model          string            `json:"model,omitempty"`
	User           string            `json:"user,omitempty"`
	UserModel      string            `json:"user_model,omitempty"`
	Prompts        map[string]string `json:"prompts,omitempty"`
	StartStateHash string            `json:"start_state_hash,omitempty"`

	Role      string     `json:"role,omitempty"`
	Content   string     `json:"content,omitempty"`
	Reasoning string     `json:"reasoning,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	Usage     *Usage     `json:"usage,omitempty"`
	Retries   []string   `json:"retries,omitempty"`

	Tool        string               `json:"tool,omitempty"`
	Args        json.RawMessage      `json:"args,omitempty"`
	ArgsText    *string              `json:"args_text,omitempty"`
	Observation *runtime.Observation `json:"observation,omitempty"`
	StateHash   string               `json:"state_hash,omitempty"`
	CallID      string               `json:"call_id,omitempty"`
	Given       bool                 `json:"given,omitempty"`

	End            string         `json:"end,omitempty"`
	Error          string         `json:"error,omitempty"`
	Grade          *runtime.Grade `json:"grade,omitempty"`
	FinalStateHash string         `json:"final_state_hash,omitempty"`
	// Answer (of the "end" line) is the final message the episode was
	// graded with (runtime.GradeWithAnswer), absent when the agent never
	// answered without a tool call and the episode was graded without one.
	Answer *string `json:"answer,omitempty"`
}

// Grade grades an episode's final state with the agent's final message,
// or without one when answer is nil: how eval, its replay and the
// server's grade requests grade.
func Grade(ep runtime.Episode, answer *string) runtime.Grade {
	if answer == nil {
		return ep.Grade()
	}
	return runtime.GradeWithAnswer(ep, *answer)
}

// ToolCall is a tool call of an assistant message, as the model wrote it.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
