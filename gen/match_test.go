package gen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// recordMatches checks testdata/record_matches.world.
func recordMatches(t *testing.T) *ir.World {
	return testdataWorld(t, "record_matches.world")
}

// recordMatchesProbes take the paths the golden solutions do not: a
// record of another case, faults in the record and in the values (a
// value's fault comes before a field that differs), and a whole record
// compared in a tool.
var recordMatchesProbes = []probe{
	{"same_total", `{"order_id":"o1","other_id":"nope"}`},
	{"same_total", `{"order_id":"nope","other_id":"o1"}`},
	{"same_total", `{"order_id":"o1","other_id":"o2"}`},
	{"is_record", `{"order_id":"o1","total":10}`},
	{"is_record", `{"order_id":"nope","total":10}`},
	{"cancel", `{"order":"o2","reason":"x"}`},
	{"add_gift_card", `{"user":"bob_2","id":"g","balance":5}`},
	{"cancel", `{"order":"o1","reason":"changed my mind"}`},
	{"cancel", `{"order":"o1","reason":"again"}`},
	{"same_total", `{"order_id":"o1","other_id":"o1"}`},
	{"same_total", `{"order_id":"o1","other_id":"o2"}`},
	{"is_record", `{"order_id":"o1","total":10}`},
	{"is_record", `{"order_id":"o1","total":11}`},
	{"bill", `{"order":"o1"}`},
	{"place", `{"user":"ann_1","items":[],"total":0}`},
	{"cancel", `{"order":"order_1","reason":"x"}`},
}

// TestRecordMatchesDifferential holds the generated code of whole-record
// comparisons and matches to compiler/eval, call by call: observations,
// states, invariant verdicts and rubric results.
func TestRecordMatchesDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, recordMatches(t), recordMatchesProbes)
}

// TestRecordMatchesCode pins the shape of the code: a record compared
// whole with a constant record is data (tasks.json: the entity, the id and
// the record's JSON), graded by recordIs with the entity's equal method; a
// failed match reports the fields that differ.
func TestRecordMatchesCode(t *testing.T) {
	files := mustGenerate(t, recordMatches(t))
	tasks, types, data := string(files["tasks.go"]), string(files["types.go"]), string(files["tasks.json"])
	if want := `"record":{"entity":"Order","id":"o1","value":{"id":"o1","user":"ann_1","items":["a","b"],"status":"cancelled","total":10,"placed":"2026-03-01","reason":"changed */ my ` + "`mind`" + ` \"now\"\n"}}`; !strings.Contains(data, want) {
		t.Errorf("tasks.json lacks %s", want)
	}
	if strings.Contains(tasks, "func assertCancelAnn1(") {
		t.Error("tasks.go compiles the record assertion of cancel_ann_1, which is data")
	}
	for _, want := range []string{
		`want := runtime.Constant[*Order](string(r.Value))`,
		"return s.matched(l.equal(w), l, w)",
		`return s.matched(x.Status == OrderStatusCancelled && runtime.EqualPtr(x.Reason, new("changed */ my ` + "`mind`" + ` \"now\"\n")), x, map[string]any{`,
		`}, "status", "reason")`,
	} {
		if !strings.Contains(tasks, want) {
			t.Errorf("tasks.go lacks %s", want)
		}
	}
	for _, want := range []string{"func (r *Order) equal(o *Order) bool {", "func (r *User) equal(o *User) bool {", "func (v Address) equal(w Address) bool {"} {
		if !strings.Contains(types, want) {
			t.Errorf("types.go lacks %s", want)
		}
	}
	if strings.Contains(types, "func (r *Invoice) equal") {
		t.Error("types.go has an equal method nothing uses")
	}
}

// testdataWorld checks testdata/name, which must check clean.
func testdataWorld(t *testing.T, name string) *ir.World {
	t.Helper()
	path := filepath.Join("testdata", name)
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
