package pycalc_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime/pycalc"
)

func TestFormatFloat(t *testing.T) {
	// Python's repr of each value.
	for _, c := range []struct {
		x    float64
		want string
	}{
		{4, "4.0"}, {1e16, "1e+16"}, {1234567890123456, "1234567890123456.0"},
		{9999999999999998, "9999999999999998.0"}, {0.0001, "0.0001"}, {0.00001, "1e-05"},
		{1.5e-05, "1.5e-05"}, {math.Copysign(0, -1), "-0.0"}, {math.Inf(1), "inf"},
		{math.Inf(-1), "-inf"}, {math.NaN(), "nan"}, {1.5e300, "1.5e+300"}, {5e-324, "5e-324"},
		{0.1, "0.1"}, {100, "100.0"}, {1e22, "1e+22"}, {123456789.12, "123456789.12"},
		{-2.5, "-2.5"}, {0.00012345, "0.00012345"},
	} {
		if got := pycalc.FormatFloat(c.x); got != c.want {
			t.Errorf("FormatFloat(%v) = %s, want %s", c.x, got, c.want)
		}
	}
}

// TestLimits pins calc's limits at their boundaries: just inside, Python's
// answer; just outside, a LimitError; and Python's own errors before them.
func TestLimits(t *testing.T) {
	sum1000 := strings.Repeat("1+", 499) + "10" // 1000 characters: 509
	deep := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	for _, c := range []struct {
		expr, want string // a float's repr, or "Type: message"
	}{
		{sum1000, "509.0"},
		{" " + sum1000, "LimitError"}, // leading spaces count
		{sum1000 + "0", "LimitError"},
		{strings.Repeat("a", 2000), "ValueError: Invalid characters in expression"},
		{deep(100), "1.0"},
		{deep(101), "LimitError"},
		{strings.Repeat("(", 101) + "1", "LimitError"},
		{deep(201), "SyntaxError: too many nested parentheses (<string>, line 1)"},
		{"01" + deep(150), "SyntaxError: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)"},
		{deep(150) + ")", "SyntaxError: unmatched ')' (<string>, line 1)"},
		{"2**65535", "OverflowError: int too large to convert to float"}, // 65536 bits
		{"2**65535//2**65534", "2.0"},
		{"-2**65535-1+2", "OverflowError: int too large to convert to float"},
		{"2**65536", "LimitError"},
		{"2**65535*2", "LimitError"},
		{"2**65535+2**65535", "LimitError"},
		{"9**9**9", "LimitError"},
		{"2**(10**100)", "LimitError"},
		{"0**(10**100)", "0.0"},
		{"(-1)**(10**100+1)", "-1.0"},
		{"1**(10**100)", "1.0"},
		{"2**-(10**100)", "0.0"},
		{"2**-(10**400)", "OverflowError: int too large to convert to float"},
		{"()*10**100", "OverflowError: cannot fit 'int' into an index-sized integer"},
	} {
		got, err := pycalc.Float(c.expr)
		var s string
		var pe *pycalc.Error
		switch {
		case errors.As(err, &pe) && pe.Type == "LimitError":
			s = "LimitError"
		case errors.As(err, &pe):
			s = pe.Type + ": " + pe.Msg
		default:
			s = pycalc.FormatFloat(got)
		}
		if s != c.want {
			t.Errorf("Float(%.40q…) = %s, want %s", c.expr, s, c.want)
		}
	}
}

// TestCorpusCoversTable checks that the corpus holds each row of the error
// table of docs/design/tau2-retail.md §4.1 with its message, so that
// regenerating it cannot drop one.
func TestCorpusCoversTable(t *testing.T) {
	want := map[string]string{
		"1/0":        "division by zero",
		"1.0/0":      "float division by zero",
		"5//0":       "integer division or modulo by zero",
		"5.0//0":     "float floor division by zero",
		"0**-1":      "0.0 cannot be raised to a negative power",
		"10**400":    "int too large to convert to float",
		"10**400/1":  "integer division result too large for a float",
		"2.0**10000": "(34, 'Numerical result out of range')",
		"(-8)**0.5":  "float() argument must be a string or a real number, not 'complex'",
		"()":         "float() argument must be a string or a real number, not 'tuple'",
		"...":        "float() argument must be a string or a real number, not 'ellipsis'",
		"(1)(2)":     "'int' object is not callable",
		"(1.5)(2)":   "'float' object is not callable",
		"()(2)":      "'tuple' object is not callable",
		"01":         "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)",
		"":           "invalid syntax (<string>, line 0)",
		" ":          "invalid syntax (<string>, line 0)",
		"1 +":        "invalid syntax (<string>, line 1)",
		"3 4":        "invalid syntax (<string>, line 1)",
		"1.2.3":      "invalid syntax (<string>, line 1)",
		"(1 2)":      "invalid syntax. Perhaps you forgot a comma? (<string>, line 1)",
		"(1":         "'(' was never closed (<string>, line 1)",
		")":          "unmatched ')' (<string>, line 1)",
		"1e5":        "Invalid characters in expression",
	}
	for _, p := range loadProbes(t, "testdata/probes.json", 5000) {
		if m, ok := want[p.Expr]; ok {
			if p.Message != m {
				t.Errorf("probe %q: message %q, want %q", p.Expr, p.Message, m)
			}
			delete(want, p.Expr)
		}
	}
	for e := range want {
		t.Errorf("the corpus has no probe %q", e)
	}
}
