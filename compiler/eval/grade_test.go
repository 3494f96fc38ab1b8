package eval

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

func TestGrade(t *testing.T) {
	x := newFixture(t)
	start, err := NewState(x.w, x.settle)
	if err != nil {
		t.Fatal(err)
	}
	g := start.Grade(x.settle, start)
	if g.Passed != 1 || g.Total != 3 || g.Reward != 1.0/3 {
		t.Fatalf("start grade: %+v", g)
	}
	if g.Results[0].Passed || g.Results[0].Detail != `left side is "issued", right side is "paid"` {
		t.Errorf("status assertion: %+v", g.Results[0])
	}
	if g.Results[1].Passed || g.Results[1].Detail != "there is no Entry record" {
		t.Errorf("exists assertion: %+v", g.Results[1])
	}
	if !g.Results[2].Passed || g.Results[2].Kind != ir.AssertInvariant {
		t.Errorf("invariant assertion: %+v", g.Results[2])
	}
	wantFailures := "billing.Invoice[inv1].status == paid: left side is \"issued\", right side is \"paid\"\n" +
		"exists(e in ledger.Entry where e.invoice == inv1 and e.amount == 1200): there is no Entry record"
	if g.Failures() != wantFailures {
		t.Errorf("failures:\n%s", g.Failures())
	}

	s := start.Clone()
	mustCall(t, s, "mark_paid", `{"invoice":"inv1"}`)
	g = s.Grade(x.settle, start)
	if g.Passed != 1 || g.Results[2].Passed || g.Results[2].Detail != `invariant paid_invoices_are_posted violated by Invoice "inv1"` {
		t.Errorf("paid, not posted: %+v", g)
	}
	if len(g.Violations) != 1 {
		t.Errorf("violations beside the reward: %v", g.Violations)
	}
	// A failed exists names the record closest to matching and the
	// conjuncts it fails, with their two sides.
	w := s.Clone()
	mustCall(t, w, "post_entry", `{"invoice":"inv1","amount":1100}`)
	if g := w.Grade(x.settle, nil); g.Results[1].Passed ||
		!regexp.MustCompile(`^none of the 1 Entry records matches; the closest, [a-z_0-9]+, fails the condition at \d+:\d+ \(==\): left side is 1100, right side is 1200$`).MatchString(g.Results[1].Detail) {
		t.Errorf("exists with a near miss: %q", g.Results[1].Detail)
	}
	mustCall(t, s, "post_entry", `{"invoice":"inv1","amount":1200}`)
	g = s.Grade(x.settle, nil)
	if g.Reward != 1 || g.Failures() != "" || len(g.Violations) != 0 {
		t.Errorf("settled: %+v", g)
	}

	// unchanged, against an explicit or a rebuilt start state.
	if g := start.Grade(x.refuse, start); g.Reward != 1 {
		t.Errorf("unchanged at start: %+v", g)
	}
	if g := s.Grade(x.refuse, nil); g.Reward != 0 || g.Results[0].Detail != "changed: Invoice, Entry" {
		t.Errorf("unchanged after writes: %+v", g)
	}
	// A write and its reverse leave the state unchanged.
	u := start.Clone()
	mustCall(t, u, "set_tier", `{"customer":"acme","tier":"gold"}`)
	mustCall(t, u, "set_tier", `{"customer":"acme","tier":"silver"}`)
	if g := u.Grade(x.refuse, start); g.Reward != 1 {
		t.Errorf("unchanged after a write and its reverse: %+v", g)
	}

	// No assertions: reward 1. A nil task: reward 1.
	if g := s.Grade(&ir.Task{Name: "empty"}, nil); g.Reward != 1 || g.Total != 0 {
		t.Errorf("empty rubric: %+v", g)
	}
	if g := s.Grade(nil, nil); g.Reward != 1 {
		t.Errorf("nil task: %+v", g)
	}

	// Evaluation errors fail the assertion, with the error as detail.
	odd := &ir.Task{Name: "odd", Assertions: []*ir.Assertion{
		{Kind: ir.AssertExpr, Text: "Customer[gone].active", Expr: fld(lookup(x.Customer, handle(x.Customer, "gone")), x.cActive)},
		{Kind: ir.AssertExpr, Text: "Customer[gone].name == x", Expr: eq(fld(lookup(x.Customer, handle(x.Customer, "gone")), x.cName), sLit("x"))},
		{Kind: ir.AssertExpr, Text: "x == Customer[gone].name", Expr: eq(sLit("x"), fld(lookup(x.Customer, handle(x.Customer, "gone")), x.cName))},
		{Kind: ir.AssertExpr, Text: "true < false", Expr: bin("<", bLit(true), bLit(false))},
		{Kind: ir.AssertExpr, Text: "count(...) >= 2", Expr: bin(">=", agg("count", x.Customer, tInt, func(ir.Expr) (ir.Expr, ir.Expr) { return nil, nil }), iLit(2))},
		{Kind: ir.AssertInvariant, Text: "invariant ?"},
		{Kind: "weird", Text: "?"},
		nil,
	}}
	g = s.Grade(odd, nil)
	var details []string
	for _, r := range g.Results {
		details = append(details, r.Detail)
	}
	want := []string{`Customer "gone" not found`, `Customer "gone" not found`, `Customer "gone" not found`, "cannot compare bool < bool", "", "no invariant", `unknown assertion kind "weird"`}
	if strings.Join(details, "|") != strings.Join(want, "|") || g.Passed != 1 || g.Total != 7 {
		t.Errorf("odd rubric: %q (passed %d of %d)", details, g.Passed, g.Total)
	}

	// A start state that cannot be built fails unchanged.
	y := newFixture(t)
	ys := y.state(t)
	y.w.Today = "never"
	if g := ys.Grade(y.refuse, nil); g.Reward != 0 || !strings.Contains(g.Results[0].Detail, "today") {
		t.Errorf("unbuildable start: %+v", g)
	}
}

