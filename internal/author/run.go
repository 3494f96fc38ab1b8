package author

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
)

// Options configures Run.
type Options struct {
	// Out is where specs, traces and results go: OUT/<world>.world,
	// OUT/<world>.failed.world, OUT/traces/<world>.jsonl and
	// OUT/results/<world>.json (world: the brief id in lower snake case).
	Out string
	// Rounds is how many repair rounds a brief gets after its first draft.
	Rounds int
	// CheckOnly stops at check: specs that check clean are written with
	// verdict checked, without the gate.
	CheckOnly bool
	// Force redoes briefs done before; RetryFailed redoes those that
	// failed.
	Force, RetryFailed bool
	// Jobs is how many briefs are worked on at once.
	Jobs int
	// NoReachability checks without predicting the gate's conformance
	// search (compiler.WithoutReachability): a spec whose tools the
	// checker's search cannot reach then goes to the gate, which decides.
	NoReachability bool
}

// Runner runs the loop on briefs.
type Runner struct {
	Prompts *Prompts
	Client  *Client
	// Gate is where specs that check clean are vetted; unused with
	// CheckOnly.
	Gate *pipeline.WorldGate
	Opts Options
	// OnStart, when set, is called with the briefs to do (after those
	// done before are skipped); OnResult with each brief's result as it
	// is known, from any goroutine, one call at a time.
	OnStart  func(todo int)
	OnResult func(Result)
}

// Key is the content address of a brief's work: the brief, the model, the
// prompts' version and the mode (gated or check only). A result with the
// same key is not redone.
func (r *Runner) Key(b Brief) string {
	mode := "gate"
	if r.Opts.CheckOnly {
		mode = "check"
	}
	data, _ := json.Marshal([]string{b.Brief, b.Taxonomy(), r.Client.Model(), r.Prompts.Version(), mode})
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Run works on every brief, Jobs at a time, and returns the summary. A
// cancelled context stops it cleanly: requests in flight are abandoned,
// what finished is kept, and the briefs not done are counted as
// interrupted. The error is for a run that could not start.
func (r *Runner) Run(ctx context.Context, briefs []Brief) (*Summary, error) {
	start := time.Now()
	if err := validateBriefs(briefs); err != nil {
		return nil, err
	}
	for _, d := range []string{r.Opts.Out, filepath.Join(r.Opts.Out, "traces"), filepath.Join(r.Opts.Out, "results")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	results := make([]Result, len(briefs))
	var todo []int
	for i, b := range briefs {
		if prev, ok := r.previous(b); ok {
			prev.Skipped = true
			results[i] = prev
			continue
		}
		todo = append(todo, i)
	}
	if r.OnStart != nil {
		r.OnStart(len(todo))
	}
	var mu sync.Mutex
	report := func(res Result) {
		mu.Lock()
		defer mu.Unlock()
		if r.OnResult != nil {
			r.OnResult(res)
		}
	}
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(r.Opts.Jobs, len(todo))) {
		wg.Go(func() {
			for i := range work {
				results[i] = r.one(ctx, briefs[i])
				report(results[i])
			}
		})
	}
feed:
	for _, i := range todo {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	for i, b := range briefs {
		if results[i].Verdict == "" {
			results[i] = Result{ID: b.ID, World: b.WorldName(), Verdict: ResultInterrupted, Reason: "not started", Key: r.Key(b)}
		}
	}
	s := summarize(results)
	s.Model, s.PromptVersion = r.Client.Model(), r.Prompts.Version()
	s.Seconds = time.Since(start).Seconds()
	return s, nil
}

// previous is the result of an earlier run on b, when it is to be kept.
func (r *Runner) previous(b Brief) (Result, bool) {
	if r.Opts.Force {
		return Result{}, false
	}
	// A result that is not a regular file of a result's size (a FIFO,
	// which would block, a link) is none: the brief is done again, and its
	// result replaces it.
	data, err := safefs.ReadRegularLimit(r.resultPath(b), maxResultBytes)
	if err != nil {
		return Result{}, false
	}
	var res Result
	if json.Unmarshal(data, &res) != nil || res.Key != r.Key(b) {
		return Result{}, false
	}
	switch res.Verdict {
	case ResultPassed, ResultChecked:
		_, err := os.Stat(filepath.Join(r.Opts.Out, res.Spec))
		return res, err == nil
	case ResultFailed:
		return res, !r.Opts.RetryFailed
	}
	return Result{}, false
}

func (r *Runner) resultPath(b Brief) string {
	return filepath.Join(r.Opts.Out, "results", fileID(b)+".json")
}

// one runs the loop on a brief and writes what it leaves.
func (r *Runner) one(ctx context.Context, b Brief) Result {
	id := fileID(b)
	l := &briefLoop{r: r, b: b, file: id + ".world", explained: map[string]bool{}}
	l.res = Result{ID: b.ID, World: b.WorldName(), Key: r.Key(b)}
	tw, err := newTraceWriter(filepath.Join(r.Opts.Out, "traces", id+".jsonl"))
	if err != nil {
		l.fail(ResultError, err.Error())
		return l.res
	}
	l.traces = tw
	l.run(ctx)
	if err := tw.close(); err != nil && l.res.Reason == "" {
		l.fail(ResultError, err.Error())
	}
	if l.res.Verdict == ResultInterrupted {
		// Nothing of an unfinished brief is kept but its traces: the next
		// run does it again.
		return l.res
	}
	if err := r.writeOutputs(l); err != nil {
		l.fail(ResultError, err.Error())
	}
	if data, err := json.MarshalIndent(l.res, "", "  "); err == nil {
		if err := safefs.WriteFile(r.resultPath(b), append(data, '\n')); err != nil {
			l.fail(ResultError, err.Error())
		}
	}
	return l.res
}

// writeOutputs writes the spec of a brief: OUT/<id>.world only when it
// passed, else the last draft as OUT/<id>.failed.world; the other one of
// the two goes, and so does a failed world's package in the gate's
// directory.
func (r *Runner) writeOutputs(l *briefLoop) error {
	id := fileID(l.b)
	good := filepath.Join(r.Opts.Out, id+".world")
	bad := filepath.Join(r.Opts.Out, id+".failed.world")
	if l.res.Verdict == ResultPassed || l.res.Verdict == ResultChecked {
		l.res.Spec = id + ".world"
		if err := safefs.WriteFile(good, []byte(l.passed)); err != nil {
			return err
		}
		return removeIfExists(bad)
	}
	if err := removeIfExists(good); err != nil {
		return err
	}
	if r.Gate != nil {
		if err := r.Gate.Remove(l.b.WorldName()); err != nil {
			return err
		}
	}
	if l.lastSpec == "" {
		return removeIfExists(bad)
	}
	l.res.Spec = id + ".failed.world"
	return safefs.WriteFile(bad, []byte(l.lastSpec))
}

func removeIfExists(p string) error {
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// maxResultBytes bounds a result file: a result is a few hundred bytes
// (its reason is one line, its brief id a name).
const maxResultBytes = 1 << 20

// PassedBriefs reads the results of an output directory and returns the
// ids of the briefs whose world passed. Results are read as regular files
// only (not through a link, nor from a FIFO), of bounded size.
func PassedBriefs(out string) (map[string]bool, error) {
	files, err := filepath.Glob(filepath.Join(out, "results", "*.json"))
	if err != nil {
		return nil, err
	}
	passed := map[string]bool{}
	for _, f := range files {
		data, err := safefs.ReadRegularLimit(f, maxResultBytes)
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if r.Verdict == ResultPassed {
			passed[r.ID] = true
		}
	}
	return passed, nil
}
