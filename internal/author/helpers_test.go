package author

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/worldc/worldc/internal/author/fakellm"
	"github.com/worldc/worldc/runtime/serve/llm"
)

// replyFile reads a reply fixture of testdata/replies.
func replyFile(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "replies", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// spec is a scripted reply with a fixture in a ```world block.
func spec(t *testing.T, name string) fakellm.Reply {
	return fakellm.Reply{Content: replyFile(t, name), Fence: true}
}

// testClientOptions are short retries and a short timeout, on a fake
// clock of their own: a retry's backoff takes no time, and an attempt
// times out only when its test advances the clock.
func testClientOptions(base string) ClientOptions {
	return ClientOptions{Model: "fake-model", Options: llm.Options{BaseURL: base, APIKey: "test-key", Timeout: 500 * time.Millisecond,
		Retries: 3, BackoffMin: time.Millisecond, BackoffMax: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second,
		Clock: newFakeClock()}}
}

type harness struct {
	srv    *fakellm.Server
	runner *Runner
	out    string
	// clock is the client's.
	clock *fakeClock
}

// newHarness starts a fake endpoint for script and a runner writing to a
// temporary directory; gated runs get a gate directory there too.
func newHarness(t *testing.T, script fakellm.Script, opts Options) *harness {
	t.Helper()
	srv := fakellm.New(script)
	t.Cleanup(srv.Close)
	p, err := LoadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	opts.Out = out
	copts := testClientOptions(srv.BaseURL())
	r := &Runner{Prompts: p, Client: NewClient(copts), Opts: opts}
	if !opts.CheckOnly {
		g, err := NewGate(context.Background(), filepath.Join(out, "build"), GateOptions{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		r.Gate = g
	}
	return &harness{srv: srv, runner: r, out: out, clock: copts.Clock.(*fakeClock)}
}

// withClient replaces the runner's client by one with options changed by
// edit (the same endpoint and clock).
func (h *harness) withClient(edit func(*ClientOptions)) {
	opts := h.runner.Client.opts
	edit(&opts)
	h.runner.Client = NewClient(opts)
}

// start runs the briefs in the background; wait returns the summary.
func (h *harness) start(t *testing.T, ctx context.Context, briefs ...Brief) <-chan *Summary {
	t.Helper()
	done := make(chan *Summary, 1)
	go func() {
		s, err := h.runner.Run(ctx, briefs)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}()
	return done
}

// hangGuard bounds how long a test waits for something that happens at
// once when the code works, so that a broken feature fails the test
// instead of hanging it. No test's outcome depends on it: a working run
// takes milliseconds, on any machine.
const hangGuard = time.Minute

// within waits for ch, failing the test with what when it hangs.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangGuard):
		t.Fatalf("still waiting after %s: %s", hangGuard, what)
		var zero T
		return zero
	}
}

// fakeClock is a Clock that moves only when told: Sleep returns at once
// and moves the clock by what it was asked to wait (a test never waits for
// a backoff or the rate limiter, and reads what they waited from the
// clock); Advance moves it as a test says. Functions of AfterFunc run
// when the clock reaches their time.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	sleeps []time.Duration
}

type fakeTimer struct {
	at time.Time
	f  func()
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	c.sleeps = append(c.sleeps, d)
	c.mu.Unlock()
	c.Advance(d)
	return nil
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		i := slices.Index(c.timers, t)
		if i < 0 {
			return false
		}
		c.timers = slices.Delete(c.timers, i, i+1)
		return true
	}
}

// Advance moves the clock by d and starts the functions whose time has
// come, each in its own goroutine (as time.AfterFunc does).
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if t.at.After(c.now) {
			kept = append(kept, t)
			continue
		}
		go t.f()
	}
	c.timers = kept
}

// Sleeps are the waits asked of Sleep, in order.
func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.sleeps)
}

// Timers is the number of functions of AfterFunc not yet started nor
// stopped.
func (c *fakeClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

func (h *harness) run(t *testing.T, ctx context.Context, briefs ...Brief) *Summary {
	t.Helper()
	s, err := h.runner.Run(ctx, briefs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (h *harness) traces(t *testing.T, id string) []Trace {
	t.Helper()
	ts, err := ReadTraces(filepath.Join(h.out, "traces", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return ts
}

func (h *harness) exists(name string) bool {
	_, err := os.Stat(filepath.Join(h.out, name))
	return err == nil
}

func brief(id string) Brief {
	return Brief{ID: id, Brief: "A logistics company in Germany (" + id + ") bills customers and posts paid invoices to its ledger."}
}

// verdicts lists the verdicts of traces.
func verdicts(ts []Trace) string {
	var v []string
	for _, t := range ts {
		v = append(v, t.Kind+":"+t.Verdict)
	}
	return strings.Join(v, " ")
}

func onlyResult(t *testing.T, s *Summary) Result {
	t.Helper()
	if len(s.Results) != 1 {
		t.Fatalf("%d results, want 1", len(s.Results))
	}
	return s.Results[0]
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