func TestRunSolution(t *testing.T) {
	x := newFixture(t)
	res, err := RunSolution(x.w, x.settle)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() || res.Problem() != "" || res.Failed != -1 || len(res.Steps) != 2 {
		t.Fatalf("settle: %s (%+v)", res.Problem(), res)
	}
	if res.StartHash == res.FinalHash || res.Steps[1].Hash != res.FinalHash || res.Steps[0].Hash == res.StartHash {
		t.Errorf("hashes: start %s, steps %s %s, final %s", res.StartHash, res.Steps[0].Hash, res.Steps[1].Hash, res.FinalHash)
	}
	if got := res.Steps[1].Data.String(); got != `{"id":"entry_1","invoice":"inv1","amount":1200,"posted_on":"2026-03-14","lines":1,"booked_at":null}` {
		t.Errorf("post_entry observation: %s", got)
	}
	if got := string(res.Steps[0].Observation()); !strings.HasPrefix(got, `{"ok":true,"data":{"id":"inv1",`) {
		t.Errorf("observation: %s", got)
	}
	// Replay is deterministic.
	again, _ := RunSolution(x.w, x.settle)
	if again.FinalHash != res.FinalHash || again.Steps[0].Hash != res.Steps[0].Hash {
		t.Error("replay is not deterministic")
	}

	// Bindings pass the ids of returned records.
	res, err = RunSolution(x.w, x.onboard)
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK() {
		t.Fatalf("onboard: %s", res.Problem())
	}
	if got := res.Steps[1].Args["customer"]; got.Str != "customer_1" {
		t.Errorf("bound customer: %+v", got)
	}
	if got := res.Steps[3].Data.String(); !strings.Contains(got, `"invoice":"invoice_1"`) {
		t.Errorf("bound invoice: %s", got)
	}

	// Empty solution for an `unchanged` task.
	res, err = RunSolution(x.w, x.refuse)
	if err != nil || !res.OK() || res.StartHash != res.FinalHash {
		t.Errorf("refuse: %v %+v", err, res)
	}

	// A failing step stops the replay and is reported.
	x.settle.Solution[1].Args[1].Value = vInt(0)
	res, _ = RunSolution(x.w, x.settle)
	wantProblem := `step 2 (post_entry) failed: precondition_failed: amount must be positive; ` +
		`reward 1/3; failed: exists(e in ledger.Entry where e.invoice == inv1 and e.amount == 1200): there is no Entry record; invariant paid_invoices_are_posted: invariant paid_invoices_are_posted violated by Invoice "inv1"`
	if res.OK() || res.Failed != 1 || res.Problem() != wantProblem {
		t.Errorf("failing step:\n%s\nwant\n%s", res.Problem(), wantProblem)
	}
	// A step after the failure does not run.
	x.settle.Solution[1].Args[1].Value = vInt(1200)
	x.settle.Solution = append([]*ir.Step{{Tool: x.markPaid, Args: []*ir.Arg{{Param: x.markPaid.Params[0], Value: vRef("ghost")}}}}, x.settle.Solution...)
	res, _ = RunSolution(x.w, x.settle)
	if res.Failed != 0 || len(res.Steps) != 1 || res.Steps[0].Err.Error() != `not_found: Invoice "ghost" not found` {
		t.Errorf("first step fails: %+v", res.Steps)
	}
	if got := string(res.Steps[0].Observation()); got != `{"ok":false,"error":{"code":"not_found","message":"Invoice \"ghost\" not found"}}` {
		t.Errorf("failed observation: %s", got)
	}

	// A name bound to no record: the replay stops at the binding, as the
	// gate's (runtime.Run) does.
	bad := &ir.Task{Name: "bad", Solution: []*ir.Step{
		{Bind: "l", Tool: x.listEntries},
		{Tool: x.markPaid, Args: []*ir.Arg{{Param: x.markPaid.Params[0], Bound: "l"}}},
	}}
	res, _ = RunSolution(x.w, bad)
	if res.Failed != 0 || !res.Unbound || len(res.Steps) != 1 || !strings.HasPrefix(res.Problem(), `step 1 (list_entries) binds l, but its result is no record with an id: {"ok":true,"data":[`) {
		t.Errorf("bound to a list: %+v: %s", res, res.Problem())
	}
	bad.Solution = []*ir.Step{{Tool: x.markPaid, Args: []*ir.Arg{{Param: x.markPaid.Params[0], Bound: "nope"}}}, nil}
	if res, _ = RunSolution(x.w, bad); res.Failed != 0 {
		t.Errorf("unbound name: %+v", res)
	}
	bad.Solution = []*ir.Step{nil}
	if res, _ = RunSolution(x.w, bad); res.Failed != 0 || res.Steps[0].Err.Code != CodeUnknownTool {
		t.Errorf("nil step: %+v", res)
	}
	bad.Solution = []*ir.Step{{Tool: x.markPaid, Args: []*ir.Arg{{}}}}
	if res, _ = RunSolution(x.w, bad); res.Failed != 0 || res.Steps[0].Err.Code != CodeInvalidArguments {
		t.Errorf("arg without param: %+v", res)
	}

	if _, err := RunSolution(x.w, &ir.Task{Name: "none"}); err == nil {
		t.Error("task without solution accepted")
	}
	if _, err := RunSolution(x.w, nil); err == nil {
		t.Error("nil task accepted")
	}
	x.w.Today = "x"
	if _, err := RunSolution(x.w, x.refuse); err == nil {
		t.Error("bad world accepted")
	}
}

