package compiler

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/diag"
)

// smallFnsSpec is a world whose tool returns expr (with n an int, x a
// money, q a decimal, d a date, t a date-time), of numbers numbers.
func smallFnsSpec(numbers, expr string) string {
	return `world w { title "W" today 2026-03-30 currency "EUR" ` + numbers + ` }
service s "S" {
  entity E { due date }
  tool get_e: get E
  tool f(n: int, x: money, q: decimal, d: date, t: datetime) "F" {
    return ` + expr + `
  }
}
seed { s.E e1 { due: 2026-03-01 } }
`
}

// TestSmallFnsTypes: end_of_month is a date of a date or a date-time's
// date; round_to is of x's type, its step a positive number (an int for
// an int), refused in a world of floats.
func TestSmallFnsTypes(t *testing.T) {
	for _, c := range []struct{ expr, typ, code, msg string }{
		{"end_of_month(d)", "date", "", ""},
		{"end_of_month(t)", "date", "", ""},
		{"end_of_month(n)", "", string(diag.TypeMismatch), "argument 1 of end_of_month must be a date or a date-time, got int"},
		{"end_of_month(d, 1)", "", string(diag.TypeMismatch), "end_of_month takes 1 argument, got 2"},
		{"round_to(x, 0.05)", "money", "", ""},
		{"round_to(x, 5)", "money", "", ""},
		{"round_to(q, x)", "decimal", "", ""},
		{"round_to(n, 50)", "int", "", ""},
		{"round_to(n, n)", "int", "", ""},
		{"round_to(n, 0.5)", "", string(diag.TypeMismatch), "argument 2 of round_to must be an int (the step of an int), got decimal"},
		{"round_to(d, 1)", "", string(diag.TypeMismatch), "argument 1 of round_to must be a number, got date"},
		{"round_to(x, 0)", "", string(diag.InvalidLiteral), "the step of round_to must be positive"},
		{"round_to(x, -0.05)", "", string(diag.InvalidLiteral), "the step of round_to must be positive"},
		{"round_to(n, -5)", "", string(diag.InvalidLiteral), "the step of round_to must be positive"},
		{"round_to(x, 0.00)", "", string(diag.InvalidLiteral), "the step of round_to must be positive"},
	} {
		w, ds := CheckSource("spec.world", []byte(smallFnsSpec("", c.expr)))
		if c.code == "" {
			if len(ds) > 0 {
				t.Errorf("%s: %s", c.expr, ds.Text())
				continue
			}
			if got := w.Services[0].Tools[1].Returns.String(); got != c.typ {
				t.Errorf("%s: type %s, want %s", c.expr, got, c.typ)
			}
			continue
		}
		if txt := ds.Text(); !strings.Contains(txt, c.code) || !strings.Contains(txt, c.msg) {
			t.Errorf("%s: %s, want %s %q", c.expr, txt, c.code, c.msg)
		}
	}
	_, ds := CheckSource("spec.world", []byte(smallFnsSpec(`numbers "float"`, "round_to(x, 0.05)")))
	if txt := ds.Text(); !strings.Contains(txt, string(diag.TypeMismatch)) || !strings.Contains(txt, "round(x / step, 0) * step") {
		t.Errorf("round_to in a world of floats: %s", txt)
	}
}
