package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

const okReply = `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`

// scripted answers the i-th request with replies[i] (the last repeats).
type scripted struct {
	mu      sync.Mutex
	replies []func(w http.ResponseWriter, r *http.Request)
	n       int
	auth    []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	i := min(s.n, len(s.replies)-1)
	s.n++
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	s.replies[i](w, r)
}

func status(code int, body string, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

func fast(url string) Options {
	o := Defaults()
	o.BaseURL = url + "/v1"
	o.BackoffMin, o.BackoffMax = time.Millisecond, 5*time.Millisecond
	o.Timeout = 5 * time.Second
	return o
}

func chat(c *Client) (Result, error) {
	return c.Chat(context.Background(), openai.ChatCompletionRequest{Model: "m", Messages: []openai.ChatCompletionMessage{{Role: "user", Content: "hello"}}})
}

// TestRetries: a 500, a 429 with Retry-After and a 200 that is not JSON
// are retried, and the reply after them is returned with the reasons.
func TestRetries(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){
		status(500, `{"error":{"message":"boom"}}`),
		status(429, `{"error":{"message":"slow down"}}`, "Retry-After", "0"),
		status(200, `{"choices": [`),
		status(200, okReply),
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	r, err := chat(New(fast(ts.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Response.Choices[0].Message.Content != "hi" || r.Response.Usage.PromptTokens != 3 {
		t.Errorf("reply: %+v", r.Response)
	}
	if len(r.Retries) != 3 || !strings.Contains(r.Retries[0], "500") || !strings.Contains(r.Retries[1], "429") || r.Retries[2] != "malformed JSON in the reply" {
		t.Errorf("retries: %q", r.Retries)
	}
}

// TestGivesUp: after Retries retries the last error is returned, as an
// *Error of kind api with its status; a 400 is not retried.
func TestGivesUp(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(503, `{"error":{"message":"down"}}`)}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	o := fast(ts.URL)
	o.Retries = 2
	_, err := chat(New(o))
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindAPI || e.Status != 503 || s.n != 3 {
		t.Errorf("%v (%d requests)", err, s.n)
	}
	s2 := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(400, `{"error":{"message":"bad request"}}`)}}
	ts2 := httptest.NewServer(s2)
	defer ts2.Close()
	if _, err := chat(New(fast(ts2.URL))); !errors.As(err, &e) || e.Status != 400 || s2.n != 1 {
		t.Errorf("400: %v (%d requests)", err, s2.n)
	}
}

// TestContextLength: OpenAI's code and vLLM's words are a context error.
func TestContextLength(t *testing.T) {
	for _, body := range []string{
		`{"error":{"message":"too long","code":"context_length_exceeded","type":"invalid_request_error"}}`,
		`{"object":"error","message":"This model's maximum context length is 32768 tokens. However, you requested 40000 tokens","type":"BadRequestError","code":400}`,
	} {
		ts := httptest.NewServer(http.HandlerFunc(status(400, body)))
		_, err := chat(New(fast(ts.URL)))
		ts.Close()
		var e *Error
		if !errors.As(err, &e) || e.Kind != KindContextLength {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestKey: the key is sent to the endpoint, not to another origin it
// redirects to, and is redacted from errors even when echoed.
func TestKey(t *testing.T) {
	const key = "sk-secret-0123456789abcdef"
	other := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(200, okReply)}}
	ots := httptest.NewServer(other)
	defer ots.Close()
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){
		func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, ots.URL+r.URL.Path, http.StatusTemporaryRedirect)
		},
		func(w http.ResponseWriter, r *http.Request) {
			status(401, `{"error":{"message":"bad key `+r.Header.Get("Authorization")+`"}}`)(w, r)
		},
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	o := fast(ts.URL)
	o.APIKey = key
	if _, err := chat(New(o)); err != nil {
		t.Fatal(err)
	}
	if s.auth[0] != "Bearer "+key || other.auth[0] != "" {
		t.Errorf("authorization: endpoint %q, redirect target %q", s.auth[0], other.auth[0])
	}
	_, err := chat(New(o))
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[redacted]") {
		t.Errorf("error: %v", err)
	}
}

// TestTimeoutAndSize: an attempt slower than Timeout is retried, then
// fails as a timeout; a reply over MaxReplyBytes fails at once.
func TestTimeoutAndSize(t *testing.T) {
	release := make(chan struct{})
	slow := &scripted{replies: []func(http.ResponseWriter, *http.Request){func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // the server sees the client go once the body is read
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}}}
	ts := httptest.NewServer(slow)
	defer ts.Close()
	defer close(release)
	o := fast(ts.URL)
	o.Timeout, o.Retries = 20*time.Millisecond, 1
	r, err := chat(New(o))
	if err == nil || !strings.Contains(err.Error(), "timeout after 20ms") || len(r.Retries) != 1 {
		t.Errorf("slow: %v, retries %q", err, r.Retries)
	}
	big := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(200, `{"x":"`+strings.Repeat("a", 2000)+`"}`)}}
	ts2 := httptest.NewServer(big)
	defer ts2.Close()
	o2 := fast(ts2.URL)
	o2.MaxReplyBytes = 1000
	if _, err := chat(New(o2)); err == nil || !strings.Contains(err.Error(), "larger than 1000 bytes") || big.n != 1 {
		t.Errorf("large: %v (%d requests)", err, big.n)
	}
}

