package eval

import (
	"fmt"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// bigFixture is the fixture with n more customers, each with an issued
// invoice, and a paid and posted invoice for every other one.
func bigFixture(b *testing.B, n int) *fixture {
	x := newFixture(b)
	for i := range n {
		c := fmt.Sprintf("c%d", i)
		x.w.Seed = append(x.w.Seed,
			record(x.Customer, c, vStr("Customer "+c), vStr(c+"@example.com"), vEnum("bronze"), vInt(100), vBool(true), vNull(), vNull()))
		status := "issued"
		if i%2 == 0 {
			status = "paid"
		}
		x.w.Seed = append(x.w.Seed, record(x.Invoice, "i"+c, vRef(c), vMoney(float64(i)+0.5), vEnum(status), vDate("2026-02-01")))
		if status == "paid" {
			x.w.Seed = append(x.w.Seed, record(x.Entry, "e"+c, vRef("i"+c), vMoney(float64(i)+0.5), vDate("2026-02-02"), vInt(1), vNull()))
		}
	}
	return x
}

const benchRecords = 1000

// BenchmarkHash is the baseline: one canonical hash of the state.
func BenchmarkHash(b *testing.B) {
	s, _ := NewState(bigFixture(b, benchRecords).w, nil)
	for b.Loop() {
		_ = s.Hash()
	}
}

// BenchmarkClone copies the state.
func BenchmarkClone(b *testing.B) {
	s, _ := NewState(bigFixture(b, benchRecords).w, nil)
	for b.Loop() {
		_ = s.Clone()
	}
}

// BenchmarkGrade grades the settle rubric (an aggregate inside the
// invariant check runs once per paid invoice: quadratic in the tables).
func BenchmarkGrade(b *testing.B) {
	x := bigFixture(b, benchRecords)
	res, err := RunSolution(x.w, x.settle)
	if err != nil || !res.OK() {
		b.Fatal(err, res.Problem())
	}
	start, _ := NewState(x.w, x.settle)
	for b.Loop() {
		_ = res.Final.Grade(x.settle, start)
	}
}

// BenchmarkRunSolution builds the start state, replays the settle solution
// (two calls, hashing the state after each) and grades it.
func BenchmarkRunSolution(b *testing.B) {
	x := bigFixture(b, benchRecords)
	for b.Loop() {
		res, err := RunSolution(x.w, x.settle)
		if err != nil || !res.OK() {
			b.Fatal(err, res.Problem())
		}
	}
}

// BenchmarkCall is one custom tool call with a require and a set.
func BenchmarkCall(b *testing.B) {
	x := bigFixture(b, benchRecords)
	s, _ := NewState(x.w, nil)
	args := []map[string]*ir.Value{
		{"customer": vRef("c500"), "tier": vEnum("gold")},
		{"customer": vRef("c500"), "tier": vEnum("silver")},
	}
	i := 0
	for b.Loop() {
		if _, err := s.Call(x.setTier, args[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
