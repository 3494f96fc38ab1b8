package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/llm"
	"github.com/worldc/worldc/runtime/serve/rollback"
)

// job is one episode to run.
type job struct {
	w          runtime.World
	task       runtime.TaskInfo
	trial      int
	prefix     int
	curriculum bool
}

func (j job) key() string { return resultKey(j.w.Info().Name, j.task.ID, j.prefix, j.trial) }

func resultKey(world, task string, prefix, trial int) string {
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d", world, task, prefix, trial)
}

// trajectoryPath is the trajectory file of a job, relative to DIR.
func (j job) trajectoryPath() string {
	name := fmt.Sprintf("%s.%d.jsonl", safeName(j.task.ID), j.trial)
	if j.curriculum {
		name = fmt.Sprintf("%s.p%d.%d.jsonl", safeName(j.task.ID), j.prefix, j.trial)
	}
	return "trajectories/" + safeName(j.w.Info().Name) + "/" + name
}

// safeName keeps the letters, digits, '_', '-' and '.' of s (ids of
// worlds and tasks are identifiers; this only guards the file system).
func safeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0) {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// origin is the task's origin for the summary: its meta's "origin" (the
// task synthesiser's dag, program, solver…), else hand-written.
func origin(t runtime.TaskInfo) string {
	if v, ok := t.Meta.Get("origin"); ok {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return "hand-written"
}

// errCanceled is an episode abandoned because the run was interrupted.
var errCanceled = errors.New("interrupted")

// episode runs one job: the conversation, the calls, the grade. It
// returns the result and the trajectory's lines; its error is errCanceled
// when ctx ends first, or a setup failure. Endpoint failures are an end of
// the episode, not an error.
func (r *runner) episode(ctx context.Context, j job) (Result, []Line, error) {
	start := time.Now()
	info := j.w.Info()
	res := Result{World: info.Name, Task: j.task.ID, Trial: j.trial, Prefix: j.prefix, Curriculum: j.curriculum,
		Origin: origin(j.task), Difficulty: nonNil(slices.Clone(j.task.Tags.Difficulty)), GoldenSteps: len(j.task.Solution),
		Trajectory: j.trajectoryPath()}
	simulated := r.cfg.User == UserSimulated
	d := newPromptData(j.w, j.task, simulated)
	system, err := render(r.prompts.agent, d)
	if err != nil {
		return res, nil, err
	}
	ep, given, err := rollback.Start(j.w, j.task, j.prefix)
	if err != nil {
		return res, nil, err
	}
	trial := j.trial
	lines := []Line{{Type: "episode", World: info.Name, Task: j.task.ID, Trial: &trial, Prefix: j.prefix,
		Model: r.cfg.Model, User: r.cfg.User, UserModel: r.userModel(), Prompts: r.prompts.versions}}
	e := &conv{r: r, ctx: ctx, res: &res, lines: lines, trial: j.trial}
	e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system}, Line{})

	first := j.task.Instruction
	if simulated {
		usys, err := render(r.prompts.user, d)
		if err != nil {
			return res, nil, err
		}
		e.user = []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleSystem, Content: usys}, {Role: openai.ChatMessageRoleUser, Content: Greeting}}
		text, stop, err := e.userTurn()
		if err != nil {
			if ctx.Err() != nil {
				return res, nil, errCanceled
			}
			e.fail(err)
		} else if stop {
			res.End = EndUserStop
		}
		first = text
	}
	if res.End == "" {
		e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: first}, Line{Usage: e.lastUserUsage})
		// The golden prefix: each step as the assistant's call and its tool
		// message, marked given.
		for i, s := range given {
			id := fmt.Sprintf("given_%d", i+1)
			tc := openai.ToolCall{ID: id, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: s.Tool, Arguments: string(s.Args)}}
			e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}},
				Line{ToolCalls: []ToolCall{{ID: id, Name: s.Tool, Arguments: string(s.Args)}}, Given: true})
			obs := s.Observation
			e.msgs = append(e.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: obsJSON(obs), ToolCallID: id})
			e.lines = append(e.lines, Line{Type: "step", Tool: s.Tool, Args: s.Args, Observation: &obs, StateHash: s.StateHash, CallID: id, Given: true})
		}
		e.loop(j.w, ep)
	}
	if err := ctx.Err(); err != nil {
		return res, nil, errCanceled
	}
	// The agent's final message is the answer of a task that grades one;
	// an episode that ended without one (turns, errors) is graded without.
	var answer *string
	if e.answered {
		answer = &res.Answer
	}
	g := Grade(ep, answer)
	res.Reward, res.Solved = g.Reward, g.Solved()
	res.Failed = nonNil(g.Failed())
	for _, v := range append(slices.Clone(g.Violations), g.StepViolations...) {
		res.Violations = append(res.Violations, v.String())
	}
	res.FinalStateHash = ep.StateHash()
	res.Seconds = time.Since(start).Seconds()
	slices.SortFunc(res.ErrorsBy, func(a, b ToolErrorCount) int {
		return strings.Compare(a.Tool+"\x00"+a.Code, b.Tool+"\x00"+b.Code)
	})
	e.lines = append(e.lines, Line{Type: "end", End: res.End, Error: res.Error, Grade: &g, FinalStateHash: res.FinalStateHash, Answer: answer})
	return res, e.lines, nil
}

