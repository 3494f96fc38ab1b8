package author

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/gate"
)

var update = flag.Bool("update", false, "rewrite the golden prompts in testdata/prompts")

// golden compares got with testdata/prompts/name, or rewrites it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "prompts", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/author -run TestPrompts -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from what the templates render; if intended, run go test ./internal/author -run TestPrompts -update and review the diff\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

var goldenBrief = Brief{ID: "acme", Brief: "Acme Freight GmbH in Hamburg invoices shippers and posts payments to its ledger.", Industry: "freight and logistics", Country: "DE"}

func TestPromptsGolden(t *testing.T) {
	p, err := LoadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	sys, err := p.System(true)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "system.txt", sys)
	sysRepair, err := p.System(false)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "system_repair.txt", sysRepair)

	author, err := p.Author(goldenBrief)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "author_user.txt", author[1].Content)

	src := replyFile(t, "broken.world")
	src, _ = renameWorld("acme.world", src, "acme")
	_, diags := compiler.CheckSource("acme.world", []byte(src))
	repair, err := p.Repair(goldenBrief, RepairInput{Stage: "check", File: "acme.world", Spec: src, Findings: CheckFindings(diags, src), Explain: []string{"W003", "W005", "W016"}})
	if err != nil {
		t.Fatal(err)
	}
	if repair[0].Content != sysRepair {
		t.Error("a repair's system prompt is not the system prompt without the example")
	}
	golden(t, "repair_check_user.txt", repair[1].Content)

	gateSrc, _ := renameWorld("acme.world", replyFile(t, "gatefail.world"), "acme")
	w, diags := compiler.CheckSource("acme.world", []byte(gateSrc), compiler.WithoutReachability())
	if diags.HasErrors() {
		t.Fatal(diags.Text())
	}
	// The verdict the gate gives this spec (see TestGateFailureIsRepaired).
	verdict := gate.WorldResult{World: "acme", Stage: gate.StageTest, Reason: "test failed: world_test.go:12: tool reopen_invoice: no candidate arguments succeeded in 16 tries; the furthest got: precondition_failed: only void invoices can be reopened",
		Errors: []gate.Error{{Go: "world_test.go:12", Message: "tool reopen_invoice: no candidate arguments succeeded in 16 tries; the furthest got: precondition_failed: only void invoices can be reopened"}}}
	repair, err = p.Repair(goldenBrief, RepairInput{Stage: "gate", Problem: verdict.Reason, File: "acme.world", Spec: gateSrc, Findings: GateFindings(verdict, gateSrc, w)})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "repair_gate_user.txt", repair[1].Content)

	repair, err = p.Repair(goldenBrief, RepairInput{Stage: "extract", Problem: ErrNoSpec.Error()})
	if err != nil {
		t.Fatal(err)
	}
	if repair[0].Content != sys {
		t.Error("a new draft after a reply without a spec has the author's system prompt")
	}
	golden(t, "repair_extract_user.txt", repair[1].Content)

	tax, err := LoadTaxonomy()
	if err != nil {
		t.Fatal(err)
	}
	req, err := p.BriefRequest(tax.Sample(1, 1)[0])
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "brief_user.txt", req[0].Content)
}

// TestPromptSizes keeps the prompts well inside a 32k context, with room
// for the reply, and reports their sizes.
func TestPromptSizes(t *testing.T) {
	p, err := LoadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	author, err := p.Author(goldenBrief)
	if err != nil {
		t.Fatal(err)
	}
	src := replyFile(t, "broken.world")
	_, diags := compiler.CheckSource("acme.world", []byte(src))
	repair, err := p.Repair(goldenBrief, RepairInput{Stage: "check", File: "acme.world", Spec: src, Findings: CheckFindings(diags, src), Explain: codes(CheckFindings(diags, src))})
	if err != nil {
		t.Fatal(err)
	}
	// A repair of a spec the size of the example world.
	big, err := p.Repair(goldenBrief, RepairInput{Stage: "check", File: "acme.world", Spec: p.Example, Findings: CheckFindings(diags, src), Explain: codes(CheckFindings(diags, src))})
	if err != nil {
		t.Fatal(err)
	}
	const limit = 24000 // of 32k, leaving 8k for the reply
	for _, c := range []struct {
		name string
		ms   []Message
	}{{"author", author}, {"repair (small spec)", repair}, {"repair (spec as large as the example)", big}} {
		n := MessagesTokens(c.ms)
		t.Logf("%s prompt: %d bytes, about %d tokens", c.name, len(c.ms[0].Content)+len(c.ms[1].Content), n)
		if n > limit {
			t.Errorf("%s prompt: about %d tokens, more than %d", c.name, n, limit)
		}
	}
}

// TestExampleWorld: the example world of the prompts is a copy of one of
// the example worlds, identical to it, and checks clean.
func TestExampleWorld(t *testing.T) {
	p, err := LoadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "worlds", ExampleSource))
	if err != nil {
		t.Fatal(err)
	}
	if string(src) != p.Example {
		t.Fatalf("templates/author/example.world differs from testdata/worlds/%s: cp testdata/worlds/%[1]s templates/author/example.world", ExampleSource)
	}
	if _, diags := compiler.CheckSource(ExampleSource, src); len(diags) > 0 {
		t.Fatalf("the example world has diagnostics:\n%s", diags.Text())
	}
}

func TestVersionChangesWithTemplates(t *testing.T) {
	p, err := LoadPrompts()
	if err != nil {
		t.Fatal(err)
	}
	v := p.Version()
	if !strings.HasPrefix(v, "author-1,brief-1,repair-1,system-2@") {
		t.Errorf("version %q", v)
	}
	p.Structured = true
	if p.Version() == v {
		t.Error("structured output does not change the version")
	}
}