// TestRPM: requests are spaced by the limit.
func TestRPM(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(200, okReply)}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	o := fast(ts.URL)
	o.RPM = 1200 // one each 50ms
	c := New(o)
	start := time.Now()
	for range 3 {
		if _, err := chat(c); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(start); d < 100*time.Millisecond {
		t.Errorf("3 requests at 1200 rpm took %s, want at least 100ms", d)
	}
}

// TestCancel: a cancelled context ends a request at once with its error.
func TestCancel(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(500, `{}`)}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	o := fast(ts.URL)
	o.BackoffMin, o.BackoffMax = time.Hour, time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	_, err := New(o).Chat(ctx, openai.ChatCompletionRequest{Model: "m"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("%v", err)
	}
}

// TestSameOrigin: the origin is scheme, host and port, a default port
// written or not.
func TestSameOrigin(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{"https://api.example.com/v1", "https://api.example.com:443/other", true},
		{"http://localhost/v1", "http://LOCALHOST:80/v1", true},
		{"http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1", false},
		{"https://api.example.com/v1", "http://api.example.com/v1", false},
		{"https://example.com/v1", "https://api.example.com/v1", false},
	} {
		a, err := url.Parse(c.a)
		if err != nil {
			t.Fatal(err)
		}
		b, err := url.Parse(c.b)
		if err != nil {
			t.Fatal(err)
		}
		if got := sameOrigin(a, b); got != c.same {
			t.Errorf("sameOrigin(%s, %s) = %v, want %v", c.a, c.b, got, c.same)
		}
	}
}

// TestRedactAndBound: an endpoint's error body goes into the error whole;
// the client cuts it after redacting the key (a key cut in two would be
// redacted no more), on a rune boundary. A short key is redacted from
// errors too.
func TestRedactAndBound(t *testing.T) {
	const key = "sk-test-0123456789abcdef"
	c := New(Options{APIKey: key})
	body := strings.Repeat("é", maxErrorBytes) + key
	msg := c.bound("body: " + strings.Repeat("x", maxErrorBytes-20) + key + body)
	if len(msg) > maxErrorBytes+40 || !strings.HasSuffix(msg, " bytes more)") || !utf8.ValidString(msg) || strings.Contains(msg, "sk-test") || !strings.Contains(msg, "[redacted]") {
		t.Errorf("error of %d bytes: %.60q … %q", len(msg), msg, msg[len(msg)-40:])
	}
	if got := New(Options{APIKey: "EMPTY"}).bound("sent EMPTY"); got != "sent [redacted]" {
		t.Errorf("error %q", got)
	}
	if got := New(Options{}).Redact("no key"); got != "no key" {
		t.Errorf("without a key: %q", got)
	}
}

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadBounded: a body of the bound is read whole; one byte more is an
// error, and the body is read no further than one byte past the bound; a
// declared length over the bound fails at once; the error names the flag
// when told.
func TestReadBounded(t *testing.T) {
	body := func(n int) *countingReader { return &countingReader{r: strings.NewReader(strings.Repeat("x", n))} }
	if data, err := readBounded(body(1000), -1, 1000, ""); err != nil || len(data) != 1000 {
		t.Errorf("a body of the bound: %d bytes, %v", len(data), err)
	}
	cr := body(1 << 20)
	data, err := readBounded(cr, -1, 1000, "")
	var large *replyTooLargeError
	if !errors.As(err, &large) || data != nil || cr.n > 1001 {
		t.Errorf("a body over the bound: %d bytes returned, %d read, error %v", len(data), cr.n, err)
	}
	cr = body(10)
	if _, err := readBounded(cr, 1<<20, 1000, "the --max flag"); !errors.As(err, &large) || cr.n != 0 ||
		err.Error() != "the reply is larger than 1000 bytes, the bound of a reply (the --max flag)" {
		t.Errorf("a declared length over the bound: %d bytes read, error %v", cr.n, err)
	}
}

// stepClock is a Clock at a fixed time that records its sleeps.
type stepClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Duration
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) Sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(max(d, 0))
	return ctx.Err()
}

func (c *stepClock) AfterFunc(time.Duration, func()) func() bool { return func() bool { return true } }

