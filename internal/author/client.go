package author

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/go-cleanhttp"
	"github.com/hashicorp/go-retryablehttp"
	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/time/rate"
)

// ClientOptions configures a Client.
type ClientOptions struct {
	// BaseURL is the endpoint's base, such as https://api.openai.com/v1,
	// http://localhost:8000/v1 (vLLM) or http://localhost:11434/v1 (Ollama).
	BaseURL string
	APIKey  string
	Model   string
	// Temperature and Seed are sent when set.
	Temperature *float64
	Seed        *int
	// MaxTokens bounds the reply (max_tokens); 0 sends none.
	MaxTokens int
	// Structured asks for a JSON object {"spec": "…"} through a JSON schema
	// response format (for endpoints that support structured output), or
	// for an object of Schema when it is set.
	Structured bool
	Schema     *Schema
	// Timeout bounds each HTTP attempt, from the request to the end of the
	// reply's body (each hop of a redirect has its own), on Clock; a reply
	// slower than that is retried. 0 means no bound.
	Timeout time.Duration
	// Retries is how many times a request is retried after a timeout, a
	// connection error, a 429, a 5xx or a malformed response.
	Retries int
	// BackoffMin and BackoffMax bound the exponential backoff between
	// retries; a Retry-After header on a 429 or 503 replaces it, up to
	// MaxRetryAfter.
	BackoffMin, BackoffMax, MaxRetryAfter time.Duration
	// RPM limits the requests per minute (every attempt counts); 0 means
	// no limit.
	RPM float64
	// MaxReplyBytes bounds the body of every response; a longer one is an
	// error, not retried (asking again costs as much and brings as long a
	// reply). 0 means DefaultMaxReplyBytes.
	MaxReplyBytes int64
	// Clock is what the client waits on (timeouts, backoff, the rate
	// limiter) and measures latency with; nil is the system clock.
	Clock Clock
}

// DefaultMaxReplyBytes is the default bound of a response body: a spec
// is at most dsl.MaxFileSize (8 MiB), and a reply holds one spec in a JSON
// string, with its escapes, and a little more.
const DefaultMaxReplyBytes = 16 << 20

// DefaultClientOptions are the defaults of `worldc author`.
func DefaultClientOptions() ClientOptions {
	return ClientOptions{
		BaseURL:       "https://api.openai.com/v1",
		Timeout:       5 * time.Minute,
		Retries:       5,
		BackoffMin:    time.Second,
		BackoffMax:    time.Minute,
		MaxRetryAfter: 5 * time.Minute,
		MaxReplyBytes: DefaultMaxReplyBytes,
	}
}

// Reply is a model's answer to one request.
type Reply struct {
	Content      string
	FinishReason string
	Usage        Usage
	// Latency is the time of the request on the client's clock, retries
	// and waits included.
	Latency time.Duration
	// Retries are the reasons of the retries the request took, in order.
	Retries []string
}

// Usage counts tokens as the endpoint reports them.
type Usage struct {
	Prompt     int `json:"prompt"`
	Completion int `json:"completion"`
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) { u.Prompt += u2.Prompt; u.Completion += u2.Completion }

// Total is prompt plus completion tokens.
func (u Usage) Total() int { return u.Prompt + u.Completion }

// Client sends chat-completion requests to an OpenAI-compatible endpoint
// through go-openai, over an HTTP client that retries (go-retryablehttp)
// and a requests-per-minute limiter (x/time/rate).
//
// Whatever the endpoint answers, the client keeps the rules of untrusted
// input: a response body is bounded (MaxReplyBytes), the API key goes to
// the endpoint's origin only (never on a redirect to another scheme, host
// or port), and the key is redacted from every error it returns, so that
// an endpoint echoing it cannot have it written to results, traces or the
// terminal.
type Client struct {
	opts    ClientOptions
	api     *openai.Client
	limiter *rate.Limiter
	clock   Clock
	// endpoint is the base URL as errors name it: without a password.
	endpoint string
}

