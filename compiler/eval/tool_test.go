package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

const acmeJSON = `{"id":"acme","name":"Acme AG","email":"ap@acme.example","tier":"silver","credit_limit":50000,"active":true,"parent":null,"note":null}`

func TestCustomTool(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	got := mustCall(t, s, "set_tier", `{"customer":"acme","tier":"gold"}`)
	want := strings.Replace(acmeJSON, `"silver"`, `"gold"`, 1)
	if got != want {
		t.Errorf("set_tier = %s, want %s", got, want)
	}
	if d, _ := s.RecordJSON(x.Customer, "acme"); string(d) != want {
		t.Errorf("state after set_tier: %s", d)
	}
	err := callErr(t, s, "set_tier", `{"customer":"bolt","tier":"gold"}`)
	if err.Code != CodePreconditionFailed || err.Message != "customer is inactive" {
		t.Errorf("inactive: %v", err)
	}
}

func TestArguments(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	tests := []struct{ tool, args, code, msg string }{
		{"set_tier", `{"customer":"acme","tier":"platinum"}`, CodeInvalidArguments, `argument "tier": "platinum" is not one of bronze, silver, gold`},
		{"set_tier", `{"customer":"nope","tier":"gold"}`, CodeNotFound, `Customer "nope" not found`},
		{"set_tier", `{"tier":"gold"}`, CodeInvalidArguments, `missing required argument "customer"`},
		{"set_tier", `{"customer":null,"tier":"gold"}`, CodeInvalidArguments, `missing required argument "customer"`},
		{"set_tier", `{"customer":"acme","tier":"gold","extra":1}`, CodeInvalidArguments, `unknown argument "extra"`},
		{"set_tier", `{"customer":"nope","tier":5}`, CodeInvalidArguments, `argument "tier": expected Customer.tier, got int`},
		{"set_tier", `{"customer":7,"tier":"gold"}`, CodeInvalidArguments, `argument "customer": expected ref Customer, got int`},
		{"set_tier", `{"customer":["acme"],"tier":"gold"}`, CodeInvalidArguments, `argument "customer": expected ref Customer, got array`},
		{"set_tier", `{"customer":{"id":"acme"},"tier":"gold"}`, CodeInvalidArguments, `argument "customer": expected ref Customer, got object`},
		{"set_tier", `[1]`, CodeInvalidArguments, `arguments must be a JSON object`},
		{"set_tier", `{"customer":`, CodeInvalidArguments, `arguments are not valid JSON: unexpected end of JSON input`},
		{"set_tier", `{} {}`, CodeInvalidArguments, `arguments are not valid JSON: invalid character '{' after top-level value`},
		{"nope", `{}`, CodeUnknownTool, `unknown tool "nope"`},
		{"fail_deep", `{"n":5.0}`, CodeInvalidArguments, `argument "n": expected int, got decimal`},
		{"fail_deep", `{"n":1e2}`, CodeInvalidArguments, `argument "n": expected int, got decimal`},
		{"fail_deep", `{"n":99999999999999999999}`, CodeInvalidArguments, `argument "n": expected int, got decimal`},
		{"fail_deep", `{"n":"5"}`, CodeInvalidArguments, `argument "n": expected int, got string`},
		{"fail_deep", `{"n":true}`, CodeInvalidArguments, `argument "n": expected int, got bool`},
		{"fail_deep", `{"n":1e999}`, CodeInvalidArguments, `argument "n": number 1e999 is out of range`},
		{"post_entry", `{"invoice":"inv1","amount":"12"}`, CodeInvalidArguments, `argument "amount": expected money, got string`},
		{"touch", `{"invoice":"inv1","on":"2026-13-01"}`, CodeInvalidArguments, `argument "on": invalid date "2026-13-01": month 13 out of range 1..12`},
		{"touch", `{"invoice":"inv1","on":"2026-3-1"}`, CodeInvalidArguments, `argument "on": expected a date "YYYY-MM-DD", got "2026-3-1"`},
		{"touch", `{"invoice":"inv1","on":20260301}`, CodeInvalidArguments, `argument "on": expected date, got int`},
		// Unknown names come first, then parameters in order, then lookups.
		{"set_tier", `{"zzz":1,"aaa":2}`, CodeInvalidArguments, `unknown argument "aaa"`},
		{"set_tier", `{"customer":"nope"}`, CodeInvalidArguments, `missing required argument "tier"`},
		{"post_entry", `{"invoice":"nope","amount":0}`, CodeNotFound, `Invoice "nope" not found`},
		{"fail_deep", `{"n":0}`, CodeInternal, `integer modulo by zero`},
	}
	for _, tc := range tests {
		err := callErr(t, s, tc.tool, tc.args)
		if err.Code != tc.code || err.Message != tc.msg {
			t.Errorf("%s(%s) = %s: %s\nwant %s: %s", tc.tool, tc.args, err.Code, err.Message, tc.code, tc.msg)
		}
	}
	// A decimal parameter takes a JSON integer; empty and null arguments are {}.
	if got := mustCall(t, s, "fail_deep", `{"n":3}`); got != "1" {
		t.Errorf("fail_deep = %s", got)
	}
	for _, args := range []string{"", " ", "null"} {
		if got := mustCall(t, s, "list_entries", args); got != "[]" {
			t.Errorf("list_entries(%q) = %s", args, got)
		}
	}
	// Arguments given as IR constants of other string kinds are JSON strings.
	d, err := s.Call(x.setTier, map[string]*ir.Value{"customer": vRef("acme"), "tier": vEnum("bronze")})
	if err != nil || !strings.Contains(d.String(), `"tier":"bronze"`) {
		t.Errorf("set_tier with ref/enum constants = %s, %v", d, err)
	}
	if _, err := s.Call(x.postEntry, map[string]*ir.Value{"invoice": vRef("inv1"), "amount": vDec(1.0 / zero())}); err == nil || err.Message != `argument "amount": must be a finite number` {
		t.Errorf("infinite amount: %v", err)
	}
	if _, err := s.Call(nil, nil); err == nil || err.Code != CodeUnknownTool {
		t.Errorf("nil tool: %v", err)
	}
}

