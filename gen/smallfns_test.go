package gen

import (
	"strings"
	"testing"
)

// smallFnsProbes take month ends at the edges (leap and century years, the
// first and last months the language has, a date-time just before
// midnight) and round_to at ties, negative values, steps that do not
// divide a power of ten, non-positive steps and int overflow.
var smallFnsProbes = []probe{
	{"month_end", `{"d":"2024-02-03","t":"2026-01-31T23:59:59Z"}`},
	{"month_end", `{"d":"2100-02-28","t":"2000-02-01T00:00:00Z"}`},
	{"month_end", `{"d":"0001-01-01","t":"9999-12-31T23:59:59Z"}`},
	{"month_end", `{"d":"2026-04-30","t":"1969-12-31T12:00:00Z"}`},
	{"cash", `{"x":12.43,"step":0.05}`},
	{"cash", `{"x":12.42,"step":0.05}`},
	{"cash", `{"x":-12.43,"step":0.05}`},
	{"cash", `{"x":1000,"step":37.5}`},
	{"cash", `{"x":5,"step":0}`},
	{"cash", `{"x":5,"step":-0.05}`},
	{"share", `{"x":2.425,"step":1}`},
	{"share", `{"x":2.5,"step":1}`},
	{"share", `{"x":-2.5,"step":1}`},
	{"share", `{"x":1234.5678,"step":50}`},
	{"share", `{"x":170141183460469231731,"step":1000}`},
	{"share", `{"x":1,"step":0}`},
	{"units", `{"n":1234,"step":50}`},
	{"units", `{"n":25,"step":10}`},
	{"units", `{"n":-25,"step":10}`},
	{"units", `{"n":-24,"step":10}`},
	{"units", `{"n":9223372036854775807,"step":10}`},
	{"units", `{"n":7,"step":0}`},
	{"units", `{"n":7,"step":-3}`},
	{"settle", `{"invoice":"i1"}`},
	{"settle", `{"invoice":"i1"}`},
	{"settle", `{"invoice":"i2"}`},
	{"get_invoice", `{"id":"i2"}`},
}

// TestSmallFnsDifferential holds the generated code of end_of_month and
// round_to to compiler/eval, call by call: observations (faults
// included), states, invariant verdicts and rubric results.
func TestSmallFnsDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, testdataWorld(t, "small_fns.world"), smallFnsProbes)
}

// TestSmallFnsCode pins the shape of the code: end_of_month is the
// runtime's method, round_to goes through the helpers that record a fault.
func TestSmallFnsCode(t *testing.T) {
	files := mustGenerate(t, testdataWorld(t, "small_fns.world"))
	tools, state := string(files["tools.go"]), string(files["state.go"])
	for _, want := range []string{
		"args.D.EndOfMonth()",
		"args.T.Date().EndOfMonth()",
		"s.roundToInt(args.N, args.Step)",
		"s.roundTo(args.X, args.Step)",
	} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools.go lacks %s", want)
		}
	}
	for _, want := range []string{
		"func (s *State) roundTo(x, step runtime.Decimal) runtime.Decimal {",
		"func (s *State) roundToInt(n, step int64) int64 {",
	} {
		if !strings.Contains(state, want) {
			t.Errorf("state.go lacks %s", want)
		}
	}
}