// NewClient returns a client for the endpoint.
func NewClient(opts ClientOptions) *Client {
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
		c.limiter = rate.NewLimiter(rate.Limit(opts.RPM/60), 1)
	}
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	// The attempt's timeout is the transport's, on the client's clock
	// (http.Client.Timeout would be the system's).
	rc.HTTPClient = &http.Client{
		Transport:     &attemptTransport{base: cleanhttp.DefaultPooledTransport(), clock: c.clock, timeout: opts.Timeout, maxBody: opts.MaxReplyBytes},
		CheckRedirect: checkRedirect,
	}
	rc.RetryMax = opts.Retries
	rc.RetryWaitMin, rc.RetryWaitMax = opts.BackoffMin, opts.BackoffMax
	rc.CheckRetry = c.checkRetry
	// retryablehttp waits on a timer of the system clock: it is given no
	// wait, and the wait that checkRetry chose happens in PrepareRetry, on
	// the client's clock.
	rc.Backoff = func(time.Duration, time.Duration, int, *http.Response) time.Duration { return 0 }
	rc.PrepareRetry = c.waitBeforeRetry
	rc.RequestLogHook = c.beforeAttempt
	rc.ErrorHandler = errorHandler
	std := rc.StandardClient()
	// The retrying transport follows redirects itself (rc.HTTPClient); this
	// one sees a redirect only when that one did not follow it.
	std.CheckRedirect = checkRedirect
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = std
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// Model is the model the client asks.
func (c *Client) Model() string { return c.opts.Model }

// checkRedirect follows at most 10 redirects (as net/http does, with its
// message, which retryablehttp does not retry) and sends the API key only
// to the origin of the first request. net/http forwards Authorization to
// the same host on any port and scheme, and to its subdomains: another
// port of the endpoint's host is another server, whoever runs it.
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

// errorHandler returns what the last attempt got, without a response
// beside an error: net/http logs a complaint (on the process's standard
// logger) when a transport returns both.
func errorHandler(resp *http.Response, err error, _ int) (*http.Response, error) {
	if err != nil && resp != nil {
		resp.Body.Close()
		return nil, err
	}
	return resp, err
}

// attempts records what happened to one request's attempts; it travels in
// the request's context.
type attempts struct {
	mu      sync.Mutex
	n       int
	retries []string
	// wait is the backoff chosen for the next retry.
	wait time.Duration
}

type attemptsKey struct{}

func attemptsOf(ctx context.Context) *attempts {
	a, _ := ctx.Value(attemptsKey{}).(*attempts)
	return a
}

// beforeAttempt runs before every HTTP attempt: it waits for the rate
// limiter and counts the attempt.
func (c *Client) beforeAttempt(_ retryablehttp.Logger, req *http.Request, _ int) {
	if c.limiter != nil {
		// An error is a cancelled context: the attempt fails with it.
		_ = c.waitLimiter(req.Context())
	}
	if a := attemptsOf(req.Context()); a != nil {
		a.mu.Lock()
		a.n++
		a.mu.Unlock()
	}
}

// waitLimiter waits for the rate limiter's next token on the client's
// clock (rate.Limiter.Wait would wait on the system's).
func (c *Client) waitLimiter(ctx context.Context) error {
	now := c.clock.Now()
	r := c.limiter.ReserveN(now, 1)
	if !r.OK() {
		return fmt.Errorf("rate limiter: no token")
	}
	if err := c.clock.Sleep(ctx, r.DelayFrom(now)); err != nil {
		r.CancelAt(c.clock.Now())
		return err
	}
	return nil
}

// waitBeforeRetry waits the backoff checkRetry chose for this retry.
func (c *Client) waitBeforeRetry(req *http.Request) error {
	a := attemptsOf(req.Context())
	if a == nil {
		return nil
	}
	a.mu.Lock()
	d := a.wait
	a.wait = 0
	a.mu.Unlock()
	return c.clock.Sleep(req.Context(), d)
}

