package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/llm"
)

// Config is one eval run.
type Config struct {
	// Worlds are the bundle's worlds; World and Tasks select among them
	// (empty: all). A task id that no selected world has is an error.
	Worlds []runtime.World
	World  []string
	Tasks  []string

	// Agent is the agent's endpoint and Model its model.
	Agent *llm.Client
	Model string
	// Endpoint names the agent's endpoint in run.json (no secrets).
	Endpoint string
	// User is UserInstruction (default) or UserSimulated; UserAgent and
	// UserModel are the simulator's endpoint and model (default: the
	// agent's).
	User      string
	UserAgent *llm.Client
	UserModel string

	Trials   int // k: trials per task (default 1)
	MaxTurns int // agent turns per episode at most (default 30)
	Jobs     int // episodes at once (default 4)
	// Prefix starts every episode after the first Prefix steps of its
	// task's golden solution (tasks with a shorter one are skipped).
	Prefix int
	// Curriculum tries every task whose Trials all failed again from
	// growing prefixes of its golden solution (Prefix+1 up to one step
	// short of the whole), Trials times each, and reports the shortest
	// prefix the model solves it from.
	Curriculum bool

	Temperature *float64
	Seed        *int
	MaxTokens   int

	// Dir is the output directory; a Dir that holds a run resumes it.
	Dir string
	// RetryErrors runs again the episodes of Dir that ended in an error.
	RetryErrors bool
	// Progress, when set (a terminal), gets a progress line rewritten
	// with a carriage return after each episode.
	Progress io.Writer
	// Log, when set, gets notes (skipped tasks, dropped lines).
	Log io.Writer
}

// ErrInterrupted is Run's error when ctx ended first: the episodes that
// finished are kept, and the summary is of them.
var ErrInterrupted = errors.New("interrupted")

// Defaults of Config.
const (
	DefaultTrials   = 1
	DefaultMaxTurns = 30
	DefaultJobs     = 4
)

// runner runs the episodes of a Config.
type runner struct {
	cfg      Config
	prompts  *prompts
	toolList map[string][]openai.Tool // by world, made once

	mu      sync.Mutex // guards what follows
	results map[string]Result
	out     *os.File        // results.jsonl, appended to
	dirs    map[string]bool // trajectory directories made
	done    int             // episodes finished in this run
	total   int             // episodes to run in this run
	solved  int
	errs    int
	started time.Time
}

func (r *runner) userModel() string {
	if r.cfg.User != UserSimulated {
		return ""
	}
	if r.cfg.UserModel != "" {
		return r.cfg.UserModel
	}
	return r.cfg.Model
}

func (r *runner) userClient() *llm.Client {
	if r.cfg.UserAgent != nil {
		return r.cfg.UserAgent
	}
	return r.cfg.Agent
}

func (r *runner) tools(w runtime.World) []openai.Tool { return r.toolList[w.Info().Name] }

// openAITools are a world's tools for requests: its OpenAI function
// schemas, strict where the runtime says the schema allows it.
func openAITools(w runtime.World) ([]openai.Tool, error) {
	var out []openai.Tool
	for _, t := range w.Tools() {
		var f struct {
			Function struct {
				Name        string          `json:"name"`
				Description string          `json:"description"`
				Parameters  json.RawMessage `json:"parameters"`
				Strict      bool            `json:"strict"`
			} `json:"function"`
		}
		if err := json.Unmarshal(t.OpenAI(), &f); err != nil {
			return nil, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: f.Function.Name, Description: f.Function.Description, Strict: f.Function.Strict, Parameters: f.Function.Parameters}})
	}
	return out, nil
}

