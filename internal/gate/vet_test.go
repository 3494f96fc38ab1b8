package gate

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// writeModule writes a module example.com/worlds with the given files.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/worlds\n\ngo 1.26\n"
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func needGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
}

// One verdict per package: a type error, a failing test, a panic and an
// unused variable fail at the right stage with the right reason, and the
// others pass.
func TestVet(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{
		"w/good/good.go":           "package good\n\nfunc F() int { return 1 }\n",
		"w/good/good_test.go":      "package good\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tif F() != 1 {\n\t\tt.Fatal(\"no\")\n\t}\n}\n",
		"w/xtest/x.go":             "package xtest\n\nfunc F() int { return 1 }\n",
		"w/xtest/x_test.go":        "package xtest_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/worlds/w/xtest\"\n)\n\nfunc TestF(t *testing.T) { _ = xtest.F() }\n",
		"w/typeerr/t.go":           "package typeerr\n\nfunc F() int { return \"x\" }\n",
		"w/unused/u.go":            "package unused\n\nfunc F() { x := 1 }\n",
		"w/badtest/b.go":           "package badtest\n",
		"w/badtest/b_test.go":      "package badtest\n\nimport \"testing\"\n\nfunc TestB(t *testing.T) { undefinedThing() }\n",
		"w/failing/f.go":           "package failing\n",
		"w/failing/f_test.go":      "package failing\n\nimport \"testing\"\n\nfunc TestF(t *testing.T) {\n\tt.Errorf(\"world %q: task %q: first\\nsecond line\", \"failing\", \"t1\")\n\tt.Error(\"another\")\n}\n",
		"w/panics/p.go":            "package panics\n",
		"w/panics/p_test.go":       "package panics\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) { var m map[string]int; m[\"x\"] = 1 }\n",
		"w/vetfail/v.go":           "package vetfail\n\nimport \"fmt\"\n\nfunc F() string { return fmt.Sprintf(\"%d\", \"x\") }\n",
		"w/vetfail/v_test.go":      "package vetfail\n\nimport \"testing\"\n\nfunc TestV(t *testing.T) { _ = F() }\n",
		"w/notests/n.go":           "package notests\n\nfunc F() {}\n",
		"elsewhere/ignored/i.go":   "package ignored\n\nfunc F() int { return \"ignored: not matched\" }\n",
		"w/typeerr/t_test.go":      "package typeerr\n",
		"w/good/testdata/README":   "not a package\n",
		"w/panics/testdata/x.json": "{}\n",
	})
	var progressed []string
	total := 0
	report, err := Vet(context.Background(), []string{"./w/..."}, VetOptions{
		Dir:      dir,
		NoCache:  true,
		Progress: func(r WorldResult) { progressed = append(progressed, r.World) },
		Start:    func(worlds []string) { total = len(worlds) },
	})
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		ok     bool
		stage  Stage
		reason string // a substring
	}
	wants := map[string]want{
		"badtest": {false, StageTypecheck, "b_test.go:5:28: undefined: undefinedThing"},
		"failing": {false, StageTest, `world "failing": task "t1": first second line (and 1 more)`},
		"good":    {true, "", ""},
		"notests": {true, "", ""},
		"panics":  {false, StageTest, "panic: assignment to entry in nil map"},
		"typeerr": {false, StageTypecheck, "w/typeerr/t.go:3:23: cannot use \"x\""},
		"unused":  {false, StageTypecheck, "declared and not used: x"},
		"vetfail": {false, StageBuild, "fmt.Sprintf format %d has arg \"x\" of wrong type string"},
		"xtest":   {true, "", ""},
	}
	if len(report.Worlds) != len(wants) || total != len(wants) || len(progressed) != len(wants) {
		t.Errorf("%d verdicts, total %d, %d progress calls; want %d each", len(report.Worlds), total, len(progressed), len(wants))
	}
	for _, r := range report.Worlds {
		w, ok := wants[r.World]
		if !ok {
			t.Errorf("unexpected world %s", r.World)
			continue
		}
		if r.OK != w.ok || r.Stage != w.stage || !strings.Contains(r.Reason, w.reason) {
			t.Errorf("%s: ok=%v stage=%q reason=%q\nwant ok=%v stage=%q reason containing %q", r.World, r.OK, r.Stage, r.Reason, w.ok, w.stage, w.reason)
		}
		if r.Package != "example.com/worlds/w/"+r.World {
			t.Errorf("%s: package %q", r.World, r.Package)
		}
	}
	if report.Passed != 3 || report.Failed != 6 || report.OK() {
		t.Errorf("passed %d, failed %d, want 3 and 6", report.Passed, report.Failed)
	}
}

func TestVetNoPackages(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{"README": "empty\n"})
	if _, err := Vet(context.Background(), []string{"./..."}, VetOptions{Dir: dir}); err == nil {
		t.Fatal("no error for a pattern matching no packages")
	}
}