// conv is an episode's conversation in progress.
type conv struct {
	r     *runner
	ctx   context.Context
	res   *Result
	lines []Line
	trial int
	msgs  []openai.ChatCompletionMessage // the agent's
	user  []openai.ChatCompletionMessage // the simulated user's (roles swapped)
	// lastUserUsage is the tokens of the simulated user's last message.
	lastUserUsage *Usage
	// answered: the agent sent a message without a tool call (the last
	// one is res.Answer).
	answered bool
}

// add appends a message to the agent's conversation and its line.
func (e *conv) add(m openai.ChatCompletionMessage, l Line) {
	e.msgs = append(e.msgs, m)
	l.Type, l.Role, l.Content = "message", m.Role, m.Content
	e.lines = append(e.lines, l)
}

// fail ends the episode on an endpoint's error.
func (e *conv) fail(err error) {
	e.res.End, e.res.Error = EndError, err.Error()
	var le *llm.Error
	if errors.As(err, &le) && le.Kind == llm.KindContextLength {
		e.res.End = EndContextLength
	}
}

// loop runs agent turns until the episode ends.
func (e *conv) loop(w runtime.World, ep runtime.Episode) {
	r, res := e.r, e.res
	tools := r.tools(w)
	seen := map[string]bool{}
	for res.End == "" {
		if res.Turns >= r.cfg.MaxTurns {
			res.End = EndMaxTurns
			return
		}
		req := openai.ChatCompletionRequest{Model: r.cfg.Model, Messages: e.msgs, Tools: tools, MaxTokens: r.cfg.MaxTokens}
		r.sampling(&req, e.trial)
		out, err := r.cfg.Agent.Chat(e.ctx, req)
		res.Retries += len(out.Retries)
		if err != nil {
			if e.ctx.Err() == nil {
				e.fail(err)
			}
			return
		}
		res.Turns++
		u := Usage{Prompt: out.Response.Usage.PromptTokens, Completion: out.Response.Usage.CompletionTokens}
		res.Tokens.Agent.Prompt += u.Prompt
		res.Tokens.Agent.Completion += u.Completion
		m := out.Response.Choices[0].Message
		calls := make([]openai.ToolCall, len(m.ToolCalls))
		logged := make([]ToolCall, len(m.ToolCalls))
		for i, tc := range m.ToolCalls {
			if tc.ID == "" {
				tc.ID = fmt.Sprintf("call_%d_%d", res.Turns, i+1)
			}
			tc.Type = openai.ToolTypeFunction
			tc.Index = nil
			calls[i] = tc
			logged[i] = ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments}
		}
		// Sent back as the model wrote it, without its reasoning (which
		// some endpoints refuse as input) and with every call given an id.
		e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content, ToolCalls: calls},
			Line{Reasoning: m.ReasoningContent, ToolCalls: logged, Usage: &u, Retries: out.Retries})
		if len(calls) == 0 {
			res.Answer, e.answered = m.Content, true
			if r.cfg.User != UserSimulated {
				res.End = EndAnswered
				return
			}
			e.user = append(e.user, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content})
			text, stop, err := e.userTurn()
			switch {
			case err != nil:
				if e.ctx.Err() == nil {
					e.fail(err)
				}
				return
			case stop:
				res.End = EndUserStop
				return
			}
			e.add(openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: text}, Line{Usage: e.lastUserUsage})
			continue
		}
		failed, repeated := 0, 0
		for _, tc := range calls {
			args := tc.Function.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			obs := call(ep, tc.Function.Name, json.RawMessage(args))
			res.ToolCalls++
			if !obs.OK {
				failed++
				res.ToolErrors++
				res.countError(tc.Function.Name, obs.Error.Code)
			}
			key := tc.Function.Name + "\x00" + args
			if seen[key] {
				repeated++
			}
			seen[key] = true
			l := Line{Type: "step", Tool: tc.Function.Name, Observation: &obs, StateHash: ep.StateHash(), CallID: tc.ID}
			if json.Valid([]byte(args)) {
				l.Args = json.RawMessage(args)
			} else {
				l.ArgsText = &args
			}
			e.lines = append(e.lines, l)
			e.msgs = append(e.msgs, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, Content: obsJSON(obs), ToolCallID: tc.ID})
		}
		if failed == len(calls) || repeated == len(calls) {
			res.WastedTurns++
		}
	}
}