// Run runs the episodes of cfg that Dir does not hold yet, then writes the
// summary and the report of every episode in Dir. It returns the summary
// with ErrInterrupted when ctx ended first.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if cfg.Trials <= 0 {
		cfg.Trials = DefaultTrials
	}
	if cfg.MaxTurns <= 0 {
		cfg.MaxTurns = DefaultMaxTurns
	}
	if cfg.Jobs <= 0 {
		cfg.Jobs = DefaultJobs
	}
	if cfg.User == "" {
		cfg.User = UserInstruction
	}
	switch {
	case cfg.User != UserInstruction && cfg.User != UserSimulated:
		return nil, fmt.Errorf("--user %q: instruction or simulated", cfg.User)
	case cfg.Agent == nil || cfg.Model == "":
		return nil, errors.New("no agent: --model is required")
	case cfg.Dir == "":
		return nil, errors.New("no output directory: -o DIR is required")
	case cfg.Prefix < 0:
		return nil, fmt.Errorf("--prefix %d: a number of steps", cfg.Prefix)
	}
	p, err := loadPrompts()
	if err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, prompts: p, toolList: map[string][]openai.Tool{}, results: map[string]Result{}, dirs: map[string]bool{}}
	tasks, err := r.selectTasks()
	if err != nil {
		return nil, err
	}
	for _, st := range tasks {
		name := st.w.Info().Name
		if _, ok := r.toolList[name]; !ok {
			if r.toolList[name], err = openAITools(st.w); err != nil {
				return nil, fmt.Errorf("world %s: %w", name, err)
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(cfg.Dir, "trajectories"), 0o755); err != nil {
		return nil, err
	}
	if err := r.checkRunInfo(); err != nil {
		return nil, err
	}
	if err := r.loadResults(); err != nil {
		return nil, err
	}
	r.out, err = os.OpenFile(filepath.Join(cfg.Dir, "results.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	defer r.out.Close()

	var jobs []job
	for _, st := range tasks {
		for trial := range cfg.Trials {
			j := job{w: st.w, task: st.t, trial: trial, prefix: cfg.Prefix}
			if _, done := r.results[j.key()]; !done {
				jobs = append(jobs, j)
			}
		}
	}
	r.started = time.Now()
	r.total = len(jobs)
	runErr := r.runJobs(ctx, jobs)
	if runErr == nil && cfg.Curriculum {
		runErr = r.curriculum(ctx, tasks)
	}
	if cfg.Progress != nil && r.total > 0 {
		fmt.Fprintln(cfg.Progress)
	}
	if runErr != nil && !errors.Is(runErr, ErrInterrupted) {
		return nil, runErr
	}
	sum := r.summary()
	if err := writeOutputs(cfg.Dir, sum); err != nil {
		return sum, err
	}
	return sum, runErr
}

// selected is a task chosen to run.
type selected struct {
	w runtime.World
	t runtime.TaskInfo
}

// selectTasks is the tasks of the run, by world name then declaration
// order.
func (r *runner) selectTasks() ([]selected, error) {
	worlds := slices.Clone(r.cfg.Worlds)
	slices.SortFunc(worlds, func(a, b runtime.World) int { return strings.Compare(a.Info().Name, b.Info().Name) })
	var names []string
	byName := map[string]bool{}
	for _, w := range worlds {
		names = append(names, w.Info().Name)
		byName[w.Info().Name] = true
	}
	for _, n := range r.cfg.World {
		if !byName[n] {
			return nil, fmt.Errorf("--world %s: no such world; worlds: %s", n, strings.Join(names, ", "))
		}
	}
	wantTask := map[string]bool{}
	for _, t := range r.cfg.Tasks {
		wantTask[t] = false
	}
	var out []selected
	skipped := 0
	for _, w := range worlds {
		if len(r.cfg.World) > 0 && !slices.Contains(r.cfg.World, w.Info().Name) {
			continue
		}
		for _, t := range w.Tasks() {
			if len(wantTask) > 0 {
				if _, ok := wantTask[t.ID]; !ok {
					continue
				}
				wantTask[t.ID] = true
			}
			if r.cfg.Prefix > len(t.Solution) {
				skipped++
				continue
			}
			out = append(out, selected{w, t})
		}
	}
	for t, found := range wantTask {
		if !found {
			return nil, fmt.Errorf("--task %s: no selected world has this task", t)
		}
	}
	if skipped > 0 && r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "eval: %d tasks skipped: their golden solution is shorter than --prefix %d\n", skipped, r.cfg.Prefix)
	}
	if len(out) == 0 {
		return nil, errors.New("no task to run")
	}
	return out, nil
}

// runInfo is DIR/run.json: what a resumed run must share with the first.
type runInfo struct {
	Model     string            `json:"model"`
	User      string            `json:"user"`
	UserModel string            `json:"user_model,omitempty"`
	Prefix    int               `json:"prefix"`
	MaxTurns  int               `json:"max_turns"`
	Prompts   map[string]string `json:"prompts"`
	Endpoint  string            `json:"endpoint,omitempty"`
}

func (r *runner) checkRunInfo() error {
	want := runInfo{Model: r.cfg.Model, User: r.cfg.User, UserModel: r.userModel(), Prefix: r.cfg.Prefix,
		MaxTurns: r.cfg.MaxTurns, Prompts: r.prompts.versions, Endpoint: r.cfg.Endpoint}
	path := filepath.Join(r.cfg.Dir, "run.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b, err := json.MarshalIndent(want, "", "  ")
		if err != nil {
			return err
		}
		return writeFileAtomic(path, append(b, '\n'))
	}
	if err != nil {
		return err
	}
	var have runInfo
	if err := json.Unmarshal(data, &have); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	var diffs []string
	diff := func(what string, a, b any) {
		if fmt.Sprint(a) != fmt.Sprint(b) {
			diffs = append(diffs, fmt.Sprintf("%s %v (now %v)", what, a, b))
		}
	}
	diff("--model", have.Model, want.Model)
	diff("--user", have.User, want.User)
	diff("--user-model", have.UserModel, want.UserModel)
	diff("--prefix", have.Prefix, want.Prefix)
	diff("--max-turns", have.MaxTurns, want.MaxTurns)
	diff("prompts", have.Prompts, want.Prompts)
	if len(diffs) > 0 {
		return fmt.Errorf("%s holds a run with other settings: %s; resume it with the same ones, or write to another -o", r.cfg.Dir, strings.Join(diffs, ", "))
	}
	return nil
}

// loadResults reads the results of DIR (a resumed run). Lines that do not
// decode (a line cut by a crash) are dropped, as are, with RetryErrors,
// the episodes that ended in an error; the file is then rewritten.
func (r *runner) loadResults() error {
	path := filepath.Join(r.cfg.Dir, "results.jsonl")
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	bad, retried := 0, 0
	var kept [][]byte
	for line := range bytes.Lines(data) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		var res Result
		if json.Unmarshal(line, &res) != nil || res.World == "" || res.Task == "" {
			bad++
			continue
		}
		if r.cfg.RetryErrors && res.End == EndError {
			retried++
			continue
		}
		r.results[resultKey(res.World, res.Task, res.Prefix, res.Trial)] = res
		kept = append(kept, append(line, '\n'))
	}
	if bad > 0 && r.cfg.Log != nil {
		fmt.Fprintf(r.cfg.Log, "eval: %d lines of %s did not decode and were dropped (their episodes run again)\n", bad, path)
	}
	if bad > 0 || retried > 0 {
		return writeFileAtomic(path, bytes.Join(kept, nil))
	}
	return nil
}

