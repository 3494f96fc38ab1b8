package author

import (
	"bytes"
	"context"
	"strings"
	"testing/fstest"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/internal/text"
)

// Result is the outcome of the loop on one brief.
type Result struct {
	ID    string `json:"id"`
	World string `json:"world"`
	// Verdict is passed (checked and through the gate), checked (with
	// check only), failed (no draft passed in the rounds allowed), error
	// (the endpoint or the gate could not be used) or interrupted.
	Verdict string `json:"verdict"`
	// Rounds is the number of repair rounds used before the verdict (0:
	// the first draft passed); Attempts the requests made, FreshDrafts how
	// many of them started over after a repair that made no progress.
	Rounds      int     `json:"rounds"`
	Attempts    int     `json:"attempts"`
	FreshDrafts int     `json:"fresh_drafts,omitempty"`
	Retries     int     `json:"retries,omitempty"`
	Tokens      Usage   `json:"tokens"`
	Seconds     float64 `json:"seconds"`
	// Reason says why a brief failed.
	Reason string `json:"reason,omitempty"`
	// Spec is the file written: OUT/<world>.world when it passed,
	// OUT/<world>.failed.world (the last draft) when it failed.
	Spec string `json:"spec,omitempty"`
	// Key is the content address of the work: brief, model, prompts, mode.
	Key string `json:"key"`
	// Skipped is set when the result is an earlier run's (resumed).
	Skipped bool `json:"skipped,omitempty"`
}

// The verdicts of a brief.
const (
	ResultPassed      = "passed"
	ResultChecked     = "checked"
	ResultFailed      = "failed"
	ResultError       = "error"
	ResultInterrupted = "interrupted"
)

// brief is the loop's state for one brief.
type briefLoop struct {
	r         *Runner
	b         Brief
	traces    *traceWriter
	file      string          // the spec's name in diagnostics
	explained map[string]bool // codes already explained to the model
	res       Result
	lastSpec  string
	passed    string // the spec that passed
	world     *ir.World
}

// request is what the next attempt sends.
type request struct {
	kind, repairs string
	msgs          []Message
}

// run is the loop on one brief: draft, check, gate, repair, up to the
// rounds allowed.
func (l *briefLoop) run(ctx context.Context) {
	start := time.Now()
	defer func() { l.res.Seconds = time.Since(start).Seconds() }()
	msgs, err := l.r.Prompts.Author(l.b)
	if err != nil {
		l.fail(ResultError, err.Error())
		return
	}
	next := request{kind: "author", msgs: msgs}
	lastSig := ""
	for attempt := 0; attempt <= l.r.Opts.Rounds; attempt++ {
		l.res.Attempts++
		l.res.Rounds = attempt
		t := &Trace{BriefID: l.b.ID, Brief: l.b.Brief, World: l.b.WorldName(), Model: l.r.Client.Model(),
			PromptVersion: l.r.Prompts.Version(), Templates: l.r.Prompts.Versions,
			Attempt: attempt, Kind: next.kind, Repairs: next.repairs, Messages: next.msgs}
		reply, err := l.r.Client.Complete(ctx, next.msgs, attempt)
		t.Reply, t.Finish, t.Tokens, t.Retries = reply.Content, reply.FinishReason, reply.Usage, reply.Retries
		t.LatencyMS = reply.Latency.Milliseconds()
		l.res.Tokens.Add(reply.Usage)
		l.res.Retries += len(reply.Retries)
		if err != nil {
			t.Verdict, t.Error = VerdictError, err.Error()
			l.writeTrace(t)
			if ctx.Err() != nil {
				l.fail(ResultInterrupted, "interrupted")
			} else {
				l.fail(ResultError, err.Error())
			}
			return
		}
		stage, problem, findings, done := l.judge(ctx, t, reply.Content)
		l.writeTrace(t)
		if done {
			return
		}
		if ctx.Err() != nil {
			l.fail(ResultInterrupted, "interrupted")
			return
		}
		if attempt == l.r.Opts.Rounds {
			l.fail(ResultFailed, failReason(stage, problem, findings))
			return
		}
		sig := stage + "\n" + problem + "\n" + Signature(findings)
		if sig == lastSig {
			// The repair changed nothing the findings show: start over.
			l.res.FreshDrafts++
			next = request{kind: "fresh", msgs: msgs}
			lastSig = ""
			continue
		}
		lastSig = sig
		var explain []string
		for _, c := range codes(findings) {
			if !l.explained[c] {
				l.explained[c] = true
				explain = append(explain, c)
			}
		}
		rm, err := l.r.Prompts.Repair(l.b, RepairInput{Stage: stage, Problem: problem, File: l.file, Spec: t.Spec, Findings: findings, Explain: explain})
		if err != nil {
			l.fail(ResultError, err.Error())
			return
		}
		next = request{kind: "repair", repairs: stage, msgs: rm}
	}
}

