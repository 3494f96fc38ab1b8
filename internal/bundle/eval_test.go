package bundle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/generated/ecommerce_returns"
	"github.com/worldc/worldc/generated/freight_billing"
	"github.com/worldc/worldc/generated/hospital_scheduling"
	"github.com/worldc/worldc/generated/insurance_claims"
	"github.com/worldc/worldc/generated/it_service_desk"
	"github.com/worldc/worldc/generated/restaurant_procurement"
	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/generated/telecom_plans"
	"github.com/worldc/worldc/generated/university_admissions"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve"
	"github.com/worldc/worldc/runtime/serve/eval"
	"github.com/worldc/worldc/runtime/serve/eval/evaltest"
	"github.com/worldc/worldc/runtime/serve/llm"
	"github.com/worldc/worldc/runtime/serve/rollback"
)

// exampleWorlds are the generated packages of every example world.
func exampleWorlds() []runtime.World {
	return []runtime.World{ecommerce_returns.New(), freight_billing.New(), hospital_scheduling.New(), insurance_claims.New(),
		it_service_desk.New(), restaurant_procurement.New(), tau2_retail.New(), telecom_plans.New(), university_admissions.New()}
}

func evalClient(s *evaltest.Server) *llm.Client { return evalClientURL(s.BaseURL()) }

func evalClientURL(base string) *llm.Client {
	o := llm.Defaults()
	o.BaseURL, o.Retries, o.BackoffMin, o.BackoffMax, o.Timeout = base, 1, time.Millisecond, time.Millisecond, time.Minute
	return llm.New(o)
}

func runEval(t *testing.T, h evaltest.Handler, worlds []runtime.World, edit func(*eval.Config)) (*eval.Summary, map[string]eval.Result, string) {
	t.Helper()
	s := evaltest.New(h)
	defer s.Close()
	cfg := eval.Config{Worlds: worlds, Agent: evalClient(s), Model: "fake", Dir: t.TempDir(), Jobs: 2}
	if edit != nil {
		edit(&cfg)
	}
	sum, err := eval.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := eval.ReadResults(cfg.Dir)
	if err != nil {
		t.Fatal(err)
	}
	byTask := map[string]eval.Result{}
	for _, r := range rs {
		byTask[r.World+"/"+r.Task] = r
	}
	return sum, byTask, cfg.Dir
}

// startGrade is a task's grade before the agent acts.
func startGrade(t *testing.T, w runtime.World, task string) (runtime.Grade, string) {
	t.Helper()
	ep, err := w.NewEpisode(task)
	if err != nil {
		t.Fatal(err)
	}
	return ep.Grade(), ep.StateHash()
}

// TestEvalGoldenExampleWorlds: an agent that plays each task's golden
// solution as tool calls, from the instruction, the policy and the
// schemas it is sent, solves every task of every example world: pass^1 =
// 1. (A task without a golden solution is one whose rubric holds at the
// start: the golden agent answers without a call.) The trajectories
// replay.
func TestEvalGoldenExampleWorlds(t *testing.T) {
	worlds := exampleWorlds()
	sum, res, dir := runEval(t, evaltest.Golden(worlds...), worlds, nil)
	n := 0
	for _, w := range worlds {
		for _, task := range w.Tasks() {
			n++
			r, ok := res[w.Info().Name+"/"+task.ID]
			if !ok {
				t.Errorf("%s/%s: no result", w.Info().Name, task.ID)
				continue
			}
			if !r.Solved || r.End != eval.EndAnswered || r.ToolCalls != len(task.Solution) {
				t.Errorf("%s/%s: %+v", w.Info().Name, task.ID, r)
			}
		}
	}
	if sum.Episodes != n || len(sum.PassHatK) != 1 || sum.PassHatK[0] != 1 || len(sum.ByWorld) != len(worlds) {
		t.Errorf("summary: %d episodes of %d tasks, pass^k %v", sum.Episodes, n, sum.PassHatK)
	}
	problems, replayed, err := eval.Replay(worlds, dir)
	if err != nil || len(problems) > 0 || replayed != n {
		t.Errorf("replay: %v, %d of %d, %q", err, replayed, n, problems)
	}
	t.Logf("%d tasks of %d worlds, pass^1 %.3f", n, len(worlds), sum.PassHatK[0])
}

