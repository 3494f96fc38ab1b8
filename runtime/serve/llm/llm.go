// Package llm is the chat-completions client of worldc for OpenAI-compatible
// endpoints (OpenAI, vLLM, Ollama, …): `worldc author` and `worldc tasks
// --model` use it through internal/author, the bundle binary's eval
// directly. The requests and replies are go-openai's, sent over an HTTP
// transport that retries (timeouts, connection errors, 429, 5xx, a 200
// whose body is not JSON) with exponential backoff honouring Retry-After,
// bounds each attempt's time and each reply's size, and spaces requests to
// a requests-per-minute limit. It keeps the rules of untrusted endpoints:
// the API key goes to the endpoint's origin only (never on a redirect
// elsewhere) and is redacted from every error and retry reason, and errors
// are bounded in size.
//
// It depends on go-openai and the standard library only, so that the
// runtime's server module stays small.
package llm

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	openai "github.com/sashabaranov/go-openai"
)

// Options configures a Client.
type Options struct {
	// BaseURL is the endpoint's base: https://api.openai.com/v1,
	// http://localhost:8000/v1 (vLLM), http://localhost:11434/v1 (Ollama).
	BaseURL string
	// APIKey is sent as a bearer token when not empty (local servers need
	// none).
	APIKey string
	// Timeout bounds each HTTP attempt, from the request to the end of the
	// reply's body (each hop of a redirect has its own), on Clock; a reply
	// slower than that is retried. 0 means no bound.
	Timeout time.Duration
	// Retries is how many times a request is sent again after a timeout, a
	// connection error, a 429, a 5xx (but 501) or a 200 that is not JSON.
	Retries int
	// BackoffMin and BackoffMax bound the exponential backoff between
	// attempts (BackoffMax 0: BackoffMin every time); a positive
	// Retry-After on a 429 or 503 replaces it, up to MaxRetryAfter (0: not
	// capped).
	BackoffMin, BackoffMax, MaxRetryAfter time.Duration
	// RPM spaces attempts to at most this many a minute (every attempt
	// counts; 0: no limit).
	RPM float64
	// MaxReplyBytes bounds a reply's body (0: DefaultMaxReplyBytes); a
	// longer one is an error, not retried (asking again costs as much and
	// brings as long a reply).
	MaxReplyBytes int64
	// MaxReplyFlag, when set, names what sets MaxReplyBytes in the error of
	// a reply over it ("worldc's --max-reply-bytes").
	MaxReplyFlag string
	// Clock is what the client waits on (timeouts, backoff, the rate
	// limiter) and measures latency with; nil is the system clock.
	Clock Clock
}

// DefaultMaxReplyBytes is the default bound of a reply's body: a world spec
// is at most 8 MiB, and a reply holds one in a JSON string, with its
// escapes, and a little more.
const DefaultMaxReplyBytes = 16 << 20

// Defaults are the options when no flag says otherwise.
func Defaults() Options {
	return Options{
		BaseURL:       "https://api.openai.com/v1",
		Timeout:       5 * time.Minute,
		Retries:       5,
		BackoffMin:    time.Second,
		BackoffMax:    time.Minute,
		MaxRetryAfter: 5 * time.Minute,
		MaxReplyBytes: DefaultMaxReplyBytes,
	}
}

// Clock is the time a Client waits on: the timeout of each HTTP attempt,
// the backoff between retries, the rate limiter, and the latency it
// reports. The system clock is the default; tests give the client a clock
// of their own, so that no test waits on real time and none depends on the
// machine's speed.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (then it returns ctx's error).
	Sleep(ctx context.Context, d time.Duration) error
	// AfterFunc calls f in its own goroutine once d has passed; stop
	// prevents that if it has not happened yet, and reports whether it
	// did.
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// systemClock is the Clock of the time package.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, f).Stop
}

// Client sends chat-completion requests. It is safe for concurrent use.
type Client struct {
	opts     Options
	api      *openai.Client
	clock    Clock
	limiter  *limiter
	endpoint string // the base URL without a password, for errors
}

