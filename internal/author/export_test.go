package author

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/internal/author/fakellm"
)

func TestExport(t *testing.T) {
	h := newHarness(t, fakellm.Script{
		"acme": {spec(t, "broken.world"), spec(t, "good.world")},
		"bolt": {spec(t, "broken.world")},
	}, Options{CheckOnly: true, Rounds: 0})
	h.runner.Opts.Rounds = 1
	h.run(t, context.Background(), brief("acme"))
	h.runner.Opts.Rounds = 0
	h.run(t, context.Background(), brief("bolt"))
	set, err := ExportTraces([]string{h.out})
	if err != nil {
		t.Fatal(err)
	}
	if set.Briefs != 2 || set.Traces != 3 || len(set.Finals) != 1 || len(set.Repairs) != 1 {
		t.Fatalf("%d briefs, %d traces, %d finals, %d repairs", set.Briefs, set.Traces, len(set.Finals), len(set.Repairs))
	}
	f, r := set.Finals[0], set.Repairs[0]
	if f.ID != "acme" || !strings.HasPrefix(f.Spec, "world acme {") || f.Verdict != VerdictChecked {
		t.Errorf("final %+v", f)
	}
	if r.Source != "trace" || r.Stage != "check" || len(r.Findings) != 3 || r.Repaired != f.Spec || !strings.Contains(r.Spec, "crm.Custmer") {
		t.Errorf("repair %+v", r)
	}
	ops, _ := LookupOperators([]string{"dangling-ref", "missing-today"})
	if err := set.AddCorruptions(ops, 1); err != nil {
		t.Fatal(err)
	}
	if len(set.Repairs) != 3 || set.Repairs[1].Source != "corrupt:dangling-ref" || set.Repairs[2].Source != "corrupt:missing-today" || set.Repairs[2].Repaired != f.Spec {
		t.Fatalf("repairs after corruptions: %+v", set.Repairs)
	}
	dir := t.TempDir()
	if err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "repairs.jsonl"))
	if err != nil || strings.Count(string(data), "\n") != 3 {
		t.Fatalf("repairs.jsonl: %v, %d lines", err, strings.Count(string(data), "\n"))
	}
}