// TestEvalTextOnlyExampleWorlds: an agent that only answers in text
// changes nothing: every task whose rubric needs a write (does not hold
// at the start) is unsolved, with the start state's reward — 0 where no
// assertion holds before the agent acts.
func TestEvalTextOnlyExampleWorlds(t *testing.T) {
	worlds := exampleWorlds()
	_, res, _ := runEval(t, evaltest.TextOnly("I have taken care of it."), worlds, nil)
	needWrite := 0
	for _, w := range worlds {
		for _, task := range w.Tasks() {
			r := res[w.Info().Name+"/"+task.ID]
			g, hash := startGrade(t, w, task.ID)
			if r.ToolCalls != 0 || r.FinalStateHash != hash || r.Reward != g.Reward || r.Solved != g.Solved() {
				t.Errorf("%s/%s: %+v, start reward %v", w.Info().Name, task.ID, r, g.Reward)
			}
			if !g.Solved() {
				needWrite++
				passedAtStart := len(g.Assertions) - len(g.Failed())
				if r.Solved || (passedAtStart == 0 && r.Reward != 0) {
					t.Errorf("%s/%s: a text-only agent got reward %v", w.Info().Name, task.ID, r.Reward)
				}
			}
		}
	}
	if needWrite < 100 {
		t.Errorf("only %d tasks need a write", needWrite)
	}
}

// TestEvalMalformedExampleWorlds: calls of every tool of every example
// world with arguments that are not JSON, a JSON array, and a tool that
// does not exist are tool errors the agent is shown; no episode crashes.
func TestEvalMalformedExampleWorlds(t *testing.T) {
	worlds := exampleWorlds()
	h := func(req openai.ChatCompletionRequest) evaltest.Reply {
		var calls []string
		switch evaltest.Turn(req) {
		case 0:
			for _, tool := range req.Tools {
				calls = append(calls, tool.Function.Name, `{"id": `)
			}
		case 1:
			for _, tool := range req.Tools {
				calls = append(calls, tool.Function.Name, `[1, 2]`)
			}
		case 2:
			calls = []string{"drop_database", `{}`, "", `{}`}
		default:
			return evaltest.Text("I give up.")
		}
		return evaltest.Calls(calls...)
	}
	_, res, _ := runEval(t, h, worlds, func(c *eval.Config) {
		c.Tasks = nil
		for _, w := range worlds {
			c.Tasks = append(c.Tasks, w.Tasks()[0].ID)
		}
	})
	for _, w := range worlds {
		r := res[w.Info().Name+"/"+w.Tasks()[0].ID]
		tools := len(w.Tools())
		if r.ToolCalls != 2*tools+2 || r.ToolErrors != r.ToolCalls || r.End != eval.EndAnswered || r.WastedTurns != 3 {
			t.Errorf("%s: %+v", w.Info().Name, r)
		}
		codes := map[string]int{}
		for _, e := range r.ErrorsBy {
			codes[e.Code] += e.Count
		}
		if codes[runtime.CodeInvalidArguments] != 2*tools || codes[runtime.CodeUnknownTool] != 2 {
			t.Errorf("%s: errors by code %v", w.Info().Name, codes)
		}
	}
}

