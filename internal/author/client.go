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
	"strings"
	"sync"
	"time"

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
	// response format (for endpoints that support structured output).
	Structured bool
	// Timeout bounds each HTTP attempt; a reply slower than that is
	// retried.
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
}

// DefaultClientOptions are the defaults of `worldc author`.
func DefaultClientOptions() ClientOptions {
	return ClientOptions{
		BaseURL:       "https://api.openai.com/v1",
		Timeout:       5 * time.Minute,
		Retries:       5,
		BackoffMin:    time.Second,
		BackoffMax:    time.Minute,
		MaxRetryAfter: 5 * time.Minute,
	}
}

// Reply is a model's answer to one request.
type Reply struct {
	Content      string
	FinishReason string
	Usage        Usage
	// Latency is the wall time of the request, retries and waits included.
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
type Client struct {
	opts    ClientOptions
	api     *openai.Client
	limiter *rate.Limiter
}

// NewClient returns a client for the endpoint.
func NewClient(opts ClientOptions) *Client {
	c := &Client{opts: opts}
	if opts.RPM > 0 {
		c.limiter = rate.NewLimiter(rate.Limit(opts.RPM/60), 1)
	}
	rc := retryablehttp.NewClient()
	rc.Logger = nil
	rc.HTTPClient = &http.Client{Transport: cleanhttp.DefaultPooledTransport(), Timeout: opts.Timeout}
	rc.RetryMax = opts.Retries
	rc.RetryWaitMin, rc.RetryWaitMax = opts.BackoffMin, opts.BackoffMax
	rc.CheckRetry = c.checkRetry
	rc.Backoff = c.backoff
	rc.RequestLogHook = c.beforeAttempt
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	cfg := openai.DefaultConfig(opts.APIKey)
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = rc.StandardClient()
	c.api = openai.NewClientWithConfig(cfg)
	return c
}

// Model is the model the client asks.
func (c *Client) Model() string { return c.opts.Model }

// attempts records what happened to one request's attempts; it travels in
// the request's context.
type attempts struct {
	mu      sync.Mutex
	n       int
	retries []string
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
		_ = c.limiter.Wait(req.Context())
	}
	if a := attemptsOf(req.Context()); a != nil {
		a.mu.Lock()
		a.n++
		a.mu.Unlock()
	}
}

// checkRetry is retryablehttp's policy (timeouts, connection errors, 429,
// 5xx) plus a 200 whose body is not JSON; it records why it retries.
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
			a.retries = append(a.retries, reason)
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
		req.ResponseFormat = &openai.ChatCompletionResponseFormat{
			Type:       openai.ChatCompletionResponseFormatTypeJSONSchema,
			JSONSchema: &openai.ChatCompletionResponseFormatJSONSchema{Name: "world_spec", Schema: specSchema, Strict: true},
		}
	}
	a := &attempts{}
	start := time.Now()
	resp, err := c.api.CreateChatCompletion(context.WithValue(ctx, attemptsKey{}, a), req)
	r := Reply{Latency: time.Since(start)}
	a.mu.Lock()
	// The last attempt's failure, if any, was not retried.
	r.Retries = a.retries[:min(len(a.retries), max(0, a.n-1))]
	a.mu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		return r, fmt.Errorf("%s: %w", c.opts.BaseURL, err)
	}
	if len(resp.Choices) == 0 {
		return r, fmt.Errorf("%s: the reply has no choices", c.opts.BaseURL)
	}
	r.Content = resp.Choices[0].Message.Content
	r.FinishReason = string(resp.Choices[0].FinishReason)
	r.Usage = Usage{Prompt: resp.Usage.PromptTokens, Completion: resp.Usage.CompletionTokens}
	return r, nil
}