// TestCheckSolution checks that CheckSolution reaches the verdict of
// RunSolution, step for step, without hashing and without changing the
// start state it is given.
func TestCheckSolution(t *testing.T) {
	x := newFixture(t)
	failing := *x.settle
	failing.Name = "settle_failing"
	failing.Solution = slices.Clone(x.settle.Solution)
	failing.Solution[1] = &ir.Step{Tool: x.settle.Solution[1].Tool, Args: slices.Clone(x.settle.Solution[1].Args)}
	failing.Solution[1].Args[1] = &ir.Arg{Param: failing.Solution[1].Args[1].Param, Value: vInt(0)}
	for _, task := range []*ir.Task{x.settle, x.onboard, x.refuse, &failing} {
		want, err := RunSolution(x.w, task)
		if err != nil {
			t.Fatal(err)
		}
		start, err := NewState(x.w, task)
		if err != nil {
			t.Fatal(err)
		}
		before := start.Hash()
		got := CheckSolution(task, start)
		if start.Hash() != before {
			t.Errorf("%s: the start state changed", task.Name)
		}
		if got.OK() != want.OK() || got.Failed != want.Failed || got.Problem() != want.Problem() || len(got.Steps) != len(want.Steps) {
			t.Errorf("%s: got ok=%v failed=%d %q, want ok=%v failed=%d %q", task.Name, got.OK(), got.Failed, got.Problem(), want.OK(), want.Failed, want.Problem())
			continue
		}
		for i := range got.Steps {
			g, w := got.Steps[i], want.Steps[i]
			if string(g.Observation()) != string(w.Observation()) || g.Hash != "" {
				t.Errorf("%s step %d: %s (hash %q), want %s", task.Name, i+1, g.Observation(), g.Hash, w.Observation())
			}
		}
		if got.StartHash != "" || got.FinalHash != "" || got.Final.Hash() != want.FinalHash {
			t.Errorf("%s: hashes %q %q, final state %s, want %s", task.Name, got.StartHash, got.FinalHash, got.Final.Hash(), want.FinalHash)
		}
	}
}
