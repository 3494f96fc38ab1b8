package gen

import "testing"

// rulesProbes exercise testdata/rules_edges.world from the world seed, in
// order on one state: calls that break a rule and succeed (reported at
// their step), calls that break one and fail (not reported), two rules
// broken by one call, the first break per rule and record only, a check
// that faults on a missing record, an optional ref parameter, ref
// parameters no check reads (required and optional).
var rulesProbes = []probe{
	{"ship", `{"order":"o2"}`},               // on hold and over the limit: two rules
	{"ship", `{"order":"o2"}`},               // fails (not open): no rule counts
	{"ship", `{"order":"nope"}`},             // not found
	{"ship", `{"order":"o1","note":"x"}`},    // keeps both
	{"hold", `{"customer":"ana","on":true}`}, // the state the next rule reads
	{"ship", `{"order":"o3"}`},               // on hold now
	{"assign", `{"order":"o1","agent":""}`},
	{"assign", `{"order":"o1","agent":"Ana","backup":"ana"}`}, // the same rule and record: reported once
	{"assign", `{"order":"o1","agent":"Cy","backup":null}`},
	{"assign", `{"order":"o1","agent":"Cy","backup":"nope"}`}, // fails
	{"note", `{"order":"o3"}`},                                // the agent "ghost" is no customer: the check faults
	{"note", `{"order":"o1"}`},
	{"transfer", `{"order":"o2","to":"ana"}`},             // shipped: breaks the rule that reads only order
	{"transfer", `{"order":"o1","to":"nope","via":"bo"}`}, // fails (to is no customer): no rule counts
	{"transfer", `{"order":"o1","to":"bo","via":"nope"}`}, // fails (via is no customer)
	{"get_order", `{"id":"o1"}`},
}

// TestRulesDifferential holds the generated code of rules on actions to
// compiler/eval, call by call and on the golden solution.
func TestRulesDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differentialWith(t, testdataWorld(t, "rules_edges.world"), rulesProbes, map[string][]probe{
		"ship_ana": {{"ship", `{"order":"o2"}`}, {"ship", `{"order":"o1"}`}},
	})
}