func zero() float64 { return 0 }

func TestStatements(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)

	// post_entry: require, insert with defaults, today, return.
	err := callErr(t, s, "post_entry", `{"invoice":"inv1","amount":0}`)
	if err.Code != CodePreconditionFailed || err.Message != "amount must be positive" {
		t.Errorf("post_entry 0: %v", err)
	}
	got := mustCall(t, s, "post_entry", `{"invoice":"inv1","amount":1200}`)
	if want := `{"id":"entry_1","invoice":"inv1","amount":1200,"posted_on":"2026-03-14","lines":1,"booked_at":null}`; got != want {
		t.Errorf("post_entry = %s, want %s", got, want)
	}
	if got := mustCall(t, s, "post_entry", `{"invoice":"inv2","amount":0.25}`); !strings.HasPrefix(got, `{"id":"entry_2","invoice":"inv2","amount":0.25,`) {
		t.Errorf("second post_entry = %s", got)
	}

	// No return: null. If/else on an optional parameter.
	if got := mustCall(t, s, "touch", `{"invoice":"inv2"}`); got != "null" {
		t.Errorf("touch = %s", got)
	}
	if d, _ := s.RecordJSON(x.Invoice, "inv2"); !strings.Contains(string(d), `"issued_on":"2026-03-14"`) {
		t.Errorf("touch without date: %s", d)
	}
	mustCall(t, s, "touch", `{"invoice":"inv2","on":"2025-12-31"}`)
	if d, _ := s.RecordJSON(x.Invoice, "inv2"); !strings.Contains(string(d), `"issued_on":"2025-12-31"`) {
		t.Errorf("touch with date: %s", d)
	}

	// for with set over every record; the count after.
	if got := mustCall(t, s, "rename_all", `{"suffix":"!"}`); got != "2" {
		t.Errorf("rename_all = %s", got)
	}
	for id, name := range map[string]string{"acme": "Acme AG!", "bolt": "Bolt GmbH!"} {
		if d, _ := s.RecordJSON(x.Customer, id); !strings.Contains(string(d), `"name":"`+name+`"`) {
			t.Errorf("rename_all: %s", d)
		}
	}

	// for inserting into the table it iterates visits only the snapshot.
	if got := mustCall(t, s, "clone_drafts", `{}`); got != "2" {
		t.Errorf("clone_drafts = %s, want 2 (inv2 and its one copy)", got)
	}
	if d, ok := s.RecordJSON(x.Invoice, "invoice_1"); !ok || string(d) != `{"id":"invoice_1","customer":"bolt","amount":80.5,"status":"draft","issued_on":null}` {
		t.Errorf("clone: %s", d)
	}
	mustCall(t, s, "void_drafts", `{}`)
	if n := evalText(s, agg("count", x.Invoice, tInt, func(i ir.Expr) (ir.Expr, ir.Expr) {
		return eq(fld(i, x.iStatus), enumLit(x.iStatus, "void")), nil
	})); n != "2" {
		t.Errorf("void drafts: %s voided", n)
	}
}

