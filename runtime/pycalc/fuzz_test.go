package pycalc_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime/pycalc"
)

// FuzzFloat feeds calc arbitrary strings. Properties, beyond never
// panicking: every failure is a *pycalc.Error of a Python exception class
// (or calc's LimitError); a character outside the alphabet is Python's
// ValueError; and the identities Python's grammar guarantees hold: leading
// and trailing spaces change nothing, and when s evaluates to x, "(s)"
// evaluates to x, "+(s)" to x and "-(s)" to -x (within the limits; x not
// zero).
// Run: go test -run '^$' -fuzz FuzzFloat ./runtime/pycalc/
func FuzzFloat(f *testing.F) {
	for _, p := range loadProbes(f, "testdata/probes.json", 5000) {
		f.Add(p.Expr)
	}
	types := map[string]bool{"SyntaxError": true, "ZeroDivisionError": true, "OverflowError": true,
		"TypeError": true, "ValueError": true, "LimitError": true}
	f.Fuzz(func(t *testing.T, s string) {
		x, err := pycalc.Float(s)
		var pe *pycalc.Error
		if err != nil {
			if !errors.As(err, &pe) || !types[pe.Type] || pe.Msg == "" {
				t.Fatalf("Float(%q): error %#v", s, err)
			}
		}
		inAlphabet := !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(pycalc.Alphabet, r) })
		if !inAlphabet {
			if pe == nil || pe.Type != "ValueError" || pe.Msg != "Invalid characters in expression" {
				t.Fatalf("Float(%q) = %v, %v; want Invalid characters in expression", s, x, err)
			}
			return
		}
		same := func(form string, want float64, wantErr error) {
			got, err := pycalc.Float(form)
			if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() ||
				err == nil && math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("Float(%q) = %v, %v; Float(%q) = %v, %v", s, x, err, form, got, err)
			}
		}
		if len(s) < pycalc.MaxLength {
			same(" "+s, x, err)
			same(s+" ", x, err)
		}
		if err != nil || len(s)+3 > pycalc.MaxLength || strings.Count(s, "(") >= pycalc.MaxNesting {
			return
		}
		same("("+s+")", x, nil)
		same("+("+s+")", x, nil)
		if x != 0 { // an int zero negates to itself: -(0) is 0.0, -(0.0) is -0.0
			same("-("+s+")", -x, nil)
		}
	})
}
