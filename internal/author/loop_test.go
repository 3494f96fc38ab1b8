package author

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/internal/author/fakellm"
)

// The loop's behaviour for each scripted reply, stopping at check (fast;
// the gated runs are in gate_test.go).

func TestRepairAfterCheckErrors(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {spec(t, "broken.world"), spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	s := h.run(t, context.Background(), brief("acme"))
	r := onlyResult(t, s)
	if r.Verdict != ResultChecked || r.Rounds != 1 || r.Attempts != 2 {
		t.Fatalf("result %+v, want checked after 1 round in 2 attempts", r)
	}
	ts := h.traces(t, "acme")
	if got := verdicts(ts); got != "author:check-failed repair:checked" {
		t.Fatalf("traces %s", got)
	}
	var codes []string
	for _, d := range ts[0].Diagnostics {
		codes = append(codes, string(d.Code))
	}
	if strings.Join(codes, " ") != "W016 W003 W005" {
		t.Errorf("diagnostics of the first draft: %v", codes)
	}
	repair := ts[1].Messages[1].Content
	for _, want := range []string{`"code": "W003"`, `"hint": "Declare the name`, "28 |", "About W003 (unresolved-name)", "About W005", "About W016", "```world\nworld acme {"} {
		if !strings.Contains(repair, want) {
			t.Errorf("the repair prompt lacks %q", want)
		}
	}
	if ts[1].Repairs != "check" || ts[0].Spec == "" || !strings.HasPrefix(ts[0].Spec, "world acme {") || ts[0].RenamedFrom != "northwind_logistics" {
		t.Errorf("trace 0: repairs %q, renamed from %q, spec starts %.20q", ts[1].Repairs, ts[0].RenamedFrom, ts[0].Spec)
	}
	if !h.exists("acme.world") || h.exists("acme.failed.world") {
		t.Error("acme.world should be written, and no acme.failed.world")
	}
	if want := (Usage{Prompt: ts[0].Tokens.Prompt + ts[1].Tokens.Prompt, Completion: ts[0].Tokens.Completion + ts[1].Tokens.Completion}); r.Tokens != want || want.Prompt == 0 {
		t.Errorf("tokens %+v, want the sum of the attempts' %+v", r.Tokens, want)
	}
	if reqs := h.srv.Requests(); len(reqs) != 2 || reqs[0].Auth != "Bearer test-key" || reqs[0].Model != "fake-model" {
		t.Errorf("requests: %d, auth %q", len(reqs), reqs[0].Auth)
	}
}

func TestNoSpecInReply(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {{Content: "I would rather not write a spec today."}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	ts := h.traces(t, "acme")
	if r.Verdict != ResultChecked || r.Rounds != 1 || verdicts(ts) != "author:no-spec repair:checked" {
		t.Fatalf("result %+v, traces %s", r, verdicts(ts))
	}
	if ts[0].ExtractError == "" || ts[1].Repairs != "extract" || !strings.Contains(ts[1].Messages[1].Content, "could not be used: the reply holds no spec") {
		t.Errorf("extract error %q, repairs %q, prompt %q", ts[0].ExtractError, ts[1].Repairs, ts[1].Messages[1].Content)
	}
}

func TestMalformedJSONBodyIsRetried(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {{Raw: `{"choices": [ {"message": `}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	ts := h.traces(t, "acme")
	if r.Verdict != ResultChecked || r.Rounds != 0 || r.Retries != 1 || len(ts) != 1 {
		t.Fatalf("result %+v, %d traces", r, len(ts))
	}
	if len(ts[0].Retries) != 1 || ts[0].Retries[0] != "malformed JSON in the reply" {
		t.Errorf("retries %q", ts[0].Retries)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

func TestMalformedJSONContentIsRepaired(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {{Content: `{"spec": "world acme {`}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	ts := h.traces(t, "acme")
	if r.Verdict != ResultChecked || r.Rounds != 1 || !strings.HasPrefix(ts[0].ExtractError, "the reply is not valid JSON") {
		t.Fatalf("result %+v, extract error %q", r, ts[0].ExtractError)
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {{Status: 429, RetryAfter: "1"}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	ts := h.traces(t, "acme")
	if r.Verdict != ResultChecked || r.Retries != 1 || r.Attempts != 1 {
		t.Fatalf("result %+v", r)
	}
	// The backoff is at most 10ms: only Retry-After makes the client wait
	// a second before the retry (on its clock, which the test's is).
	if got := h.clock.Sleeps(); !slices.Equal(got, []time.Duration{time.Second}) {
		t.Errorf("the client waited %v before its retry, want [1s]: Retry-After: 1 was not honoured", got)
	}
	if ts[0].LatencyMS != 1000 {
		t.Errorf("latency %dms, want the second of Retry-After", ts[0].LatencyMS)
	}
	if len(ts[0].Retries) != 1 || ts[0].Retries[0] != "429 Too Many Requests (Retry-After 1)" {
		t.Errorf("retries %q", ts[0].Retries)
	}
}

// TestTimeoutIsRetried: an attempt that outlasts the timeout is abandoned
// and retried. The first reply is held until the client goes away; the
// clock moves past the timeout only once the request is being held, so
// the test proves the timeout and never waits for it.
func TestTimeoutIsRetried(t *testing.T) {
	hold := make(chan struct{})
	slow := spec(t, "good.world")
	slow.Hold = hold
	h := newHarness(t, fakellm.Script{"acme": {slow, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	t.Cleanup(func() { close(hold) }) // before the server closes: it waits for its handlers
	done := h.start(t, context.Background(), brief("acme"))
	within(t, h.srv.Arrived(1), "the first request")
	h.clock.Advance(499 * time.Millisecond)
	if n := h.clock.Timers(); n != 1 {
		t.Fatalf("%d attempt timers running 499ms into the attempt, want 1", n)
	}
	h.clock.Advance(time.Millisecond)
	s := within(t, done, "the run: the held reply was waited for (no timeout)")
	r := onlyResult(t, s)
	ts := h.traces(t, "acme")
	if r.Verdict != ResultChecked || r.Retries != 1 || len(ts) != 1 || len(ts[0].Retries) != 1 || ts[0].Retries[0] != "timeout after 500ms" {
		t.Fatalf("result %+v, traces %+v", r, ts)
	}
	within(t, h.srv.Recorded(2), "the endpoint to see the held request abandoned")
	var statuses []int
	for _, q := range h.srv.Requests() {
		statuses = append(statuses, q.Status)
	}
	if slices.Sort(statuses); !slices.Equal(statuses, []int{200, 499}) {
		t.Errorf("statuses %v, want the held request abandoned (499) and the retry answered", statuses)
	}
	if n := h.clock.Timers(); n != 0 {
		t.Errorf("%d attempt timers left running after the run", n)
	}
}

func TestRetriesGiveUp(t *testing.T) {
	busy := fakellm.Reply{Status: 503}
	h := newHarness(t, fakellm.Script{"acme": {busy, busy, busy, busy, busy}}, Options{CheckOnly: true, Rounds: 3})
	s := h.run(t, context.Background(), brief("acme"))
	r := onlyResult(t, s)
	if r.Verdict != ResultError || r.Retries != 3 || !strings.Contains(r.Reason, "503") || s.OK() {
		t.Fatalf("result %+v", r)
	}
	if n := len(h.srv.Requests()); n != 4 {
		t.Errorf("%d requests, want 4 (1 + 3 retries)", n)
	}
	if h.exists("acme.world") || h.exists("acme.failed.world") {
		t.Error("a brief whose requests failed wrote a spec")
	}
}

func TestNeverPasses(t *testing.T) {
	b := spec(t, "broken.world")
	h := newHarness(t, fakellm.Script{"acme": {b, b, b, b}}, Options{CheckOnly: true, Rounds: 3})
	s := h.run(t, context.Background(), brief("acme"))
	r := onlyResult(t, s)
	ts := h.traces(t, "acme")
	// The second identical set of diagnostics ends the repair: a fresh
	// draft, which repeats them, then a repair again.
	if got := verdicts(ts); got != "author:check-failed repair:check-failed fresh:check-failed repair:check-failed" {
		t.Errorf("traces %s", got)
	}
	if r.Verdict != ResultFailed || r.Attempts != 4 || r.FreshDrafts != 1 || !strings.HasPrefix(r.Reason, "check: acme.world:9:1: W016") {
		t.Fatalf("result %+v", r)
	}
	if h.exists("acme.world") || !h.exists("acme.failed.world") || r.Spec != "acme.failed.world" {
		t.Errorf("a failing world must be kept only as acme.failed.world (spec %q)", r.Spec)
	}
	if s.OK() || s.Failed != 1 {
		t.Errorf("summary %+v", s)
	}
}

func TestResume(t *testing.T) {
	good := spec(t, "good.world")
	h := newHarness(t, fakellm.Script{"acme": {good, good}, "bolt": {spec(t, "broken.world"), good}}, Options{CheckOnly: true, Rounds: 0})
	s := h.run(t, context.Background(), brief("acme"), brief("bolt"))
	if s.Checked != 1 || s.Failed != 1 || len(h.srv.Requests()) != 2 {
		t.Fatalf("first run: %+v", s)
	}
	// Done before, with the same brief, model and prompts: nothing asked.
	s = h.run(t, context.Background(), brief("acme"), brief("bolt"))
	if s.Skipped != 2 || s.Checked != 1 || s.Failed != 1 || len(h.srv.Requests()) != 2 || s.Requests != 0 {
		t.Fatalf("second run: %+v", s)
	}
	// A failed brief is redone on request, and a changed brief anyway.
	h.runner.Opts.RetryFailed = true
	changed := brief("acme")
	changed.Brief += " It also rents vans."
	s = h.run(t, context.Background(), changed, brief("bolt"))
	if s.Skipped != 0 || s.Checked != 2 || len(h.srv.Requests()) != 4 {
		t.Fatalf("third run: %+v", s)
	}
	if h.exists("bolt.failed.world") || !h.exists("bolt.world") {
		t.Error("bolt passed on its second run: bolt.world and no bolt.failed.world")
	}
}

// TestInterrupt: a cancelled run stops while its request is in flight,
// counts every brief not done as interrupted and keeps nothing of them;
// the next run does them. The cancel comes once the request is being held
// by the endpoint, so that it is in flight on every machine.
func TestInterrupt(t *testing.T) {
	hold := make(chan struct{})
	held := spec(t, "good.world")
	held.Hold = hold
	h := newHarness(t, fakellm.Script{"acme": {held, spec(t, "good.world")}, "bolt": {spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3, Jobs: 1})
	t.Cleanup(func() { close(hold) }) // before the server closes: it waits for its handlers
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := h.start(t, ctx, brief("acme"), brief("bolt"))
	within(t, h.srv.Arrived(1), "acme's request")
	cancel()
	s := within(t, done, "the interrupted run")
	if s.Interrupted != 2 || s.OK() {
		t.Fatalf("summary %+v", s)
	}
	within(t, h.srv.Recorded(1), "the endpoint to see acme's request abandoned")
	if reqs := h.srv.Requests(); len(reqs) != 1 || reqs[0].Key != "acme" || reqs[0].Status != 499 {
		t.Errorf("requests %+v, want acme's only, abandoned (499)", reqs)
	}
	for _, f := range []string{"results/acme.json", "acme.world", "results/bolt.json", "bolt.world"} {
		if h.exists(f) {
			t.Errorf("an interrupted brief left %s", f)
		}
	}
	// The next run does both.
	s = h.run(t, context.Background(), brief("acme"), brief("bolt"))
	if s.Checked != 2 || s.Skipped != 0 {
		t.Fatalf("after the interruption: %+v", s)
	}
}

func TestConcurrentBriefs(t *testing.T) {
	script := fakellm.Script{}
	var briefs []Brief
	for _, id := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
		script[id] = []fakellm.Reply{spec(t, "broken.world"), spec(t, "good.world")}
		briefs = append(briefs, brief(id))
	}
	h := newHarness(t, script, Options{CheckOnly: true, Rounds: 3, Jobs: 3})
	s := h.run(t, context.Background(), briefs...)
	if s.Checked != 5 || s.Requests != 10 || len(s.AfterRounds) != 0 {
		t.Fatalf("summary %+v", s)
	}
	for _, r := range s.Results {
		if r.Rounds != 1 || !h.exists(r.World+".world") {
			t.Errorf("%s: %+v", r.ID, r)
		}
	}
}

func TestStructuredOutput(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {{Content: `{"spec": ` + jsonString(replyFile(t, "good.world")) + `}`}}}, Options{CheckOnly: true, Rounds: 3})
	h.runner.Prompts.Structured = true
	seed, temp := 7, 0.0
	h.withClient(func(o *ClientOptions) { o.Structured, o.Seed, o.Temperature = true, &seed, &temp })
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	req := h.srv.Requests()[0]
	if r.Verdict != ResultChecked || req.ResponseFormat != "json_schema" || req.Seed == nil || *req.Seed != 7 || req.Temperature == nil || *req.Temperature > 1e-6 {
		t.Fatalf("result %+v, request format %q seed %v temperature %v", r, req.ResponseFormat, req.Seed, req.Temperature)
	}
	if !strings.Contains(req.Messages[0].Content, `Answer with a JSON object {"spec": "..."}`) {
		t.Error("the system prompt does not ask for JSON")
	}
}

func TestRateLimit(t *testing.T) {
	good := spec(t, "good.world")
	script := fakellm.Script{}
	var briefs []Brief
	for _, id := range []string{"alpha", "bravo", "charlie", "delta", "echo"} {
		script[id] = []fakellm.Reply{good}
		briefs = append(briefs, brief(id))
	}
	h := newHarness(t, script, Options{CheckOnly: true, Rounds: 3, Jobs: 5})
	h.withClient(func(o *ClientOptions) {
		o.RPM = 600 // one request every 100ms
		// The limiter's waits move the clock: no attempt may time out
		// meanwhile.
		o.Timeout = time.Hour
	})
	start := h.clock.Now()
	s := h.run(t, context.Background(), briefs...)
	if s.Checked != 5 {
		t.Fatalf("summary %+v", s)
	}
	// The fifth request goes out 400ms after the first, on the client's
	// clock: the limiter waited that long, whatever the goroutines' order.
	if d := h.clock.Now().Sub(start); d < 400*time.Millisecond {
		t.Errorf("5 requests at 600 per minute took %s, want at least 400ms (waits %v)", d, h.clock.Sleeps())
	}
}

// TestOutputsThroughPlantedFiles: what a run reads and writes in OUT is
// never a planted file's: a FIFO where a brief's traces or result go does
// not block the run (opening a FIFO waits for its other end), a link
// there is replaced, not written through, and a FIFO given to
// PassedBriefs is refused.
func TestOutputsThroughPlantedFiles(t *testing.T) {
	h := newHarness(t, fakellm.Script{"acme": {spec(t, "good.world")}, "bolt": {spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 0})
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"traces", "results"} {
		if err := os.MkdirAll(filepath.Join(h.out, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"traces/acme.jsonl", "results/acme.json"} {
		if err := mkfifo(filepath.Join(h.out, p)); err != nil {
			t.Skipf("no FIFO here: %v", err)
		}
	}
	for _, p := range []string{"traces/bolt.jsonl", "results/bolt.json"} {
		if err := os.Symlink(victim, filepath.Join(h.out, p)); err != nil {
			t.Fatal(err)
		}
	}
	s := within(t, h.start(t, context.Background(), brief("acme"), brief("bolt")), "the run over planted FIFOs")
	if s.Checked != 2 {
		t.Fatalf("summary %+v", s)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep" {
		t.Errorf("a link's target was written: %q", data)
	}
	for _, p := range []string{"traces/acme.jsonl", "results/acme.json", "traces/bolt.jsonl", "results/bolt.json"} {
		if info, err := os.Lstat(filepath.Join(h.out, p)); err != nil || !info.Mode().IsRegular() {
			t.Errorf("%s: %v, %v", p, info, err)
		}
	}
	if err := os.Remove(filepath.Join(h.out, "results", "bolt.json")); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(h.out, "results", "bolt.json")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := PassedBriefs(h.out)
		done <- err
	}()
	if err := within(t, done, "PassedBriefs over a FIFO"); err == nil || !strings.Contains(err.Error(), "is not a regular file but a named pipe (FIFO)") {
		t.Errorf("PassedBriefs: %v", err)
	}
}