// runJobs runs jobs on cfg.Jobs workers until they are done or ctx ends.
func (r *runner) runJobs(ctx context.Context, jobs []job) error {
	ch := make(chan job)
	var wg sync.WaitGroup
	var errMu sync.Mutex
	var firstErr error
	for range min(r.cfg.Jobs, max(len(jobs), 1)) {
		wg.Go(func() {
			for j := range ch {
				res, lines, err := r.episode(ctx, j)
				if err == nil {
					err = r.record(res, lines)
				}
				if err != nil && !errors.Is(err, errCanceled) {
					errMu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("world %s task %s trial %d: %w", j.w.Info().Name, j.task.ID, j.trial, err)
					}
					errMu.Unlock()
				}
			}
		})
	}
feed:
	for _, j := range jobs {
		select {
		case <-ctx.Done():
			break feed
		case ch <- j:
		}
	}
	close(ch)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	return nil
}

// record writes an episode's trajectory, then its result line.
func (r *runner) record(res Result, lines []Line) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	path := filepath.Join(r.cfg.Dir, filepath.FromSlash(res.Trajectory))
	if err := r.mkdir(filepath.Dir(path)); err != nil {
		return err
	}
	// Written in place: a trajectory counts once its result line is
	// written after it, and an episode without one runs again.
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	line, err := marshalLine(res)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.out.Write(line); err != nil {
		return err
	}
	r.results[resultKey(res.World, res.Task, res.Prefix, res.Trial)] = res
	r.done++
	if res.Solved {
		r.solved++
	}
	if res.End == EndError {
		r.errs++
	}
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, "\r\x1b[Keval %d/%d episodes  %d solved  %d errors  %s", r.done, r.total, r.solved, r.errs, time.Since(r.started).Round(time.Second))
	}
	return nil
}

