package tasks

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// The tests here hold the template words to what an agent reading them
// needs: a sentence that is an order, values said as people say them,
// each record's role clear, and no two records behind one name.

// redteamWorld checks a red-team world (unseen-style, LLM-written).
func redteamWorld(t *testing.T, name string) (*ir.World, []byte, string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "redteam", "worlds", name+".world")
	src, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, ds := compiler.CheckFile(path)
	if ds.HasErrors() || w == nil {
		t.Fatalf("%s does not check:\n%s", path, ds.Text())
	}
	return w, src, path
}

// TestImperative: a tool doc in the third person ("The doctor signs …",
// "Records …") is said as an order; an order stays as it is.
func TestImperative(t *testing.T) {
	for _, c := range []struct{ doc, name, want string }{
		{"The doctor signs the clinical note of a completed visit", "sign_note", "sign the clinical note of a completed visit"},
		{"Records a payment received for a bill", "record_payment", "record a payment received for a bill"},
		{"Applies a discount", "apply_discount", "apply a discount"},
		{"The clerk reassigns the case", "reassign_case", "reassign the case"},
		{"A refund for a cancelled booking", "refund", "refund"},
		{"Cancel a booking", "cancel_booking", "cancel a booking"},
		{"Move a booking to another departure", "rebook", "move a booking to another departure"},
	} {
		if got := action(&ir.Tool{Name: c.name, Doc: c.doc}); got != c.want {
			t.Errorf("action(%s, %q) = %q, want %q", c.name, c.doc, got, c.want)
		}
	}
}

// TestHumanDateTime: a datetime is written as people write it, and the
// dataflow check finds the value in either form.
func TestHumanDateTime(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"2026-06-20T07:40:00Z", "07:40 UTC on 2026-06-20"},
		{"2026-06-20T07:40:30Z", "07:40:30 UTC on 2026-06-20"},
		{"2026-06-20T07:40:00+02:00", "07:40 UTC+02:00 on 2026-06-20"},
		{"not a time", "not a time"},
	} {
		if got := humanDateTime(c.in); got != c.want {
			t.Errorf("humanDateTime(%s) = %q, want %q", c.in, got, c.want)
		}
	}
	p := &ir.Param{Name: "departs_at", Type: &ir.Type{Kind: ir.KindDateTime}}
	for _, in := range []string{"the tour that departs at 07:40 utc on 2026-06-20", "the tour of 2026-06-20t07:40:00z"} {
		if !inText(in, "2026-06-20T07:40:00Z", p) {
			t.Errorf("inText does not find the datetime in %q", in)
		}
	}
	if inText("the tour that departs at 07:40 utc on 2026-06-21", "2026-06-20T07:40:00Z", p) {
		t.Errorf("inText finds another day's datetime")
	}
}

