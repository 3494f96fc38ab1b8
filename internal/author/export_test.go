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

// writeTraces writes a traces file as a forger would: any records.
func writeTraces(t *testing.T, out, id string, ts ...Trace) string {
	t.Helper()
	p := filepath.Join(out, "traces", id+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteJSONL(&b, ts); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// renamed is a reply fixture with its world named as the loop names it.
func renamed(t *testing.T, fixture, world string) string {
	t.Helper()
	spec, _ := renameWorld(world+".world", replyFile(t, fixture), world)
	return spec
}

// TestExportRechecksTraces is issue 20's item 8: a traces file is
// checked again, not trusted. A last attempt that claims to have passed
// with a spec that does not check clean is refused, and so is its brief's
// every pair; a claimed check failure of a spec that checks clean is no
// repair pair; a repair pair's findings are those of the check now, not
// the ones the trace claims.
func TestExportRechecksTraces(t *testing.T) {
	out := t.TempDir()
	good, broken := renamed(t, "good.world", "acme"), renamed(t, "broken.world", "acme")
	forged := writeTraces(t, out, "forged",
		Trace{BriefID: "forged", Brief: "b", Attempt: 0, Kind: "author", Spec: broken, Verdict: VerdictCheckFailed},
		Trace{BriefID: "forged", Brief: "b", Attempt: 1, Kind: "repair", Spec: renamed(t, "broken.world", "forged"), Verdict: VerdictPassed})
	writeTraces(t, out, "acme",
		// Claims of failures: the first spec checks clean, the second
		// claims no findings.
		Trace{BriefID: "acme", Brief: "b", Attempt: 0, Kind: "author", Spec: good, Verdict: VerdictCheckFailed},
		Trace{BriefID: "acme", Brief: "b", Attempt: 1, Kind: "repair", Spec: broken, Verdict: VerdictCheckFailed},
		Trace{BriefID: "acme", Brief: "b", Attempt: 2, Kind: "repair", Spec: good, Verdict: VerdictChecked})
	writeTraces(t, out, "empty", Trace{BriefID: "empty", Brief: "b", Verdict: VerdictPassed})
	set, err := ExportTraces([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Finals) != 1 || set.Finals[0].ID != "acme" {
		t.Fatalf("finals %+v, want acme's only", set.Finals)
	}
	if len(set.Refused) != 2 || set.Refused[0].ID != "empty" || set.Refused[1].ID != "forged" || set.Refused[1].File != forged ||
		!strings.HasPrefix(set.Refused[1].Reason, "its last attempt passed, but its spec does not check clean: forged.world:") {
		t.Errorf("refused %+v", set.Refused)
	}
	if len(set.Repairs) != 1 {
		t.Fatalf("repairs %+v, want one: the claimed failure of a clean spec is none", set.Repairs)
	}
	r := set.Repairs[0]
	if r.ID != "acme" || r.Spec != broken || len(r.Findings) != 3 || r.Findings[0].Code == "" {
		t.Errorf("repair %+v, want acme's broken spec with the 3 findings of its check", r)
	}
}

// TestExportReadsRegularFilesOnly is issue 20's item 8: a traces file that
// is a FIFO is refused, not opened (opening it would wait for a writer
// forever), and so is a symbolic link (to a file outside, say).
func TestExportReadsRegularFilesOnly(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(string) error
		kind string
	}{
		{"fifo", mkfifo, "a named pipe (FIFO)"},
		{"link", func(p string) error { return os.Symlink("/etc/passwd", p) }, "a symbolic link"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			p := filepath.Join(out, "traces", "x.jsonl")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.make(p); err != nil {
				t.Skipf("cannot make %s here: %v", c.kind, err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := ExportTraces([]string{out})
				done <- err
			}()
			err := within(t, done, "ExportTraces of a traces directory with "+c.kind)
			if want := p + " is not a regular file but " + c.kind; err == nil || err.Error() != want {
				t.Errorf("error %v, want %q", err, want)
			}
		})
	}
}

// TestTraceLineIsBounded: a traces file whose line never ends (a sparse
// file of zeros) fails at the bound of a line, with its position.
func TestTraceLineIsBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxTraceLineBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadTraces(p)
	if want := p + ":1: a line of more than 67108864 bytes, the bound of a trace"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

// TestExportWritesNoLink: the sets replace a symbolic link planted where
// they go, and do not write through it.
func TestExportWritesNoLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	exp := filepath.Join(dir, "exp")
	if err := os.MkdirAll(exp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(exp, "final.jsonl")); err != nil {
		t.Fatal(err)
	}
	set := &ExportSet{Finals: []FinalPair{{ID: "acme"}}}
	if err := set.Write(exp); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(victim); string(data) != "keep" {
		t.Errorf("the link's target was written: %q", data)
	}
	if info, err := os.Lstat(filepath.Join(exp, "final.jsonl")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("final.jsonl: %v, %v", info, err)
	}
}
