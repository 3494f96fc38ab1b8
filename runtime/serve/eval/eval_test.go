package eval_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
	"github.com/worldc/worldc/runtime/serve/eval"
	"github.com/worldc/worldc/runtime/serve/eval/evaltest"
	"github.com/worldc/worldc/runtime/serve/llm"
)

const task = "settle_acme"

// client is a client of the fake with fast retries.
func client(s *evaltest.Server) *llm.Client {
	o := llm.Defaults()
	o.BaseURL, o.Retries, o.BackoffMin, o.BackoffMax, o.Timeout = s.BaseURL(), 1, time.Millisecond, time.Millisecond, 10*time.Second
	return llm.New(o)
}

func config(t *testing.T, s *evaltest.Server) eval.Config {
	return eval.Config{Worlds: []runtime.World{worldtest.World}, Agent: client(s), Model: "agent-m", Dir: t.TempDir(), Jobs: 2}
}

func run(t *testing.T, cfg eval.Config) (*eval.Summary, []eval.Result) {
	t.Helper()
	sum, err := eval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.ReadResults(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return sum, res
}

func replayOK(t *testing.T, dir string, want int) {
	t.Helper()
	problems, n, err := eval.Replay([]runtime.World{worldtest.World}, dir)
	if err != nil || len(problems) > 0 || n != want {
		t.Errorf("replay: %v, %d trajectories, problems %q", err, n, problems)
	}
}

// TestGolden: an agent playing the golden solution solves every trial;
// the results, trajectories, summary and report hold what they say, and
// the trajectories replay.
func TestGolden(t *testing.T) {
	s := evaltest.New(evaltest.Golden(worldtest.World))
	defer s.Close()
	cfg := config(t, s)
	cfg.Trials = 3
	sum, res := run(t, cfg)
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	for _, r := range res {
		if !r.Solved || r.Reward != 1 || r.End != eval.EndAnswered || r.Turns != 4 || r.ToolCalls != 3 || r.ToolErrors != 0 ||
			r.Answer != "Done." || r.Tokens.Agent.Prompt == 0 || r.Tokens.Agent.Completion != 40 || r.Origin != "hand-written" ||
			len(r.Difficulty) != 1 || r.GoldenSteps != 3 || r.FinalStateHash == "" || r.Seconds <= 0 || len(r.Failed) != 0 {
			t.Errorf("result: %+v", r)
		}
		if want := "trajectories/worldtest/settle_acme." + string(rune('0'+r.Trial)) + ".jsonl"; r.Trajectory != want {
			t.Errorf("trajectory %s, want %s", r.Trajectory, want)
		}
	}
	if len(sum.PassHatK) != 3 || sum.PassHatK[0] != 1 || sum.PassHatK[2] != 1 || sum.MeanReward != 1 || sum.Episodes != 3 || sum.Tasks != 1 {
		t.Errorf("summary: %+v", sum.Group)
	}
	replayOK(t, cfg.Dir, 3)

	// What the agent was sent: the policy with the preamble, the tools
	// strict, the instruction.
	req := s.Requests()[0]
	if !strings.Contains(req.Messages[0].Content, worldtest.World.Policy()) || !strings.Contains(req.Messages[0].Content, "Worldtest GmbH") ||
		req.Messages[1].Content != worldtest.World.Tasks()[0].Instruction || len(req.Tools) != 4 || !req.Tools[0].Function.Strict {
		t.Errorf("first request: %+v", req)
	}
	lines, err := eval.ReadTrajectory(filepath.Join(cfg.Dir, res[0].Trajectory))
	if err != nil {
		t.Fatal(err)
	}
	types := ""
	for _, l := range lines {
		types += l.Type[:1]
	}
	// episode, system, user, then (assistant call, step) × 3, the answer, end
	if types != "emmmsmsmsme" {
		t.Errorf("trajectory line types %q", types)
	}
	if lines[0].Prompts["agent"] == "" || lines[len(lines)-1].Grade == nil || lines[4].StateHash == "" || lines[4].Observation == nil {
		t.Errorf("trajectory: %+v", lines)
	}
	var summary map[string]any
	data, _ := os.ReadFile(filepath.Join(cfg.Dir, "summary.json"))
	if err := json.Unmarshal(data, &summary); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"pass_hat_k", "mean_reward", "by_world", "by_origin", "by_difficulty", "failures", "ends", "tokens"} {
		if _, ok := summary[k]; !ok {
			t.Errorf("summary.json lacks %s", k)
		}
	}
	if !bytes.Contains(data, []byte(`"pass_hat_k": {`)) || !bytes.Contains(data, []byte(`"1": 1,`)) {
		t.Errorf("pass_hat_k is not an object of k: %s", data)
	}
	html, _ := os.ReadFile(filepath.Join(cfg.Dir, "report.html"))
	for _, want := range []string{"<svg", `id="passk"`, `id="pass1">1.000<`, `id="per-task"`, "settle_acme"} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// TestTextOnly: an agent that never calls a tool leaves the task's start
// state as it was: not solved, its reward that of the start state.
func TestTextOnly(t *testing.T) {
	s := evaltest.New(evaltest.TextOnly("I have recorded the payment."))
	defer s.Close()
	cfg := config(t, s)
	_, res := run(t, cfg)
	ep, _ := worldtest.World.NewEpisode(task)
	start := ep.Grade()
	r := res[0]
	if r.Solved || r.Reward != start.Reward || r.ToolCalls != 0 || r.End != eval.EndAnswered || r.FinalStateHash != ep.StateHash() || len(r.Failed) != 2 {
		t.Errorf("text-only: %+v (start reward %v)", r, start.Reward)
	}
	replayOK(t, cfg.Dir, 1)
}

// TestMalformedCalls: an unknown tool, arguments that are not JSON, an
// empty name and arguments of the wrong type are tool errors the agent
// sees; the episode goes on and replays.
func TestMalformedCalls(t *testing.T) {
	s := evaltest.New(evaltest.ByTurn(
		evaltest.Calls("mark_payed", `{"invoice":"inv1"}`, "mark_paid", `{"invoice": inv1`, "", `{}`, "mark_paid", `{"invoice":7}`),
		evaltest.Calls("mark_paid", ``),
		evaltest.Text("I could not do it."),
	))
	defer s.Close()
	cfg := config(t, s)
	_, res := run(t, cfg)
	r := res[0]
	if r.ToolCalls != 5 || r.ToolErrors != 5 || r.End != eval.EndAnswered || r.WastedTurns != 2 || r.Turns != 3 {
		t.Fatalf("malformed: %+v", r)
	}
	codes := map[string]int{}
	for _, e := range r.ErrorsBy {
		codes[e.Code] += e.Count
	}
	if codes[runtime.CodeUnknownTool] != 2 || codes[runtime.CodeInvalidArguments] != 3 {
		t.Errorf("errors by code: %+v", r.ErrorsBy)
	}
	// The tool messages the agent got back.
	second := s.Requests()[1]
	var tools []string
	for _, m := range second.Messages {
		if m.Role == openai.ChatMessageRoleTool {
			tools = append(tools, m.Content)
		}
	}
	if len(tools) != 4 || !strings.Contains(tools[0], `"unknown_tool"`) || !strings.Contains(tools[0], `did you mean \"mark_paid\"`) || !strings.Contains(tools[1], `"invalid_arguments"`) {
		t.Errorf("tool messages: %q", tools)
	}
	lines, _ := eval.ReadTrajectory(filepath.Join(cfg.Dir, r.Trajectory))
	var text []string
	for _, l := range lines {
		if l.ArgsText != nil {
			text = append(text, *l.ArgsText)
		}
	}
	if len(text) != 1 || text[0] != `{"invoice": inv1` {
		t.Errorf("args_text: %q", text)
	}
	replayOK(t, cfg.Dir, 1)
	sum := eval.Summarize(res, eval.SummaryInfo{Trials: 1})
	if sum.Failures.Codes[runtime.CodeUnknownTool] != 2 || len(sum.Failures.ToolErrors) != 3 || sum.Failures.WastedTurns != 2 {
		t.Errorf("failure report: %+v", sum.Failures)
	}
}

// TestSimulatedUser: the agent asks, the simulated user answers from its
// private goal, the agent acts, the user ends the conversation with the
// stop token. The user is told the task's date, sees only text, with the
// roles swapped; the agent never sees the instruction.
func TestSimulatedUser(t *testing.T) {
	instruction := worldtest.World.Tasks()[0].Instruction
	user := evaltest.ByTurn(
		evaltest.Text("Hello, Acme paid an invoice, please record it."),
		evaltest.Text("It is inv1. And please bill Globex 500 EUR."),
		evaltest.Text("Thanks! "+eval.StopToken),
	)
	agent := evaltest.ByTurn(
		evaltest.Text("Which invoice did Acme pay?"),
		evaltest.Calls("mark_paid", `{"invoice":"inv1"}`),
		evaltest.Calls("create_invoice", `{"customer":"globex","amount":500,"issued_on":null}`),
		evaltest.Text("Done: inv1 is paid and Globex is billed 500 EUR."),
	)
	s := evaltest.New(evaltest.ByModel(map[string]evaltest.Handler{"agent-m": agent, "user-m": user}))
	defer s.Close()
	cfg := config(t, s)
	cfg.User, cfg.UserModel = eval.UserSimulated, "user-m"
	_, res := run(t, cfg)
	r := res[0]
	if !r.Solved || r.End != eval.EndUserStop || r.Turns != 4 || r.UserTurns != 3 || r.Tokens.User.Completion != 30 || r.Answer == "" {
		t.Fatalf("simulated: %+v", r)
	}
	var userReqs, agentReqs []evaltest.Request
	for _, q := range s.Requests() {
		if q.Model == "user-m" {
			userReqs = append(userReqs, q)
		} else {
			agentReqs = append(agentReqs, q)
		}
	}
	u := userReqs[1].Messages
	if !strings.Contains(u[0].Content, instruction) || !strings.Contains(u[0].Content, eval.StopToken) || u[1].Content != eval.Greeting ||
		u[2].Role != openai.ChatMessageRoleAssistant || u[3].Role != openai.ChatMessageRoleUser || u[3].Content != "Which invoice did Acme pay?" || len(userReqs[1].Tools) != 0 {
		t.Errorf("the user's view: %+v", u)
	}
	if c := eval.TaskClock(worldtest.World.Info(), worldtest.World.Tasks()[0]); !strings.Contains(u[0].Content, "today is "+c.Today.String()) {
		t.Errorf("the simulated user is not told the task's date (%s): %s", c.Today, u[0].Content)
	}
	for _, q := range userReqs {
		for _, m := range q.Messages {
			if m.Role == openai.ChatMessageRoleTool || len(m.ToolCalls) > 0 {
				t.Errorf("the simulated user saw a tool message: %+v", m)
			}
		}
	}
	for _, q := range agentReqs {
		for _, m := range q.Messages[1:] {
			if strings.Contains(m.Content, instruction) {
				t.Errorf("the agent saw the instruction")
			}
		}
	}
	if agentReqs[1].Messages[1].Content != "Hello, Acme paid an invoice, please record it." || agentReqs[1].Messages[3].Content != "It is inv1. And please bill Globex 500 EUR." {
		t.Errorf("the agent's view: %+v", agentReqs[1].Messages)
	}
	if !strings.Contains(agentReqs[0].Messages[0].Content, "ask the user") {
		t.Errorf("the simulated preamble: %s", agentReqs[0].Messages[0].Content)
	}
	replayOK(t, cfg.Dir, 1)
}

// TestMaxTurns: an agent that never stops is stopped at --max-turns; its
// repeated calls are wasted turns.
func TestMaxTurns(t *testing.T) {
	s := evaltest.New(evaltest.ByTurn(evaltest.Calls("get_invoice", `{"id":"inv1"}`)))
	defer s.Close()
	cfg := config(t, s)
	cfg.MaxTurns = 3
	_, res := run(t, cfg)
	if r := res[0]; r.End != eval.EndMaxTurns || r.Turns != 3 || r.ToolCalls != 3 || r.WastedTurns != 2 || r.Solved {
		t.Errorf("max turns: %+v", r)
	}
}

// TestEndpointErrors: an endpoint that fails after its retries, or whose
// context is exceeded, ends the episode with that end, recorded; nothing
// crashes, and --retry-errors runs the errors again.
func TestEndpointErrors(t *testing.T) {
	var mu sync.Mutex
	fail := true
	s := evaltest.New(func(req openai.ChatCompletionRequest) evaltest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return evaltest.Reply{Status: 502, Body: "bad gateway"}
		}
		return evaltest.Golden(worldtest.World)(req)
	})
	defer s.Close()
	cfg := config(t, s)
	sum, res := run(t, cfg)
	if r := res[0]; r.End != eval.EndError || !strings.Contains(r.Error, "502") || r.Retries != 1 || r.Turns != 0 || sum.Ends[eval.EndError] != 1 {
		t.Fatalf("error: %+v", r)
	}
	// Resumed as it is: nothing runs again.
	n := len(s.Requests())
	run(t, cfg)
	if len(s.Requests()) != n {
		t.Errorf("a resumed run sent %d requests", len(s.Requests())-n)
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	cfg.RetryErrors = true
	sum, res = run(t, cfg)
	if len(res) != 1 || !res[0].Solved || sum.Ends[eval.EndError] != 0 {
		t.Errorf("after --retry-errors: %+v", res)
	}

	ctxErr := evaltest.New(func(openai.ChatCompletionRequest) evaltest.Reply {
		return evaltest.Reply{Status: 400, Body: `{"error":{"message":"too long","code":"context_length_exceeded"}}`}
	})
	defer ctxErr.Close()
	_, res = run(t, config(t, ctxErr))
	if r := res[0]; r.End != eval.EndContextLength || r.Retries != 0 {
		t.Errorf("context: %+v", r)
	}
}