// checkRetry is retryablehttp's policy (timeouts, connection errors, 429,
// 5xx) plus a 200 whose body is not JSON; it records why it retries, and
// the backoff before the retry. A reply over the size bound is not
// retried.
func (c *Client) checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	retry, _ := retryablehttp.DefaultRetryPolicy(ctx, resp, err)
	reason := ""
	switch {
	case err != nil:
		reason = err.Error()
		var ue interface{ Timeout() bool }
		if errors.As(err, &ue) && ue.Timeout() {
			reason = fmt.Sprintf("timeout after %s", c.opts.Timeout)
		}
	case resp.StatusCode == http.StatusOK:
		body, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		var large *replyTooLargeError
		if errors.As(rerr, &large) {
			// go-openai reads the body next: it fails with the error.
			resp.Body = io.NopCloser(errReader{rerr})
			return false, nil
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		switch {
		case rerr != nil:
			retry, reason = true, "reading the reply: "+rerr.Error()
		case !json.Valid(body):
			retry, reason = true, "malformed JSON in the reply"
		}
	default:
		reason = resp.Status
		if ra := resp.Header.Get("Retry-After"); ra != "" {
			reason += " (Retry-After " + ra + ")"
		}
	}
	if retry {
		if a := attemptsOf(ctx); a != nil {
			a.mu.Lock()
			a.retries = append(a.retries, c.redact(reason))
			a.wait = c.backoff(c.opts.BackoffMin, c.opts.BackoffMax, max(0, a.n-1), resp)
			a.mu.Unlock()
		}
	}
	return retry, nil
}

// backoff is retryablehttp's (exponential, or Retry-After on a 429 or
// 503), with Retry-After capped.
func (c *Client) backoff(lo, hi time.Duration, attempt int, resp *http.Response) time.Duration {
	d := retryablehttp.DefaultBackoff(lo, hi, attempt, resp)
	if c.opts.MaxRetryAfter > 0 && d > c.opts.MaxRetryAfter {
		d = c.opts.MaxRetryAfter
	}
	return d
}

// redact replaces the API key in s. Errors are what an endpoint controls
// (its messages, its bodies) and what worldc writes to results and traces
// and prints.
func (c *Client) redact(s string) string {
	if c.opts.APIKey == "" {
		return s
	}
	return strings.ReplaceAll(s, c.opts.APIKey, "[redacted]")
}

// redactContent redacts the key from a reply when the key is long enough
// to be a secret: a local server's placeholder key ("EMPTY", "ollama")
// is a word a spec may hold, and replacing it would change the spec.
func (c *Client) redactContent(s string) string {
	if len(c.opts.APIKey) < minSecretKey {
		return s
	}
	return c.redact(s)
}

// minSecretKey is the length from which a key is redacted from replies.
const minSecretKey = 16

// errorf is an error whose text has the key redacted, and is cut to
// maxErrorBytes: an endpoint's error body goes into go-openai's error
// whole, and the text becomes a result's reason, a trace's error and a
// line on the terminal. It wraps nothing: an error it wrapped would hold
// the key for whoever prints it.
func (c *Client) errorf(format string, args ...any) error {
	msg := c.redact(fmt.Sprintf(format, args...))
	if len(msg) > maxErrorBytes {
		cut := maxErrorBytes
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = fmt.Sprintf("%s… (%d bytes more)", msg[:cut], len(msg)-cut)
	}
	return errors.New(msg)
}

// maxErrorBytes bounds the text of an error of the client.
const maxErrorBytes = 4 << 10

// attemptTransport is the transport of one HTTP hop: it bounds its time on
// the client's clock, from the request to the end of its response body,
// and the size of that body.
type attemptTransport struct {
	base    http.RoundTripper
	clock   Clock
	timeout time.Duration
	maxBody int64
}

func (t *attemptTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	timedOut := &atomic.Bool{}
	stop := func() bool { return false }
	if t.timeout > 0 {
		stop = t.clock.AfterFunc(t.timeout, func() {
			timedOut.Store(true)
			cancel()
		})
	}
	done := func() {
		stop()
		cancel()
	}
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		done()
		if timedOut.Load() {
			return nil, &timeoutError{t.timeout}
		}
		return nil, err
	}
	resp.Body = &attemptBody{rc: resp.Body, max: t.maxBody, declared: resp.ContentLength, timedOut: timedOut, timeout: t.timeout, done: done}
	return resp, nil
}

