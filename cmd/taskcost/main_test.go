package main

import (
	"strings"
	"testing"
)

// TestPrint: the report says, per group, the tasks kept and dropped by
// reason, the coverage, the difficulty, the CPU per world, why a world is
// short of tasks, and the gate's times and ratio.
func TestPrint(t *testing.T) {
	rep := &report{N: 100, Worlds: []world{
		{Name: "shop", TasksCPU: 0.5, Summary: summary{Kept: 100, Dropped: map[string]int{"duplicate": 7, "check:W014": 1}, WritingTools: 10, Covered: 10, Levels: map[string]int{"easy": 30, "medium": 50, "hard": 20}, Calls: map[string]int{"1": 10, "12": 5, "2": 85}},
			Gate: &gate{CPU5: 2, CPUN: 2.5, Wall5: 3, WallN: 3.5, Runs: 3}},
		{Name: "random_7", Synthetic: true, TasksCPU: 0.25, Summary: summary{Kept: 12, WritingTools: 4, Covered: 3, Note: "2 writing tools, 6 records: too few for 100"}},
	}}
	var b strings.Builder
	print(&b, rep)
	out := b.String()
	for _, want := range []string{
		"## example worlds (1)", "| shop | 100 | 10/10 | 30/50/20 | 0.50 |",
		"dropped by reason: duplicate 7, check:W014 1",
		"calls per task: 1: 10, 2: 85, 12: 5",
		"## synthetic worlds (1)", "1 worlds short of 100", "random_7: 12: 2 writing tools, 6 records: too few for 100",
		"writing-tool coverage: median 75%, min 75%, 1 worlds below 90%",
		"| shop | 2.00 | 2.50 | 1.25× | 3.00 | 3.50 |", "median 1.25×",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if median([]float64{3, 1, 2, 10}) != 2.5 || median([]float64{4, 1, 9}) != 4 {
		t.Error("median")
	}
}