// TestPrefix: with --prefix k the episode starts after k golden steps,
// given in the agent's conversation and marked given in the trajectory
// with the golden state hashes; the golden agent finishes the task.
func TestPrefix(t *testing.T) {
	ep, _ := worldtest.World.NewEpisode(task)
	golden, _ := runtime.Run(ep, worldtest.World.Tasks()[0].Solution)
	for k := 0; k <= len(golden); k++ {
		s := evaltest.New(evaltest.Golden(worldtest.World))
		cfg := config(t, s)
		cfg.Prefix = k
		_, res := run(t, cfg)
		s.Close()
		r := res[0]
		if !r.Solved || r.Prefix != k || r.ToolCalls != len(golden)-k {
			t.Errorf("k=%d: %+v", k, r)
		}
		lines, _ := eval.ReadTrajectory(filepath.Join(cfg.Dir, r.Trajectory))
		steps := eval.Steps(lines)
		for i, st := range steps {
			if st.Given != (i < k) || st.StateHash != golden[i].StateHash {
				t.Errorf("k=%d step %d: given %v hash %s, golden %s", k, i+1, st.Given, st.StateHash, golden[i].StateHash)
			}
		}
		first := s.Requests()[0].Messages
		if calls := len(first) - 2; calls != 2*k {
			t.Errorf("k=%d: the first request holds %d messages after the instruction", k, calls)
		}
		replayOK(t, cfg.Dir, 1)
	}
	// A task whose solution is shorter than --prefix is skipped.
	s := evaltest.New(evaltest.Golden(worldtest.World))
	defer s.Close()
	cfg := config(t, s)
	cfg.Prefix = 4
	if _, err := eval.Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Errorf("prefix 4: %v", err)
	}
}

