package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpecIsUpToDate converts tau2's tasks again and compares the result
// with the committed spec: its tasks are exactly what tau2import writes.
// It skips only when tau2's data directory is absent.
func TestSpecIsUpToDate(t *testing.T) {
	data := filepath.Join("..", "..", "..", "shared", "peers", "tau2-retail")
	if _, err := os.Stat(data); errors.Is(err, fs.ErrNotExist) {
		t.Skipf("no tau2-bench data at %s", data)
	}
	in, err := ReadInputs(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Tasks) != 114 {
		t.Errorf("%d tasks, want 114", len(in.Tasks))
	}
	world := filepath.Join("..", "..", "testdata", "worlds", "tau2_retail.world")
	src, err := os.ReadFile(world)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Convert(world, src, in)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(src) {
		a, b := strings.Split(string(src), "\n"), strings.Split(string(out), "\n")
		for i := range min(len(a), len(b)) {
			if a[i] != b[i] {
				t.Fatalf("%s is not what tau2import writes (run go run ./cmd/tau2import); line %d:\n have %.200s\n want %.200s", world, i+1, a[i], b[i])
			}
		}
		t.Fatalf("%s is not what tau2import writes (run go run ./cmd/tau2import): %d lines, want %d", world, len(a), len(b))
	}
}

func TestInstruction(t *testing.T) {
	var task Task
	in := &task.UserScenario.Instructions
	in.Domain, in.ReasonForCall, in.TaskInstructions = "retail", "Two lines.\n\nSecond.  \n", "Be brief."
	known := "You are Ann."
	in.KnownInfo = &known
	want := "Domain: retail\nReason for call:\n\tTwo lines.\n\n\tSecond.  \n\nKnown info:\n\tYou are Ann.\nTask instructions:\n\tBe brief."
	if got := instruction(task); got != want {
		t.Errorf("instruction\n got  %q\n want %q", got, want)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		`a "b" \c`:  `"a \"b\" \\c"`,
		"x\ny\tz":   `"x\ny\tz"`,
		"bell\a":    `"bell\u0007"`,
		"caf\u00e9": "\"caf\u00e9\"",
	} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMeta(t *testing.T) {
	var task Task
	task.ID = "4"
	task.EvaluationCriteria.RewardBasis = []string{"DB", "NL_ASSERTION"}
	task.EvaluationCriteria.NLAssertions = []string{} // empty: left out, like null
	task.EvaluationCriteria.CommunicateInfo = []string{"10", `say "ten"`}
	purpose := "Check\tit."
	task.Description.Purpose = &purpose
	task.Issues = append(task.Issues, struct{ ID, Title string }{"issue_1", "Too strict"})
	var got []string
	for _, e := range meta(task, []string{"train", "base"}) {
		got = append(got, e[0]+": "+e[1])
	}
	want := []string{
		`tau2_id: "4"`, `split: ["train", "base"]`, `reward_basis: ["DB", "NL_ASSERTION"]`,
		`communicate_info: ["10", "say \"ten\""]`, `purpose: "Check\tit."`, `issues: ["issue_1: Too strict"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("meta\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
