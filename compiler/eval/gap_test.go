package eval_test

import (
	"slices"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

const gapSpec = `
world gaps {
  title "Gaps"
  currency "EUR"
  today 2026-03-16
}

service loans "Loans" {
  entity Loan "A loan" {
    total  money >= 0
    limit  int >= 0
    name   string
    status enum { open closed } = open
  }
  entity Payment "A payment" {
    loan   ref Loan
    amount money > 0
  }
  tool close(loan: ref Loan) "Close a loan" {
    set loan.status = closed
    return loan
  }
  tool pay(loan: ref Loan, amount: money) "Book a payment" {
    let p = insert Payment { loan: loan, amount: amount }
    return p
  }
}

local invariant closed_paid {
  policy "A closed loan is paid in full."
  for l in loans.Loan where l.status == closed
  require sum(p.amount for p in loans.Payment where p.loan == l) == l.total
}

local invariant few_payments {
  policy "A loan has at most its limit of payments, or none."
  for l in loans.Loan
  require count(p in loans.Payment where p.loan == l) <= l.limit or count(p in loans.Payment where p.loan == l) == 0
}

local invariant named {
  policy "A loan has a name."
  for l in loans.Loan
  require l.name != ""
}

seed {
  loans.Loan ln_a { total: 300, limit: 1, name: "A" }
  loans.Loan ln_b { total: 100, limit: 5, name: "B" }
}
`

// TestInvariantGap: the distance of a record from keeping an invariant of
// numeric comparisons, 0 where it keeps it or its trigger does not hold,
// and no measure for a check of another form.
func TestInvariantGap(t *testing.T) {
	w, ds := compiler.CheckSource("gaps.world", []byte(gapSpec))
	if w == nil {
		t.Fatalf("the spec does not check:\n%s", ds.Text())
	}
	inv := func(name string) *ir.Invariant {
		for _, i := range w.Invariants {
			if i.Name == name {
				return i
			}
		}
		t.Fatalf("no invariant %s", name)
		return nil
	}
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := func(st *eval.State, name, id string, gap float64, ok bool) {
		t.Helper()
		g, k := st.InvariantGap(inv(name), id)
		if k != ok || (ok && g.Distance != gap) {
			t.Errorf("InvariantGap(%s, %s) = %v, %v; want %v, %v", name, id, g, k, gap, ok)
		}
	}
	want(st, "closed_paid", "ln_a", 0, true) // open: the trigger does not hold
	if _, terr := st.CallJSON("close", []byte(`{"loan":"ln_b"}`)); terr != nil {
		t.Fatal(terr)
	}
	want(st, "closed_paid", "ln_b", 100, true) // nothing paid of 100
	want(st, "named", "ln_a", 0, false)        // != of strings: no measure
	want(st, "closed_paid", "ln_none", 0, false)

	for _, amount := range []string{"30", "50"} {
		if _, terr := st.CallJSON("pay", []byte(`{"loan":"ln_b","amount":`+amount+`}`)); terr != nil {
			t.Fatal(terr)
		}
	}
	want(st, "closed_paid", "ln_b", 20, true)
	under, _ := st.InvariantGap(inv("closed_paid"), "ln_b")
	if _, terr := st.CallJSON("pay", []byte(`{"loan":"ln_b","amount":40}`)); terr != nil {
		t.Fatal(terr)
	}
	want(st, "closed_paid", "ln_b", 20, true) // 20 over
	over, _ := st.InvariantGap(inv("closed_paid"), "ln_b")
	if !over.Overshoots(under) || under.Overshoots(under) || !slices.Equal(under.Sides, []int8{-1}) {
		t.Errorf("sides %v then %v: want an overshoot from -1 to 1", under.Sides, over.Sides)
	}
	// or: the least of the two sides' gaps; <=: by how much it is above.
	for range 3 {
		if _, terr := st.CallJSON("pay", []byte(`{"loan":"ln_a","amount":1}`)); terr != nil {
			t.Fatal(terr)
		}
	}
	want(st, "few_payments", "ln_a", 2, true)
	want(st, "few_payments", "ln_b", 0, true)
}