// New returns a client for the endpoint.
func New(opts Options) *Client {
	if opts.MaxReplyBytes <= 0 {
		opts.MaxReplyBytes = DefaultMaxReplyBytes
	}
	c := &Client{opts: opts, clock: opts.Clock, endpoint: opts.BaseURL}
	if c.clock == nil {
		c.clock = systemClock{}
	}
	if u, err := url.Parse(opts.BaseURL); err == nil {
		c.endpoint = u.Redacted()
	}
	if opts.RPM > 0 {
		c.limiter = &limiter{interval: time.Duration(float64(time.Minute) / opts.RPM)}
	}
	// A pool of the client's own, with as many idle connections to the
	// endpoint as requests may run at once (net/http's default keeps 2).
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.MaxIdleConnsPerHost = runtime.GOMAXPROCS(0) + 1
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = &http.Client{Transport: &transport{c: c, base: base}, CheckRedirect: checkRedirect}
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// Result is a reply with what it took.
type Result struct {
	Response openai.ChatCompletionResponse
	// Latency is the time of the request on the client's clock, retries
	// and waits included.
	Latency time.Duration
	// Retries are the reasons of the attempts that were retried, in order.
	Retries []string
}

// The kinds of Error.
const (
	KindAPI           = "api"            // the endpoint failed or refused, after the retries
	KindContextLength = "context_length" // the conversation no longer fits the model's context
)

// Error is a request that failed: its text has the key redacted and is
// bounded. It wraps nothing: an error it wrapped would hold the key for
// whoever prints it.
type Error struct {
	Kind    string // KindAPI or KindContextLength
	Status  int    // the HTTP status, 0 when there was no response
	Message string
}

func (e *Error) Error() string { return e.Message }

// Chat sends one chat-completion request. A cancelled ctx returns its
// error as it is; any other failure is an *Error.
func (c *Client) Chat(ctx context.Context, req openai.ChatCompletionRequest) (Result, error) {
	rec := &record{}
	start := c.clock.Now()
	resp, err := c.api.CreateChatCompletion(context.WithValue(ctx, recordKey{}, rec), req)
	r := Result{Response: resp, Latency: c.clock.Now().Sub(start)}
	rec.mu.Lock()
	r.Retries = rec.retries
	rec.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, c.classify(err)
	}
	if len(resp.Choices) == 0 {
		return r, &Error{Kind: KindAPI, Status: http.StatusOK, Message: c.bound(c.endpoint + ": the reply has no choices")}
	}
	return r, nil
}

// Sampling sets a request's temperature and seed when given: seed+n is
// sent, so that the n-th request of a series (a trial, an attempt) is not
// the same draw again, and a run is repeatable.
func Sampling(req *openai.ChatCompletionRequest, temperature *float64, seed *int, n int) {
	if temperature != nil {
		req.Temperature = float32(*temperature)
		if req.Temperature == 0 {
			// go-openai omits a zero temperature (omitempty); the smallest
			// positive float32 is how it is sent as 0.
			req.Temperature = math.SmallestNonzeroFloat32
		}
	}
	if seed != nil {
		s := *seed + n
		req.Seed = &s
	}
}

// classify turns go-openai's error into an *Error.
func (c *Client) classify(err error) *Error {
	e := &Error{Kind: KindAPI}
	var ae *openai.APIError
	var re *openai.RequestError
	code := ""
	switch {
	case errors.As(err, &ae):
		e.Status = ae.HTTPStatusCode
		code, _ = ae.Code.(string)
	case errors.As(err, &re):
		e.Status = re.HTTPStatusCode
	}
	msg := err.Error()
	if code == "context_length_exceeded" || contextLengthMessage(msg) {
		e.Kind = KindContextLength
	}
	e.Message = c.bound(c.endpoint + ": " + msg)
	return e
}

// contextLengthMessage recognises the context errors of OpenAI, vLLM and
// llama.cpp-style servers by their words.
func contextLengthMessage(msg string) bool {
	m := strings.ToLower(msg)
	for _, w := range []string{"context length", "context_length", "maximum context", "context window", "prompt is too long", "too many tokens"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}

// Redact replaces the API key in s. Errors are what an endpoint controls
// (its messages, its bodies), and what is written to results and traces
// and printed.
func (c *Client) Redact(s string) string {
	if c.opts.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.opts.APIKey, "[redacted]")
}

// bound redacts the key from s and cuts it to maxErrorBytes, after
// redacting (a key cut in two would be redacted no more): an endpoint's
// error body goes into go-openai's error whole, and the text becomes a
// result's reason, a trace's error and a line on the terminal.
func (c *Client) bound(s string) string {
	s = c.Redact(s)
	if len(s) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
	}
	return s
}

// maxErrorBytes bounds the text of an error of the client.
const maxErrorBytes = 4 << 10

// record collects a request's retries; it travels in its context.
type record struct {
	mu      sync.Mutex
	retries []string
}

type recordKey struct{}

// transport is the HTTP transport of one hop: attempts with their timeout,
// the reply read whole (bounded), retries.
type transport struct {
	c    *Client
	base http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	rec, _ := ctx.Value(recordKey{}).(*record)
	c := t.c
	for attempt := 0; ; attempt++ {
		if err := c.limiter.wait(ctx, c.clock); err != nil {
			return nil, err
		}
		resp, data, err := t.attempt(req, body)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		reason := c.retryReason(resp, data, err)
		if reason == "" || attempt >= c.opts.Retries {
			if err != nil {
				return nil, err
			}
			resp.Body = io.NopCloser(bytes.NewReader(data))
			resp.ContentLength = int64(len(data))
			return resp, nil
		}
		if rec != nil {
			rec.mu.Lock()
			rec.retries = append(rec.retries, c.bound(reason))
			rec.mu.Unlock()
		}
		if err := c.clock.Sleep(ctx, c.backoff(attempt, resp)); err != nil {
			return nil, err
		}
	}
}