// adHoc builds a custom tool of service svc that is not part of the world.
func adHoc(svc *ir.Service, params []*ir.Param, body func(p map[string]ir.Expr) []ir.Stmt) *ir.Tool {
	tool := customTool(svc, "ad_hoc", params, body)
	svc.Tools = svc.Tools[:len(svc.Tools)-1]
	return tool
}

func TestWrites(t *testing.T) {
	x := newFixture(t)
	callTool := func(s *State, tool *ir.Tool, args string) (string, *ToolError) {
		m, err := ArgsFromJSON([]byte(args))
		if err != nil {
			t.Fatal(err)
		}
		before := s.Hash()
		d, terr := s.Call(tool, m)
		if terr != nil {
			if s.Hash() != before {
				t.Errorf("failed call changed the state")
			}
			return "", terr
		}
		return d.String(), nil
	}
	customer := func(more ...*ir.Param) []*ir.Param {
		return append([]*ir.Param{param("customer", tRef(x.Customer))}, more...)
	}

	// set on a deleted record; delete twice.
	delThenSet := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Delete{Target: p["customer"]},
			&ir.Set{Target: p["customer"], Field: x.cName, Value: sLit("x")},
		}
	})
	delTwice := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Delete{Target: p["customer"]}, &ir.Delete{Target: p["customer"]}}
	})
	// A deleted record keeps its values for reading.
	delThenRead := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Delete{Target: p["customer"]}, &ir.Return{Value: list(tRec(x.Customer), p["customer"], fld(p["customer"], x.cName))}}
	})
	setLimit := adHoc(x.crm, customer(param("limit", tMoney)), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["customer"], Field: x.cLimit, Value: p["limit"]}, &ir.Return{Value: p["customer"]}}
	})
	setInf := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["customer"], Field: x.cLimit, Value: binT("/", dLit(1), dLit(0), tMoney)}}
	})
	setNull := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["customer"], Field: x.cName, Value: nullLit()}}
	})
	setEnum := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["customer"], Field: x.cTier, Value: sLit("platinum")}}
	})
	setEmail := adHoc(x.crm, customer(param("email", tString)), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Set{Target: p["customer"], Field: x.cEmail, Value: p["email"]}}
	})
	insertMissing := adHoc(x.crm, nil, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Insert{Entity: x.Customer, Fields: []*ir.FieldInit{{Field: x.cName, Value: sLit("n")}}}}
	})
	returnInf := adHoc(x.crm, nil, func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{&ir.Return{Value: binT("/", dLit(1), dLit(0), tDecimal)}}
	})
	// Two sets of the same record in one call; reads see the first.
	setTwice := adHoc(x.crm, customer(), func(p map[string]ir.Expr) []ir.Stmt {
		return []ir.Stmt{
			&ir.Set{Target: p["customer"], Field: x.cName, Value: sLit("One")},
			&ir.Set{Target: p["customer"], Field: x.cNote, Value: bin("+", fld(p["customer"], x.cName), sLit(" note"))},
			&ir.Return{Value: p["customer"]},
		}
	})

	tests := []struct {
		tool      *ir.Tool
		args      string
		want, err string
	}{
		{delThenSet, `{"customer":"zed"}`, "", `not_found: Customer "zed" not found`},
		{delTwice, `{"customer":"zed"}`, "", `not_found: Customer "zed" not found`},
		{delThenRead, `{"customer":"zed"}`, `[{"id":"zed","name":"Zed","email":"z@zed.example","tier":"bronze","credit_limit":0,"active":true,"parent":null,"note":null},"Zed"]`, ""},
		{setLimit, `{"customer":"acme","limit":-0.01}`, "", `constraint_violation: Customer.credit_limit must be >= 0, got -0.01`},
		{setLimit, `{"customer":"acme","limit":0}`, strings.Replace(acmeJSON, "50000", "0", 1), ""},
		{setInf, `{"customer":"acme"}`, "", `constraint_violation: Customer.credit_limit must be a finite number, got +Inf`},
		{setNull, `{"customer":"acme"}`, "", `constraint_violation: Customer.name is required`},
		{setEnum, `{"customer":"acme"}`, "", `constraint_violation: Customer.tier must be one of bronze, silver, gold, got "platinum"`},
		{setEmail, `{"customer":"acme","email":"hi@bolt.example"}`, "", `constraint_violation: Customer.email must be unique: "hi@bolt.example" is already used by Customer "bolt"`},
		{setEmail, `{"customer":"acme","email":"ap@acme.example"}`, "null", ""},
		{insertMissing, `{}`, "", `constraint_violation: Customer.email is required`},
		{returnInf, `{}`, "", `internal: tool "ad_hoc" returned data that cannot be encoded as JSON: json: unsupported value: +Inf`},
		{setTwice, `{"customer":"acme"}`, strings.Replace(strings.Replace(acmeJSON, `"Acme AG"`, `"One"`, 1), `"note":null`, `"note":"One note"`, 1), ""},
	}
	for i, tc := range tests {
		s, serr := NewState(x.w, x.onboard) // adds customer zed, referred to by nothing
		if serr != nil {
			t.Fatal(serr)
		}
		got, err := callTool(s, tc.tool, tc.args)
		if err != nil {
			if tc.err == "" || err.Error() != tc.err {
				t.Errorf("%d: error %v, want %q / %s", i, err, tc.err, tc.want)
			}
			continue
		}
		if tc.err != "" || got != tc.want {
			t.Errorf("%d: got %s, want %s / error %q", i, got, tc.want, tc.err)
		}
	}
}