// TestCurriculum: an agent that solves the task only when two golden
// steps are given fails every trial, and the curriculum finds prefix 2.
func TestCurriculum(t *testing.T) {
	golden := evaltest.Golden(worldtest.World)
	s := evaltest.New(func(req openai.ChatCompletionRequest) evaltest.Reply {
		given := 0
		for _, m := range req.Messages {
			for _, tc := range m.ToolCalls {
				if strings.HasPrefix(tc.ID, "given_") {
					given++
				}
			}
		}
		if given < 2 {
			return evaltest.Text("I cannot.")
		}
		return golden(req)
	})
	defer s.Close()
	cfg := config(t, s)
	cfg.Trials, cfg.Curriculum = 2, true
	sum, res := run(t, cfg)
	if len(res) != 6 || sum.Episodes != 2 || sum.PassHatK[0] != 0 {
		t.Fatalf("%d results, summary %+v", len(res), sum.Group)
	}
	if len(sum.Curriculum) != 1 {
		t.Fatalf("curriculum: %+v", sum.Curriculum)
	}
	c := sum.Curriculum[0]
	if c.SolvedFrom == nil || *c.SolvedFrom != 2 || len(c.Tried) != 2 || c.Tried[0] != (eval.PrefixTrial{Prefix: 1, Trials: 2, Solved: 0}) || c.Tried[1] != (eval.PrefixTrial{Prefix: 2, Trials: 2, Solved: 2}) {
		t.Errorf("curriculum: %+v", c)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, "trajectories/worldtest/settle_acme.p2.1.jsonl")); err != nil {
		t.Error(err)
	}
	replayOK(t, cfg.Dir, 6)
}