// attempt sends the request once and reads its reply whole, within the
// timeout on the client's clock and the bound of a reply.
func (t *transport) attempt(req *http.Request, body []byte) (*http.Response, []byte, error) {
	o := t.c.opts
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	timedOut := &atomic.Bool{}
	if o.Timeout > 0 {
		stop := t.c.clock.AfterFunc(o.Timeout, func() {
			timedOut.Store(true)
			cancel()
		})
		defer stop()
	}
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		if timedOut.Load() {
			err = &timeoutError{o.Timeout}
		}
		return nil, nil, err
	}
	data, err := readBounded(resp.Body, resp.ContentLength, o.MaxReplyBytes, o.MaxReplyFlag)
	resp.Body.Close()
	var large *replyTooLargeError
	switch {
	case err == nil, errors.As(err, &large):
	case timedOut.Load():
		err = &timeoutError{o.Timeout}
	default:
		err = fmt.Errorf("reading the reply: %w", err)
	}
	return resp, data, err
}

// retryReason says why an attempt is retried, or "" when it is not: a
// timeout, a connection error (but a certificate, a scheme or a header
// that would fail again), a 429, a 5xx but 501, a 200 whose body is not
// JSON. A reply over the bound is not retried.
func (c *Client) retryReason(resp *http.Response, data []byte, err error) string {
	var large *replyTooLargeError
	var cert *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	switch {
	case err == nil:
	case errors.As(err, &large), errors.As(err, &cert), errors.As(err, &authority),
		strings.Contains(err.Error(), "unsupported protocol scheme"), strings.Contains(err.Error(), "invalid header field"):
		return ""
	default:
		return err.Error()
	}
	switch s := resp.StatusCode; {
	case s == http.StatusTooManyRequests || s >= 500 && s != http.StatusNotImplemented:
		reason := resp.Status
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			reason += " (Retry-After " + ra + ")"
		}
		return reason
	case s == http.StatusOK && !json.Valid(data):
		return "malformed JSON in the reply"
	}
	return ""
}

// backoff is BackoffMin·2^attempt up to BackoffMax, or the Retry-After of
// a 429 or 503 (seconds or an HTTP date, on the client's clock) when it is
// positive, up to MaxRetryAfter. A Retry-After of 0 or a past date is the
// backoff: a client does not ask again at once.
func (c *Client) backoff(attempt int, resp *http.Response) time.Duration {
	o := c.opts
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			var d time.Duration
			if s, err := strconv.ParseInt(ra, 10, 64); err == nil && s >= 0 {
				d = time.Duration(min(s, math.MaxInt64/int64(time.Second))) * time.Second
			} else if at, err := http.ParseTime(ra); err == nil {
				d = at.Sub(c.clock.Now())
			}
			if d > 0 {
				if o.MaxRetryAfter > 0 && d > o.MaxRetryAfter {
					d = o.MaxRetryAfter
				}
				return d
			}
		}
	}
	d := max(o.BackoffMin, 0)
	for i := 0; i < attempt && d < o.BackoffMax && d <= math.MaxInt64/2; i++ {
		d *= 2
	}
	if o.BackoffMax > 0 && d > o.BackoffMax {
		d = o.BackoffMax
	}
	return d
}

// readBounded reads r whole, failing beyond max bytes, at once when the
// declared length (-1: none) is over it; it reads no more than max+1.
func readBounded(r io.Reader, declared, max int64, flag string) ([]byte, error) {
	if declared > max {
		return nil, &replyTooLargeError{max, flag}
	}
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if int64(len(data)) > max {
		return nil, &replyTooLargeError{max, flag}
	}
	if err != nil {
		return nil, err
	}
	return data, nil
}

// replyTooLargeError is a response body over the bound.
type replyTooLargeError struct {
	max  int64
	flag string
}

func (e *replyTooLargeError) Error() string {
	s := fmt.Sprintf("the reply is larger than %d bytes, the bound of a reply", e.max)
	if e.flag != "" {
		s += " (" + e.flag + ")"
	}
	return s
}

// timeoutError is an attempt that ran out of time.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("timeout after %s", e.d) }
func (e *timeoutError) Timeout() bool { return true }

// checkRedirect follows at most 10 redirects (as net/http does, with its
// message) and sends the API key only to the origin of the first request.
// net/http forwards Authorization to the same host on any port and scheme,
// and to its subdomains: another port of the endpoint's host is another
// server, whoever runs it.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !sameOrigin(req.URL, via[0].URL) {
		req.Header.Del("Authorization")
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (a default port written or not).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && originPort(a) == originPort(b)
}

func originPort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}

// limiter spaces attempts by interval (a burst of one).
type limiter struct {
	mu       sync.Mutex
	interval time.Duration
	next     time.Time
}

func (l *limiter) wait(ctx context.Context, clock Clock) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := clock.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	return clock.Sleep(ctx, at.Sub(now))
}
