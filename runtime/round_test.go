package runtime

import (
	"encoding/json"
	"math"
	"os"
	"strconv"
	"testing"
)

// TestRoundMatchesPython holds round(x, d) to CPython's on the corpus that
// testdata/round_python.py wrote: money-like sums, exact binary ties,
// arbitrary doubles with any digits, and integers with negative digits.
// Where Python raises OverflowError the corpus says ±inf, as RoundDigits
// returns.
func TestRoundMatchesPython(t *testing.T) {
	raw, err := os.ReadFile("testdata/round_python.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Floats [][3]json.RawMessage `json:"floats"`
		Ints   [][3]json.RawMessage `json:"ints"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	if len(corpus.Floats) < 1000 || len(corpus.Ints) < 1000 {
		t.Fatalf("corpus too small: %d floats, %d ints", len(corpus.Floats), len(corpus.Ints))
	}
	str := func(m json.RawMessage) string {
		var s string
		if err := json.Unmarshal(m, &s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	digits := func(m json.RawMessage) int64 {
		d, err := strconv.ParseInt(string(m), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bad := 0
	for _, c := range corpus.Floats {
		x, d, want := pyFloat(t, str(c[0])), digits(c[1]), pyFloat(t, str(c[2]))
		got := RoundDigits(x, d)
		if math.Float64bits(got) != math.Float64bits(want) {
			if bad++; bad <= 10 {
				t.Errorf("round(%s, %d) = %v, Python says %s", str(c[0]), d, got, str(c[2]))
			}
		}
	}
	for _, c := range corpus.Ints {
		n, err := strconv.ParseInt(str(c[0]), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		want, err := strconv.ParseInt(str(c[2]), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := RoundInt(n, digits(c[1])); got != want {
			if bad++; bad <= 10 {
				t.Errorf("round(%d, %s) = %d, Python says %d", n, c[1], got, want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases differ from Python", bad, len(corpus.Floats)+len(corpus.Ints))
	}
}

// pyFloat parses a Python float repr ("inf", "-0.0", "1e+16").
func pyFloat(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("float %q: %v", s, err)
	}
	return f
}

// BenchmarkRoundDigits measures the money case, round(x, 2), against the
// half-away-from-zero formula it replaced (math.Round(x*100)/100).
func BenchmarkRoundDigits(b *testing.B) {
	xs := []float64{291730.855, 2.675, 0.015, 44.08, 1234.5678}
	b.Run("python", func(b *testing.B) {
		var s float64
		for i := 0; i < b.N; i++ {
			s += RoundDigits(xs[i%len(xs)], 2)
		}
		_ = s
	})
	b.Run("math.Round", func(b *testing.B) {
		var s float64
		for i := 0; i < b.N; i++ {
			s += math.Round(xs[i%len(xs)]*100) / 100
		}
		_ = s
	})
}
