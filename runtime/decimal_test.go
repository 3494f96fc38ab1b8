package runtime

import (
	"encoding/json"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// ratOf is d as an exact rational.
func ratOf(d Decimal) *big.Rat {
	neg, m := d.mag()
	r := new(big.Rat).SetFrac(bigOf(m), big.NewInt(decimalScale))
	if neg {
		r.Neg(r)
	}
	return r
}

var scaleRat = new(big.Rat).SetInt64(decimalScale)

// refRound is r rounded half away from zero to 18 decimals, as a
// decimal's count of units; ok false beyond the range.
func refRound(r *big.Rat) (*big.Int, bool) {
	x := new(big.Rat).Mul(r, scaleRat)
	num, den := new(big.Int).Abs(x.Num()), x.Denom()
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(den) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if x.Sign() < 0 {
		q.Neg(q)
	}
	limit := new(big.Int).Lsh(big.NewInt(1), 127)
	return q, new(big.Int).Abs(q).Cmp(limit) < 0
}

func unitsOf(d Decimal) *big.Int {
	return new(big.Int).Mul(ratOf(d).Num(), new(big.Int).Div(big.NewInt(decimalScale), ratOf(d).Denom()))
}

// randomDecimal draws values of many magnitudes and decimals.
func randomDecimal(rng *rand.Rand) Decimal {
	var b strings.Builder
	if rng.IntN(2) == 0 {
		b.WriteByte('-')
	}
	intDigits := rng.IntN(21)
	for i := 0; i < intDigits; i++ {
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	if intDigits == 0 {
		b.WriteByte('0')
	}
	if n := rng.IntN(19); n > 0 {
		b.WriteByte('.')
		for i := 0; i < n; i++ {
			b.WriteByte(byte('0' + rng.IntN(10)))
		}
	}
	d, err := ParseDecimal(b.String())
	if err != nil {
		return DecimalFromInt(rng.Int64N(1e12) - 5e11)
	}
	return d
}

// try runs f and reports whether it panicked with a DecimalError.
func try(f func()) (overflowed bool) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(*DecimalError); !ok {
				panic(v)
			}
			overflowed = true
		}
	}()
	f()
	return false
}

// TestDecimalArithmetic holds +, -, *, / and round to exact rational
// arithmetic rounded half away from zero, overflow included.
func TestDecimalArithmetic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		a, b := randomDecimal(rng), randomDecimal(rng)
		if i%3 == 0 {
			b = DecimalOf(rng.Int64N(20000)-10000, rng.IntN(5))
		}
		check := func(op string, got Decimal, overflowed bool, want *big.Rat) {
			t.Helper()
			units, ok := refRound(want)
			if overflowed != !ok {
				t.Fatalf("%s %s %s: overflow %v, want %v", a, op, b, overflowed, !ok)
			}
			if ok && unitsOf(got).Cmp(units) != 0 {
				t.Fatalf("%s %s %s = %s, want %s", a, op, b, got, new(big.Rat).SetFrac(units, big.NewInt(decimalScale)).FloatString(18))
			}
		}
		var r Decimal
		ov := try(func() { r = a.Add(b) })
		check("+", r, ov, new(big.Rat).Add(ratOf(a), ratOf(b)))
		ov = try(func() { r = a.Sub(b) })
		check("-", r, ov, new(big.Rat).Sub(ratOf(a), ratOf(b)))
		ov = try(func() { r = a.Mul(b) })
		check("*", r, ov, new(big.Rat).Mul(ratOf(a), ratOf(b)))
		if !b.IsZero() {
			var ok bool
			ov = try(func() { r, ok = a.Div(b) })
			if !ov && !ok {
				t.Fatalf("%s / %s: not ok", a, b)
			}
			check("/", r, ov, new(big.Rat).Quo(ratOf(a), ratOf(b)))
		}
		if a.Cmp(b) != ratOf(a).Cmp(ratOf(b)) {
			t.Fatalf("Cmp(%s, %s) = %d", a, b, a.Cmp(b))
		}
		// Round to n decimals: the reference rounds a * 10^n to an integer.
		n := int64(rng.IntN(24) - 5)
		ov = try(func() { r = a.Round(n) })
		p := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(abs64(n)), nil))
		x := new(big.Rat).Set(ratOf(a))
		if n >= 0 {
			x.Mul(x, p)
		} else {
			x.Quo(x, p)
		}
		num, den := new(big.Int).Abs(x.Num()), x.Denom()
		q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
		if rem.Lsh(rem, 1).Cmp(den) >= 0 {
			q.Add(q, big.NewInt(1))
		}
		if x.Sign() < 0 {
			q.Neg(q)
		}
		want := new(big.Rat).SetInt(q)
		if n >= 0 {
			want.Quo(want, p)
		} else {
			want.Mul(want, p)
		}
		if n >= DecimalDigits {
			want = ratOf(a)
		}
		check("round", r, ov, want)
		// String reads back.
		if back, err := ParseDecimal(a.String()); err != nil || back != a {
			t.Fatalf("ParseDecimal(%q) = %s, %v", a.String(), back, err)
		}
	}
}

func abs64(n int64) int64 { return max(n, -n) }

