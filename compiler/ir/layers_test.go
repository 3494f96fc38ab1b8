package ir_test

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/worldc/worldc/"

// layers is the intended layout (README's table): every package of the
// module and the layer it sits in. A package imports only packages of
// lower layers, so the arrows point one way — dsl ← compiler ← gen ←
// pipeline ← cmd — and a package that is not listed fails the test: a
// new room is placed on purpose. Packages under internal/ are what no user
// should import; the others are the public API.
var layers = map[string]int{
	// Data and leaves: the IR, diagnostics, embedded templates and docs,
	// process groups, test helpers.
	"compiler/ir":             0,
	"templates":               0,
	"docs":                    0,
	"runtime/pycalc":          0,
	"runtime/serve/llm":       0,
	"internal/proc":           0,
	"internal/text":           0,
	"internal/cpubench":       0,
	"internal/golden":         0,
	"internal/testfs":         0,
	"internal/jsonobj":        0,
	"internal/author/fakellm": 0,
	"internal/graphsvg":       0,
	"gen/difftest":            0,
	// The runtime every world links (a module of its own); diagnostics.
	"runtime":       1,
	"compiler/diag": 1,
	// The server of bundles; the parser; the evaluator and the
	// conformance probes (on the IR); the file-system rules.
	"runtime/serve/rollback":     2,
	"runtime/internal/worldtest": 2,
	"dsl":                        2,
	"compiler/eval":              2,
	"internal/probe":             2,
	"internal/safefs":            2,
	// The checker; the generator (IR only); output planning; the agent
	// loop of bundles.
	"runtime/serve/eval": 3,
	"compiler":           3,
	"gen":                3,
	"internal/output":    3,
	// The gate: type-check and go test; the bundle's server; the scripted
	// OpenAI endpoint of the agent loop's tests, which reads the prompts
	// as the loop writes them; task synthesis, which writes specs from the
	// checker and the evaluator.
	"internal/gate":               4,
	"runtime/serve":               4,
	"runtime/serve/eval/evaltest": 4,
	"compiler/tasks":              4,
	// What reads verdicts and synthesis summaries (the report pages), and
	// bundles.
	"internal/cache":  5,
	"internal/report": 5,
	"internal/bundle": 5,
	// Specs to vetted worlds; random specs.
	"internal/pipeline": 6,
	"internal/specgen":  6,
	// The authoring loop: an application that drives the pipeline.
	"internal/author": 7,
	// What asks the model for the words of synthesised tasks, with
	// author's client.
	"internal/taskwords": 8,
	// Commands: flags, output, exit codes.
	"cmd/worldc":     9,
	"cmd/tau2import": 9,
	"cmd/taskcost":   9,
}

// goList runs go list with a template over patterns.
func goList(t *testing.T, template string, patterns ...string) []string {
	t.Helper()
	args := append([]string{"list", "-f", template}, patterns...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestLayers: every package of the module is placed in the layout, and
// imports only packages of lower layers.
func TestLayers(t *testing.T) {
	t.Parallel()
	for _, line := range goList(t, "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", mod+"...") {
		fields := strings.Fields(line)
		pkg, ok := strings.CutPrefix(fields[0], mod)
		if !ok || strings.HasPrefix(pkg, "generated/") || strings.Contains(pkg, "/testdata/") {
			continue
		}
		layer, placed := layers[pkg]
		if !placed {
			t.Errorf("package %s is not in the layout: add it to layers (and README's table)", pkg)
			continue
		}
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, mod)
			if !ours {
				continue
			}
			dl, known := layers[dep]
			if known && dl >= layer {
				t.Errorf("%s (layer %d) imports %s (layer %d): arrows point to lower layers only", pkg, layer, dep, dl)
			}
		}
	}
}

// TestAfterTheChecker: the stages after the checker see only the IR. The
// IR, the evaluator, the code generator, the gate and what they use link
// neither the parser (dsl, participle) nor the checker; the diagnostics
// package is shared with the gate for that reason. (Their tests may: they
// build IR from specs.)
func TestAfterTheChecker(t *testing.T) {
	t.Parallel()
	forbidden := func(dep string) bool {
		return dep == mod+"compiler" || dep == mod+"dsl" || strings.HasPrefix(dep, mod+"dsl/") ||
			strings.HasPrefix(dep, "github.com/alecthomas/participle/")
	}
	var pkgs []string
	for _, p := range []string{
		"compiler/ir", "compiler/diag", "compiler/eval", "internal/probe", "internal/safefs",
		"internal/output", "internal/gate", "internal/cache", "internal/report", "gen", "internal/bundle",
		"runtime", "runtime/serve",
	} {
		pkgs = append(pkgs, mod+p)
	}
	lines := goList(t, "{{.ImportPath}}{{range .Deps}} {{.}}{{end}}", pkgs...)
	if len(lines) != len(pkgs) {
		t.Fatalf("go list answered for %d packages, want %d", len(lines), len(pkgs))
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