// TestBarePhrases: values whose names read as phrases of their own
// (starts_on, received_by, on_hold, years) are said after the with-list,
// never as "with starts on …" or "with the years 5".
func TestBarePhrases(t *testing.T) {
	x := &synth{w: &ir.World{Tools: []*ir.Tool{{Name: "cancel_policy"}, {Name: "record_payment"}}}}
	date := &ir.Type{Kind: ir.KindDate}
	num := func(s string) any { return json.Number(s) }
	for _, c := range []struct {
		p    *ir.Param
		v    any
		want string
	}{
		{&ir.Param{Name: "starts_on", Type: date}, "2026-08-03", "starting on 2026-08-03"},
		{&ir.Param{Name: "expires_on", Type: date}, "2026-08-03", "expiring on 2026-08-03"},
		{&ir.Param{Name: "received_by", Type: &ir.Type{Kind: ir.KindString}}, "Kaito Shimizu", "received by Kaito Shimizu"},
		{&ir.Param{Name: "years", Type: &ir.Type{Kind: ir.KindInt}}, num("5"), "for 5 years"},
		{&ir.Param{Name: "years", Type: &ir.Type{Kind: ir.KindInt}}, num("1"), "for 1 year"},
		{&ir.Param{Name: "extra_nights", Type: &ir.Type{Kind: ir.KindInt}}, num("2"), "for 2 extra nights"},
		{&ir.Param{Name: "cancel_on", Type: date}, "2026-04-14", "to cancel on 2026-04-14"},
	} {
		if !x.bare(c.p, c.v) {
			t.Errorf("%s is not said as a phrase of its own", c.p.Name)
		}
		if got := x.paramPhrase(c.p, c.v, x.valueText(c.v, c.p.Type)); got != c.want {
			t.Errorf("paramPhrase(%s) = %q, want %q", c.p.Name, got, c.want)
		}
	}
	for _, c := range []struct {
		p    *ir.Param
		v    any
		want string
	}{
		{&ir.Param{Name: "counted", Type: &ir.Type{Kind: ir.KindInt}}, num("0"), "0 counted"},
		{&ir.Param{Name: "requested_pickup", Type: &ir.Type{Kind: ir.KindDateTime}}, "2026-05-12T14:00:00Z", "the requested pickup at 14:00 UTC on 2026-05-12"},
		{&ir.Param{Name: "effective", Type: date}, "2026-05-26", "the effective date 2026-05-26"},
	} {
		if got := x.paramPhrase(c.p, c.v, x.valueText(c.v, c.p.Type)); got != c.want {
			t.Errorf("paramPhrase(%s) = %q, want %q", c.p.Name, got, c.want)
		}
	}
	for _, p := range []*ir.Param{
		{Name: "amount", Type: &ir.Type{Kind: ir.KindMoney}},
		{Name: "effective", Type: date},
		{Name: "fraud_confirmed", Type: &ir.Type{Kind: ir.KindBool}},
		{Name: "customer_since", Type: date}, // no tool is named by "customer"
	} {
		if x.bare(p, num("3")) {
			t.Errorf("%s is said as a phrase of its own", p.Name)
		}
	}
	if !x.bare(&ir.Param{Name: "on_hold", Type: &ir.Type{Kind: ir.KindBool}}, true) {
		t.Errorf("on_hold is said in the with-list")
	}
	if got := afterWith([]string{"the amount 10 EUR"}, []string{"received on 2026-03-07"}); got != "with the amount 10 EUR, received on 2026-03-07" {
		t.Errorf("afterWith = %q", got)
	}
	if got := afterWith(nil, []string{"starting on 2026-08-03", "ending on 2026-08-10"}); got != "starting on 2026-08-03 and ending on 2026-08-10" {
		t.Errorf("afterWith = %q", got)
	}
}

// TestNewValueRole: rebook(booking, tour) sets the booking's tour to the
// tour it takes; the words say the tour is the booking's new one, not
// the one it is on.
func TestNewValueRole(t *testing.T) {
	w, _, _ := redteamWorld(t, "lago_rail_travel")
	var rebook, cancel *ir.Tool
	for _, tl := range w.Tools {
		switch tl.Name {
		case "rebook":
			rebook = tl
		case "cancel_booking":
			cancel = tl
		}
	}
	if rebook == nil || cancel == nil {
		t.Fatal("lago_rail_travel has no rebook or cancel_booking")
	}
	tour := rebook.Params[1]
	if f := newValueOf(rebook, tour); f == nil || f.Name != "tour" {
		t.Fatalf("newValueOf(rebook, tour) = %v, want the booking's tour", f)
	}
	if f := newValueOf(rebook, rebook.Params[0]); f != nil {
		t.Errorf("newValueOf(rebook, booking) = %s, want none", f.Name)
	}
	if f := newValueOf(cancel, cancel.Params[0]); f != nil {
		t.Errorf("newValueOf(cancel_booking, booking) = %s, want none", f.Name)
	}
	got := asRole(rebook, tour, recordEntity(tour.Type), "the tour “Bernina Express from Tirano”")
	if !strings.HasSuffix(got, "as its new tour") {
		t.Errorf("asRole = %q, want the tour as the booking's new tour", got)
	}
}

// TestConstsCompared: the constants a parameter is compared with are
// candidates for it; one it is multiplied by (subtotal * 0.1, a tax) is
// not — "the subtotal 0.1 AUD" is no purchase order anyone draws up.
func TestConstsCompared(t *testing.T) {
	w, _, _ := redteamWorld(t, "outback_civil_procurement")
	x := &synth{w: w, consts: map[*ir.Param][]any{}, compared: map[*ir.Param][]string{}, fresh: map[*ir.Param]bool{}}
	for _, tl := range w.Tools {
		if tl.Name != "create_purchase_order" {
			continue
		}
		x.harvestConsts(tl)
		for _, p := range tl.Params {
			if p.Name != "subtotal" {
				continue
			}
			var got []string
			for _, c := range x.consts[p] {
				a, _ := atom(c)
				got = append(got, a)
			}
			if containsStr(got, "0.1") {
				t.Errorf("consts of subtotal = %v: the GST rate it is multiplied by is no subtotal", got)
			}
			return
		}
	}
	t.Fatal("outback_civil_procurement has no create_purchase_order(subtotal)")
}

