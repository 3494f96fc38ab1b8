package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

func TestViolations(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	if v := s.Violations(); len(v) != 0 {
		t.Fatalf("seed violations: %v", v)
	}
	mustCall(t, s, "mark_paid", `{"invoice":"inv1"}`)
	want := []Violation{{Invariant: "paid_invoices_are_posted", Entity: "Invoice", ID: "inv1"}}
	if v := s.Violations(); fmt.Sprint(v) != fmt.Sprint(want) {
		t.Fatalf("violations = %v, want %v", v, want)
	}
	mustCall(t, s, "post_entry", `{"invoice":"inv1","amount":1199.99}`)
	if v := s.Violations(); len(v) != 1 {
		t.Fatalf("wrong amount: violations = %v", v)
	}
	mustCall(t, s, "post_entry", `{"invoice":"inv1","amount":1200}`)
	if v := s.Violations(); len(v) != 0 {
		t.Fatalf("posted: violations = %v", v)
	}

	// An evaluation error makes every triggered record a violation, with
	// the error as detail; a nil trigger means every record.
	broken := &ir.Invariant{Name: "broken", Var: &ir.Var{Name: "c", Type: tRec(x.Customer)}, Entity: x.Customer,
		Check: fld(lookup(x.Invoice, sLit("ghost")), x.iAmount)}
	got := s.InvariantViolations(broken)
	if len(got) != 2 || got[1].String() != `invariant broken violated by Customer "bolt": Invoice "ghost" not found` {
		t.Errorf("broken invariant: %v", got)
	}
	trigErr := &ir.Invariant{Name: "trigger_error", Var: &ir.Var{Name: "c", Type: tRec(x.Customer)}, Entity: x.Customer,
		Where: fld(lookup(x.Invoice, sLit("ghost")), x.iAmount), Check: bLit(true)}
	if got := s.InvariantViolations(trigErr); len(got) != 2 || got[0].Detail != `Invoice "ghost" not found` {
		t.Errorf("trigger error: %v", got)
	}
	if got := s.InvariantViolations(&ir.Invariant{Name: "ghost", Entity: &ir.Entity{Name: "Ghost"}}); len(got) != 1 {
		t.Errorf("foreign entity: %v", got)
	}
	if got := s.InvariantViolations(nil); got != nil {
		t.Errorf("nil invariant: %v", got)
	}
}

