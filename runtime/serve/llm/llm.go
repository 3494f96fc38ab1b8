// Package llm is a small chat-completions client for OpenAI-compatible
// endpoints (OpenAI, vLLM, Ollama, …), for the bundle binary's eval: the
// requests and replies are go-openai's, sent over an HTTP transport that
// retries (timeouts, connection errors, 429, 5xx, a 200 whose body is not
// JSON) with exponential backoff honouring Retry-After, bounds each
// attempt's time and each reply's size, and spaces requests to a
// requests-per-minute limit. It keeps the rules `worldc author`'s client
// keeps with untrusted endpoints: the API key goes to the endpoint's
// origin only (never on a redirect elsewhere) and is redacted from every
// error, and errors are bounded in size.
//
// It depends on go-openai and the standard library only, so that the
// runtime's server module stays small.
package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
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
	// reply's body; 0 means none.
	Timeout time.Duration
	// Retries is how many times a request is sent again after a timeout, a
	// connection error, a 429, a 5xx or a 200 that is not JSON.
	Retries int
	// BackoffMin and BackoffMax bound the exponential backoff between
	// attempts; a Retry-After header replaces it, up to MaxRetryAfter.
	BackoffMin, BackoffMax, MaxRetryAfter time.Duration
	// RPM spaces attempts to at most this many a minute (0: no limit).
	RPM float64
	// MaxReplyBytes bounds a reply's body (0: DefaultMaxReplyBytes); a
	// longer one is an error, not retried.
	MaxReplyBytes int64
}

// DefaultMaxReplyBytes is the default bound of a reply's body.
const DefaultMaxReplyBytes = 16 << 20

// Defaults are the options of `eval` when no flag says otherwise.
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

// Client sends chat-completion requests. It is safe for concurrent use.
type Client struct {
	opts     Options
	api      *openai.Client
	limiter  *limiter
	endpoint string // the base URL without a password, for errors
}

// New returns a client for the endpoint.
func New(opts Options) *Client {
	if opts.MaxReplyBytes <= 0 {
		opts.MaxReplyBytes = DefaultMaxReplyBytes
	}
	c := &Client{opts: opts, endpoint: opts.BaseURL}
	if u, err := url.Parse(opts.BaseURL); err == nil {
		c.endpoint = u.Redacted()
	}
	if opts.RPM > 0 {
		c.limiter = &limiter{interval: time.Duration(float64(time.Minute) / opts.RPM)}
	}
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = &http.Client{Transport: &transport{c: c, base: http.DefaultTransport}, CheckRedirect: checkRedirect}
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// Result is a reply with what it took.
type Result struct {
	Response openai.ChatCompletionResponse
	// Latency is the wall time of the request, retries and waits included.
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
// bounded.
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
	start := time.Now()
	resp, err := c.api.CreateChatCompletion(context.WithValue(ctx, recordKey{}, rec), req)
	r := Result{Response: resp, Latency: time.Since(start)}
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

// bound redacts the key from s and cuts it to maxErrorBytes.
func (c *Client) bound(s string) string {
	if c.opts.APIKey != "" {
		s = strings.ReplaceAll(s, c.opts.APIKey, "[redacted]")
	}
	if len(s) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = fmt.Sprintf("%s… (%d bytes more)", s[:cut], len(s)-cut)
	}
	return s
}

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
	opts := t.c.opts
	for attempt := 0; ; attempt++ {
		if err := t.c.limiter.wait(ctx); err != nil {
			return nil, err
		}
		actx, cancel := ctx, context.CancelFunc(func() {})
		if opts.Timeout > 0 {
			actx, cancel = context.WithTimeout(ctx, opts.Timeout)
		}
		r := req.Clone(actx)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		resp, err := t.base.RoundTrip(r)
		var data []byte
		if err == nil {
			data, err = readBounded(resp.Body, opts.MaxReplyBytes)
			resp.Body.Close()
		}
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var tooLarge *replyTooLargeError
		if errors.As(err, &tooLarge) {
			return nil, err
		}
		reason := ""
		switch {
		case err != nil:
			reason = err.Error()
			if errors.Is(err, context.DeadlineExceeded) {
				reason = fmt.Sprintf("timeout after %s", opts.Timeout)
				err = errors.New(reason)
			}
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented:
			reason = resp.Status
		case resp.StatusCode == http.StatusOK && !json.Valid(data):
			reason = "malformed JSON in the reply"
		}
		if reason == "" || attempt >= opts.Retries {
			if err != nil {
				return nil, err
			}
			resp.Body = io.NopCloser(bytes.NewReader(data))
			resp.ContentLength = int64(len(data))
			return resp, nil
		}
		if rec != nil {
			rec.mu.Lock()
			rec.retries = append(rec.retries, t.c.bound(reason))
			rec.mu.Unlock()
		}
		if err := sleep(ctx, t.backoff(attempt, resp)); err != nil {
			return nil, err
		}
	}
}

// backoff is min·2^attempt up to max, or the Retry-After of a 429 or 503
// (seconds or an HTTP date), up to MaxRetryAfter.
func (t *transport) backoff(attempt int, resp *http.Response) time.Duration {
	o := t.c.opts
	if resp != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) {
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			var d time.Duration
			if s, err := strconv.Atoi(ra); err == nil && s >= 0 {
				d = time.Duration(s) * time.Second
			} else if at, err := http.ParseTime(ra); err == nil {
				d = time.Until(at)
			}
			if d > 0 {
				if o.MaxRetryAfter > 0 && d > o.MaxRetryAfter {
					d = o.MaxRetryAfter
				}
				return d
			}
		}
	}
	d := o.BackoffMin << min(attempt, 30)
	if d <= 0 || (o.BackoffMax > 0 && d > o.BackoffMax) {
		d = o.BackoffMax
	}
	return d
}

// readBounded reads r whole, failing beyond max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, &replyTooLargeError{max}
	}
	return data, nil
}

type replyTooLargeError struct{ max int64 }

func (e *replyTooLargeError) Error() string {
	return fmt.Sprintf("the reply is larger than %d bytes, the bound of a reply", e.max)
}

// checkRedirect follows at most 10 redirects and sends the key only to the
// origin of the first request (net/http would send it to another port or
// scheme of the same host).
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	a, b := req.URL, via[0].URL
	if !strings.EqualFold(a.Scheme, b.Scheme) || !strings.EqualFold(a.Hostname(), b.Hostname()) || port(a) != port(b) {
		req.Header.Del("Authorization")
	}
	return nil
}

func port(u *url.URL) string {
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

func (l *limiter) wait(ctx context.Context) error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	now := time.Now()
	at := l.next
	if at.Before(now) {
		at = now
	}
	l.next = at.Add(l.interval)
	l.mu.Unlock()
	return sleep(ctx, at.Sub(now))
}

func sleep(ctx context.Context, d time.Duration) error {
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