// judge extracts, checks and gates the spec of a reply, filling the trace.
// It returns the stage and findings to repair, or done when the brief has
// its verdict.
func (l *briefLoop) judge(ctx context.Context, t *Trace, content string) (stage, problem string, findings []Finding, done bool) {
	spec, err := Extract(content)
	if err != nil {
		t.Verdict, t.ExtractError = VerdictNoSpec, err.Error()
		return "extract", err.Error(), nil, false
	}
	spec, t.RenamedFrom = renameWorld(l.file, spec, l.b.WorldName())
	t.Spec = spec
	l.lastSpec = spec
	t.NoReachability = l.r.Opts.NoReachability
	w, diags := checkSpec(l.file, spec, l.r.Opts.NoReachability)
	t.Diagnostics = diags
	if diags.HasErrors() {
		t.Verdict = VerdictCheckFailed
		return "check", "", CheckFindings(diags, spec), false
	}
	if l.r.Opts.CheckOnly {
		t.Verdict = VerdictChecked
		l.pass(ResultChecked, spec)
		return "", "", nil, true
	}
	verdict, err := l.r.Gate.Vet(ctx, w)
	if err != nil {
		t.Verdict, t.Error = VerdictError, err.Error()
		if ctx.Err() != nil {
			l.fail(ResultInterrupted, "interrupted")
		} else {
			l.fail(ResultError, "gate: "+err.Error())
		}
		return "", "", nil, true
	}
	t.Gate = &verdict
	if verdict.OK {
		t.Verdict = VerdictPassed
		l.world = w
		l.pass(ResultPassed, spec)
		return "", "", nil, true
	}
	t.Verdict = VerdictGateFailed
	return "gate", verdict.Reason, GateFindings(verdict, spec, w), false
}

// checkSpec is the loop's check of a draft: no data files (a draft cannot
// bring any), with or without the prediction of the gate's conformance
// search. Export checks the specs of traces again with it.
func checkSpec(file, spec string, noReachability bool) (*ir.World, compiler.Diagnostics) {
	opts := []compiler.Option{compiler.WithData(fstest.MapFS{})}
	if noReachability {
		opts = append(opts, compiler.WithoutReachability())
	}
	return compiler.CheckSource(file, []byte(spec), opts...)
}

func (l *briefLoop) pass(verdict, spec string) {
	l.res.Verdict = verdict
	l.passed = spec
}

func (l *briefLoop) fail(verdict, reason string) {
	l.res.Verdict, l.res.Reason = verdict, reason
}

func (l *briefLoop) writeTrace(t *Trace) {
	if err := l.traces.write(t); err != nil && l.res.Reason == "" {
		l.res.Reason = "writing traces: " + err.Error()
	}
}

// failReason is a one-line reason for a brief that never passed.
func failReason(stage, problem string, fs []Finding) string {
	switch {
	case stage == "extract":
		return "no spec in the last reply: " + problem
	case stage == "gate":
		return "gate: " + problem
	case len(fs) > 0:
		s := "check: " + fs[0].Where() + ": " + fs[0].Code + " " + fs[0].Message
		if len(fs) > 1 {
			s += " (" + text.Plural(len(fs)-1, "more error") + ")"
		}
		return s
	}
	return stage
}

// renameWorld gives the world of spec the name want, replacing the name in
// its header where the reply wrote another, so that every brief's world
// (and package) has a name of its own. Positions of later lines do not
// move. It returns the old name when it renamed.
func renameWorld(file, spec, want string) (string, string) {
	f, err := dsl.Parse(file, []byte(spec))
	if err != nil {
		return spec, ""
	}
	for _, d := range f.Decls {
		if d.World == nil || d.World.Name == want {
			continue
		}
		old := d.World.Name
		off := d.World.Pos.Offset + len("world")
		rest := spec[off:]
		trimmed := strings.TrimLeft(rest, " \t\r\n")
		if !strings.HasPrefix(trimmed, old) {
			return spec, ""
		}
		at := off + len(rest) - len(trimmed)
		var b bytes.Buffer
		b.WriteString(spec[:at])
		b.WriteString(want)
		b.WriteString(spec[at+len(old):])
		return b.String(), old
	}
	return spec, ""
}
