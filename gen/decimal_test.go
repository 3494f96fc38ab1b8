package gen

import "testing"

// decimalProbes exercise testdata/decimal_edges.world, a world of exact
// numbers: what binary floats get wrong (0.1 + 0.2, 142.88 - 34.90,
// 258.96 * 3), rounding ties half away from zero, division to 18 decimals
// and by zero, the edges of the range, arguments beyond it, and numbers
// written with exponents.
var decimalProbes = []probe{
	{"add", `{"a":0.1,"b":0.2}`},
	{"add", `{"a":170141183460469231731,"b":1}`},
	{"add", `{"a":-170141183460469231731,"b":-1}`},
	{"add", `{"a":1e20,"b":1e-18}`},
	{"add", `{"a":1e21,"b":0}`},
	{"add", `{"a":0.0000000000000000005,"b":0}`},
	{"sub", `{"a":142.88,"b":34.90}`},
	{"mul", `{"a":258.96,"b":3}`},
	{"mul", `{"a":1e11,"b":1e11}`},
	{"mul", `{"a":0.000000001,"b":0.0000000005}`},
	{"mul", `{"a":-1.5,"b":0.000000000000000001}`},
	{"div", `{"a":1,"b":3}`},
	{"div", `{"a":2,"b":3}`},
	{"div", `{"a":-2,"b":3}`},
	{"div", `{"a":1,"b":0}`},
	{"div", `{"a":0,"b":0}`},
	{"div", `{"a":12.5,"b":100}`},
	{"div", `{"a":1e20,"b":0.1}`},
	{"div", `{"a":7,"b":12345678901234567890.123}`},
	{"idiv", `{"a":7,"b":2}`},
	{"idiv", `{"a":7,"b":0}`},
	{"neg", `{"a":-0}`},
	{"rnd", `{"x":2.675,"digits":2}`},
	{"rnd", `{"x":0.125,"digits":2}`},
	{"rnd", `{"x":-0.125,"digits":2}`},
	{"rnd", `{"x":1250,"digits":-2}`},
	{"rnd", `{"x":170141183460469231731,"digits":-20}`},
	{"rnd", `{"x":123.456,"digits":9223372036854775807}`},
	{"rnd", `{"x":123.456,"digits":-9223372036854775808}`},
	{"fc", `{"x":-2.5}`},
	{"fc", `{"x":2.5}`},
	{"fc", `{"x":-0.000000000000000001}`},
	{"text", `{"x":107.98}`},
	{"text", `{"x":1.50}`},
	{"text", `{"x":-1e-18}`},
	{"cmp", `{"x":1.5}`},
	{"cmp", `{"x":0.0}`},
	{"mm", `{"x":0.5}`},
	{"mm", `{"x":2}`},
	{"covers", `{"price":258.96,"n":3,"paid":776.88}`},
	{"covers", `{"price":258.96,"n":3,"paid":776.89}`},
	{"total", `{"amounts":[0.1,0.2,0.3]}`},
	{"total", `{"amounts":[]}`},
	{"total", `{"amounts":[170141183460469231731,1]}`},
	{"book", `{"amount":-0.01,"rate":1,"qty":1}`},
	{"book", `{"amount":0.015,"rate":1e-19,"qty":2}`},
	{"book", `{"amount":"12","rate":1,"qty":1}`},
	{"pw", `{"x":1.05,"n":2}`},
	{"pw", `{"x":0,"n":-1}`},
	{"pw", `{"x":10,"n":21}`},
	{"pw", `{"x":2,"n":-2}`},
	{"pw", `{"x":0.5,"n":9223372036854775807}`},
	{"annuity", `{"principal":200000,"rate":0.05,"months":360}`},
	{"annuity", `{"principal":10000,"rate":0,"months":12}`},
	{"months", `{"d":"2026-01-31","n":1}`},
	{"months", `{"d":"2024-01-31","n":1}`},
	{"months", `{"d":"2026-03-31","n":-13}`},
	{"months", `{"d":"2026-05-15","n":0}`},
	{"shift", `{"t":"2026-03-14T22:30:00Z","n":3}`},
	{"shift", `{"t":"2026-03-14T00:00:00Z","n":-1}`},
	{"hours", `{"a":"2026-03-14T08:00:00Z","b":"2026-03-15T07:59:59Z"}`},
	{"hours", `{"a":"2026-03-15T08:00:00Z","b":"2026-03-14T07:30:00Z"}`},
	{"workdays", `{"d":"2026-04-02","n":1,"e":"2026-04-07"}`},
	{"workdays", `{"d":"2026-04-07","n":-1,"e":"2026-04-02"}`},
	{"workdays", `{"d":"2025-12-31","n":1,"e":"2026-01-05"}`},
	{"workdays", `{"d":"2026-01-03","n":0,"e":"2026-01-03"}`},
	{"workdays", `{"d":"2026-01-03","n":1000001,"e":"2026-01-03"}`},
	{"workdays", `{"d":"2026-03-13","n":20,"e":"2027-01-01"}`},
	{"working", `{"d":"2026-04-03"}`},
	{"working", `{"d":"2026-04-07"}`},
	{"working", `{"d":"2026-01-04"}`},
	{"clock", `{"h":48}`},
	{"clock", `{"h":-10}`},
	{"ledger_sum", `{}`},
}

// TestDecimalDifferential holds the generated code of exact decimal
// arithmetic to compiler/eval, call by call.
func TestDecimalDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, testdataWorld(t, "decimal_edges.world"), decimalProbes)
}