func TestAtomicity(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	start := s.JSON()
	// Insert, set the new record, delete inv2, then fail: nothing remains.
	err := callErr(t, s, "insert_then_fail", `{"customer":"acme","victim":"inv2"}`)
	if err.Code != CodePreconditionFailed {
		t.Fatalf("insert_then_fail: %v", err)
	}
	if string(s.JSON()) != string(start) {
		t.Fatalf("state changed:\n%s\n%s", start, s.JSON())
	}
	// inv2 is back at its position, and the id sequence is untouched.
	if got := mustCall(t, s, "create_invoice", `{"customer":"acme","amount":1}`); !strings.HasPrefix(got, `{"id":"invoice_1",`) {
		t.Errorf("create after rollback = %s", got)
	}
	if got := evalText(s, list(tString, idOf(lookup(x.Invoice, sLit("inv1"))))); got != `["inv1"]` {
		t.Errorf("inv1: %s", got)
	}
	if ids := s.IDs(x.Invoice); strings.Join(ids, ",") != "inv1,inv2,invoice_1" {
		t.Errorf("invoice order after rollback: %v", ids)
	}
	// A failing standard update restores the fields it set before failing.
	before := s.Hash()
	if _, err := s.CallJSON("update_customer", []byte(`{"id":"acme","name":"Renamed","email":"hi@bolt.example"}`)); err == nil || err.Code != CodeConstraintViolation {
		t.Fatalf("update with clashing email: %v", err)
	}
	if s.Hash() != before {
		t.Errorf("failed update changed the state")
	}
}

