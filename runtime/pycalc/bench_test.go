package pycalc_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime/pycalc"
)

// BenchmarkFloat measures calc on typical and worst-case expressions. The
// baseline parses the three numbers of the first case with strconv and adds
// them: what the sum costs without Python's semantics.
func BenchmarkFloat(b *testing.B) {
	b.Run("baseline_strconv_sum", func(b *testing.B) {
		for b.Loop() {
			x, _ := strconv.ParseFloat("3131.1", 64)
			y, _ := strconv.ParseFloat("4777.75", 64)
			z, _ := strconv.ParseFloat("367.38", 64)
			_ = x + y + z
		}
	})
	long := strings.Repeat("1234.56 + ", 99) + "0.01" // 999 characters
	cases := []struct{ name, expr string }{
		{"gold_sum", "3131.1 + 4777.75 + 367.38"},
		{"gold_mixed", "(1.5 + 2) / 3"},
		{"ints", "12345678901234567890 * 98765 // 7 - 3"},
		{"pow_int", "1.05 ** 10"},
		{"pow_frac", "2 ** 0.5"},
		{"complex", "(-8) ** 0.5"},
		{"syntax_error", "(1 2"},
		{"long_sum", long},
		{"deep_syntax_error", strings.Repeat("(", 100) + "1 2" + strings.Repeat(")", 100)},
		{"big_ints", "(2**65535-1) * (2**65535-1) // (2**65535-3) * 1.0"},
		{"limit", "9**9**9"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				pycalc.Float(c.expr)
			}
		})
	}
}
