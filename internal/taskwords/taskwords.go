// Package taskwords has an LLM write the words of synthesised tasks
// (`worldc tasks --model`): for each task, the persona and the
// instruction, from its golden run, its rubric and the values a user
// knows, in the words of the customer or employee who asks. The words are
// then held to the check the template words pass (compiler/tasks'
// CheckWords: every value the solution needs is given or observed, the
// outcome of a write another tool's words describe is said, no internal
// id appears); words that fail get one repair round that says what is
// missing or forbidden, and words that fail again give way to the
// template's. The client is internal/author's (go-openai, its retries,
// its rate limit, its redaction of the API key); every request is a line
// of a traces file, as author's are.
package taskwords

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"text/template"

	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/internal/author"
)

// Version names the prompt; it is in every trace.
const Version = "taskwords-1"

//go:embed prompt.tmpl
var promptText string

var prompt = template.Must(template.New("taskwords").Funcs(template.FuncMap{"json": func(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}}).Parse(promptText))

// system is the system message of every request.
const system = `You write the words of tasks for training AI agents that serve customers and staff of a business through its tools. ` +
	`For each task you are given what the agent must do (the calls of the correct solution, which you never mention by name), ` +
	`how its outcome is graded, and the values the person asking knows. You write who asks (persona) and what they say (instruction): ` +
	`one paragraph, in everyday words of a customer or an employee, never the names of tools, parameters or fields, ` +
	`every required value exactly as written, and never an internal id. ` +
	`Reply with one JSON object {"persona": "...", "instruction": "..."} and nothing else.`

// schema is the structured output asked for with --json-output.
var schema = &author.Schema{Name: "task_words", Schema: json.RawMessage(`{"type":"object","properties":{"persona":{"type":"string"},"instruction":{"type":"string"}},"required":["persona","instruction"],"additionalProperties":false}`)}

// Schema is the structured output a client is given (ClientOptions.Schema).
func Schema() *author.Schema { return schema }

// Options configure Write.
type Options struct {
	World, Title string
	// Jobs is how many requests are in flight at once (at least 1).
	Jobs int
	// Traces, when set, is the traces file written: one JSON line per
	// request, in task order, then attempt order.
	Traces string
	// Progress, when set, is told each task as its words are settled.
	Progress func()
}

// Trace is one request of one task's words.
type Trace struct {
	World   string `json:"world"`
	Task    string `json:"task"`
	Model   string `json:"model"`
	Prompt  string `json:"prompt_version"`
	Attempt int    `json:"attempt"`
	// Kind is words (the first request) or repair.
	Kind     string           `json:"kind"`
	Messages []author.Message `json:"messages"`
	Reply    string           `json:"reply"`
	Finish   string           `json:"finish_reason,omitempty"`
	// Persona and Instruction are what the reply held, Problems what the
	// check found in them.
	Persona     string               `json:"persona,omitempty"`
	Instruction string               `json:"instruction,omitempty"`
	Problems    *tasks.WordsProblems `json:"problems,omitempty"`
	// Verdict is ok, unparsable, form, missing, leak or error.
	Verdict   string       `json:"verdict"`
	Tokens    author.Usage `json:"tokens"`
	LatencyMS int64        `json:"latency_ms"`
	Retries   []string     `json:"retries,omitempty"`
	Error     string       `json:"error,omitempty"`
}

// outcome is what became of one task's words.
type outcome struct {
	words    tasks.Words // zero: the template's
	repaired bool
	reason   string // why the template's words were kept
	traces   []Trace
	usage    author.Usage
}