func TestCommonPattern(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want string
	}{
		{[]string{"a/b/c"}, "a/b/c"},
		{[]string{"a/b/c", "a/b/d"}, "a/b/..."},
		{[]string{"a/b/c", "a/bc/d"}, "a/..."},
		{[]string{"a/b", "x/y"}, ""},
	} {
		if got := commonPattern(tt.in); got != tt.want {
			t.Errorf("commonPattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Linked testing: worlds with the entry point run in one test binary; a
// world that crashes it, and worlds without the entry point, are tested one
// package at a time; every world still gets its own verdict.
func TestVetLinked(t *testing.T) {
	needGo(t)
	world := func(name, body string) map[string]string {
		return map[string]string{
			"w/" + name + "/w.go":      "package " + name + "\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n)\n\nvar _ = errors.New\nvar _ = fmt.Sprint\n\nfunc Conformance() []error {\n" + body + "\n}\n",
			"w/" + name + "/w_test.go": "package " + name + "\n\nimport \"testing\"\n\nfunc TestConformance(t *testing.T) {\n\tfor _, err := range Conformance() {\n\t\tt.Error(err)\n\t}\n}\n",
		}
	}
	files := map[string]string{
		"w/noentry/n.go":      "package noentry\n\nfunc Score() int { return 1 }\n",
		"w/noentry/n_test.go": "package noentry\n\nimport \"testing\"\n\nfunc TestScore(t *testing.T) { _ = Score() }\n",
	}
	for name, body := range map[string]string{
		"alpha": "\treturn nil",
		"bad":   "\treturn []error{errors.New(`world \"bad\": task \"t\": scores 0.5`), errors.New(\"second\")}",
		"crash": "\tvar m map[string]int\n\tm[\"x\"] = 1\n\treturn nil",
		"omega": "\treturn nil",
		"vetty": "\tif false {\n\t\t_ = fmt.Sprintf(\"%d\", \"x\")\n\t}\n\treturn nil",
	} {
		for k, v := range world(name, body) {
			files[k] = v
		}
	}
	dir := writeModule(t, files)
	report, err := Vet(context.Background(), []string{"./w/..."}, VetOptions{Dir: dir, NoCache: true, LinkBatch: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]WorldResult{}
	for _, r := range report.Worlds {
		got[r.World] = r
	}
	for _, name := range []string{"alpha", "omega", "noentry"} {
		if r := got[name]; !r.OK {
			t.Errorf("%s: %+v, want ok", name, r)
		}
	}
	if r := got["bad"]; r.OK || r.Stage != StageTest || !strings.Contains(r.Reason, `world "bad": task "t": scores 0.5 (and 1 more)`) {
		t.Errorf("bad: %+v", r)
	}
	if r := got["crash"]; r.OK || !strings.Contains(r.Reason, "panic: assignment to entry in nil map") {
		t.Errorf("crash: %+v", r)
	}
	// go test would have failed it on its vet checks: so does linking.
	if r := got["vetty"]; r.OK || r.Stage != StageBuild || !strings.Contains(r.Reason, "vet: fmt.Sprintf format %d has arg \"x\" of wrong type string") {
		t.Errorf("vetty: %+v", r)
	}
	if len(report.Worlds) != 6 || report.Passed != 3 {
		t.Errorf("%d worlds, %d passed; want 6 and 3", len(report.Worlds), report.Passed)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "_worldc_gate_*")); len(left) > 0 {
		t.Errorf("the aggregating packages were left behind: %v", left)
	}
}

// TestGateDiagnostics: a gate failure reads as check --json diagnostics,
// at the spec position the locator found, or at the spec's first line.
func TestGateDiagnostics(t *testing.T) {
	r := WorldResult{World: "shop", Stage: StageTest, Spec: "specs/shop.world", Errors: []Error{
		{Go: "world_test.go:12", Spec: "specs/shop.world:16:3, tool set_tier", Message: "tool set_tier: no candidate arguments succeeded"},
		{Message: "panic: boom"},
	}}
	ds := r.GateDiagnostics()
	if len(ds) != 2 {
		t.Fatalf("%d diagnostics", len(ds))
	}
	if d := ds[0]; d.Code != "gate-test" || d.File != "specs/shop.world" || d.Line != 16 || d.Col != 3 || d.Hint == "" ||
		d.Message != "tool set_tier: tool set_tier: no candidate arguments succeeded (generated Go: world_test.go:12)" {
		t.Errorf("first: %+v", d)
	}
	if d := ds[1]; d.File != "specs/shop.world" || d.Line != 1 || d.Message != "panic: boom" {
		t.Errorf("second: %+v", d)
	}
	if (WorldResult{OK: true}).GateDiagnostics() != nil || (WorldResult{Stage: StageCheck}).GateDiagnostics() != nil {
		t.Error("diagnostics for a world that passed or failed the check")
	}
}

// TestVetLocates: a failure is placed in the spec by the position map of
// its package, the locator made for the package's directory: the
// positions are relative to the module's directory, which is not the
// working directory when worldc build's -o names a directory below it.
// The verdict reported as it comes (Progress, the lines worldc prints) has
// them too.
func TestVetLocates(t *testing.T) {
	needGo(t)
	dir := writeModule(t, map[string]string{
		"w/shop/tools.go": "package shop\n\nfunc SetTier() int { return \"x\" }\n",
	})
	pm := &ir.PosMap{World: ir.Origin{Pos: ir.Pos{Filename: "shop.world", Line: 1, Column: 1}, What: "world shop"},
		Files: map[string][]ir.Range{"tools.go": {{First: 3, Last: 3, Origin: ir.Origin{Pos: ir.Pos{Filename: "shop.world", Line: 7, Column: 3}, What: "tool set_tier"}}}}}
	report, err := Vet(context.Background(), []string{"./w/..."}, VetOptions{
		Dir:     dir,
		NoCache: true,
		Locate:  map[string]Locator{filepath.Join(dir, "w", "shop"): NewLocator(pm, filepath.Join(dir, "w", "shop"))},
		Progress: func(r WorldResult) {
			if !strings.Contains(r.Reason, "(from shop.world:7:3, tool set_tier)") {
				t.Errorf("reported verdict: %s", r.Reason)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(report.Worlds) != 1 || len(report.Worlds[0].Errors) == 0 {
		t.Fatalf("report: %+v", report)
	}
	if got, want := report.Worlds[0].Errors[0].Spec, "shop.world:7:3, tool set_tier"; got != want {
		t.Errorf("spec position %q, want %q", got, want)
	}
}