// TestResume: an interrupted run keeps the episodes that finished and
// writes their summary; the same run again runs only the rest; a run with
// other settings into the same directory is refused; a line cut by a
// crash is dropped and its episode run again.
func TestResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	golden := evaltest.Golden(worldtest.World)
	var mu sync.Mutex
	count := 0
	s := evaltest.New(func(req openai.ChatCompletionRequest) evaltest.Reply {
		mu.Lock()
		count++
		n := count
		mu.Unlock()
		if n == 6 { // the second episode's second request
			cancel()
		}
		return golden(req)
	})
	defer s.Close()
	cfg := config(t, s)
	cfg.Trials, cfg.Jobs = 3, 1
	sum, err := eval.Run(ctx, cfg)
	if !errors.Is(err, eval.ErrInterrupted) || sum == nil || sum.Episodes != 1 {
		t.Fatalf("interrupted: %v, %+v", err, sum)
	}
	res, _ := eval.ReadResults(cfg.Dir)
	if len(res) != 1 || res[0].Trial != 0 {
		t.Fatalf("kept: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(cfg.Dir, "trajectories/worldtest/settle_acme.1.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the interrupted episode's trajectory: %v", err)
	}
	before := len(s.Requests())
	_, res = run(t, cfg)
	if len(res) != 3 || len(s.Requests())-before != 8 {
		t.Errorf("resumed: %d results, %d requests", len(res), len(s.Requests())-before)
	}
	other := cfg
	other.Model = "another"
	if _, err := eval.Run(context.Background(), other); err == nil || !strings.Contains(err.Error(), "--model agent-m (now another)") {
		t.Errorf("other settings: %v", err)
	}
	// A line cut short: dropped, its episode run again.
	path := filepath.Join(cfg.Dir, "results.jsonl")
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	cut := strings.Join(lines[:2], "") + lines[2][:len(lines[2])/2]
	os.WriteFile(path, []byte(cut), 0o644)
	var log bytes.Buffer
	cfg.Log = &log
	_, res = run(t, cfg)
	if len(res) != 3 || !strings.Contains(log.String(), "1 lines") {
		t.Errorf("after a cut line: %d results, log %q", len(res), log.String())
	}
	replayOK(t, cfg.Dir, 3)
}

