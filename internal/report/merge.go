// Package report joins gate reports (the JSON that `worldc build --report`
// and `--json` write, one per run or shard) and renders them as one
// self-contained HTML page: pass rate, failures by cause and diagnostic
// code, the timing distribution, the slowest worlds, and what the corpus
// covers (industry × country, capability × difficulty), with charts as
// inline SVG and no network.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/gate"
)

// Read reads a gate report.
func Read(path string) (*gate.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r gate.Report
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a worldc report: %v", path, err)
	}
	return &r, nil
}

// Merge joins the reports of disjoint runs (the shards of one corpus): the
// worlds of all, sorted by name; counts summed; the wall time is the
// longest run's (shards run side by side), the stage times are summed. A
// world in two reports is an error: the shards overlap.
func Merge(reports []*gate.Report) (*gate.Report, error) {
	out := &gate.Report{Worlds: []gate.WorldResult{}}
	seen := map[string]int{}
	for i, r := range reports {
		for _, w := range r.Worlds {
			key := w.World + "\x00" + w.Package
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
			fmt.Fprintf(&b, "FAIL  %s  %s\n", w.World, w.Reason)
		}
	}
	fmt.Fprintf(&b, "%d worlds, %d passed, %d failed\n", len(r.Worlds), r.Passed, r.Failed)
	return b.String()
}
