package author

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCorruptionsDetected: every operator, on every example world where it
// applies (up to three sites each), is detected by check with its code.
// It reports the detection rate per operator.
func TestCorruptionsDetected(t *testing.T) {
	worlds, err := filepath.Glob(filepath.Join("..", "..", "testdata", "worlds", "*.world"))
	if err != nil || len(worlds) == 0 {
		t.Fatalf("no example worlds: %v", err)
	}
	// -short corrupts one site per operator and world instead of three
	// (make test runs three, and tau2_retail).
	sites := 3
	if testing.Short() {
		sites = 1
	}
	var all []Corruption
	for _, path := range worlds {
		name := filepath.Base(path)
		if testing.Short() && name == "tau2_retail.world" {
			t.Logf("-short: %s left out (0.8 s of CPU a check)", name)
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cs, err := Corrupt(name, src, CorruptOptions{MaxSites: sites, Data: os.DirFS(filepath.Dir(path))})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if !c.Detected {
				t.Errorf("%s: %s at %d:%d (%s) not detected as %s; check said:\n%s", name, c.Operator, c.Line, c.Col, c.Site, c.Code, c.Diagnostics.Text())
			}
			if c.Corrupted == c.Original {
				t.Errorf("%s: %s at %s changed nothing", name, c.Operator, c.Site)
			}
		}
		all = append(all, cs...)
	}
	rates := DetectionRates(all)
	for _, r := range rates {
		t.Logf("%-24s %s  detected %d of %d (%d worlds)", r.Operator, r.Code, r.Detected, r.Applied, r.Worlds)
	}
	for _, op := range Operators() {
		if !slices.ContainsFunc(rates, func(r DetectionRate) bool { return r.Operator == op.Name }) {
			t.Errorf("operator %s applies to no example world", op.Name)
		}
	}
}

func TestCorruptRefusesInvalidSpec(t *testing.T) {
	_, err := Corrupt("broken.world", []byte(replyFile(t, "broken.world")), CorruptOptions{})
	if err == nil || !strings.Contains(err.Error(), "does not check clean") {
		t.Fatalf("err = %v", err)
	}
}

func TestLookupOperators(t *testing.T) {
	ops, err := LookupOperators([]string{"dangling-ref", "unknown-entity"})
	if err != nil || len(ops) != 2 || ops[0].Code != "W009" {
		t.Fatalf("%v %v", ops, err)
	}
	if _, err := LookupOperators([]string{"nope"}); err == nil || !strings.Contains(err.Error(), "unknown operator") {
		t.Fatalf("err = %v", err)
	}
}