// mkdir makes a trajectories directory once.
func (r *runner) mkdir(dir string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirs[dir] {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	r.dirs[dir] = true
	return nil
}

func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// curriculum tries every task whose trials all failed from growing
// prefixes, round by round (all such tasks at prefix k at once), until a
// trial solves it or the prefixes are exhausted.
func (r *runner) curriculum(ctx context.Context, tasks []selected) error {
	pending := []selected{}
	for _, st := range tasks {
		if !r.anySolved(st, r.cfg.Prefix) && len(st.t.Solution) > r.cfg.Prefix+1 {
			pending = append(pending, st)
		}
	}
	for k := r.cfg.Prefix + 1; len(pending) > 0; k++ {
		var jobs []job
		var next []selected
		for _, st := range pending {
			if k >= len(st.t.Solution) {
				continue
			}
			next = append(next, st)
			for trial := range r.cfg.Trials {
				j := job{w: st.w, task: st.t, trial: trial, prefix: k, curriculum: true}
				if _, done := r.results[j.key()]; !done {
					jobs = append(jobs, j)
				}
			}
		}
		r.mu.Lock()
		r.total += len(jobs)
		r.mu.Unlock()
		if err := r.runJobs(ctx, jobs); err != nil {
			return err
		}
		pending = pending[:0]
		for _, st := range next {
			if !r.anySolved(st, k) {
				pending = append(pending, st)
			}
		}
	}
	return nil
}

func (r *runner) anySolved(st selected, prefix int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for trial := range r.cfg.Trials {
		if res, ok := r.results[resultKey(st.w.Info().Name, st.t.ID, prefix, trial)]; ok && res.Solved {
			return true
		}
	}
	return false
}

// summary summarises every result of DIR.
func (r *runner) summary() *Summary {
	r.mu.Lock()
	all := make([]Result, 0, len(r.results))
	for _, res := range r.results {
		all = append(all, res)
	}
	r.mu.Unlock()
	return Summarize(all, SummaryInfo{Model: r.cfg.Model, User: r.cfg.User, UserModel: r.userModel(), Prefix: r.cfg.Prefix,
		Trials: r.cfg.Trials, MaxTurns: r.cfg.MaxTurns, Prompts: r.prompts.versions})
}

// ReadResults reads DIR/results.jsonl.
func ReadResults(dir string) ([]Result, error) {
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var res Result
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			return nil, fmt.Errorf("results.jsonl:%d: %v", n, err)
		}
		out = append(out, res)
	}
	return out, sc.Err()
}

// writeFileAtomic writes a file by renaming a temporary file over it.
func writeFileAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
