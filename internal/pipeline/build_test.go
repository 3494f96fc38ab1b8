package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/cache"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/testfs"
)

// events records what a run tells, safe for the gate's goroutines.
type events struct {
	mu       sync.Mutex
	diags    []string
	started  []string
	gated    int
	verdicts []string
}

func (e *events) install(o *Options) {
	o.Events.Diagnostics = func(d compiler.Diagnostics) {
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, x := range d {
			e.diags = append(e.diags, string(x.Code)+" "+x.File)
		}
	}
	o.Events.Start = func(worlds []string, gated int) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.started, e.gated = slices.Sorted(slices.Values(worlds)), gated
	}
	o.Events.Verdict = func(r gate.WorldResult, gated bool) {
		e.mu.Lock()
		defer e.mu.Unlock()
		v := "FAIL"
		if r.OK {
			v = "ok"
		}
		if r.Cached {
			v += " (cached)"
		}
		e.verdicts = append(e.verdicts, r.World+": "+v)
	}
}

// TestBuild runs the main job in process on a small corpus, twice with one
// verdict cache: a world that passes (type-checked), a spec with an error,
// and a second spec of the first world; warm, the first world's verdict
// comes from the cache and the duplicate still fails.
func TestBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: type-checks a generated world (the CLI scripts cover build in the quick tier)")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("../../testdata/worlds/insurance_claims.world")
	if err != nil {
		t.Fatal(err)
	}
	testfs.WriteFiles(t, dir, map[string]string{
		"specs/a_claims.world": string(src),
		"specs/b_bad.world":    "world bad {\n  title \"x\"\n}\n\nservice s \"S\" {\n  entity E { x nosuchtype }\n}\n",
		"specs/c_again.world":  string(src),
	})
	specs, err := Expand(dir, []string{"specs"})
	if err != nil {
		t.Fatal(err)
	}
	vc, err := cache.Open(filepath.Join(dir, "cache"), "test")
	if err != nil {
		t.Fatal(err)
	}
	run := func() (*gate.Report, *events) {
		t.Helper()
		ev := &events{}
		opts := &Options{Cwd: dir, Out: filepath.Join(dir, "out"), Module: output.ModuleOptions{Version: "test"},
			Gate: GateOptions{TypecheckOnly: true}, Cache: vc}
		ev.install(opts)
		report, err := Build(context.Background(), specs, opts)
		if err != nil {
			t.Fatal(err)
		}
		return report, ev
	}

	report, ev := run()
	if report.Passed != 1 || report.Failed != 2 {
		t.Fatalf("cold: %d passed, %d failed: %+v", report.Passed, report.Failed, report.Worlds)
	}
	wantWorlds := []string{"b_bad", "c_again", "insurance_claims"}
	if !slices.Equal(ev.started, wantWorlds) || ev.gated != 1 {
		t.Errorf("cold: started %v (%d gated), want %v (1 gated)", ev.started, ev.gated, wantWorlds)
	}
	dup := report.Worlds[slices.IndexFunc(report.Worlds, func(r gate.WorldResult) bool { return r.World == "c_again" })]
	if dup.Stage != gate.StageCheck || len(dup.Diagnostics) != 1 || dup.Diagnostics[0].Code != "W002" ||
		!strings.Contains(dup.Reason, "defined by both specs/a_claims.world and specs/c_again.world") {
		t.Errorf("cold: the second spec of one world: %+v", dup)
	}
	if !slices.Contains(ev.diags, "W002 specs/c_again.world") {
		t.Errorf("cold: diagnostics told %v, want the W002 of c_again", ev.diags)
	}

	report, ev = run()
	if report.Passed != 1 || report.Failed != 2 {
		t.Fatalf("warm: %d passed, %d failed: %+v", report.Passed, report.Failed, report.Worlds)
	}
	if ev.gated != 0 || !slices.Contains(ev.verdicts, "insurance_claims: ok (cached)") || !slices.Contains(ev.verdicts, "b_bad: FAIL (cached)") {
		t.Errorf("warm: %d gated, verdicts %v: want every verdict but the duplicate's from the cache", ev.gated, ev.verdicts)
	}
	if !slices.Contains(ev.verdicts, "c_again: FAIL") {
		t.Errorf("warm: verdicts %v: the duplicate must still fail", ev.verdicts)
	}
}
