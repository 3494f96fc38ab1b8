package author

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/safefs"
)

// FinalPair is a brief → vetted spec example.
type FinalPair struct {
	ID            string `json:"id"`
	Brief         string `json:"brief"`
	Spec          string `json:"spec"`
	Model         string `json:"model"`
	PromptVersion string `json:"prompt_version"`
	Verdict       string `json:"verdict"` // passed or checked
}

// RepairPair is a (spec, findings) → repaired spec example: from a trace,
// an attempt with findings and the next attempt's spec when that one
// passed; from the corruption generator, a corrupted spec and its
// diagnostics, with the original.
type RepairPair struct {
	ID       string    `json:"id"`
	Source   string    `json:"source"` // trace, or corrupt:<operator>
	Brief    string    `json:"brief,omitempty"`
	Stage    string    `json:"stage"` // check or gate
	Spec     string    `json:"spec"`
	Findings []Finding `json:"findings"`
	Repaired string    `json:"repaired"`
}

// ExportSet is what Export found in traces.
type ExportSet struct {
	Finals  []FinalPair
	Repairs []RepairPair
	// Traces and Briefs count what was read.
	Traces, Briefs int
	// Refused are the briefs whose last attempt claims a pass that the
	// check does not confirm.
	Refused []Refusal
}

// Refusal is a brief whose traces were not exported, and why.
type Refusal struct {
	ID     string `json:"id"`
	File   string `json:"file"`
	Reason string `json:"reason"`
}

// ExportTraces reads every OUT/traces/*.jsonl of the output directories
// and builds the supervision sets: brief → final spec for the briefs whose
// last attempt passed, and (spec, findings) → repaired spec for each
// attempt with findings followed by a passing attempt. Output is sorted by
// brief id.
//
// A traces file is data anyone could have written, and what it exports is
// training data, so its claims are checked again: a final spec is
// exported only if it checks clean now (checked as the loop checked it),
// a check failure is a repair pair only if the spec fails the check now,
// with the findings of that check; a gate failure's findings are the
// trace's (export does not run the gate), of a spec that checks clean. A
// brief whose final spec does not check clean is refused as a whole.
// Traces files are read as ReadTraces reads them: regular files only, of
// bounded size.
func ExportTraces(outs []string) (*ExportSet, error) {
	set := &ExportSet{}
	for _, out := range outs {
		files, err := filepath.Glob(filepath.Join(out, "traces", "*.jsonl"))
		if err != nil {
			return nil, err
		}
		slices.Sort(files)
		for _, f := range files {
			ts, err := ReadTraces(f)
			if err != nil {
				return nil, err
			}
			set.Briefs++
			set.Traces += len(ts)
			set.add(f, ts)
		}
	}
	slices.SortStableFunc(set.Finals, func(a, b FinalPair) int { return strings.Compare(a.ID, b.ID) })
	slices.SortStableFunc(set.Repairs, func(a, b RepairPair) int { return strings.Compare(a.ID, b.ID) })
	return set, nil
}

func (set *ExportSet) add(file string, ts []Trace) {
	if len(ts) == 0 {
		return
	}
	last := ts[len(ts)-1]
	if last.Verdict != VerdictPassed && last.Verdict != VerdictChecked {
		return
	}
	name := WorldName(last.BriefID) + ".world"
	if last.Spec == "" {
		set.Refused = append(set.Refused, Refusal{ID: last.BriefID, File: file, Reason: "its last attempt " + last.Verdict + " without a spec"})
		return
	}
	if _, diags := checkSpec(name, last.Spec, last.NoReachability); diags.HasErrors() {
		first := CheckFindings(diags, last.Spec)[0]
		set.Refused = append(set.Refused, Refusal{ID: last.BriefID, File: file,
			Reason: fmt.Sprintf("its last attempt %s, but its spec does not check clean: %s: %s %s", last.Verdict, first.Where(), first.Code, first.Message)})
		return
	}
	set.Finals = append(set.Finals, FinalPair{ID: last.BriefID, Brief: last.Brief, Spec: last.Spec, Model: last.Model, PromptVersion: last.PromptVersion, Verdict: last.Verdict})
	for _, t := range ts[:len(ts)-1] {
		if t.Spec == "" {
			continue
		}
		var stage string
		var fs []Finding
		_, diags := checkSpec(name, t.Spec, t.NoReachability)
		switch t.Verdict {
		case VerdictCheckFailed:
			if !diags.HasErrors() {
				continue // it checks clean: there is nothing to repair
			}
			stage, fs = "check", CheckFindings(diags, t.Spec)
		case VerdictGateFailed:
			if t.Gate == nil || diags.HasErrors() {
				continue // a spec the gate saw has checked clean
			}
			stage, fs = "gate", GateFindings(*t.Gate, t.Spec, nil)
		default:
			continue
		}
		set.Repairs = append(set.Repairs, RepairPair{ID: t.BriefID, Source: "trace", Brief: t.Brief, Stage: stage, Spec: t.Spec, Findings: fs, Repaired: last.Spec})
	}
}

// AddCorruptions adds synthetic repair pairs: each detected corruption of
// each final spec (up to maxSites per operator).
func (set *ExportSet) AddCorruptions(ops []Operator, maxSites int) error {
	for _, f := range set.Finals {
		cs, err := Corrupt(f.ID+".world", []byte(f.Spec), CorruptOptions{Operators: ops, MaxSites: maxSites})
		if err != nil {
			return err
		}
		for _, c := range cs {
			if !c.Detected {
				continue
			}
			set.Repairs = append(set.Repairs, RepairPair{ID: f.ID, Source: "corrupt:" + c.Operator, Brief: f.Brief, Stage: "check",
				Spec: c.Corrupted, Findings: CheckFindings(c.Diagnostics, c.Corrupted), Repaired: c.Original})
		}
	}
	return nil
}

// WriteJSONL writes one JSON value a line.
func WriteJSONL[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// Write writes dir/final.jsonl and dir/repairs.jsonl, each replaced
// atomically; a symbolic link in their place is replaced, not written
// through (see safefs.WriteFile).
func (set *ExportSet) Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, write := range map[string]func(io.Writer) error{
		"final.jsonl":   func(w io.Writer) error { return WriteJSONL(w, set.Finals) },
		"repairs.jsonl": func(w io.Writer) error { return WriteJSONL(w, set.Repairs) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return err
		}
		if err := safefs.WriteFile(filepath.Join(dir, name), b.Bytes()); err != nil {
			return err
		}
	}
	return nil
}
