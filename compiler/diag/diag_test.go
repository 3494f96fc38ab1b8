package diag

import (
	"encoding/json"
	"strings"
	"testing"
)

// A message holding a newline or an escape sequence (a spec's require
// message, a data file's column name) prints as one line with them shown
// escaped; the JSON form keeps the message as it is.
func TestTextIsOneLinePerDiagnostic(t *testing.T) {
	d := Diagnostic{Code: "W004", Severity: SeverityError, File: "w.world", Line: 3, Col: 5,
		Message: "bad \"x\nok.world:1:1: error[W001]: fake\x1b[31m\""}
	out := Diagnostics{d}.Text()
	if strings.Count(out, "\n") != 1 || strings.ContainsRune(out, '\x1b') {
		t.Errorf("text %q is not one clean line", out)
	}
	if !strings.Contains(out, `\nok.world:1:1`) || !strings.Contains(out, `\x1b[31m`) {
		t.Errorf("text %q does not show what it escaped", out)
	}
	var back []Diagnostic
	if err := json.Unmarshal(Diagnostics{d}.JSON(), &back); err != nil || back[0].Message != d.Message {
		t.Errorf("JSON round trip: %v, %q", err, back)
	}
}
