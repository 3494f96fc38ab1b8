package llm

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

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
