package gen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// arithEdges checks testdata/arith_edges.world.
func arithEdges(t *testing.T) *ir.World {
	t.Helper()
	path := filepath.Join("testdata", "arith_edges.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, ds := compiler.CheckSource(path, src)
	if w == nil || len(ds) > 0 {
		t.Fatalf("%s does not check clean:\n%s", path, ds.Text())
	}
	return w
}

var arithProbes = []probe{
	{"modulo", `{"a":7,"b":3}`},
	{"modulo", `{"a":-7,"b":3}`},
	{"modulo", `{"a":7,"b":-3}`},
	{"modulo", `{"a":7,"b":0}`},
	{"modulo", `{"a":-9223372036854775808,"b":-1}`},
	{"divide", `{"a":7,"b":0}`},
	{"divide", `{"a":0,"b":0}`},
	{"divide", `{"a":-7,"b":2}`},
	{"mul", `{"a":9223372036854775807,"b":2}`},
	{"mul", `{"a":-9223372036854775808,"b":-1}`},
	{"neg", `{"a":-9223372036854775808}`},
	{"absolute", `{"a":-9223372036854775808}`},
	{"absolute", `{"a":-5}`},
	{"shift", `{"d":"2026-01-01","n":1000000000000}`},
	{"shift", `{"d":"9999-12-31","n":1}`},
	{"shift", `{"d":"0001-01-01","n":-1}`},
	{"shift", `{"d":"2026-01-01","n":-9223372036854775808}`},
	{"shift_today", `{"n":9223372036854775807}`},
	{"diff", `{"a":"9999-12-31","b":"0001-01-01"}`},
	{"parts", `{"d":"2024-02-29"}`},
	{"dt_parts", `{"t":"2024-02-29T23:59:59Z"}`},
	{"mk_date", `{"y":2024,"m":2,"d":29}`},
	{"mk_date", `{"y":2024,"m":2,"d":30}`},
	{"mk_date", `{"y":9223372036854775807,"m":9223372036854775807,"d":9223372036854775807}`},
	{"rnd", `{"x":2.675,"digits":2}`},
	{"rnd", `{"x":1e308,"digits":-400}`},
	{"rnd", `{"x":1e308,"digits":-308}`},
	{"rnd", `{"x":123.456,"digits":9223372036854775807}`},
	{"rnd", `{"x":123.456,"digits":-9223372036854775808}`},
	{"rndi", `{"x":1750,"digits":-2}`},
	{"rndi", `{"x":1850,"digits":-2}`},
	{"rndi", `{"x":9223372036854775807,"digits":-2}`},
	{"rndi", `{"x":-9223372036854775808,"digits":-1}`},
	{"rndi", `{"x":5,"digits":-9223372036854775808}`},
	{"rndi", `{"x":5,"digits":3}`},
	{"rndi", `{"x":36028797018963973,"digits":-1}`}, // exactly …970, not via a float64 (…984)
	{"fl", `{"x":-0.5}`},
	{"fl", `{"x":1e300}`},
	{"st", `{"x":1e16,"n":-9223372036854775808}`},
	{"st", `{"x":-0.0,"n":0}`},
	{"ln", `{"s":"straße"}`},
	{"ln", `{"s":"İ"}`},
	{"ln", `{"s":"ﬃ"}`},
	{"ln", `{"s":"\u00e9\u0301"}`},
	{"cs", `{"s":"abc","sub":""}`},
	{"cs", `{"s":"","sub":"a"}`},
	{"lu", `{"s":"  ǅ ΣΑΣ ς  "}`},
	{"at", `{"xs":[1,2,3],"i":3}`},
	{"at", `{"xs":[1,2,3],"i":-1}`},
	{"at", `{"xs":[],"i":0}`},
	{"at", `{"xs":[1],"i":-9223372036854775808}`},
	{"mt", `{"m":{"a":1},"k":"b"}`},
	{"mt", `{"m":{},"k":""}`},
	{"pw", `{"s":"2**3**2"}`},
	{"pw", `{"s":"9**9**9"}`},
	{"pw", `{"s":"1/0"}`},
	{"pw", `{"s":"abc"}`},
	{"srt", `{"xs":["2026-01-02","2025-01-01"]}`},
	{"srts", `{"xs":["b","a","B","é","e"]}`},
	{"mm", `{"xs":[]}`},
	{"mm", `{"xs":[1.5,-2,3]}`},
	{"mm", `{"xs":[1e308,1e308]}`},
	{"mmi", `{"xs":[]}`},
	{"mmi", `{"xs":[9223372036854775807,1]}`},
	{"db", `{"a":"2026-01-01","b":"2025-01-01"}`},
	{"mo", `{"a":3,"b":2.5}`},
	{"mo", `{"a":9007199254740993,"b":9007199254740992.0}`},
	{"set_cell", `{"cell":"c1","n":9223372036854775807,"x":1.5,"d":"9999-12-31","s":"x"}`},
	{"set_cell", `{"cell":"c1","n":-3,"x":1.5,"d":"2026-01-01","s":"x"}`},
}

// TestArithDifferential holds the generated code of arithmetic, date and
// text edge cases to compiler/eval, call by call.
func TestArithDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, arithEdges(t), arithProbes)
}
