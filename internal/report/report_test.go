package report

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/net/html"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/internal/gate"
)

func sample() *gate.Report {
	meta := func(ind, country string, caps, diff []string) *gate.WorldMeta {
		return &gate.WorldMeta{Industry: ind, Country: country, Capabilities: caps, Difficulty: diff, Tools: 3, Tasks: 2}
	}
	return &gate.Report{
		Worlds: []gate.WorldResult{
			{World: "a", OK: true, Seconds: 0.02, Meta: meta("retail", "DE", []string{"tool_use"}, []string{"multi_step"})},
			{World: "b", OK: true, Seconds: 1.5, Meta: meta("retail", "FR", []string{"tool_use"}, []string{"cross_service"})},
			{World: "c", Stage: gate.StageCheck, Reason: "check: c.world:3:1: error[W003]: unknown entity", Errors: []gate.Error{{Message: "error[W003]: unknown entity"}, {Message: "error[W010]: x"}},
				Diagnostics: []diag.Diagnostic{{Code: diag.UnresolvedName, Message: "unknown entity"}, {Code: diag.WriteOutsideService, Message: "x"}, {Code: diag.SolutionFails, Message: "counted by its code, not its text"}},
				Meta:        meta("logistics", "DE", nil, nil)},
			{World: "d", Stage: gate.StageTest, Reason: "test failed: <script>alert(1)</script>", Errors: []gate.Error{{Message: "<script>alert(1)</script>"}}, Seconds: 12},
		},
		Passed: 2, Failed: 2, Seconds: 14,
	}
}

// textOf is the text of the element with the id, or "".
func textOf(n *html.Node, id string) string {
	for _, a := range n.Attr {
		if a.Key == "id" && a.Val == id {
			var b strings.Builder
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == html.TextNode {
					b.WriteString(c.Data)
				}
			}
			return b.String()
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := textOf(c, id); t != "" {
			return t
		}
	}
	return ""
}

// TestHTML: the page parses as HTML, holds the run's numbers and its
// failures, escapes what the worlds' messages hold, and needs no network.
func TestHTML(t *testing.T) {
	page, err := HTML(sample(), "corpus")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"worlds": "4", "passed": "2", "failed": "2", "pass-rate": "50.0%"} {
		if got := textOf(doc, id); got != want {
			t.Errorf("#%s = %q, want %q", id, got, want)
		}
	}
	s := string(page)
	for _, want := range []string{"W003", "W010", "W021", "test (no code)", "retail", "logistics", "cross_service", ">c<", "&lt;script&gt;"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>", "http://", "https://"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

func TestMerge(t *testing.T) {
	r := sample()
	a := &gate.Report{Worlds: r.Worlds[:2], Passed: 2, Seconds: 3, TestSeconds: 2}
	b := &gate.Report{Worlds: r.Worlds[2:], Failed: 2, Seconds: 5, TestSeconds: 4}
	m, err := Merge([]*gate.Report{b, a})
	if err != nil {
		t.Fatal(err)
	}
	if Verdicts(m) != Verdicts(r) || m.Seconds != 5 || m.TestSeconds != 6 {
		t.Errorf("merged:\n%s\nwant:\n%s (seconds %v, test %v)", Verdicts(m), Verdicts(r), m.Seconds, m.TestSeconds)
	}
	if _, err := Merge([]*gate.Report{a, a}); err == nil {
		t.Error("overlapping shards were merged")
	}
	// One world under two packages (two output directories) is one world
	// twice; two failed specs of one file name in two directories are not.
	other := &gate.Report{Worlds: []gate.WorldResult{{World: "a", Package: "elsewhere/a", OK: true}}, Passed: 1}
	if _, err := Merge([]*gate.Report{a, other}); err == nil {
		t.Error("a world in two shards under two packages was merged")
	}
	x1 := &gate.Report{Worlds: []gate.WorldResult{{World: "x", Stage: gate.StageCheck, Spec: "one/x.world"}}, Failed: 1}
	x2 := &gate.Report{Worlds: []gate.WorldResult{{World: "x", Stage: gate.StageCheck, Spec: "two/x.world"}}, Failed: 1}
	if m, err := Merge([]*gate.Report{x1, x2}); err != nil || m.Failed != 2 {
		t.Errorf("two failed specs of one name: %v, %+v", err, m)
	}
}

// TestReadRefusesTrailingData: a shard's report is one JSON object.
func TestReadRefusesTrailingData(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	os.WriteFile(good, []byte(`{"worlds": [], "passed": 0, "failed": 0, "seconds": 1, "typecheck_seconds": 0, "test_seconds": 0}`+"\n"), 0o644)
	if _, err := Read(good); err != nil {
		t.Fatalf("a report: %v", err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"worlds": [], "passed": 0, "failed": 0}{"worlds": [{"world": "forged", "ok": true}]}`), 0o644)
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "data after") {
		t.Errorf("trailing data: err = %v", err)
	}
	if err := mkfifo(filepath.Join(dir, "fifo.json")); err == nil {
		if _, err := Read(filepath.Join(dir, "fifo.json")); err == nil {
			t.Error("a FIFO was read as a report")
		}
	}
}

// TestChromium renders the verdicts page in headless Chromium and checks
// what it shows (chromiumDOM).
func TestChromium(t *testing.T) {
	page, err := HTML(sample(), "corpus")
	if err != nil {
		t.Fatal(err)
	}
	out := chromiumDOM(t, page)
	for _, want := range []string{`id="pass-rate"`, "50.0%", "W003"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
}

// TestTasksChromium: the tasks page as Chromium shows it, graphs drawn.
func TestTasksChromium(t *testing.T) {
	page, err := TasksHTML(tasksSample(t), "tasks")
	if err != nil {
		t.Fatal(err)
	}
	out := chromiumDOM(t, page)
	for _, want := range []string{`id="kept"`, "tool-dependency graph", "g0-arrow-state", "median coverage"} {
		if !strings.Contains(out, want) {
			t.Errorf("the rendered page lacks %q", want)
		}
	}
}

// chromiumDOM renders page in headless Chromium (Debian's chromium) and
// returns the DOM it shows; it skips, saying so, where there is none,
// except under CI, where .ci/run installs chromium and its absence fails.
func chromiumDOM(t *testing.T, page []byte) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: starting a browser costs a second; make test looks at the page in chromium (TestHTML checks it here)")
	}
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("chromium is not installed, and CI must look at the page in a browser: .ci/run installs Debian's chromium")
		}
		t.Skip("chromium is not installed (apt-get install chromium): the page is not looked at in a browser")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--user-data-dir="+filepath.Join(dir, "profile"), "--dump-dom", "file://"+file).Output()
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	return string(out)
}

// mkfifo makes a FIFO at p.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
