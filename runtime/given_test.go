package runtime_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
)

// TestGivenSteps: a step marked given (a prefix start's) is written with
// "given":true, read back as given, and replayed like any other step; a
// step that is not given is written without the member.
func TestGivenSteps(t *testing.T) {
	ep := newEp(t, "settle_acme")
	steps, err := runtime.Run(ep, solution(t))
	if err != nil {
		t.Fatal(err)
	}
	steps[0].Given = true
	var buf bytes.Buffer
	if err := runtime.WriteTrajectory(&buf, steps); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if !strings.Contains(lines[0], `"given":true`) || strings.Contains(lines[1], `"given"`) {
		t.Fatalf("given member:\n%s", buf.String())
	}
	back, err := runtime.ReadTrajectory(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !back[0].Given || back[1].Given {
		t.Fatalf("read back: %+v", back)
	}
	if err := runtime.Replay(newEp(t, "settle_acme"), back); err != nil {
		t.Fatal(err)
	}
}