// TestNewRecordsNumbered: when the words ask for more than one new
// record of an entity, a later write never names one as "the new …"
// (either would be); it says which: "the first new claim".
func TestNewRecordsNumbered(t *testing.T) {
	_, src, path := redteamWorld(t, "clinique_saint_roch")
	numbered := 0
	// Three seeds' draws, so that the property is seen whatever one
	// seed's sampling happens to draw.
	for seed := uint64(1); seed <= 3; seed++ {
		r, _, _ := synthesize(t, path, src, 60, seed)
		numbered += countNumbered(t, r)
	}
	if numbered == 0 {
		t.Errorf("no task names one of two new records by its place; the test saw nothing to check")
	}
}

// countNumbered checks r's kept tasks for TestNewRecordsNumbered and
// counts those that number a new record.
func countNumbered(t *testing.T, r *Result) int {
	t.Helper()
	numbered := 0
	for _, tk := range r.kept {
		created := map[string][]string{}
		for _, c := range tk.calls {
			if c.lookup || c.fails != "" || c.id == "" || c.tool.Returns == nil {
				continue
			}
			e := recordEntity(c.tool.Returns)
			if e == nil || r.x.startHas(e, c.id) || containsStr(created[e.Name], c.id) {
				continue
			}
			created[e.Name] = append(created[e.Name], c.id)
		}
		for name, ids := range created {
			if len(ids) < 2 {
				continue
			}
			if strings.Contains(tk.instruction, "the new "+humanize(name)) {
				t.Errorf("%s: %d new %s records, one named “the new %s”: %s", tk.name, len(ids), name, humanize(name), tk.instruction)
			}
			if strings.Contains(tk.instruction, "first new "+humanize(name)) {
				numbered++
			}
		}
	}
	return numbered
}

func containsStr(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// TestQuestionsAskKnownValues: a question never asks for ids users do
// not know (a lease's, a report's); it asks for a value that tells the
// records apart (premises, a due date) and its answer is that value.
func TestQuestionsAskKnownValues(t *testing.T) {
	_, src, path := redteamWorld(t, "kista_leases")
	r, _, _ := synthesize(t, path, src, 60, 1)
	asked := 0
	for i, m := range r.Tasks {
		if m.Origin != OriginQuestion {
			continue
		}
		tk := r.kept[i]
		if strings.Contains(m.Instruction, "its id") || strings.Contains(m.Instruction, "their ids") {
			t.Errorf("%s asks for internal ids: %s", m.ID, m.Instruction)
		}
		if strings.Contains(m.Instruction, "Tell me") {
			asked++
			for _, a := range tk.assertions {
				if strings.HasPrefix(a, "answer list(r in") || strings.HasPrefix(a, "answer first(") && !strings.Contains(a, ")).") {
					t.Errorf("%s is graded by ids: %s", m.ID, a)
				}
			}
		}
	}
	if asked == 0 {
		t.Errorf("no question asks for a value; the test saw nothing to check")
	}
	if got := fieldNoun(&ir.Field{Name: "starts_on", Type: &ir.Type{Kind: ir.KindDate}}); got != "start date" {
		t.Errorf("fieldNoun(starts_on) = %q", got)
	}
	if got := fieldPlural(&ir.Field{Name: "premises", Type: &ir.Type{Kind: ir.KindString}}); got != "premises" {
		t.Errorf("fieldPlural(premises) = %q", got)
	}
	if got := fieldPlural(&ir.Field{Name: "due_on", Type: &ir.Type{Kind: ir.KindDate}}); got != "due dates" {
		t.Errorf("fieldPlural(due_on) = %q", got)
	}
}

// TestDateVerbQualifier: a date field named by a verb (insurance_expires)
// is said "whose insurance expires on …", not "whose insurance expires
// is …".
func TestDateVerbQualifier(t *testing.T) {
	x := &synth{w: &ir.World{}}
	date := &ir.Type{Kind: ir.KindDate}
	for _, c := range []struct{ field, want string }{
		{"insurance_expires", "whose insurance expires on 2027-03-31"},
		{"expires", "that expires on 2027-03-31"},
		{"session_date", "whose session date is 2027-03-31"},
		{"status", "whose status is 2027-03-31"},
	} {
		if got := x.qualifier(c.field, "2027-03-31", date, newWording()); got != c.want {
			t.Errorf("qualifier(%s) = %q, want %q", c.field, got, c.want)
		}
	}
}