func TestCheckConstraints(t *testing.T) {
	x := newFixture(t)
	if p := x.state(t).CheckConstraints(); len(p) != 0 {
		t.Fatalf("seed problems: %v", p)
	}
	x.w.Seed = append(x.w.Seed,
		record(x.Customer, "c1", vNull(), vStr("ap@acme.example"), vEnum("silver"), vInt(-1), vBool(true), vRef("ghost"), vNull()),
		record(x.Customer, "c2", vStr("C2"), vStr("c2@x"), vEnum("platinum"), vInt(0), vBool(true), vRef("acme"), vStr("ok")),
		record(x.Customer, "c3", vStr("C3"), vInt(3), vEnum("gold"), vInt(0), vBool(true), vNull(), vNull()),
		record(x.Entry, "e1", vRef("inv1"), vMoney(1), vDate("2019-12-31"), vInt(101), vDateTime("2026-03-14T09:30:00Z")),
	)
	s := x.state(t)
	var got []string
	for _, p := range s.CheckConstraints() {
		got = append(got, p.Kind+" "+p.String())
	}
	want := []string{
		`required Customer "c1": Customer.name is required`,
		`unique Customer "c1": Customer.email must be unique: "ap@acme.example" is already used by Customer "acme"`,
		`bound Customer "c1": Customer.credit_limit must be >= 0, got -1`,
		`ref Customer "c1": Customer.parent refers to Customer "ghost", which does not exist`,
		`enum Customer "c2": Customer.tier must be one of bronze, silver, gold, got "platinum"`,
		`type Customer "c3": Customer.email must be string, got int`,
		`bound Entry "e1": Entry.posted_on must be >= "2020-01-01", got "2019-12-31"`,
		`bound Entry "e1": Entry.lines must be <= 100, got 101`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestNewStateErrors(t *testing.T) {
	if _, err := NewState(nil, nil); err == nil {
		t.Error("nil world accepted")
	}
	bad := func(mut func(w *ir.World), want string) {
		t.Helper()
		x := newFixture(t)
		mut(x.w)
		_, err := NewState(x.w, x.onboard)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %q", err, want)
		}
	}
	bad(func(w *ir.World) { w.Today = "2026-02-30" }, `today: invalid date "2026-02-30"`)
	bad(func(w *ir.World) { w.Seed = append(w.Seed, w.Seed[0]) }, `Customer "acme": duplicate id`)
	bad(func(w *ir.World) { w.Seed[0].Values = w.Seed[0].Values[:2] }, `2 values for 7 fields`)
	bad(func(w *ir.World) { w.Seed[3].Values[3] = vDate("yesterday") }, `issued_on: expected a date "YYYY-MM-DD", got "yesterday"`)
	bad(func(w *ir.World) { w.Seed = append(w.Seed, record(&ir.Entity{Name: "Ghost"}, "g")) }, `entity not in the world`)
	bad(func(w *ir.World) { w.Seed = append(w.Seed, nil) }, `nil seed record`)
	bad(func(w *ir.World) { w.Entities = append(w.Entities, nil) }, `nil entity`)
	// A task seed clashing with the world seed.
	y := newFixture(t)
	y.onboard.Seed = append(y.onboard.Seed, y.w.Seed[0])
	if _, err := NewState(y.w, y.onboard); err == nil || !strings.Contains(err.Error(), "(task onboard)") {
		t.Errorf("task seed clash: %v", err)
	}
}

func TestStateJSONAndHash(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	want := `{"Customer":[` + acmeJSON + `,{"id":"bolt","name":"Bolt GmbH","email":"hi@bolt.example","tier":"gold","credit_limit":1000,"active":false,"parent":"acme","note":"slow payer"}],` +
		`"Invoice":[{"id":"inv1","customer":"acme","amount":1200,"status":"issued","issued_on":"2026-03-01"},{"id":"inv2","customer":"bolt","amount":80.5,"status":"draft","issued_on":null}],` +
		`"Entry":[]}`
	if got := string(s.JSON()); got != want {
		t.Errorf("JSON:\n%s\nwant\n%s", got, want)
	}
	h := s.Hash()
	if len(h) != 64 {
		t.Errorf("hash %q", h)
	}
	c := s.Clone()
	if c.Hash() != h || !c.Equal(s) {
		t.Error("clone differs")
	}
	mustCall(t, c, "set_tier", `{"customer":"acme","tier":"gold"}`)
	if s.Hash() != h {
		t.Error("writing a clone changed the original")
	}
	if c.Hash() == h || c.Equal(s) {
		t.Error("write did not change the hash")
	}
	mustCall(t, c, "set_tier", `{"customer":"acme","tier":"silver"}`)
	if c.Hash() != h || !c.Equal(s) {
		t.Error("writing back the old value did not restore the hash")
	}
	// Order matters: the same records in another order are another state.
	d := s.Clone()
	tb := d.own(x.Invoice) // its own copy: d shares its tables with s
	tb.mineAll()           // a full table, whose rows can be swapped
	tb.rows[0], tb.rows[1] = tb.rows[1], tb.rows[0]
	if d.Hash() == h || d.Equal(s) {
		t.Error("reordering did not change the state")
	}
	if s.Len(x.Invoice) != 2 || s.Len(&ir.Entity{}) != 0 || s.World() != x.w {
		t.Error("Len/World")
	}
	if _, ok := s.RecordJSON(x.Invoice, "ghost"); ok {
		t.Error("RecordJSON of a missing record")
	}
	// Strings use encoding/json's escaping, without HTML escaping.
	mustCall(t, c, "update_customer", `{"id":"acme","note":"<a & \"b\">\n"}`)
	if got, _ := c.RecordJSON(x.Customer, "acme"); !strings.Contains(string(got), `"note":"<a & \"b\">\n"`) {
		t.Errorf("escaping: %s", got)
	}
}