// attemptBody is a response body of at most max bytes, whose reads fail
// with a timeoutError once the attempt's time is up; closing it ends the
// attempt.
type attemptBody struct {
	rc        io.ReadCloser
	n, max    int64
	declared  int64 // Content-Length, or -1
	timedOut  *atomic.Bool
	timeout   time.Duration
	done      func()
	closeOnce sync.Once
}

func (b *attemptBody) Read(p []byte) (int, error) {
	if b.declared > b.max || b.n > b.max {
		return 0, &replyTooLargeError{b.max}
	}
	if left := b.max - b.n + 1; int64(len(p)) > left {
		// One byte past the bound says that there is more.
		p = p[:left]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	if b.n > b.max {
		return n - int(b.n-b.max), &replyTooLargeError{b.max}
	}
	if err != nil && err != io.EOF && b.timedOut.Load() {
		err = &timeoutError{b.timeout}
	}
	return n, err
}

func (b *attemptBody) Close() error {
	err := b.rc.Close()
	b.closeOnce.Do(b.done)
	return err
}

// timeoutError is an attempt that ran out of time; url.Error and
// checkRetry read it as a timeout.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("timeout after %s", e.d) }
func (e *timeoutError) Timeout() bool { return true }

// replyTooLargeError is a response body over the bound.
type replyTooLargeError struct{ max int64 }

func (e *replyTooLargeError) Error() string {
	return fmt.Sprintf("the reply is larger than %d bytes, the bound of a reply (worldc's --max-reply-bytes)", e.max)
}

// errReader fails every read with its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// Schema is a JSON schema of structured output, with its name.
type Schema struct {
	Name   string
	Schema json.RawMessage
}

// specSchema is the structured output asked for with Structured.
var specSchema = json.RawMessage(`{"type":"object","properties":{"spec":{"type":"string","description":"the whole world spec"}},"required":["spec"],"additionalProperties":false}`)

// Complete sends one chat-completion request. attempt is the request's
// number within its brief: with a seed, attempt n asks with seed+n, so
// that a fresh draft is not the same draft again.
func (c *Client) Complete(ctx context.Context, msgs []Message, attempt int) (Reply, error) {
	req := openai.ChatCompletionRequest{Model: c.opts.Model, MaxTokens: c.opts.MaxTokens}
	if c.opts.Seed != nil {
		seed := *c.opts.Seed + attempt
		req.Seed = &seed
	}
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
	}
	if t := c.opts.Temperature; t != nil {
		req.Temperature = float32(*t)
		if req.Temperature == 0 {
			// go-openai omits a zero temperature (omitempty); the smallest
			// positive float32 is how it is sent as 0.
			req.Temperature = math.SmallestNonzeroFloat32
		}
	}
	if c.opts.Structured {
		s := Schema{Name: "world_spec", Schema: specSchema}
		if c.opts.Schema != nil {
			s = *c.opts.Schema
		}
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: s.Name, Schema: s.Schema, Strict: true},
		}
	}
	a := &attempts{}
	start := c.clock.Now()
	resp, err := c.api.CreateChatCompletion(context.WithValue(ctx, attemptsKey{}, a), req)
	r := Reply{Latency: c.clock.Now().Sub(start)}
	a.mu.Lock()
	// The last attempt's failure, if any, was not retried.
	r.Retries = a.retries[:min(len(a.retries), max(0, a.n-1))]
	a.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, c.errorf("%s: %v", c.endpoint, err)
	}
	if len(resp.Choices) == 0 {
		return r, c.errorf("%s: the reply has no choices", c.endpoint)
	}
	r.Content = c.redactContent(resp.Choices[0].Message.Content)
	r.FinishReason = c.redactContent(string(resp.Choices[0].FinishReason))
	r.Usage = Usage{Prompt: resp.Usage.PromptTokens, Completion: resp.Usage.CompletionTokens}
	return r, nil
}
