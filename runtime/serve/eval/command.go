package eval

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/llm"
)

// stringsFlag is a repeatable flag.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// optional is a flag whose absence is not its zero value.
type optional[T any] struct {
	v     *T
	parse func(string) (T, error)
}

func (o *optional[T]) String() string {
	if o.v == nil {
		return ""
	}
	return fmt.Sprint(*o.v)
}

func (o *optional[T]) Set(s string) error {
	v, err := o.parse(s)
	if err != nil {
		return err
	}
	o.v = &v
	return nil
}

// Main runs `bin/<name> eval ARGS` and returns its exit status: 0 when
// every episode ran and none ended in an endpoint error, 1 otherwise (the
// episodes that finished are kept), 2 for bad usage.
func Main(bundle string, worlds []runtime.World, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the program at once
	}()
	return Command(ctx, bundle, worlds, args, os.Getenv, stdout, stderr)
}

// Command is Main with its context and environment given.
func Command(ctx context.Context, bundle string, worlds []runtime.World, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(bundle+" eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := llm.Defaults()
	baseURL := fs.String("base-url", cmpOr(getenv("OPENAI_BASE_URL"), def.BaseURL), "the agent's OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else OpenAI)")
	model := fs.String("model", "", "the agent's model (required)")
	keyEnv := fs.String("api-key-env", "OPENAI_API_KEY", "the environment variable holding the API key (local servers need none)")
	var worldNames, taskIDs stringsFlag
	fs.Var(&worldNames, "world", "run only this world (repeatable)")
	fs.Var(&taskIDs, "task", "run only this task (repeatable)")
	k := fs.Int("k", DefaultTrials, "trials per task")
	maxTurns := fs.Int("max-turns", DefaultMaxTurns, "agent turns per episode, at most")
	jobs := fs.Int("j", DefaultJobs, "episodes at once")
	user := fs.String("user", UserInstruction, "who speaks first: instruction (the task's) or simulated (an LLM playing the user)")
	userModel := fs.String("user-model", "", "the simulated user's model (default --model)")
	userURL := fs.String("user-base-url", "", "the simulated user's endpoint (default --base-url)")
	userKeyEnv := fs.String("user-api-key-env", "", "the variable holding the simulated user's key (default --api-key-env)")
	prefix := fs.Int("prefix", 0, "start every episode after the first `K` steps of its task's golden solution")
	curriculum := fs.Bool("curriculum", false, "try tasks every trial failed again from growing golden prefixes; report the shortest solved from")
	rpm := fs.Float64("rpm", 0, "requests per minute, at most (0: no limit)")
	timeout := fs.Duration("timeout", def.Timeout, "each HTTP attempt's time, at most")
	retries := fs.Int("retries", def.Retries, "retries of a failed request (timeout, connection, 429, 5xx, malformed reply)")
	temp := &optional[float64]{parse: func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }}
	seed := &optional[int]{parse: strconv.Atoi}
	fs.Var(temp, "temperature", "sampling temperature (sent when given)")
	fs.Var(seed, "seed", "sampling seed; trial t sends seed+t (sent when given)")
	maxTokens := fs.Int("max-tokens", 0, "max_tokens of each reply (0: none sent)")
	dir := fs.String("o", "", "the output directory (required); a directory of an earlier run resumes it")
	retryErrors := fs.Bool("retry-errors", false, "run again the episodes of -o DIR that ended in an endpoint error")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fmt.Fprintf(stderr, "%s eval: unexpected arguments %q\n", bundle, fs.Args())
		}
		return 2
	}
	switch {
	case *model == "":
		fmt.Fprintf(stderr, "%s eval: --model is required\n", bundle)
		return 2
	case *dir == "":
		fmt.Fprintf(stderr, "%s eval: -o DIR is required\n", bundle)
		return 2
	case *user != UserInstruction && *user != UserSimulated:
		fmt.Fprintf(stderr, "%s eval: --user %q: instruction or simulated\n", bundle, *user)
		return 2
	case *k < 1 || *maxTurns < 1 || *jobs < 1 || *prefix < 0:
		fmt.Fprintf(stderr, "%s eval: -k, --max-turns and -j are at least 1, --prefix at least 0\n", bundle)
		return 2
	}
	opts := def
	opts.BaseURL, opts.APIKey, opts.Timeout, opts.Retries, opts.RPM = *baseURL, getenv(*keyEnv), *timeout, *retries, *rpm
	agent := llm.New(opts)
	cfg := Config{Worlds: worlds, World: worldNames, Tasks: taskIDs, Agent: agent, Model: *model, Endpoint: redactURL(*baseURL),
		User: *user, UserModel: *userModel, Trials: *k, MaxTurns: *maxTurns, Jobs: *jobs, Prefix: *prefix,
		Curriculum: *curriculum, Temperature: temp.v, Seed: seed.v, MaxTokens: *maxTokens, Dir: *dir,
		RetryErrors: *retryErrors, Log: stderr}
	if *userURL != "" || *userKeyEnv != "" {
		uo := opts
		if *userURL != "" {
			uo.BaseURL = *userURL
		}
		if *userKeyEnv != "" {
			uo.APIKey = getenv(*userKeyEnv)
		}
		cfg.UserAgent = llm.New(uo)
	}
	if isTerminal(stderr) {
		cfg.Progress = stderr
	}
	start := time.Now()
	sum, err := Run(ctx, cfg)
	if err != nil && !errors.Is(err, ErrInterrupted) {
		fmt.Fprintf(stderr, "%s eval: %v\n", bundle, err)
		return 1
	}
	Print(stdout, sum, *dir, time.Since(start))
	if errors.Is(err, ErrInterrupted) {
		fmt.Fprintf(stderr, "%s eval: interrupted: the episodes that finished are kept; run the same command again to resume\n", bundle)
		return 1
	}
	if n := sum.Ends[EndError]; n > 0 {
		fmt.Fprintf(stderr, "%s eval: %d episodes ended in an endpoint error (see results.jsonl); --retry-errors runs them again\n", bundle, n)
		return 1
	}
	return 0
}

