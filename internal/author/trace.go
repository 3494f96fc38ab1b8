package author

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/safefs"
)

// Trace is one attempt of the loop on a brief: one JSON line of
// OUT/traces/<id>.jsonl. The records of a brief, in order, are how its
// world was built: training data for authoring and repair.
type Trace struct {
	BriefID string `json:"brief_id"`
	Brief   string `json:"brief"`
	World   string `json:"world"`
	Model   string `json:"model"`
	// PromptVersion is Prompts.Version; Templates the declared version of
	// each template.
	PromptVersion string            `json:"prompt_version"`
	Templates     map[string]string `json:"templates"`
	// Attempt counts the requests of the brief from 0; Kind is author (the
	// first draft), repair or fresh (a new draft after a repair that made
	// no progress); Repairs is the stage whose findings a repair was given
	// (extract, check or gate).
	Attempt  int       `json:"attempt"`
	Kind     string    `json:"kind"`
	Repairs  string    `json:"repairs,omitempty"`
	Messages []Message `json:"messages"`
	Reply    string    `json:"reply"`
	Finish   string    `json:"finish_reason,omitempty"`
	// Spec is the spec extracted from the reply (after the world was given
	// its name), ExtractError why there was none, RenamedFrom the name the
	// reply gave the world when it was another.
	Spec         string `json:"spec,omitempty"`
	ExtractError string `json:"extract_error,omitempty"`
	RenamedFrom  string `json:"renamed_from,omitempty"`
	// NoReachability says that the spec was checked without the
	// prediction of the gate's conformance search (Options.NoReachability):
	// Export checks it again the same way.
	NoReachability bool                 `json:"no_reachability,omitempty"`
	Diagnostics    compiler.Diagnostics `json:"diagnostics,omitempty"`
	Gate           *gate.WorldResult    `json:"gate,omitempty"`
	// Verdict is this attempt's outcome: no-spec, check-failed,
	// gate-failed, passed, checked (with check only) or error.
	Verdict   string   `json:"verdict"`
	Tokens    Usage    `json:"tokens"`
	LatencyMS int64    `json:"latency_ms"`
	Retries   []string `json:"retries,omitempty"`
	Error     string   `json:"error,omitempty"`
}

// The verdicts of an attempt.
const (
	VerdictNoSpec      = "no-spec"
	VerdictCheckFailed = "check-failed"
	VerdictGateFailed  = "gate-failed"
	VerdictPassed      = "passed"
	VerdictChecked     = "checked"
	VerdictError       = "error"
)

// traceWriter appends the traces of one brief to its file.
type traceWriter struct {
	mu sync.Mutex
	f  *os.File
}

func newTraceWriter(path string) (*traceWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	// A brief's run starts its traces anew: the old file goes, and the new
	// one is created where nothing is, so that a symbolic link planted at
	// the path is not written through and a FIFO does not block the open.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	return &traceWriter{f: f}, nil
}

func (w *traceWriter) write(t any) error {
	line, err := json.Marshal(t)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err = w.f.Write(append(line, '\n'))
	return err
}

func (w *traceWriter) close() error { return w.f.Close() }

// TraceFile is a file of JSON lines, one a request, started anew where
// nothing is (as the loop's traces are): what other loops that ask the
// model (worldc tasks' words, internal/taskwords) keep their traces in.
type TraceFile struct{ w *traceWriter }

// NewTraceFile starts the traces file at path (its directory made).
func NewTraceFile(path string) (*TraceFile, error) {
	w, err := newTraceWriter(path)
	if err != nil {
		return nil, err
	}
	return &TraceFile{w}, nil
}

// Write appends v as one JSON line.
func (f *TraceFile) Write(v any) error { return f.w.write(v) }

// Close closes the file.
func (f *TraceFile) Close() error { return f.w.close() }

// Bounds of a traces file that ReadTraces reads: a line is one attempt
// (its prompts, a reply of at most MaxReplyBytes, the spec and its
// findings), a file the attempts of one brief.
const (
	MaxTraceLineBytes = 64 << 20
	MaxTraceFileBytes = 256 << 20
)

// ReadTraces reads a traces file: a regular file (not a link, nor a FIFO
// that would block the reader) of at most MaxTraceFileBytes, in lines of
// at most MaxTraceLineBytes.
func ReadTraces(path string) ([]Trace, error) {
	f, err := safefs.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := &io.LimitedReader{R: f, N: MaxTraceFileBytes + 1}
	var out []Trace
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), MaxTraceLineBytes)
	line := 1
	for ; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var t Trace
		if err := json.Unmarshal(sc.Bytes(), &t); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		out = append(out, t)
	}
	switch {
	case r.N <= 0:
		return nil, fmt.Errorf("%s: more than %d bytes, the bound of a traces file", path, MaxTraceFileBytes)
	case errors.Is(sc.Err(), bufio.ErrTooLong):
		return nil, fmt.Errorf("%s:%d: a line of more than %d bytes, the bound of a trace", path, line, MaxTraceLineBytes)
	}
	return out, sc.Err()
}
