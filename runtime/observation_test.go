package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestObservationJSON(t *testing.T) {
	for _, c := range []struct {
		o    Observation
		want string
	}{
		{OKObservation(json.RawMessage(`{"id": "a<b>"}`)), `{"ok":true,"data":{"id":"a<b>"}}`},
		{OKObservation(nil), `{"ok":true,"data":null}`},
		{ErrorObservation(NotFound("Invoice", "inv_9")), `{"ok":false,"error":{"code":"not_found","message":"Invoice \"inv_9\" not found"}}`},
		{ErrorObservation(PreconditionFailed("only issued invoices can be paid & <closed>")), `{"ok":false,"error":{"code":"precondition_failed","message":"only issued invoices can be paid & <closed>"}}`},
		{Observation{}, `{"ok":false,"error":{"code":"internal","message":"failed observation without an error"}}`},
	} {
		b, err := json.Marshal(c.o) // through encoding/json: still compact
		if err != nil {
			t.Fatal(err)
		}
		direct, _ := c.o.MarshalJSON()
		if string(direct) != c.want {
			t.Errorf("got  %s\nwant %s", direct, c.want)
		}
		var back Observation
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if c.o.Error != nil && !back.Equal(c.o) {
			t.Errorf("round trip of %s: %+v", b, back)
		}
	}
	if _, err := (Observation{OK: true, Data: json.RawMessage(`{bad`)}).MarshalJSON(); err == nil {
		t.Error("invalid data encoded")
	}
}

func TestObservationEqual(t *testing.T) {
	a := OKObservation(json.RawMessage(`{"a":1,"b":[1,2.0,{"c":null}]}`))
	b := OKObservation(json.RawMessage(`{ "b":[1, 2, {"c":null}], "a":1.0 }`))
	if !a.Equal(b) {
		t.Error("same JSON values differ")
	}
	for _, c := range []Observation{
		OKObservation(json.RawMessage(`{"a":1,"b":[1,2,{"c":0}]}`)),
		OKObservation(json.RawMessage(`{"a":1,"b":[2,1,{"c":null}]}`)),
		OKObservation(json.RawMessage(`{"a":1}`)),
		OKObservation(json.RawMessage(`"x"`)),
		ErrorObservation(NotFound("A", "1")),
	} {
		if a.Equal(c) || c.Equal(a) {
			t.Errorf("%s equals %s", a.Data, c.Data)
		}
	}
	if !OKObservation(nil).Equal(OKObservation(json.RawMessage("null"))) {
		t.Error("nil and null data differ")
	}
	if ErrorObservation(NotFound("A", "1")).Equal(ErrorObservation(NotFound("A", "2"))) {
		t.Error("different errors equal")
	}
}

func TestToolErrors(t *testing.T) {
	e := UnknownTool("mark_payed", []string{"get_invoice", "mark_paid"})
	if e.Code != CodeUnknownTool || e.Message != `unknown tool "mark_payed" (did you mean "mark_paid"?); known tools: get_invoice, mark_paid` {
		t.Error(e)
	}
	if e := UnknownTool("zzzzzzzz", []string{"get_invoice"}); strings.Contains(e.Message, "did you mean") {
		t.Error(e)
	}
	if e := UnknownTool("x", nil); e.Message != `unknown tool "x"; this world has no tools` {
		t.Error(e)
	}
	if e := ConstraintViolation("Customer.email %q is already used", "a@b"); e.Error() != `constraint_violation: Customer.email "a@b" is already used` {
		t.Error(e)
	}
	if e := Internal("x %d", 1); e.Code != CodeInternal || e.Message != "x 1" {
		t.Error(e)
	}
	if e := InvalidArguments("y"); e.Code != CodeInvalidArguments {
		t.Error(e)
	}
	var nilTE *ToolError
	if nilTE.Error() == "" {
		t.Error("nil ToolError")
	}
	if ErrorObservation(nilTE).Error.Code != CodeInternal {
		t.Error("typed nil")
	}
	if ErrorObservation(nil).Error.Code != CodeInternal || (Observation{OK: true}).Err() != nil {
		t.Error("nil error")
	}
	if editDistance(strings.Repeat("a", 1000), strings.Repeat("b", 1000)) != 64 {
		t.Error("edit distance bound")
	}
}