// Write asks the model for the words of every task of r, checks them,
// and puts those that pass into r (tasks.Result.SetWords); the others
// keep the template's words. The result depends only on the replies: the
// same replies give the same spec, whatever order they arrive in. It
// returns an error only when the context ends, the traces cannot be
// written or the spec cannot be written again; a failed request is a
// fallback to the template, counted.
func Write(ctx context.Context, c *author.Client, r *tasks.Result, opts Options) error {
	reqs := r.WordsRequests()
	outs := make([]outcome, len(reqs))
	jobs := max(1, opts.Jobs)
	sem := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range reqs {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			outs[i] = ask(ctx, c, r, i, reqs[i], opts)
			if opts.Progress != nil {
				mu.Lock()
				opts.Progress()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	count := tasks.WordsCount{Model: c.Model()}
	ws := make([]tasks.Words, len(outs))
	for i, o := range outs {
		count.PromptTokens += o.usage.Prompt
		count.CompletionTokens += o.usage.Completion
		if o.words == (tasks.Words{}) {
			count.Template++
			if count.Fallbacks == nil {
				count.Fallbacks = map[string]int{}
			}
			count.Fallbacks[o.reason]++
			continue
		}
		ws[i] = o.words
		count.LLM++
		if o.repaired {
			count.Repaired++
		}
	}
	if opts.Traces != "" {
		f, err := author.NewTraceFile(opts.Traces)
		if err != nil {
			return err
		}
		for _, o := range outs {
			for _, t := range o.traces {
				if err := f.Write(t); err != nil {
					f.Close()
					return err
				}
			}
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	return r.SetWords(ws, count)
}

// ask is one task: the request, the check, at most one repair.
func ask(ctx context.Context, c *author.Client, r *tasks.Result, i int, q tasks.WordsRequest, opts Options) outcome {
	var o outcome
	msgs, err := Messages(opts.World, opts.Title, q)
	if err != nil {
		o.reason = "error"
		return o
	}
	for attempt := 0; attempt < 2; attempt++ {
		reply, err := c.Complete(ctx, msgs, attempt)
		t := Trace{World: opts.World, Task: q.Task, Model: c.Model(), Prompt: Version, Attempt: attempt, Kind: "words",
			Messages: msgs, Reply: reply.Content, Finish: reply.FinishReason, Tokens: reply.Usage,
			LatencyMS: reply.Latency.Milliseconds(), Retries: reply.Retries}
		if attempt > 0 {
			t.Kind = "repair"
		}
		o.usage.Add(reply.Usage)
		if err != nil {
			t.Verdict, t.Error = "error", err.Error()
			o.traces = append(o.traces, t)
			o.reason = "error"
			return o // the client retried already
		}
		w, perr := Parse(reply.Content)
		var p tasks.WordsProblems
		if perr != nil {
			t.Verdict, t.Error = "unparsable", perr.Error()
		} else {
			t.Persona, t.Instruction = w.Persona, w.Instruction
			p = r.CheckWords(i, w)
			t.Verdict = "ok"
			if !p.OK() {
				t.Verdict = p.Reason()
				t.Problems = &p
			}
		}
		o.traces = append(o.traces, t)
		if t.Verdict == "ok" {
			o.words, o.repaired = w, attempt > 0
			return o
		}
		o.reason = t.Verdict
		msgs = append(append([]author.Message(nil), msgs...),
			author.Message{Role: "assistant", Content: reply.Content},
			author.Message{Role: "user", Content: RepairText(q.Task, perr, p)})
	}
	return o
}

// Messages are the messages of a task's first request.
func Messages(world, title string, q tasks.WordsRequest) ([]author.Message, error) {
	var b bytes.Buffer
	if err := prompt.Execute(&b, struct {
		World, Title string
		Q            tasks.WordsRequest
	}{world, title, q}); err != nil {
		return nil, err
	}
	return []author.Message{{Role: "system", Content: system}, {Role: "user", Content: b.String()}}, nil
}

// RepairText is the message of the repair round: what the check found.
func RepairText(task string, parseErr error, p tasks.WordsProblems) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s: your words do not pass the check.\n", task)
	if parseErr != nil {
		fmt.Fprintf(&b, "- The reply is not one JSON object {\"persona\": \"...\", \"instruction\": \"...\"}: %v\n", parseErr)
	}
	if p.Form != "" {
		fmt.Fprintf(&b, "- %s.\n", p.Form)
	}
	for _, m := range p.Missing {
		fmt.Fprintf(&b, "- The instruction must give this value, exactly as written: %s\n", m)
	}
	for _, l := range p.Leaked {
		fmt.Fprintf(&b, "- The words must not hold %s: it is an internal id the person asking does not know. Describe the record instead.\n", l)
	}
	b.WriteString("Write the persona and the instruction again, keeping everything else, and reply with the JSON object only.\n")
	return b.String()
}

// Parse reads the persona and the instruction from a reply: one JSON
// object, possibly in a code fence or after some words.
func Parse(reply string) (tasks.Words, error) {
	s := strings.TrimSpace(reply)
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return tasks.Words{}, fmt.Errorf("no JSON object in the reply")
	}
	var v struct {
		Persona     *string `json:"persona"`
		Instruction *string `json:"instruction"`
	}
	d := json.NewDecoder(strings.NewReader(s[i : j+1]))
	if err := d.Decode(&v); err != nil {
		return tasks.Words{}, fmt.Errorf("the JSON object does not decode: %v", err)
	}
	if v.Persona == nil || v.Instruction == nil {
		return tasks.Words{}, fmt.Errorf(`the object needs both "persona" and "instruction"`)
	}
	return tasks.Words{Persona: strings.TrimSpace(*v.Persona), Instruction: strings.TrimSpace(*v.Instruction)}, nil
}