func TestStandardTools(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)

	// get
	if got := mustCall(t, s, "get_customer", `{"id":"acme"}`); got != acmeJSON {
		t.Errorf("get = %s", got)
	}
	if err := callErr(t, s, "get_customer", `{"id":"inv1"}`); err.Error() != `not_found: Customer "inv1" not found` {
		t.Errorf("get missing: %v", err)
	}
	if err := callErr(t, s, "get_customer", `{}`); err.Error() != `invalid_arguments: missing required argument "id"` {
		t.Errorf("get without id: %v", err)
	}

	// create: defaults, new ids, required, unique, bounds, refs.
	got := mustCall(t, s, "create_customer", `{"name":"Newco","email":"n@n.example","tier":"bronze","credit_limit":10}`)
	if want := `{"id":"customer_1","name":"Newco","email":"n@n.example","tier":"bronze","credit_limit":10,"active":true,"parent":null,"note":null}`; got != want {
		t.Errorf("create = %s", got)
	}
	got = mustCall(t, s, "create_customer", `{"name":"Two","email":"2@n.example","tier":"gold","credit_limit":0.5,"active":false,"parent":"customer_1","note":"hi"}`)
	if want := `{"id":"customer_2","name":"Two","email":"2@n.example","tier":"gold","credit_limit":0.5,"active":false,"parent":"customer_1","note":"hi"}`; got != want {
		t.Errorf("create all fields = %s", got)
	}
	for _, tc := range []struct{ args, err string }{
		{`{"name":"X","tier":"gold","credit_limit":1}`, `invalid_arguments: missing required argument "email"`},
		{`{"name":"X","email":"ap@acme.example","tier":"gold","credit_limit":1}`, `constraint_violation: Customer.email must be unique: "ap@acme.example" is already used by Customer "acme"`},
		{`{"name":"X","email":"x@x","tier":"gold","credit_limit":-1}`, `constraint_violation: Customer.credit_limit must be >= 0, got -1`},
		{`{"name":"X","email":"x@x","tier":"gold","credit_limit":1,"parent":"ghost"}`, `not_found: Customer "ghost" not found`},
	} {
		if err := callErr(t, s, "create_customer", tc.args); err.Error() != tc.err {
			t.Errorf("create %s: %v, want %s", tc.args, err, tc.err)
		}
	}

	// update: given fields only; own unique value is fine.
	got = mustCall(t, s, "update_customer", `{"id":"customer_1","email":"n@n.example","note":"updated","tier":null}`)
	if want := `{"id":"customer_1","name":"Newco","email":"n@n.example","tier":"bronze","credit_limit":10,"active":true,"parent":null,"note":"updated"}`; got != want {
		t.Errorf("update = %s", got)
	}
	if err := callErr(t, s, "update_customer", `{"id":"ghost","name":"x"}`); err.Error() != `not_found: Customer "ghost" not found` {
		t.Errorf("update missing: %v", err)
	}

	// delete: refused while referenced (first referrer in entity order).
	if err := callErr(t, s, "delete_customer", `{"id":"acme"}`); err.Error() != `constraint_violation: Customer "acme" is still referenced by Customer "bolt" (field parent)` {
		t.Errorf("delete acme: %v", err)
	}
	if err := callErr(t, s, "delete_customer", `{"id":"bolt"}`); err.Error() != `constraint_violation: Customer "bolt" is still referenced by Invoice "inv2" (field customer)` {
		t.Errorf("delete bolt: %v", err)
	}
	if err := callErr(t, s, "delete_customer", `{"id":"customer_1"}`); err.Error() != `constraint_violation: Customer "customer_1" is still referenced by Customer "customer_2" (field parent)` {
		t.Errorf("delete customer_1: %v", err)
	}
	// A record referring to itself does not block its deletion.
	mustCall(t, s, "update_customer", `{"id":"customer_2","parent":"customer_2"}`)
	got = mustCall(t, s, "delete_customer", `{"id":"customer_2"}`)
	if !strings.HasPrefix(got, `{"id":"customer_2","name":"Two"`) {
		t.Errorf("delete = %s", got)
	}
	mustCall(t, s, "delete_customer", `{"id":"customer_1"}`)
	// Ids come from the table's sequence: never reused after a delete, and
	// a failed create does not advance it.
	callErr(t, s, "create_customer", `{"name":"Again","email":"ap@acme.example","tier":"gold","credit_limit":0}`)
	got = mustCall(t, s, "create_customer", `{"name":"Again","email":"a@a","tier":"gold","credit_limit":0}`)
	if !strings.HasPrefix(got, `{"id":"customer_3",`) {
		t.Errorf("id after delete = %s", got)
	}
	got = mustCall(t, s, "create_customer", `{"name":"Again2","email":"a2@a","tier":"gold","credit_limit":0}`)
	if !strings.HasPrefix(got, `{"id":"customer_4",`) {
		t.Errorf("second id after delete = %s", got)
	}

	// list: offset, past the end, negative, at most 50.
	if got := mustCall(t, s, "list_customers", `{"offset":3}`); !strings.HasPrefix(got, `[{"id":"customer_4",`) || strings.Count(got, `"id"`) != 1 {
		t.Errorf("list offset 3 = %s", got)
	}
	if got := mustCall(t, s, "list_customers", `{"offset":99}`); got != "[]" {
		t.Errorf("list past end = %s", got)
	}
	if err := callErr(t, s, "list_customers", `{"offset":-1}`); err.Error() != `invalid_arguments: argument "offset": must be >= 0` {
		t.Errorf("list negative: %v", err)
	}
	for i := range 60 {
		mustCall(t, s, "create_customer", fmt.Sprintf(`{"name":"Bulk %d","email":"b%d@b","tier":"silver","credit_limit":0}`, i, i))
	}
	if got := mustCall(t, s, "list_customers", `{}`); strings.Count(got, `"id"`) != ir.PageSize || !strings.HasPrefix(got, `[{"id":"acme",`) {
		t.Errorf("list = %d records", strings.Count(got, `"id"`))
	}
	if got := mustCall(t, s, "list_customers", `{"offset":60}`); strings.Count(got, `"id"`) != 4 {
		t.Errorf("list offset 60 = %d records", strings.Count(got, `"id"`))
	}

	// search
	for _, tc := range []struct{ args, ids string }{
		{`{"name":"ACME"}`, "acme"},
		{`{"name":"gmbh","tier":"gold"}`, "bolt"},
		{`{"name":"gmbh","tier":"silver"}`, ""},
		{`{"parent":"acme"}`, "bolt"},
		{`{"active":false}`, "bolt"},
		{`{"name":"BULK 5"}`, "customer_10,customer_55,customer_56,customer_57,customer_58,customer_59,customer_60,customer_61,customer_62,customer_63,customer_64"},
		{`{"name":null,"tier":"gold"}`, "bolt,customer_3,customer_4"},
	} {
		got := mustCall(t, s, "find_customers", tc.args)
		var ids []string
		for _, part := range strings.Split(got, `{"id":"`)[1:] {
			ids = append(ids, part[:strings.IndexByte(part, '"')])
		}
		if strings.Join(ids, ",") != tc.ids {
			t.Errorf("search %s = %v, want %s", tc.args, ids, tc.ids)
		}
	}
	if got := mustCall(t, s, "find_customers", `{"tier":"silver"}`); strings.Count(got, `"id"`) != ir.PageSize {
		t.Errorf("search limit: %d", strings.Count(got, `"id"`))
	}
	if err := callErr(t, s, "find_customers", `{"parent":"ghost"}`); err.Error() != `not_found: Customer "ghost" not found` {
		t.Errorf("search missing ref: %v", err)
	}

	// delete of an invoice: refused once an entry refers to it.
	mustCall(t, s, "post_entry", `{"invoice":"inv2","amount":1}`)
	if err := callErr(t, s, "delete_invoice", `{"id":"inv2"}`); err.Error() != `constraint_violation: Invoice "inv2" is still referenced by Entry "entry_1" (field invoice)` {
		t.Errorf("delete inv2: %v", err)
	}
	if got := mustCall(t, s, "delete_invoice", `{"id":"inv1"}`); got != `{"id":"inv1","customer":"acme","amount":1200,"status":"issued","issued_on":"2026-03-01"}` {
		t.Errorf("delete inv1 = %s", got)
	}
	if err := callErr(t, s, "get_invoice", `{"id":"inv1"}`); err.Code != CodeNotFound {
		t.Errorf("get deleted: %v", err)
	}
}