// userTurn asks the simulated user for its next message: the text for
// the agent, and whether the user ended the conversation.
func (e *conv) userTurn() (string, bool, error) {
	r, res := e.r, e.res
	if res.UserTurns >= r.cfg.MaxTurns {
		return "", true, nil
	}
	req := openai.ChatCompletionRequest{Model: r.userModel(), Messages: e.user, MaxTokens: r.cfg.MaxTokens}
	r.sampling(&req, e.trial)
	out, err := r.userClient().Chat(e.ctx, req)
	res.Retries += len(out.Retries)
	if err != nil {
		return "", false, fmt.Errorf("user simulator: %w", err)
	}
	res.UserTurns++
	u := Usage{Prompt: out.Response.Usage.PromptTokens, Completion: out.Response.Usage.CompletionTokens}
	res.Tokens.User.Prompt += u.Prompt
	res.Tokens.User.Completion += u.Completion
	text := out.Response.Choices[0].Message.Content
	e.user = append(e.user, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: text})
	stop := strings.Contains(text, StopToken)
	if stop {
		// The user's last words stay in the trajectory; the agent does not
		// get them.
		e.lines = append(e.lines, Line{Type: "message", Role: openai.ChatMessageRoleUser, Content: text, Usage: &u, Retries: out.Retries})
		return "", true, nil
	}
	e.lastUserUsage = &u
	return strings.TrimSpace(text), false, nil
}

func (res *Result) countError(tool, code string) {
	for i := range res.ErrorsBy {
		if res.ErrorsBy[i].Tool == tool && res.ErrorsBy[i].Code == code {
			res.ErrorsBy[i].Count++
			return
		}
	}
	res.ErrorsBy = append(res.ErrorsBy, ToolErrorCount{Tool: tool, Code: code, Count: 1})
}

// call runs a tool; a panic that escapes the world is an internal error.
func call(ep runtime.Episode, tool string, args json.RawMessage) (obs runtime.Observation) {
	defer func() {
		if v := recover(); v != nil {
			obs = runtime.ErrorObservation(runtime.Internal("tool %s failed: %v", tool, v))
		}
	}()
	return ep.Call(tool, args)
}

// obsJSON is an observation as the agent reads it.
func obsJSON(o runtime.Observation) string {
	b, err := o.AppendJSON(nil)
	if err != nil {
		return `{"ok":false,"error":{"code":"internal","message":"the observation cannot be encoded"}}`
	}
	return string(b)
}

// sampling sets the request's temperature and seed (seed + trial, so that
// trials differ and a run is repeatable).
func (r *runner) sampling(req *openai.ChatCompletionRequest, trial int) {
	llm.Sampling(req, r.cfg.Temperature, r.cfg.Seed, trial)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
