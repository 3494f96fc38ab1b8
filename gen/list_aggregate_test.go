package gen

import (
	"fmt"
	"testing"

	"github.com/worldc/worldc/compiler/eval"
)

// listAggregateProbes exercise testdata/list_aggregate.world from the
// world seed, in order on one state: records as refs (some, none),
// values of every kind, a list's elements and a map's values, nested
// lists, a loop over a list aggregate that writes.
var listAggregateProbes = []probe{
	{"open_claims", `{"holder":"ana"}`},
	{"open_claims", `{"holder":"bo"}`},
	{"amounts", `{"holder":"ana","over":100}`},
	{"amounts", `{"holder":"ana","over":10000}`},
	{"kinds", `{"holder":"ana"}`},
	{"kinds", `{"holder":"bo"}`},
	{"parts", `{"claim":"c1","under":1000}`},
	{"parts", `{"claim":"c1","under":10000}`},
	{"parts", `{"claim":"c2","under":1}`},
	{"scores", `{"claim":"c1"}`},
	{"scores", `{"claim":"c3"}`},
	{"nested", `{"holder":"ana"}`},
	{"approve", `{"claim":"c2"}`},
	{"approve", `{"claim":"c4"}`},
	{"close_all", `{"holder":"ana"}`},
	{"open_claims", `{"holder":"ana"}`},
	{"nested", `{"holder":"ana"}`},
	{"close_all", `{"holder":"bo"}`},
}

// TestListAggregateDifferential holds the generated code of list(…) to
// compiler/eval, call by call, on the golden solutions and on the graded
// answers.
func TestListAggregateDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := testdataWorld(t, "list_aggregate.world")
	differential(t, w, listAggregateProbes)
	answersDifferential(t, w, []string{"", "none", "c1 and c4", "c1, c4: 5 800,00 € and 0 €; none closed", "c4 c1 5800 0 none", "c1", "5800, 0"})
}

// TestListAggregateOutcomes pins what compiler/eval answers (and so, by
// the differential test, the generated code): the elements in order,
// records as their ids, empty lists as [].
func TestListAggregateOutcomes(t *testing.T) {
	w := testdataWorld(t, "list_aggregate.world")
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ tool, args, want string }{
		{"open_claims", `{"holder":"ana"}`, `["c1","c4"]`},
		{"open_claims", `{"holder":"bo"}`, `["c3"]`},
		{"amounts", `{"holder":"ana","over":100}`, `"2:5920.5"`},
		{"amounts", `{"holder":"ana","over":10000}`, `"0:0"`},
		{"kinds", `{"holder":"ana"}`, `["3","3","4","2","hail","glass","1","1","10"]`},
		{"parts", `{"claim":"c1","under":1000}`, `"gutter,800"`},
		{"parts", `{"claim":"c1","under":10000}`, `"roof,gutter,5800"`},
		{"scores", `{"claim":"c1"}`, `["1","2","STORM"]`},
		{"nested", `{"holder":"ana"}`, `"2/4/0"`},
		{"approve", `{"claim":"c2"}`, `error precondition_failed`},
		{"approve", `{"claim":"c4"}`, `{"id":"c4","holder":"ana","status":"approved","amount":0,"filed_on":"2026-03-10","note":null,"parts":[],"tags":[],"scores":{"z":5}}`},
		{"close_all", `{"holder":"ana"}`, `["c2","c4"]`},
		{"nested", `{"holder":"ana"}`, `"2/4/2"`},
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
	task := w.Tasks[0]
	res, err := eval.RunSolution(w, task)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Final.GoldenAnswer(task), "c1, c4\n5800, 0\nnone"; got != want {
		t.Errorf("golden answer %q, want %q", got, want)
	}
	start, err := eval.NewState(w, task)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		answer string
		want   []bool // the assertions' verdicts
	}{
		{"c1, c4: 5 800,00 € and 0 €; none closed", []bool{true, true, true, true}},
		{"Only c1 (5800 EUR).", []bool{false, false, false, true}},
		{"c4 and c1, 5800 and 0.", []bool{true, true, false, true}},
	} {
		g := res.Final.GradeAnswer(task, start, nil, &c.answer)
		var got []bool
		for _, r := range g.Results {
			got = append(got, r.Passed)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("answer %q: verdicts %v, want %v", c.answer, got, c.want)
		}
	}
}