func TestGrade(t *testing.T) {
	g := NewGrade(nil, nil)
	if g.Reward != 0 || g.Solved() || g.Assertions == nil || g.Violations == nil {
		t.Errorf("empty rubric: %+v", g)
	}
	as := []AssertionResult{{Text: "a", Passed: true}, {Text: "b"}, {Text: "c", Passed: true}, {Text: "d", Passed: true}}
	g = NewGrade(as, nil)
	if g.Reward != 0.75 || g.Solved() || len(g.Failed()) != 1 || g.Failed()[0].Text != "b" {
		t.Errorf("%+v", g)
	}
	as[1].Passed = true
	g = NewGrade(as, nil)
	if g.Reward != 1 || !g.Solved() {
		t.Errorf("%+v", g)
	}
	v := Violation{Invariant: "inv", Entity: "Invoice", ID: "i1", Message: "m"}
	g = NewGrade(as, []Violation{v})
	if g.Reward != 1 || g.Solved() {
		t.Errorf("violations must not change the reward but do prevent Solved: %+v", g)
	}
	if v.String() != `inv: Invoice "i1": m` {
		t.Error(v.String())
	}
	b, _ := json.Marshal(NewGrade(nil, nil))
	if string(b) != `{"reward":0,"assertions":[],"violations":[],"step_violations":[]}` {
		t.Error(string(b))
	}
	sv := Violation{Invariant: "inv", Entity: "Invoice", ID: "i1", Message: "m", Step: 3, Tool: "mark_paid"}
	g = NewGrade(as, nil, sv)
	if g.Reward != 1 || g.Solved() || len(g.StepViolations) != 1 {
		t.Errorf("a step's violation must not change the reward but does prevent Solved: %+v", g)
	}
	if sv.String() != `inv: Invoice "i1" (after step 3, mark_paid): m` {
		t.Error(sv.String())
	}
	if b, _ := json.Marshal(sv); string(b) != `{"invariant":"inv","entity":"Invoice","id":"i1","message":"m","step":3,"tool":"mark_paid"}` {
		t.Error(string(b))
	}
}

func TestHasherFraming(t *testing.T) {
	sum := func(f func(h *Hasher)) string {
		h := NewHasher()
		f(h)
		return h.Sum()
	}
	a := sum(func(h *Hasher) { h.WriteString("ab"); h.WriteString("c") })
	b := sum(func(h *Hasher) { h.WriteString("a"); h.WriteString("bc") })
	if a == b {
		t.Error("strings are not framed")
	}
	if sum(func(h *Hasher) { h.WriteInt(1) }) == sum(func(h *Hasher) { h.WriteString("\x02") }) {
		t.Error("types are not tagged")
	}
	if sum(func(h *Hasher) { h.WriteValue(map[string]int{"a": 1, "b": 2}) }) != sum(func(h *Hasher) { h.WriteValue(map[string]int{"b": 2, "a": 1}) }) {
		t.Error("map order")
	}
	if sum(func(h *Hasher) { h.WriteRow("x", trow{ID: "x"}) }) == sum(func(h *Hasher) { h.WriteRow("y", trow{ID: "x"}) }) {
		t.Error("row id not hashed")
	}
	if len(a) != 64 {
		t.Error(a)
	}
}

// TestHashBaseVersusOverlay: the same rows hash the same whether they live
// in a frozen base or in an overlay, and the hash sees every difference.
func TestHashBaseVersusOverlay(t *testing.T) {
	build := func(freeze bool) *Table[*trow] {
		j := NewJournal()
		tb := newT(j)
		for i := range 100 {
			must(t, tb.Insert(&trow{ID: string(rune('a'+i%26)) + string(rune('0'+i/26)), V: i}))
		}
		if freeze {
			j.Freeze()
		}
		return tb
	}
	base, over := build(true), build(false)
	if tableHash(base) != tableHash(over) {
		t.Fatal("base and overlay hash differently")
	}
	h0 := tableHash(base)
	r, _ := base.Mut("c0")
	r.V = 2 // the same value: still the same state
	if tableHash(base) != h0 {
		t.Fatal("a no-op write changed the hash")
	}
	r.V = 3
	if tableHash(base) == h0 {
		t.Fatal("a changed value did not change the hash")
	}
	r.V = 2
	must(t, base.Delete("a0"))
	must(t, base.Insert(&trow{ID: "a0", V: 0}))
	if tableHash(base) == h0 {
		t.Fatal("a changed order did not change the hash")
	}
	// the hash of the base rows is cached; clones share it and stay right
	c := build(true)
	c2 := c.Clone(NewJournal())
	if tableHash(c) != tableHash(c2) || tableHash(c2) != h0 {
		t.Fatal("clone hash")
	}
	c2.NextID("z")
	if tableHash(c2) == h0 {
		t.Fatal("the sequence is not hashed")
	}
	// snapshots
	j := NewJournal()
	tb := newT(j)
	must(t, tb.Insert(&trow{ID: "x<y>", Tags: []string{"&"}}))
	NewTable("Empty", func(r *trow) string { return r.ID }, (*trow).clone, j)
	if s := string(j.Snapshot()); s != `{"Row":[{"id":"x<y>","v":0,"tags":["&"]}],"Empty":[]}` {
		t.Fatal(s)
	}
}
