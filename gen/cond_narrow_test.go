package gen

import (
	"testing"

	"github.com/worldc/worldc/compiler/eval"
)

// condNarrowProbes exercise testdata/cond_narrow.world from the world
// seed, in order on one state: a conditional whose branch not taken would
// fault (modulo by zero, a missing record, division by zero) and whose
// branch taken does; numeric kinds mixed; values of every kind chosen;
// optional values read where a check says they are not null, present and
// absent.
var condNarrowProbes = []probe{
	{"pick", `{"a":false,"n":7,"d":0,"id":"nope"}`},
	{"pick", `{"a":true,"n":7,"d":2,"id":"l2"}`},
	{"pick", `{"a":true,"n":7,"d":0,"id":"l2"}`},
	{"pick", `{"a":true,"n":7,"d":2,"id":"nope"}`},
	{"mix", `{"lease":"l2","a":true,"n":3}`},
	{"mix", `{"lease":"l2","a":false,"n":3}`},
	{"mix", `{"lease":"l1","a":false,"n":-3}`},
	{"follow", `{"lease":"l1","extra":10.25,"city":"Bonn"}`},
	{"follow", `{"lease":"l2","extra":1}`},
	{"follow", `{"lease":"l3"}`},
	{"follow", `{"lease":"l3","extra":null}`},
	{"prior", `{"lease":"l1"}`},
	{"prior", `{}`},
	{"best", `{}`},
	{"choose", `{"lease":"l1","a":true}`},
	{"choose", `{"lease":"l2","a":false}`},
	{"follow", `{"lease":"l1","extra":0.01}`},
	{"follow", `{"lease":"l2","extra":2,"city":"Ulm"}`},
	{"shapes", `{"a":true,"lease":"l2"}`},
	{"shapes", `{"a":false,"lease":"l3"}`},
	{"shapes", `{"a":false,"lease":"l2"}`},
	{"renew", `{"lease":"l3","rent":1250.75}`},
	{"follow", `{"lease":"lease_1","extra":1}`},
	{"prior", `{"lease":"l3"}`},
	{"best", `{}`},
	{"get_lease", `{"id":"l1"}`},
}

// TestCondNarrowDifferential holds the generated code of conditional
// expressions and narrowed optional values to compiler/eval, call by call
// and on the golden solution.
func TestCondNarrowDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, testdataWorld(t, "cond_narrow.world"), condNarrowProbes)
}

// TestCondNarrowOutcomes pins what compiler/eval answers (and so, by the
// differential test, the generated code): a conditional evaluates only
// the branch it takes, and a narrowed read gives the value.
func TestCondNarrowOutcomes(t *testing.T) {
	w := testdataWorld(t, "cond_narrow.world")
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args, want string }{
		{"pick", `{"a":false,"n":7,"d":0,"id":"nope"}`, `["7","0","-1"]`},
		{"pick", `{"a":true,"n":7,"d":2,"id":"l2"}`, `["1","800.5","3.5"]`},
		{"pick", `{"a":true,"n":7,"d":0,"id":"l2"}`, `error internal`},
		{"mix", `{"lease":"l2","a":false,"n":3}`, `"9"`},
		{"follow", `{"lease":"l1","extra":10.25,"city":"Bonn"}`, `"cornerKöln5-Bonn1010.35"`},
		{"follow", `{"lease":"l3"}`, `error precondition_failed`},
		{"prior", `{}`, `error precondition_failed`},
		{"best", `{}`, `"Cy900"`},
	} {
		data, terr := st.CallJSON(c.tool, []byte(c.args))
		got := ""
		if terr != nil {
			got = "error " + string(terr.Code)
		} else {
			got = string(data.JSON())
		}
		if got != c.want {
			t.Errorf("%s(%s) = %s, want %s", c.tool, c.args, got, c.want)
		}
	}
}