func TestDecimalCases(t *testing.T) {
	d := MustDecimal
	for _, c := range []struct {
		got  Decimal
		want string
	}{
		{d("258.96").Mul(DecimalFromInt(3)), "776.88"},
		{d("142.88").Sub(d("34.90")), "107.98"},
		{d("0.1").Add(d("0.2")), "0.3"},
		{d("2.675").Round(2), "2.68"},
		{d("0.125").Round(2), "0.13"},
		{d("-0.125").Round(2), "-0.13"},
		{d("1250").Round(-2), "1300"},
		{d("1249.99").Round(-2), "1200"},
		{d("-2.5").Floor(), "-3"},
		{d("-2.5").Ceil(), "-2"},
		{d("2.5").Floor(), "2"},
		{d("1e3"), "1000"},
		{d("1.25E-2"), "0.0125"},
		{d("-0"), "0"},
		{d("0.0000000000000000005"), "0.000000000000000001"},
		{d("0.0000000000000000004999"), "0"},
		{d("170141183460469231731.687303715884105727"), "170141183460469231731.687303715884105727"},
		{DecimalOf(25896, 2), "258.96"},
		{DecimalOf(-5, 18), "-0.000000000000000005"},
		{DecimalFromInt(-9223372036854775808), "-9223372036854775808"},
	} {
		if got := c.got.String(); got != c.want {
			t.Errorf("got %s, want %s", got, c.want)
		}
	}
	if !d("258.96").Mul(DecimalFromInt(3)).Less(d("776.88")) == false || d("776.88").Cmp(d("258.96").Mul(DecimalFromInt(3))) != 0 {
		t.Error("258.96 * 3 >= 776.88 does not hold")
	}
	third, _ := DecimalFromInt(1).Div(DecimalFromInt(3))
	if third.String() != "0.333333333333333333" {
		t.Errorf("1/3 = %s", third)
	}
	two3, _ := DecimalFromInt(2).Div(DecimalFromInt(3))
	if two3.String() != "0.666666666666666667" {
		t.Errorf("2/3 = %s", two3)
	}
	if _, ok := DecimalFromInt(1).Div(Decimal{}); ok {
		t.Error("1/0 is ok")
	}
	if d("7.9").Int64() != 7 || d("-7.9").Int64() != -7 {
		t.Error("Int64 does not truncate toward zero")
	}
	for _, bad := range []string{"", "-", ".", "1e", "1e+", "abc", "1.2.3", "0x10", "1_000", "170141183460469231732", "1e21", "1" + strings.Repeat("0", 40)} {
		if v, err := ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) = %s, want an error", bad, v)
		}
	}
	if !try(func() { d("170141183460469231731").Add(DecimalFromInt(1)) }) {
		t.Error("no overflow beyond the range")
	}
	if !try(func() { d("1e11").Mul(d("1e11")) }) {
		t.Error("no overflow of a product beyond the range")
	}
}

func TestDecimalJSON(t *testing.T) {
	var v struct{ A, B Decimal }
	if err := json.Unmarshal([]byte(`{"A": 107.98, "B": -1e2}`), &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil || string(out) != `{"A":107.98,"B":-100}` {
		t.Fatalf("%s %v", out, err)
	}
	if err := json.Unmarshal([]byte(`{"A": "1"}`), &v); err == nil || !strings.Contains(err.Error(), "expected a number") {
		t.Fatalf("a string as a decimal: %v", err)
	}
	r := NewJSONReader(`12.5`)
	if got := r.Decimal(); got != MustDecimal("12.5") {
		t.Fatalf("JSONReader.Decimal = %s", got)
	}
}

func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"0", "-12.5", "1e3", "0.000000000000000000049", "170141183460469231731.687303715884105727", "1e-40", "9.99999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDecimal(s)
		if err != nil {
			return
		}
		// Exactness: the value is s rounded half away from zero to 18
		// decimals.
		r, ok := new(big.Rat).SetString(strings.TrimPrefix(s, "+"))
		if !ok || strings.ContainsAny(s, "xXpP_/") || len(s) > 200 {
			return
		}
		units, fits := refRound(r)
		if !fits {
			t.Fatalf("ParseDecimal(%q) = %s, beyond the range", s, d)
		}
		if unitsOf(d).Cmp(units) != 0 {
			t.Fatalf("ParseDecimal(%q) = %s", s, d)
		}
		if back, err := ParseDecimal(d.String()); err != nil || back != d {
			t.Fatalf("%s does not read back: %s %v", d, back, err)
		}
	})
}

func BenchmarkDecimal(b *testing.B) {
	x, y := MustDecimal("258.96"), MustDecimal("1.0825")
	var sink Decimal
	b.Run("add", func(b *testing.B) {
		for b.Loop() {
			sink = x.Add(y)
		}
	})
	b.Run("mul", func(b *testing.B) {
		for b.Loop() {
			sink = x.Mul(y)
		}
	})
	b.Run("div100", func(b *testing.B) {
		h := DecimalFromInt(100)
		for b.Loop() {
			sink, _ = x.Div(h)
		}
	})
	b.Run("round2", func(b *testing.B) {
		for b.Loop() {
			sink = x.Mul(y).Round(2)
		}
	})
	b.Run("append", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		for b.Loop() {
			buf = AppendDecimal(buf[:0], x)
		}
	})
	_ = sink
}

func TestDecimalPow(t *testing.T) {
	d := MustDecimal
	for _, c := range []struct {
		x    string
		n    int64
		want string
	}{
		{"1.05", 2, "1.1025"},
		{"2", 10, "1024"},
		{"2", -2, "0.25"},
		{"0", 0, "1"},
		{"1.004166666666666667", 12, "1.051161897881733192"}, // exact: …733194 (each product is rounded)
		{"0.5", 100, "0"},
		{"-2", 3, "-8"},
		{"10", -19, "0"},
	} {
		got, ok := d(c.x).Pow(c.n)
		if !ok || got.String() != c.want {
			t.Errorf("pow(%s, %d) = %s, %v; want %s", c.x, c.n, got, ok, c.want)
		}
	}
	if _, ok := d("0").Pow(-1); ok {
		t.Error("pow(0, -1) is ok")
	}
	if !try(func() { d("10").Pow(21) }) {
		t.Error("pow(10, 21) does not overflow")
	}
}
