package gen

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

func mutOnce(t *testing.T) *ir.World {
	return testdataWorld(t, "mut_once.world")
}

// mutOnceProbes take every path of mut_once.world's tools, the failing
// ones included: a write after a delete of its record (straight, in a
// branch, in a later iteration of a loop) fails with not_found, as in
// compiler/eval, because that write still makes the record private.
var mutOnceProbes = []probe{
	{"restock", `{"item":"pen","n":3}`},
	{"restock", `{"item":"pen","n":-1000}`},
	{"drop_then_touch", `{"item":"cup","other":"cup"}`},
	{"make_box", `{"label":"x"}`},
	{"branchy", `{"item":"pen","flag":false}`},
	{"branchy", `{"item":"cup","flag":false}`},
	{"branchy", `{"item":"cup","flag":true}`},
	{"bump_all", `{"first":"pen"}`},
	{"loop_delete", `{"a":"cup","min":0}`},
	{"loop_delete", `{"a":"cup","min":100}`},
	{"rebind", `{"a":"pen","b":"cup"}`},
	{"rebind", `{"a":"cup","b":"cup"}`},
	{"drop_then_touch", `{"item":"pen","other":"cup"}`},
	{"get_item", `{"id":"pen"}`},
	{"get_box", `{"id":"box_1"}`},
}

// TestMutOnceDifferential holds the generated tools that write a record
// several times, with one Mut, to compiler/eval, call by call.
func TestMutOnceDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, mutOnce(t), mutOnceProbes)
}

// TestMutOnceCode pins where the Mut calls are: once per record in a
// straight run of writes, again after a delete, after a branch that may
// delete, in every loop body and after a rebinding; none after an insert,
// nor after a loop that deletes nothing.
func TestMutOnceCode(t *testing.T) {
	tools := string(mustGenerate(t, mutOnce(t))["tools.go"])
	muts := map[string]int{}
	method := ""
	for _, line := range strings.Split(tools, "\n") {
		if strings.HasPrefix(line, "func (s *State) ") {
			method = strings.Fields(strings.TrimPrefix(line, "func (s *State) "))[0]
			method = method[:strings.Index(method, "(")]
		}
		if strings.Contains(line, ".Mut(") {
			muts[method]++
		}
	}
	want := map[string]int{
		"Restock":       1, // three writes
		"DropThenTouch": 2, // a write, a delete, a write
		"Branchy":       4, // each of three branches, and after them (one deletes)
		"BumpAll":       3, // before the loop and twice in its body (two records); none after it
		"LoopDelete":    1, // in the body, run again after the delete
		"MakeBox":       0, // the inserted record is the call's own
		"Rebind":        2, // a, then b
	}
	for m, n := range want {
		if muts[m] != n {
			t.Errorf("%s has %d Mut calls, want %d", m, muts[m], n)
		}
	}
}