// TestPrefixExampleWorlds: for every task of every example world and
// every k from 0 to the length of its golden solution, an episode started
// after k golden steps — in process and through the server's JSON API —
// has the golden trajectory's state hash at step k.
func TestPrefixExampleWorlds(t *testing.T) {
	worlds := exampleWorlds()
	s, err := serve.New(worlds, serve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ts := httptest.NewServer(s.Handler())
	defer ts.Close()
	starts, apiStarts := 0, 0
	for _, w := range worlds {
		for ti, task := range w.Tasks() {
			ep, _ := w.NewEpisode(task.ID)
			want := []string{ep.StateHash()}
			golden, err := runtime.Run(ep, task.Solution)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range golden {
				want = append(want, st.StateHash)
			}
			// The JSON API's state carries the whole state: tau2's is large,
			// so its first ten tasks go through the API, all in process.
			viaAPI := w.Info().Name != "tau2_retail" || ti < 10
			for k := 0; k <= len(task.Solution); k++ {
				starts++
				pe, given, err := rollback.Start(w, task, k)
				if err != nil || pe.StateHash() != want[k] || len(given) != k {
					t.Errorf("%s/%s k=%d: in process %v, hash %s, want %s", w.Info().Name, task.ID, k, err, pe.StateHash(), want[k])
				}
				if !viaAPI {
					continue
				}
				apiStarts++
				var start serve.EpisodeStart
				body := fmt.Sprintf(`{"task":%q,"prefix":%d}`, task.ID, k)
				resp, err := ts.Client().Post(ts.URL+"/v1/worlds/"+w.Info().Name+"/episodes", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				json.NewDecoder(resp.Body).Decode(&start)
				resp.Body.Close()
				resp, err = ts.Client().Get(ts.URL + "/v1/episodes/" + start.EpisodeID + "/state")
				if err != nil {
					t.Fatal(err)
				}
				var state serve.StateResponse
				json.NewDecoder(resp.Body).Decode(&state)
				resp.Body.Close()
				if state.StateHash != want[k] || state.Steps != k || len(start.Given) != k {
					t.Errorf("%s/%s k=%d: JSON API hash %s after %d steps, want %s", w.Info().Name, task.ID, k, state.StateHash, state.Steps, want[k])
				}
				req, _ := http.NewRequest("DELETE", ts.URL+"/v1/episodes/"+start.EpisodeID, nil)
				if resp, err := ts.Client().Do(req); err == nil {
					resp.Body.Close()
				}
			}
		}
	}
	t.Logf("%d prefix starts checked in process, %d of them through the JSON API", starts, apiStarts)
}

// TestEvalBundleBinary: `bin/demo eval` of a built bundle against a
// scripted endpoint over HTTP, interrupted by SIGINT (the episodes that
// finished are kept) and resumed; `bin/demo verify --eval` replays what it
// wrote, and finds a tampered state hash; `eval --prefix` runs from the
// binary.
func TestEvalBundleBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a server binary (-short skips it; make test runs it)")
	}
	dir := t.TempDir()
	build(t, dir, specWorlds(t, "insurance_claims", "telecom_plans"))
	bin := filepath.Join(dir, "bin", "demo")
	worlds := []runtime.World{insurance_claims.New(), telecom_plans.New()}
	golden := evaltest.Golden(worlds...)

	// The 7th request is held until the test has sent SIGINT.
	var mu sync.Mutex
	n := 0
	held := make(chan struct{})
	release := make(chan struct{})
	s := evaltest.New(func(req openai.ChatCompletionRequest) evaltest.Reply {
		mu.Lock()
		n++
		i := n
		mu.Unlock()
		if i == 7 {
			close(held)
			<-release
		}
		return golden(req)
	})
	defer s.Close()
	defer close(release)
	out := filepath.Join(t.TempDir(), "run")
	args := []string{"eval", "--base-url", s.BaseURL(), "--model", "fake", "-k", "2", "-j", "1", "-o", out}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatal("the 7th request never came")
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("interrupted eval: %v\n%s", err, stderr.String())
	}
	kept := countLines(t, filepath.Join(out, "results.jsonl"))
	if kept < 1 {
		t.Fatalf("%d episodes kept", kept)
	}
	if _, err := os.Stat(filepath.Join(out, "summary.json")); err != nil {
		t.Errorf("no summary of the interrupted run: %v", err)
	}
	res, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(res), "pass^1 1.000  pass^2 1.000") {
		t.Fatalf("resumed eval: %v\n%s", err, res)
	}
	tasks := 0
	for _, w := range worlds {
		tasks += len(w.Tasks())
	}
	if got := countLines(t, filepath.Join(out, "results.jsonl")); got != 2*tasks {
		t.Errorf("%d results after resuming, want %d (%d tasks × 2)", got, 2*tasks, tasks)
	}
	if v, err := exec.Command(bin, "verify", "--eval", out).CombinedOutput(); err != nil || !strings.Contains(string(v), fmt.Sprintf("ok  %d eval trajectories", 2*tasks)) {
		t.Errorf("verify --eval: %v\n%s", err, v)
	}
	// A tampered state hash is found.
	traj := filepath.Join(out, "trajectories", "insurance_claims")
	entries, _ := os.ReadDir(traj)
	p := filepath.Join(traj, entries[0].Name())
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), `"state_hash":"`, `"state_hash":"0`, 1)), 0o644)
	if v, err := exec.Command(bin, "verify", "--eval", out).CombinedOutput(); err == nil || !strings.Contains(string(v), "state hash differs") {
		t.Errorf("verify --eval of a tampered trajectory: %v\n%s", err, v)
	}

	out2 := filepath.Join(t.TempDir(), "prefix")
	if res, err := exec.Command(bin, "eval", "--base-url", s.BaseURL(), "--model", "fake", "--prefix", "1", "--world", "telecom_plans", "-o", out2).CombinedOutput(); err != nil || !strings.Contains(string(res), "pass^1 1.000") {
		t.Errorf("eval --prefix 1: %v\n%s", err, res)
	}
	if v, err := exec.Command(bin, "verify", "--eval", out2).CombinedOutput(); err != nil {
		t.Errorf("verify --eval of a prefix run: %v\n%s", err, v)
	}
	if res, err := exec.Command(bin, "eval", "--model", "fake", "-o", out2, "--prefix", "-1").CombinedOutput(); err == nil || !strings.Contains(string(res), "--prefix") {
		t.Errorf("bad usage: %v\n%s", err, res)
	}
}

func countLines(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		n++
	}
	return n
}