// TestCommand: the command's flags, its key from the environment, its
// text summary and exit status; bad usage is 2.
func TestCommand(t *testing.T) {
	s := evaltest.New(evaltest.Golden(worldtest.World))
	defer s.Close()
	dir := t.TempDir()
	env := map[string]string{"MY_KEY": "sk-test"}
	var out, errb bytes.Buffer
	code := eval.Command(context.Background(), "demo", []runtime.World{worldtest.World},
		[]string{"--base-url", s.BaseURL(), "--model", "m", "--api-key-env", "MY_KEY", "-k", "2", "--temperature", "0", "--seed", "7", "-o", dir},
		func(k string) string { return env[k] }, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"pass^1 1.000  pass^2 1.000", "worldtest", "ends: answered 2", "summary.json"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	reqs := s.Requests()
	seeds := map[int]bool{}
	for _, q := range reqs {
		if q.Auth != "Bearer sk-test" || q.Seed == nil || q.Temperature == 0 || q.Temperature > 1e-30 {
			t.Fatalf("request: auth %q seed %v temperature %v", q.Auth, q.Seed, q.Temperature)
		}
		seeds[*q.Seed] = true
	}
	if !seeds[7] || !seeds[8] || len(seeds) != 2 {
		t.Errorf("seeds %v, want 7 and 8 (seed + trial)", seeds)
	}
	for _, args := range [][]string{{"-o", dir}, {"--model", "m"}, {"--model", "m", "-o", dir, "--user", "robot"}, {"--model", "m", "-o", dir, "extra"}} {
		if code := eval.Command(context.Background(), "demo", []runtime.World{worldtest.World}, args, func(string) string { return "" }, &out, &errb); code != 2 {
			t.Errorf("%q: exit %d", args, code)
		}
	}
	var e2 bytes.Buffer
	if code := eval.Command(context.Background(), "demo", []runtime.World{worldtest.World}, []string{"--model", "m", "-o", t.TempDir(), "--task", "nope", "--base-url", s.BaseURL()}, func(string) string { return "" }, &out, &e2); code != 1 || !strings.Contains(e2.String(), "--task nope") {
		t.Errorf("unknown task: exit %d %s", code, e2.String())
	}
	_ = http.StatusOK
}
