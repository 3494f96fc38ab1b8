// Package report joins gate reports (the JSON that `worldc build --report`
// and `--json` write, one per run or shard) and renders them as one
// self-contained HTML page: pass rate, failures by cause and diagnostic
// code, the timing distribution, the slowest worlds, and what the corpus
// covers (industry × country, capability × difficulty), with charts as
// inline SVG and no network.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/text"
)

// maxReport bounds the size of a report read: a report of 100,000 worlds
// with their diagnostics is far smaller.
const maxReport = 1 << 30

// Read reads a gate report: one JSON object of a report's fields and
// nothing after it, from a regular file.
func Read(path string) (*gate.Report, error) {
	data, err := safefs.ReadRegularLimit(path, maxReport)
	if err != nil {
		return nil, err
	}
	var r gate.Report
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a worldc report: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not a worldc report: data after the report's JSON", path)
	}
	return &r, nil
}

// Merge joins the reports of disjoint runs (the shards of one corpus): the
// worlds of all, sorted by name; counts summed; the wall time is the
// longest run's (shards run side by side), the stage times are summed. A
// world in two reports is an error: the shards overlap (a world's name is
// its package's, whatever the output directory; a spec that failed the
// check is known by its file).
func Merge(reports []*gate.Report) (*gate.Report, error) {
	out := &gate.Report{Worlds: []gate.WorldResult{}}
	seen := map[string]int{}
	for i, r := range reports {
		for _, w := range r.Worlds {
			key := w.World
			if w.Stage == gate.StageCheck {
				key = "spec\x00" + w.Spec + "\x00" + w.World
			}
			if j, dup := seen[key]; dup {
				return nil, fmt.Errorf("world %s is in reports %d and %d: the shards overlap", w.World, j+1, i+1)
			}
			seen[key] = i
			out.Worlds = append(out.Worlds, w)
			if w.OK {
				out.Passed++
			} else {
				out.Failed++
			}
		}
		out.Seconds = max(out.Seconds, r.Seconds)
		out.TypecheckSeconds += r.TypecheckSeconds
		out.TestSeconds += r.TestSeconds
		for _, w := range r.Warnings {
			if !slices.Contains(out.Warnings, w) {
				out.Warnings = append(out.Warnings, w)
			}
		}
	}
	slices.SortStableFunc(out.Worlds, func(a, b gate.WorldResult) int {
		if c := strings.Compare(a.World, b.World); c != 0 {
			return c
		}
		return strings.Compare(a.Package, b.Package)
	})
	return out, nil
}

// Verdicts are the report's verdicts as lines without times, `ok    world`
// or `FAIL  world  reason`, in world order: what two runs of one corpus
// must agree on however they were sharded.
func Verdicts(r *gate.Report) string {
	var b strings.Builder
	for _, w := range r.Worlds {
		if w.OK {
			fmt.Fprintf(&b, "ok    %s\n", w.World)
		} else {
			fmt.Fprintf(&b, "FAIL  %s  %s\n", w.World, text.Printable(w.Reason))
		}
	}
	fmt.Fprintf(&b, "%d worlds, %d passed, %d failed\n", len(r.Worlds), r.Passed, r.Failed)
	return b.String()
}
