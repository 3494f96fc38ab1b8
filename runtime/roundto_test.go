package runtime

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestEndOfMonth: the last day of the month, leap years included.
func TestEndOfMonth(t *testing.T) {
	for _, c := range [][2]string{
		{"2026-01-01", "2026-01-31"}, {"2026-02-10", "2026-02-28"}, {"2028-02-29", "2028-02-29"},
		{"2100-02-01", "2100-02-28"}, {"2000-02-15", "2000-02-29"}, {"2026-04-30", "2026-04-30"},
		{"2026-12-31", "2026-12-31"}, {"0001-01-01", "0001-01-31"}, {"9999-12-01", "9999-12-31"},
	} {
		if got := MustDate(c[0]).EndOfMonth().String(); got != c[1] {
			t.Errorf("EndOfMonth(%s) = %s, want %s", c[0], got, c[1])
		}
	}
}

// TestRoundTo: the nearest multiple of the step, ties away from zero,
// without rounding the quotient first.
func TestRoundTo(t *testing.T) {
	for _, c := range [][3]string{
		{"2.43", "0.05", "2.45"}, {"2.42", "0.05", "2.4"}, {"2.425", "0.05", "2.45"}, {"-2.425", "0.05", "-2.45"},
		{"-2.42", "0.05", "-2.4"}, {"0", "0.05", "0"}, {"1234", "50", "1250"}, {"1224.99", "50", "1200"},
		{"7.5", "3", "9"}, {"7.49", "3", "6"}, {"0.000000000000000001", "1", "0"},
		// quotients just below a tie (1.4999999999999999995…) that a
		// quotient rounded to 18 decimals would make one, rounded up
		{"1.500000000000000001", "1.000000000000000001", "1.000000000000000001"},
		{"1.5", "1.000000000000000001", "1.000000000000000001"},
		{"1.500000000000000002", "1.000000000000000001", "2.000000000000000002"},
		// a step beyond 64 bits of units whose last digit the 128-bit path
		// strips: the digit of x below decides a near tie
		{"9.250000000000000005", "18.50000000000000001", "18.50000000000000001"},
		{"9.250000000000000004", "18.50000000000000001", "0"},
		{"-9.250000000000000005", "18.50000000000000001", "-18.50000000000000001"},
		{"125", "50", "150"}, {"124.999999999999999999", "50", "100"}, {"-125", "50", "-150"},
		{"1000", "37.5", "1012.5"}, {"100000000000000000000", "30", "99999999999999999990"},
	} {
		got, err := MustDecimal(c[0]).RoundTo(MustDecimal(c[1]))
		if err != nil || got.String() != c[2] {
			t.Errorf("RoundTo(%s, %s) = %s, %v; want %s", c[0], c[1], got, err, c[2])
		}
	}
	for _, step := range []string{"0", "-0.05"} {
		_, err := MustDecimal("1").RoundTo(MustDecimal(step))
		if err == nil || err.Error() != "round_to: the step must be positive, got "+step {
			t.Errorf("RoundTo(1, %s): %v", step, err)
		}
	}
	if !try(func() { _, _ = MustDecimal("170141183460469231731").RoundTo(MustDecimal("1000")) }) {
		t.Error("RoundTo beyond the range did not overflow")
	}
	for _, c := range [][3]int64{
		{1234, 50, 1250}, {1224, 50, 1200}, {25, 10, 30}, {-25, 10, -30}, {-24, 10, -20}, {0, 7, 0},
		{7, 1, 7}, {math.MaxInt64, 1, math.MaxInt64}, {math.MinInt64, 2, math.MinInt64}, {5, math.MaxInt64, 0},
	} {
		got, err := RoundToInt(c[0], c[1])
		if err != nil || got != c[2] {
			t.Errorf("RoundToInt(%d, %d) = %d, %v; want %d", c[0], c[1], got, err, c[2])
		}
	}
	for _, c := range [][2]int64{{1, 0}, {1, -5}, {math.MaxInt64, 10}, {math.MinInt64, 10}} {
		if _, err := RoundToInt(c[0], c[1]); err == nil {
			t.Errorf("RoundToInt(%d, %d): no error", c[0], c[1])
		} else if c[1] <= 0 && !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("RoundToInt(%d, %d): %v", c[0], c[1], err)
		}
	}
}

// TestRoundToReference holds RoundTo to exact rational arithmetic: the
// nearest integer multiple of the step, ties away from zero.
func TestRoundToReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20000; i++ {
		a, step := randomDecimal(rng), randomDecimal(rng).Abs()
		if i%2 == 0 {
			step = DecimalOf(rng.Int64N(20000)+1, rng.IntN(5))
		}
		if step.IsZero() {
			continue
		}
		var got Decimal
		var err error
		ov := try(func() { got, err = a.RoundTo(step) })
		if err != nil {
			t.Fatalf("RoundTo(%s, %s): %v", a, step, err)
		}
		x := new(big.Rat).Quo(ratOf(a), ratOf(step))
		num, den := new(big.Int).Abs(x.Num()), x.Denom()
		q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
		if rem.Lsh(rem, 1).Cmp(den) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if x.Sign() < 0 {
			q.Neg(q)
		}
		want := new(big.Rat).Mul(new(big.Rat).SetInt(q), ratOf(step))
		units, ok := refRound(want)
		if ov != !ok {
			t.Fatalf("RoundTo(%s, %s): overflow %v, want %v", a, step, ov, !ok)
		}
		if ok && unitsOf(got).Cmp(units) != 0 {
			t.Fatalf("RoundTo(%s, %s) = %s, want %s", a, step, got, want.FloatString(18))
		}
	}
}
