package ir_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayers: the stages after the checker see only the IR. The IR, the
// evaluator, the code generator, the gate and what they use link neither
// the parser (dsl, participle) nor the checker; the diagnostics package is
// shared with the gate for that reason. (Their tests may: they build IR
// from specs.)
func TestLayers(t *testing.T) {
	t.Parallel()
	const mod = "github.com/worldc/worldc/"
	forbidden := func(dep string) bool {
		return dep == mod+"compiler" || dep == mod+"dsl" || strings.HasPrefix(dep, mod+"dsl/") ||
			strings.HasPrefix(dep, "github.com/alecthomas/participle/")
	}
	pkgs := []string{
		mod + "compiler/ir",
		mod + "compiler/diag",
		mod + "compiler/eval",
		mod + "internal/probe",
		mod + "internal/gate",
		mod + "internal/output",
		mod + "internal/cache",
		mod + "internal/safefs",
		mod + "internal/report",
		mod + "gen",
		mod + "internal/bundle",
		mod + "runtime",
		mod + "runtime/serve",
	}
	args := append([]string{"list", "-f", "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}"}, pkgs...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(pkgs) {
		t.Fatalf("go list answered for %d packages, want %d:\n%s", len(lines), len(pkgs), out)
	}
	for _, line := range lines {
		pkg, deps, _ := strings.Cut(line, " ")
		for _, dep := range strings.Fields(deps) {
			if forbidden(dep) {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
