package author

import (
	"context"
	"encoding/json"
	"time"

	openai "github.com/sashabaranov/go-openai"
	"github.com/worldc/worldc/runtime/serve/llm"
)

// ClientOptions configures a Client: the endpoint and its transport (the
// timeout, retries, backoff, rate limit, reply bound and clock of
// llm.Options), and what author asks of the model.
type ClientOptions struct {
	llm.Options
	Model string
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
}

// DefaultClientOptions are the defaults of `worldc author`.
func DefaultClientOptions() ClientOptions { return ClientOptions{Options: llm.Defaults()} }

// maxReplyFlag is what sets the bound of a reply, as its error names it.
const maxReplyFlag = "worldc's --max-reply-bytes"

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

// Client sends author's chat-completion requests through an llm.Client,
// which retries, bounds time and replies, spaces requests and keeps the
// API key to the endpoint's origin and out of errors. Author adds the
// request (model, sampling, structured output) and keeps the key out of
// replies too, so that an endpoint echoing it cannot have it written to
// specs, results or traces.
type Client struct {
	opts ClientOptions
	llm  *llm.Client
}

// NewClient returns a client for the endpoint.
func NewClient(opts ClientOptions) *Client {
	if opts.MaxReplyFlag == "" {
		opts.MaxReplyFlag = maxReplyFlag
	}
	return &Client{opts: opts, llm: llm.New(opts.Options)}
}

// Model is the model the client asks.
func (c *Client) Model() string { return c.opts.Model }

// redactContent redacts the key from a reply when the key is long enough
// to be a secret: a local server's placeholder key ("EMPTY", "ollama")
// is a word a spec may hold, and replacing it would change the spec.
func (c *Client) redactContent(s string) string {
	if len(c.opts.APIKey) < minSecretKey {
		return s
	}
	return c.llm.Redact(s)
}

// minSecretKey is the length from which a key is redacted from replies.
const minSecretKey = 16

// Schema is a JSON schema of structured output, with its name.
type Schema struct {
	Name   string
	Schema json.RawMessage
}

// specSchema is the structured output asked for with Structured.
var specSchema = json.RawMessage(`{"type":"object","properties":{"spec":{"type":"string","description":"the whole world spec"}},"required":["spec"],"additionalProperties":false}`)

// Complete sends one chat-completion request. attempt is the request's
// number within its brief: with a seed, attempt n asks with seed+n, so
// that a fresh draft is not the same draft again. A failure other than a
// cancelled ctx is an *llm.Error, its text redacted and bounded.
func (c *Client) Complete(ctx context.Context, msgs []Message, attempt int) (Reply, error) {
	req := openai.ChatCompletionRequest{Model: c.opts.Model, MaxTokens: c.opts.MaxTokens}
	llm.Sampling(&req, c.opts.Temperature, c.opts.Seed, attempt)
	for _, m := range msgs {
		req.Messages = append(req.Messages, openai.ChatCompletionMessage{Role: m.Role, Content: m.Content})
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
	res, err := c.llm.Chat(ctx, req)
	r := Reply{Latency: res.Latency, Retries: res.Retries}
	if err != nil {
		return r, err
	}
	choice := res.Response.Choices[0]
	r.Content = c.redactContent(choice.Message.Content)
	r.FinishReason = c.redactContent(string(choice.FinishReason))
	r.Usage = Usage{Prompt: res.Response.Usage.PromptTokens, Completion: res.Response.Usage.CompletionTokens}
	return r, nil
}
