package main

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/gate"
)

// A reason or error holding a newline or an escape sequence (a require
// message, an LLM's words) prints as one line with the characters shown
// escaped: no fake verdict line, nothing for the terminal to obey.
func TestVerdictLinesArePrintable(t *testing.T) {
	hostile := "boom\nok    other_world  0.01s\x1b[2J\x1b]0;title\x07\r\u0085"
	lines := []string{
		verdictLine(gate.WorldResult{World: "w", Reason: hostile}, 8, false),
		errorLine(gate.Error{Message: hostile, Spec: "w.world:1:1"}),
	}
	for _, line := range lines {
		if strings.ContainsAny(line, "\n\r\x1b\x07\u0085") {
			t.Errorf("line %q holds control characters", line)
		}
		if !strings.Contains(line, `\x1b[2J`) {
			t.Errorf("line %q does not show the escape it dropped", line)
		}
	}
	if got, want := lines[0], `FAIL  w         boom\nok    other_world  0.01s\x1b[2J\x1b]0;title\a\r\u0085`; got != want {
		t.Errorf("verdict line\n%s\nwant\n%s", got, want)
	}
}
