package author

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/author/fakellm"
	"github.com/worldc/worldc/runtime/serve/llm"
)

// TestRedirectKeepsTheKeyAtItsOrigin is issue 20's item 8: a redirect to
// another port of the endpoint's host is another server, and gets no
// Authorization header (net/http forwards it to the same host on any
// port); a redirect within the endpoint's origin keeps it.
func TestRedirectKeepsTheKeyAtItsOrigin(t *testing.T) {
	other := fakellm.New(fakellm.Script{"acme": {spec(t, "good.world")}})
	t.Cleanup(other.Close)
	h := newHarness(t, fakellm.Script{"acme": {{Redirect: other.BaseURL() + "/chat/completions"}}}, Options{CheckOnly: true, Rounds: 0})
	if a, b := mustParse(t, h.srv.URL), mustParse(t, other.URL); a.Hostname() != b.Hostname() || a.Port() == b.Port() {
		t.Fatalf("the two endpoints %s and %s should differ only by port", a, b)
	}
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	if r.Verdict != ResultChecked {
		t.Fatalf("result %+v: the redirect was not followed", r)
	}
	first, moved := h.srv.Requests(), other.Requests()
	if len(first) != 1 || first[0].Status != 307 || first[0].Auth != "Bearer test-key" {
		t.Fatalf("requests to the endpoint: %+v", first)
	}
	if len(moved) != 1 || moved[0].Auth != "" {
		t.Errorf("the request redirected to another port carried Authorization %q", moved[0].Auth)
	}

	// Within the endpoint's origin, the key goes along.
	h = newHarness(t, fakellm.Script{"bolt": {{Redirect: "/v1/chat/completions"}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 0})
	r = onlyResult(t, h.run(t, context.Background(), brief("bolt")))
	reqs := h.srv.Requests()
	if r.Verdict != ResultChecked || len(reqs) != 2 || reqs[1].Auth != "Bearer test-key" {
		t.Errorf("result %+v, requests %+v: a redirect to the same origin must keep the key", r, reqs)
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestEchoedKeyIsRedacted is issue 20's item 8: an endpoint that repeats
// the key in its error message does not get it written to the result, the
// traces or the reason printed; a reply that holds it (a secret-length
// key) neither.
func TestEchoedKeyIsRedacted(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	h := newHarness(t, fakellm.Script{
		"acme": {{Status: 401, EchoAuth: true}},
		"bolt": {{Content: "Your key is " + key + ".\n\n```world\n" + replyFile(t, "good.world") + "```\n"}},
	}, Options{CheckOnly: true, Rounds: 0})
	h.withClient(func(o *ClientOptions) { o.APIKey = key })
	s := h.run(t, context.Background(), brief("acme"), brief("bolt"))
	if reqs := h.srv.Requests(); len(reqs) != 2 || reqs[0].Auth != "Bearer "+key {
		t.Fatalf("requests %+v", reqs)
	}
	acme := s.Results[0]
	if acme.Verdict != ResultError || !strings.Contains(acme.Reason, "you sent Authorization: Bearer [redacted]") {
		t.Errorf("acme: %+v", acme)
	}
	for _, f := range []string{"results/acme.json", "traces/acme.jsonl", "results/bolt.json", "traces/bolt.jsonl", "bolt.world"} {
		data, err := os.ReadFile(filepath.Join(h.out, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds the API key:\n%s", f, data)
		}
	}
	if ts := h.traces(t, "bolt"); !strings.HasPrefix(ts[0].Reply, "Your key is [redacted].") {
		t.Errorf("bolt's reply in its trace: %.40q", ts[0].Reply)
	}
	if s.Results[1].Verdict != ResultChecked {
		t.Errorf("bolt: %+v", s.Results[1])
	}
}

// TestShortKeyStaysInReplies: a local server's placeholder key is not
// replaced in replies (where it is a word like any other), but is in
// errors (llm's TestRedactAndBound); a secret-length key is replaced.
func TestShortKeyStaysInReplies(t *testing.T) {
	c := NewClient(ClientOptions{Options: llm.Options{APIKey: "EMPTY"}})
	if got := c.redactContent("EMPTY stays"); got != "EMPTY stays" {
		t.Errorf("reply redacted to %q", got)
	}
	c = NewClient(ClientOptions{Options: llm.Options{APIKey: "sk-test-0123456789abcdef"}})
	if got := c.redactContent("sk-test-0123456789abcdef goes"); got != "[redacted] goes" {
		t.Errorf("reply redacted to %q", got)
	}
}

// TestReplySizeIsBounded is issue 20's item 7: a reply over the bound is
// an error of its brief, recorded in its trace and result, read no
// further than the bound and not asked again.
func TestReplySizeIsBounded(t *testing.T) {
	huge := strings.Repeat("a world spec of no end ", 10_000) // 230 kB
	h := newHarness(t, fakellm.Script{"acme": {{Content: huge}, spec(t, "good.world")}}, Options{CheckOnly: true, Rounds: 3})
	h.withClient(func(o *ClientOptions) { o.MaxReplyBytes = 64 << 10 })
	r := onlyResult(t, h.run(t, context.Background(), brief("acme")))
	const want = "the reply is larger than 65536 bytes"
	if r.Verdict != ResultError || !strings.Contains(r.Reason, want) || r.Retries != 0 {
		t.Fatalf("result %+v, want an error saying %q, without retries", r, want)
	}
	ts := h.traces(t, "acme")
	if len(ts) != 1 || ts[0].Verdict != VerdictError || !strings.Contains(ts[0].Error, want) || ts[0].Reply != "" {
		t.Errorf("traces %+v", ts)
	}
	if n := len(h.srv.Requests()); n != 1 {
		t.Errorf("%d requests: a reply too large was asked again", n)
	}
}
