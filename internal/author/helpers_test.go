package author

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/internal/author/fakellm"
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

// testClientOptions are fast retries and a short timeout.
func testClientOptions(base string) ClientOptions {
	return ClientOptions{BaseURL: base, APIKey: "test-key", Model: "fake-model", Timeout: 500 * time.Millisecond,
		Retries: 3, BackoffMin: time.Millisecond, BackoffMax: 10 * time.Millisecond, MaxRetryAfter: 5 * time.Second}
}

type harness struct {
	srv    *fakellm.Server
	runner *Runner
	out    string
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
	r := &Runner{Prompts: p, Client: NewClient(testClientOptions(srv.BaseURL())), Opts: opts}
	if !opts.CheckOnly {
		g, err := NewGate(filepath.Join(out, "build"), GateOptions{Version: "test"})
		if err != nil {
			t.Fatal(err)
		}
		r.Gate = g
	}
	return &harness{srv: srv, runner: r, out: out}
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