// TestBackoff: exponential from BackoffMin, capped by BackoffMax (and not
// overflowing); a positive Retry-After of a 429 or 503, in seconds or as
// a date on the client's clock, replaces it up to MaxRetryAfter; a zero
// or past one, or one on another status, does not.
func TestBackoff(t *testing.T) {
	clock := &stepClock{now: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
	c := New(Options{BackoffMin: time.Second, BackoffMax: time.Minute, MaxRetryAfter: 5 * time.Minute, Clock: clock})
	resp := func(code int, ra string) *http.Response {
		r := &http.Response{StatusCode: code, Header: http.Header{}}
		if ra != "" {
			r.Header.Set("Retry-After", ra)
		}
		return r
	}
	for _, x := range []struct {
		attempt int
		resp    *http.Response
		want    time.Duration
	}{
		{0, nil, time.Second},
		{3, resp(500, ""), 8 * time.Second},
		{40, nil, time.Minute},
		{1, resp(429, "7"), 7 * time.Second},
		{1, resp(503, "3600"), 5 * time.Minute},
		{1, resp(429, "99999999999999999"), 5 * time.Minute},
		{0, resp(429, clock.now.Add(90*time.Second).Format(http.TimeFormat)), 90 * time.Second},
		{0, resp(429, clock.now.Add(-time.Hour).Format(http.TimeFormat)), time.Second},
		{2, resp(429, "0"), 4 * time.Second},
		{0, resp(429, "soon"), time.Second},
		{0, resp(500, "7"), time.Second},
	} {
		ra := ""
		if x.resp != nil {
			ra = x.resp.Header.Get("Retry-After")
		}
		if got := c.backoff(x.attempt, x.resp); got != x.want {
			t.Errorf("attempt %d, Retry-After %q: %s, want %s", x.attempt, ra, got, x.want)
		}
	}
	huge := New(Options{BackoffMin: time.Hour, BackoffMax: math.MaxInt64})
	if got := huge.backoff(62, nil); got <= 0 {
		t.Errorf("an overflowing backoff: %s", got)
	}
}

// TestRetryAfterOnTheClock: the wait before a retry, the latency and the
// rate limiter's spacing are on the client's clock.
func TestRetryAfterOnTheClock(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){
		status(429, `{"error":{"message":"slow down"}}`, "Retry-After", "2"),
		status(200, okReply),
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	clock := &stepClock{now: time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC)}
	o := fast(ts.URL)
	o.Clock, o.RPM = clock, 6 // one each 10s
	r, err := chat(New(o))
	if err != nil {
		t.Fatal(err)
	}
	// The limiter lets the first attempt go, then spaces the retry 10s
	// after it: 2s of Retry-After and 8s more.
	if want := []time.Duration{0, 2 * time.Second, 8 * time.Second}; !slices.Equal(clock.sleeps, want) || r.Latency != 10*time.Second {
		t.Errorf("sleeps %v, latency %s; want %v, 10s", clock.sleeps, r.Latency, want)
	}
	if len(r.Retries) != 1 || r.Retries[0] != "429 Too Many Requests (Retry-After 2)" {
		t.Errorf("retries %q", r.Retries)
	}
}

// TestTruncatedReplyIsRetried: a reply whose body ends before its
// declared length is a connection error, retried with the reason.
func TestTruncatedReplyIsRetried(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){
		func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(200)
			fmt.Fprint(w, `{"choices":`)
		},
		status(200, okReply),
	}}
	ts := httptest.NewServer(s)
	defer ts.Close()
	r, err := chat(New(fast(ts.URL)))
	if err != nil || len(r.Retries) != 1 || r.Retries[0] != "reading the reply: unexpected EOF" {
		t.Errorf("%v, retries %q", err, r.Retries)
	}
}

// TestPermanentErrorsAreNotRetried: an endpoint whose certificate is not
// trusted, or whose scheme is not HTTP, fails the same way again: it is
// not retried.
func TestPermanentErrorsAreNotRetried(t *testing.T) {
	s := &scripted{replies: []func(http.ResponseWriter, *http.Request){status(200, okReply)}}
	ts := httptest.NewTLSServer(s)
	defer ts.Close()
	for base, want := range map[string]string{ts.URL: "certificate", "ftp://127.0.0.1:1": "unsupported protocol scheme"} {
		o := fast(base)
		o.Retries = 3
		r, err := chat(New(o))
		var e *Error
		if !errors.As(err, &e) || !strings.Contains(e.Message, want) || len(r.Retries) != 0 {
			t.Errorf("%s: %v, retries %q", base, err, r.Retries)
		}
	}
	if s.n != 0 {
		t.Errorf("%d requests reached the untrusted server", s.n)
	}
}

// TestSampling: a zero temperature is sent (as the smallest float32), the
// seed as seed+n; neither when not given.
func TestSampling(t *testing.T) {
	var req openai.ChatCompletionRequest
	Sampling(&req, nil, nil, 3)
	if req.Temperature != 0 || req.Seed != nil {
		t.Errorf("nothing given: %+v", req)
	}
	zero, seed := 0.0, 40
	Sampling(&req, &zero, &seed, 2)
	if req.Temperature != math.SmallestNonzeroFloat32 || req.Seed == nil || *req.Seed != 42 {
		t.Errorf("temperature %v, seed %v", req.Temperature, req.Seed)
	}
}
