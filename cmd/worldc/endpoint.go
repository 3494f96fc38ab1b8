package main

import (
	"os"
	"time"

	"github.com/worldc/worldc/internal/author"
)

// endpointFlags say which OpenAI-compatible endpoint to ask and how.
type endpointFlags struct {
	BaseURL     string        `name:"base-url" env:"OPENAI_BASE_URL" default:"https://api.openai.com/v1" placeholder:"URL" help:"Base URL of an OpenAI-compatible chat-completions API: vLLM http://HOST:8000/v1, Ollama http://localhost:11434/v1."`
	Model       string        `placeholder:"NAME" help:"The model to ask (tasks: without it, the words are the templates')."`
	APIKeyEnv   string        `name:"api-key-env" default:"OPENAI_API_KEY" placeholder:"VAR" help:"The environment variable that holds the API key (default ${default}); may be unset for local servers."`
	Temperature *float64      `placeholder:"T" help:"Sampling temperature (not sent unless given)."`
	MaxTokens   int           `name:"max-tokens" placeholder:"N" help:"Bound on the tokens of a reply (max_tokens; none by default)."`
	JSONOutput  bool          `name:"json-output" help:"Ask for structured output, a JSON object ({\"spec\": …} of author, {\"persona\", \"instruction\"} of tasks; for endpoints that support JSON schema response formats)."`
	Timeout     time.Duration `default:"5m" help:"Time allowed for one HTTP attempt; a slower reply is retried."`
	Retries     int           `default:"5" placeholder:"N" help:"Retries of a request after a timeout, a connection error, a 429, a 5xx or a malformed reply (with backoff; Retry-After is honoured)."`
	RPM         float64       `placeholder:"N" help:"At most N requests per minute (every attempt counts; no limit by default)."`
	MaxReply    int64         `name:"max-reply-bytes" default:"16777216" placeholder:"N" help:"Bound on the size of a response body (default ${default}, 16 MiB: a spec of the largest size and its escapes); a longer reply is an error of its brief, not retried."`
}

func (f *endpointFlags) validate(needModel bool) error {
	if needModel && f.Model == "" {
		return usagef("--model is required")
	}
	if f.Retries < 0 || f.RPM < 0 || f.MaxTokens < 0 || f.Timeout <= 0 || f.MaxReply <= 0 {
		return usagef("--retries, --rpm and --max-tokens must not be negative, --timeout and --max-reply-bytes must be positive")
	}
	return nil
}

// seedFlag is the sampling seed of author and briefs (tasks' own --seed
// seeds its synthesis and the endpoint's sampling both).
type seedFlag struct {
	Seed *int `placeholder:"N" help:"Sampling seed, where the endpoint supports it (attempt n of a brief uses seed+n)."`
}

// clientOptions are the client's options from the flags, with the
// sampling seed given (nil: none sent).
func (f *endpointFlags) clientOptions(seed *int) author.ClientOptions {
	o := author.DefaultClientOptions()
	o.BaseURL, o.Model, o.APIKey = f.BaseURL, f.Model, os.Getenv(f.APIKeyEnv)
	o.Temperature, o.Seed, o.MaxTokens, o.Structured = f.Temperature, seed, f.MaxTokens, f.JSONOutput
	o.Timeout, o.Retries, o.RPM, o.MaxReplyBytes = f.Timeout, f.Retries, f.RPM, f.MaxReply
	return o
}

func (f *endpointFlags) client(seed *int) *author.Client {
	return author.NewClient(f.clientOptions(seed))
}

func (f *endpointFlags) prompts() (*author.Prompts, error) {
	p, err := author.LoadPrompts()
	if err != nil {
		return nil, err
	}
	p.Structured = f.JSONOutput
	return p, nil
}