func TestDataIsSnapshot(t *testing.T) {
	x := newFixture(t)
	s := x.state(t)
	d, err := s.CallJSON("get_customer", []byte(`{"id":"acme"}`))
	if err != nil {
		t.Fatal(err)
	}
	mustCall(t, s, "update_customer", `{"id":"acme","name":"Changed"}`)
	if d.String() != acmeJSON || d.ID() != "acme" || d.IsNull() {
		t.Errorf("observation changed with the state: %s", d)
	}
	l, _ := s.CallJSON("list_customers", nil)
	if l.ID() != "" {
		t.Errorf("list has an id")
	}
}

func TestIDSequence(t *testing.T) {
	x := newFixture(t)
	// The sequence starts after the largest numeric suffix of the start
	// state's ids (1 to 9 digits after the last underscore).
	x.w.Seed = append(x.w.Seed,
		record(x.Invoice, "inv_brenner_7", vRef("acme"), vMoney(1), vEnum("draft"), vNull()),
		record(x.Invoice, "legacy_0012", vRef("acme"), vMoney(1), vEnum("draft"), vNull()),
		record(x.Invoice, "huge_1234567890", vRef("acme"), vMoney(1), vEnum("draft"), vNull()),
		record(x.Invoice, "signed_-40", vRef("acme"), vMoney(1), vEnum("draft"), vNull()),
		record(x.Invoice, "invoice_13", vRef("acme"), vMoney(1), vEnum("draft"), vNull()),
	)
	x.onboard.Seed = append(x.onboard.Seed, record(x.Invoice, "t_9", vRef("zed"), vMoney(1), vEnum("draft"), vNull()))
	s, err := NewState(x.w, x.onboard)
	if err != nil {
		t.Fatal(err)
	}
	if got := mustCall(t, s, "create_invoice", `{"customer":"acme","amount":1}`); !strings.HasPrefix(got, `{"id":"invoice_14",`) {
		t.Errorf("first new id = %s", got)
	}
	// Customers: acme, bolt, zed: no suffix, the sequence starts at 1.
	if got := mustCall(t, s, "create_customer", `{"name":"N","email":"n@n","tier":"gold","credit_limit":0}`); !strings.HasPrefix(got, `{"id":"customer_1",`) {
		t.Errorf("first customer id = %s", got)
	}
	// The sequence is state: clones carry it, Equal and Hash see it.
	c := s.Clone()
	mustCall(t, c, "create_customer", `{"name":"M","email":"m@m","tier":"gold","credit_limit":0}`)
	mustCall(t, c, "delete_customer", `{"id":"customer_2"}`)
	if c.Equal(s) || c.Hash() == s.Hash() || string(c.JSON()) != string(s.JSON()) {
		t.Error("a state differing only in its id sequence")
	}
	if got := mustCall(t, c, "create_customer", `{"name":"O","email":"o@o","tier":"gold","credit_limit":0}`); !strings.HasPrefix(got, `{"id":"customer_3",`) {
		t.Errorf("id after create and delete = %s", got)
	}
	// A seed handle of the generated form moves the sequence past it.
	y := newFixture(t)
	y.w.Seed = append(y.w.Seed, record(y.Entry, "entry_2", vRef("inv1"), vMoney(1), vDate("2026-01-01"), vInt(1), vNull()))
	if got := mustCall(t, y.state(t), "post_entry", `{"invoice":"inv1","amount":5}`); !strings.HasPrefix(got, `{"id":"entry_3",`) {
		t.Errorf("entry after entry_2 = %s", got)
	}
}