// Print writes the summary as text.
func Print(w io.Writer, s *Summary, dir string, took time.Duration) {
	fmt.Fprintf(w, "eval: %d episodes of %d tasks, model %s, user %s, in %s\n", s.Episodes, s.Tasks, s.Model, s.User, took.Round(time.Millisecond))
	var pk []string
	for i, v := range s.PassHatK {
		pk = append(pk, fmt.Sprintf("pass^%d %.3f", i+1, v))
	}
	fmt.Fprintf(w, "%s   mean reward %.3f   solved %.1f%%\n", strings.Join(pk, "  "), s.MeanReward, 100*s.SolvedRate)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "world\ttasks\tepisodes\tpass^1\treward")
	for _, g := range s.ByWorld {
		p := 0.0
		if len(g.PassHatK) > 0 {
			p = g.PassHatK[0]
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\t%.3f\n", g.Name, g.Tasks, g.Episodes, p, g.MeanReward)
	}
	tw.Flush()
	var ends []string
	for _, e := range slices.Sorted(maps.Keys(s.Ends)) {
		ends = append(ends, fmt.Sprintf("%s %d", e, s.Ends[e]))
	}
	fmt.Fprintf(w, "ends: %s; tool calls %d (%d failed), wasted turns %d of %d\n", strings.Join(ends, ", "), s.ToolCalls, s.ToolErrors, s.Failures.WastedTurns, s.Failures.Turns)
	for _, c := range s.Curriculum {
		from := "never"
		if c.SolvedFrom != nil {
			from = fmt.Sprintf("from prefix %d", *c.SolvedFrom)
		}
		fmt.Fprintf(w, "curriculum: %s/%s (%d golden steps) solved %s\n", c.World, c.Task, c.GoldenSteps, from)
	}
	fmt.Fprintf(w, "wrote %s, %s, %s\n", filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "summary.json"), filepath.Join(dir, "report.html"))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// redactURL drops a password from a URL for run.json.
func redactURL(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if at := strings.LastIndex(s[i+3:], "@"); at >= 0 {
			return s[:i+3] + "[redacted]@" + s[i+3+at+1:]
		}
	}
	return s
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
