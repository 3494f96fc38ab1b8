package pycalc_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/pycalc"
)

// probe is one expression of testdata/probes.json with CPython's answers
// (see testdata/probes.py).
type probe struct {
	Expr    string `json:"expr"`
	Kind    string `json:"kind"`
	Value   string `json:"value"`
	Float   string `json:"float"`
	Result  string `json:"result"`
	Error   string `json:"error"`
	Message string `json:"message"`
}

func loadProbes(t testing.TB, path string, least int) []probe {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Python string  `json:"python"`
		Count  int     `json:"count"`
		Probes []probe `json:"probes"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Probes) != doc.Count || doc.Count < least {
		t.Fatalf("probes.json holds %d probes, says %d", len(doc.Probes), doc.Count)
	}
	return doc.Probes
}

// calculate is tau2's calculate: str(round(float(eval(expr)), 2)).
func calculate(expr string) (string, error) {
	f, err := pycalc.Float(expr)
	if err != nil {
		return "", err
	}
	return pycalc.FormatFloat(runtime.RoundDigits(f, 2)), nil
}

// check compares calc's answers for p with CPython's and returns the
// differences.
func check(p probe) []string {
	var diffs []string
	f, err := pycalc.Float(p.Expr)
	var pe *pycalc.Error
	switch {
	case p.Error != "":
		switch {
		case err == nil:
			diffs = append(diffs, fmt.Sprintf("float: got %s, want %s: %s", pycalc.FormatFloat(f), p.Error, p.Message))
		case !errors.As(err, &pe):
			diffs = append(diffs, fmt.Sprintf("float: error %T is not a *pycalc.Error", err))
		case pe.Type != p.Error || (p.Error != "LimitError" && pe.Msg != p.Message):
			diffs = append(diffs, fmt.Sprintf("float: got %s: %s, want %s: %s", pe.Type, pe.Msg, p.Error, p.Message))
		}
	case err != nil:
		diffs = append(diffs, fmt.Sprintf("float: got %v, want %s", err, p.Float))
	default:
		if got := pycalc.FormatFloat(f); got != p.Float {
			diffs = append(diffs, fmt.Sprintf("float: got %s, want %s", got, p.Float))
		}
		if got, _ := calculate(p.Expr); got != p.Result {
			diffs = append(diffs, fmt.Sprintf("result: got %s, want %s", got, p.Result))
		}
	}
	if p.Value != "" {
		if got, err := pycalc.Eval(p.Expr); err != nil || got != p.Value {
			diffs = append(diffs, fmt.Sprintf("value: got %q (%v), want %q", got, err, p.Value))
		}
	}
	return diffs
}

// TestProbes holds calc to CPython on every probe of the corpus.
func TestProbes(t *testing.T) {
	testProbes(t, loadProbes(t, "testdata/probes.json", 5000), false)
}

// TestProbesFile runs a corpus written elsewhere, when PYCALC_PROBES names
// it: `python3 testdata/probes.py --seed 7 --scale 20 > /tmp/p.json`. A
// difference of a few units in the last place of a number, in an
// expression with a power, is the C library's pow (or sin, cos…) against
// calc's correctly rounded one: it is counted, not failed.
func TestProbesFile(t *testing.T) {
	path := os.Getenv("PYCALC_PROBES")
	if path == "" {
		t.Skip("PYCALC_PROBES is not set")
	}
	testProbes(t, loadProbes(t, path, 1), true)
}

// libmDiff reports whether p's answers and calc's differ only by a few
// units in the last place of the numbers in them, in an expression with a
// power.
func libmDiff(p probe) bool {
	if !strings.Contains(p.Expr, "**") {
		return false
	}
	f, err := pycalc.Float(p.Expr)
	if p.Error != "" {
		var pe *pycalc.Error
		if !errors.As(err, &pe) || pe.Type != p.Error || pe.Msg != p.Message {
			return false
		}
	} else if err != nil || !nearFloats(pycalc.FormatFloat(f), p.Float) {
		return false
	}
	if p.Value != "" {
		got, err := pycalc.Eval(p.Expr)
		if err != nil || !nearFloats(got, p.Value) {
			return false
		}
	}
	return true
}

// number matches a float in a repr (of a float or a complex number).
var number = regexp.MustCompile(`[0-9][0-9.]*(e[-+][0-9]+)?`)

// nearFloats reports whether a and b are the same text but for numbers
// within 4 ulps of each other.
func nearFloats(a, b string) bool {
	if number.ReplaceAllString(a, "#") != number.ReplaceAllString(b, "#") {
		return false
	}
	na, nb := number.FindAllString(a, -1), number.FindAllString(b, -1)
	for i := range na {
		x, err1 := strconv.ParseFloat(na[i], 64)
		y, err2 := strconv.ParseFloat(nb[i], 64)
		if err1 != nil || err2 != nil {
			return false
		}
		lo, hi := min(x, y), max(x, y)
		for range 4 {
			lo = math.Nextafter(lo, math.Inf(1))
		}
		if lo < hi {
			return false
		}
	}
	return true
}

func testProbes(t *testing.T, probes []probe, tolerateLibm bool) {
	failed, libm := 0, 0
	kinds := map[string]int{}
	for _, p := range probes {
		kinds[p.Kind]++
		if diffs := check(p); len(diffs) > 0 {
			if tolerateLibm && libmDiff(p) {
				libm++
				continue
			}
			failed++
			if failed <= 40 {
				t.Errorf("%s %q:\n  %s", p.Kind, p.Expr, strings.Join(diffs, "\n  "))
			}
		}
	}
	t.Logf("%d of %d probes agree with CPython (%v); %d more differ in the last bits of a power", len(probes)-failed-libm, len(probes), kinds, libm)
	if failed > 0 {
		t.Errorf("%d of %d probes differ", failed, len(probes))
	}
}
