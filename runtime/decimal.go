package runtime

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
)

// Decimal is an exact decimal number, the value of a `decimal` or `money`
// of a world whose numbers are exact (every world but those that declare
// `numbers float`): a 128-bit two's-complement count of 10^-18, that is
// DECIMAL(38,18): 18 digits after the point and about 1.7e20 either side
// of zero. Sums, differences and products of values with at most 18
// decimals between them are exact (258.96 * 3 is 776.88); a product with
// more decimals, a quotient and round are rounded to the digits they keep
// half away from zero ("commercial" rounding, what ROUND does in SQL and
// spreadsheets and what invoices and VAT rules prescribe: 0.125 to two
// decimals is 0.13, -0.125 is -0.13).
//
// The zero value is 0. Decimal values compare with == (the representation
// is canonical: 1.50 and 1.5 are the same value); order them with Cmp.
// Arithmetic beyond the range panics with a [DecimalError], which a tool
// call turns into an `internal` error observation (the call is rolled
// back); division by zero is reported by Div, not by a panic.
type Decimal struct {
	hi int64
	lo uint64
}

// DecimalError is the panic of a Decimal operation whose result is out of
// range. Its message is [MsgDecimalOverflow].
type DecimalError struct{ Op string }

func (e *DecimalError) Error() string { return MsgDecimalOverflow }

// decimalScale is 10^18, the count of units in 1.
const decimalScale = 1_000_000_000_000_000_000

// DecimalDigits is the number of digits after the point a Decimal keeps.
const DecimalDigits = 18

// pow10 holds 10^0 … 10^19, the powers of ten that fit a uint64.
var pow10 = [20]uint64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19}

// u128 is an unsigned 128-bit magnitude.
type u128 struct{ hi, lo uint64 }

func overflow(op string) { panic(&DecimalError{Op: op}) }

// mag splits d into its sign (true when negative) and its magnitude.
func (d Decimal) mag() (neg bool, m u128) {
	if d.hi < 0 {
		lo, borrow := bits.Sub64(0, d.lo, 0)
		hi, _ := bits.Sub64(0, uint64(d.hi), borrow)
		return true, u128{hi, lo}
	}
	return false, u128{uint64(d.hi), d.lo}
}

// fromMag builds the decimal of a sign and a magnitude; ok is false when
// it does not fit (the most negative value is kept out of range, so that
// every value has a negation).
func fromMag(neg bool, m u128) (Decimal, bool) {
	if m.hi>>63 != 0 {
		return Decimal{}, false
	}
	if !neg {
		return Decimal{int64(m.hi), m.lo}, true
	}
	lo, borrow := bits.Sub64(0, m.lo, 0)
	hi, _ := bits.Sub64(0, m.hi, borrow)
	return Decimal{int64(hi), lo}, true
}

func mustMag(op string, neg bool, m u128) Decimal {
	d, ok := fromMag(neg, m)
	if !ok {
		overflow(op)
	}
	return d
}

// DecimalFromInt is the integer n as a decimal.
func DecimalFromInt(n int64) Decimal {
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	hi, lo := bits.Mul64(u, decimalScale)
	d, _ := fromMag(neg, u128{hi, lo}) // |n| * 10^18 < 2^127
	return d
}

// DecimalOf is coef * 10^-scale (scale from 0 to 18), the form the
// generator writes constants in: DecimalOf(25896, 2) is 258.96.
func DecimalOf(coef int64, scale int) Decimal {
	if scale < 0 || scale > DecimalDigits {
		panic("runtime.DecimalOf: scale out of range")
	}
	neg := coef < 0
	u := uint64(coef)
	if neg {
		u = -u
	}
	hi, lo := bits.Mul64(u, pow10[DecimalDigits-scale])
	d, _ := fromMag(neg, u128{hi, lo})
	return d
}

// MustDecimal parses s (see [ParseDecimal]) and panics when it cannot: for
// constants the checker has validated.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic("runtime.MustDecimal(" + strconv.Quote(s) + "): " + err.Error())
	}
	return d
}

var (
	errDecimalSyntax = errors.New("not a number")
	errDecimalRange  = errors.New("out of range")
)

// ParseDecimal reads a number in JSON's syntax, with an optional leading
// `+` and leading zeros allowed (-12, 0.5, 1.25e3, 1E-2): exactly, rounded
// half away from zero beyond 18 decimals. A number beyond the range is an
// error (out of range), as is anything else that is not a number.
func ParseDecimal(s string) (Decimal, error) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var coef u128
	digits := 0     // significant digits in coef
	frac := 0       // digits of coef after the point
	dropped := -1   // the first digit that did not fit, -1: none
	droppedInt := 0 // digits before the point that did not fit
	seen := false
	point := false
	for ; i < len(s); i++ {
		c := s[i]
		if c == '.' && !point {
			point = true
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		seen = true
		if digits == 0 && c == '0' {
			if point {
				frac++
			}
			continue
		}
		if coef.hi < 0x1999999999999999 { // coef*10 + 9 fits 128 bits
			coef = mulAdd(coef, 10, uint64(c-'0'))
			digits++
			if point {
				frac++
			}
			continue
		}
		if !point {
			droppedInt++
		} else if dropped < 0 {
			dropped = int(c - '0')
		}
	}
	if !seen {
		return Decimal{}, errDecimalSyntax
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return Decimal{}, errDecimalSyntax
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return Decimal{}, errDecimalSyntax
			}
			if exp < 100_000 {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return Decimal{}, errDecimalSyntax
	}
	if droppedInt > 0 && coef != (u128{}) {
		return Decimal{}, errDecimalRange
	}
	// The value is coef * 10^(exp - frac); the representation is the value
	// * 10^18.
	shift := DecimalDigits + exp - frac
	if coef == (u128{}) {
		return Decimal{}, nil
	}
	switch {
	case shift > 38:
		return Decimal{}, errDecimalRange
	case shift >= 0:
		if dropped >= 0 && shift > 0 {
			return Decimal{}, errDecimalRange // more than 38 or 39 significant digits
		}
		m, ok := mulPow10(coef, shift)
		if ok && dropped >= 5 {
			m = mulAdd(m, 1, 1)
		}
		if !ok {
			return Decimal{}, errDecimalRange
		}
		d, ok := fromMag(neg, m)
		if !ok {
			return Decimal{}, errDecimalRange
		}
		return d, nil
	case shift < -38:
		return Decimal{}, nil
	}
	q, first := divPow10(coef, -shift)
	if first >= 5 {
		q = mulAdd(q, 1, 1)
	}
	d, ok := fromMag(neg, q)
	if !ok {
		return Decimal{}, errDecimalRange
	}
	return d, nil
}

// mulAdd is m*k + a; it wraps beyond 128 bits (callers bound the inputs).
func mulAdd(m u128, k, a uint64) u128 {
	hi1, lo := bits.Mul64(m.lo, k)
	hi := m.hi*k + hi1
	lo, c := bits.Add64(lo, a, 0)
	return u128{hi + c, lo}
}

// mulPow10 is m * 10^n, ok false beyond 128 bits.
func mulPow10(m u128, n int) (u128, bool) {
	for n > 0 {
		k := min(n, 19)
		p := pow10[k]
		h1, l1 := bits.Mul64(m.lo, p)
		h2, l2 := bits.Mul64(m.hi, p)
		if h2 != 0 {
			return u128{}, false
		}
		hi, c := bits.Add64(l2, h1, 0)
		if c != 0 {
			return u128{}, false
		}
		m = u128{hi, l1}
		n -= k
	}
	return m, true
}

// divPow10 is m / 10^n truncated (n from 1 to 38) and the first digit cut
// off (the digit at 10^(n-1) of m), which decides rounding half away from
// zero.
func divPow10(m u128, n int) (q u128, first int) {
	// Divide by 10^(n-1) first, then by 10: the remainder of the last step
	// is the first digit cut.
	rest := n - 1
	for rest > 0 {
		k := min(rest, 19)
		m, _ = divMod64(m, pow10[k])
		rest -= k
	}
	q, r := divMod64(m, 10)
	return q, int(r)
}

// divMod64 is m / d and m % d.
func divMod64(m u128, d uint64) (u128, uint64) {
	qhi, r := m.hi/d, m.hi%d
	qlo, r := bits.Div64(r, m.lo, d)
	return u128{qhi, qlo}, r
}

// Add is d + e.
func (d Decimal) Add(e Decimal) Decimal {
	lo, c := bits.Add64(d.lo, e.lo, 0)
	hi := d.hi + e.hi + int64(c)
	// Signed overflow: both operands of one sign, the result of the other.
	if (d.hi >= 0) == (e.hi >= 0) && (hi >= 0) != (d.hi >= 0) {
		overflow("+")
	}
	r := Decimal{hi, lo}
	if r == minDecimal {
		overflow("+")
	}
	return r
}

// minDecimal is -2^127 units, outside the range (it has no negation).
var minDecimal = Decimal{math.MinInt64, 0}

// Neg is -d.
func (d Decimal) Neg() Decimal {
	neg, m := d.mag()
	r, _ := fromMag(!neg, m) // d is never minDecimal
	return r
}

// Sub is d - e.
func (d Decimal) Sub(e Decimal) Decimal { return d.Add(e.Neg()) }

// Sign is -1, 0 or 1.
func (d Decimal) Sign() int {
	switch {
	case d.hi < 0:
		return -1
	case d.hi == 0 && d.lo == 0:
		return 0
	}
	return 1
}

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.hi == 0 && d.lo == 0 }

// Cmp is -1, 0 or 1 as d is less than, equal to or greater than e.
func (d Decimal) Cmp(e Decimal) int {
	switch {
	case d.hi < e.hi:
		return -1
	case d.hi > e.hi:
		return 1
	case d.lo < e.lo:
		return -1
	case d.lo > e.lo:
		return 1
	}
	return 0
}

// Less reports whether d < e.
func (d Decimal) Less(e Decimal) bool { return d.Cmp(e) < 0 }

// Abs is |d|.
func (d Decimal) Abs() Decimal {
	if d.hi < 0 {
		return d.Neg()
	}
	return d
}

// Mul is d * e, rounded half away from zero to 18 decimals.
func (d Decimal) Mul(e Decimal) Decimal {
	nd, a := d.mag()
	ne, b := e.mag()
	// The 256-bit product p3:p2:p1:p0 of the magnitudes.
	h00, l00 := bits.Mul64(a.lo, b.lo)
	h01, l01 := bits.Mul64(a.lo, b.hi)
	h10, l10 := bits.Mul64(a.hi, b.lo)
	h11, l11 := bits.Mul64(a.hi, b.hi)
	p0 := l00
	p1, c1 := bits.Add64(h00, l01, 0)
	p2, c2 := bits.Add64(h01, h10, c1)
	p3 := h11 + c2
	p1, c1 = bits.Add64(p1, l10, 0)
	p2, c2 = bits.Add64(p2, l11, c1)
	p3 += c2
	// Divide by 10^18, rounding.
	var r uint64
	p3, r = bits.Div64(0, p3, decimalScale)
	p2, r = bits.Div64(r, p2, decimalScale)
	p1, r = bits.Div64(r, p1, decimalScale)
	p0, r = bits.Div64(r, p0, decimalScale)
	if p3 != 0 || p2 != 0 {
		overflow("*")
	}
	q := u128{p1, p0}
	if r >= decimalScale/2 {
		q = mulAdd(q, 1, 1)
	}
	return mustMag("*", nd != ne, q)
}

// Div is d / e rounded half away from zero to 18 decimals; ok is false
// when e is zero.
func (d Decimal) Div(e Decimal) (q Decimal, ok bool) {
	if e.IsZero() {
		return Decimal{}, false
	}
	if d.IsZero() {
		return Decimal{}, true
	}
	nd, a := d.mag()
	ne, b := e.mag()
	// The quotient is a * 10^18 / b. Cut the divisor's trailing zeros
	// (b = b' * 10^k) so that it fits 64 bits in the common cases (100,
	// 12, 0.5), then divide a * 10^(18-k) by b'.
	k := 0
	for _, step := range [...]int{18, 9, 4, 2, 1} {
		for k+step <= 38 {
			q, r := divMod64(b, pow10[step])
			if r != 0 {
				break
			}
			b = q
			k += step
		}
	}
	if b.hi == 0 && k <= DecimalDigits {
		num := mulWide(a, pow10[DecimalDigits-k])
		var r uint64
		num[2], r = bits.Div64(0, num[2], b.lo)
		num[1], r = bits.Div64(r, num[1], b.lo)
		num[0], r = bits.Div64(r, num[0], b.lo)
		if num[2] != 0 {
			overflow("/")
		}
		quo := u128{num[1], num[0]}
		if r >= b.lo-r { // 2r >= b, without overflow
			quo = mulAdd(quo, 1, 1)
		}
		return mustMag("/", nd != ne, quo), true
	}
	if b.hi == 0 && k-DecimalDigits < len(pow10) {
		// An integral divisor (k > 18): the quotient is a / (b' * 10^(k-18)).
		hi, div := bits.Mul64(b.lo, pow10[k-DecimalDigits])
		if hi == 0 {
			quo, r := divMod64(a, div)
			if r >= div-r {
				quo = mulAdd(quo, 1, 1)
			}
			return mustMag("/", nd != ne, quo), true
		}
	}
	// Rare divisors (more than 19 significant digits, or integral ones
	// beyond 10^19): exact rational arithmetic.
	bd := new(big.Int).Mul(bigOf(b), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	num := new(big.Int).Mul(bigOf(a), big.NewInt(decimalScale))
	quo, rem := new(big.Int).QuoRem(num, bd, new(big.Int))
	if rem.Lsh(rem, 1).Cmp(bd) >= 0 {
		quo.Add(quo, big.NewInt(1))
	}
	m, fits := u128OfBig(quo)
	if !fits {
		overflow("/")
	}
	return mustMag("/", nd != ne, m), true
}

// mulWide is the 192-bit product of a and k, least significant word first.
func mulWide(a u128, k uint64) [3]uint64 {
	h0, l0 := bits.Mul64(a.lo, k)
	h1, l1 := bits.Mul64(a.hi, k)
	w1, c := bits.Add64(l1, h0, 0)
	return [3]uint64{l0, w1, h1 + c}
}

func bigOf(m u128) *big.Int {
	x := new(big.Int).SetUint64(m.hi)
	x.Lsh(x, 64)
	return x.Or(x, new(big.Int).SetUint64(m.lo))
}

func u128OfBig(x *big.Int) (u128, bool) {
	if x.Sign() < 0 || x.BitLen() > 128 {
		return u128{}, false
	}
	lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(x, 64).Uint64()
	return u128{hi, lo}, true
}

// Round is d rounded half away from zero to n decimals; a negative n
// rounds to tens, hundreds, … (Round(1250, -2) is 1300); n of 18 or more
// is d itself.
func (d Decimal) Round(n int64) Decimal {
	if n >= DecimalDigits || d.IsZero() {
		return d
	}
	if n < -21 {
		return Decimal{} // beyond the range every value rounds to 0
	}
	neg, m := d.mag()
	cut := int(DecimalDigits - n) // 1 … 39 digits to cut
	q, first := divPow10(m, cut)
	if first >= 5 {
		q = mulAdd(q, 1, 1)
	}
	r, ok := mulPow10(q, cut)
	if !ok {
		overflow("round")
	}
	return mustMag("round", neg, r)
}

// Floor is the greatest integer not above d.
func (d Decimal) Floor() Decimal {
	neg, m := d.mag()
	q, r := divMod64(m, decimalScale)
	if neg && r != 0 {
		q = mulAdd(q, 1, 1)
	}
	p, _ := mulPow10(q, DecimalDigits)
	return mustMag("floor", neg, p)
}

// Ceil is the least integer not below d.
func (d Decimal) Ceil() Decimal { return d.Neg().Floor().Neg() }

// Int64 is d truncated toward zero, saturating at the int64 range (as a
// float's conversion to int is in the other worlds).
func (d Decimal) Int64() int64 {
	neg, m := d.mag()
	q, _ := divMod64(m, decimalScale)
	if q.hi != 0 || q.lo > math.MaxInt64 {
		if neg {
			return math.MinInt64
		}
		return math.MaxInt64
	}
	if neg {
		return -int64(q.lo)
	}
	return int64(q.lo)
}

// String writes d in plain decimal notation with the digits it needs:
// 107.98, -0.5, 1200 (no exponent, no trailing zeros).
func (d Decimal) String() string { return string(AppendDecimal(nil, d)) }

// AppendDecimal appends d as [Decimal.String] writes it, which is also its
// JSON form: a JSON number that reads back as d.
func AppendDecimal(dst []byte, d Decimal) []byte {
	neg, m := d.mag()
	if neg {
		dst = append(dst, '-')
	}
	ip, frac := divMod64(m, decimalScale)
	if ip.hi == 0 {
		dst = strconv.AppendUint(dst, ip.lo, 10)
	} else {
		top, low := divMod64(ip, pow10[19])
		dst = strconv.AppendUint(dst, top.lo, 10)
		dst = appendPadded(dst, low, 19)
	}
	if frac == 0 {
		return dst
	}
	n := DecimalDigits
	for frac%10 == 0 {
		frac /= 10
		n--
	}
	dst = append(dst, '.')
	return appendPadded(dst, frac, n)
}

// appendPadded appends v in decimal, left-padded with zeros to width
// digits.
func appendPadded(dst []byte, v uint64, width int) []byte {
	var buf [20]byte
	i := len(buf)
	for j := 0; j < width; j++ {
		i--
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[i:]...)
}

// AppendKeyDecimal appends key as it is and then d as AppendDecimal does.
func AppendKeyDecimal(dst []byte, key string, d Decimal) []byte {
	return AppendDecimal(append(dst, key...), d)
}

// MarshalJSON writes d as a JSON number.
func (d Decimal) MarshalJSON() ([]byte, error) { return AppendDecimal(nil, d), nil }

// UnmarshalJSON reads a JSON number exactly (see ParseDecimal); null
// leaves d unchanged.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if string(b) == "null" {
		return nil
	}
	if !isJSONNumber(b) {
		return errors.New("expected a number, got " + describeJSON(b))
	}
	v, err := ParseDecimal(string(b))
	if err != nil {
		return errors.New("expected a number, got " + describeJSON(b) + " (out of range)")
	}
	*d = v
	return nil
}

// HashDecimal writes a decimal.
//
//go:noinline
func HashDecimal(w *FieldHasher, d Decimal) {
	w.buf = append(w.buf, 'd')
	w.buf = appendU64(w.buf, uint64(d.hi))
	w.buf = appendU64(w.buf, d.lo)
}

func appendU64(b []byte, v uint64) []byte {
	return append(b, byte(v>>56), byte(v>>48), byte(v>>40), byte(v>>32), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// Decimal reads a JSON number exactly (out of range fails).
func (r *JSONReader) Decimal() Decimal {
	tok := r.number()
	if r.failed {
		return Decimal{}
	}
	d, err := ParseDecimal(tok)
	if err != nil {
		r.failed = true
		return Decimal{}
	}
	return d
}

// ReadDecimal reads a number exactly; see ReadString.
func ReadDecimal(r *JSONReader) Decimal { return r.Decimal() }

// MinDecimal is the lesser of a and b (the DSL's min_of).
func MinDecimal(a, b Decimal) Decimal {
	if b.Cmp(a) < 0 {
		return b
	}
	return a
}

// MaxDecimal is the greater of a and b (the DSL's max_of).
func MaxDecimal(a, b Decimal) Decimal {
	if b.Cmp(a) > 0 {
		return b
	}
	return a
}

// Pow is d to the power n (the DSL's pow): by repeated squaring, each
// product rounded half away from zero to 18 decimals; a negative n is 1 /
// d^-n. ok is false for 0 to a negative power; a result beyond the range
// panics with a DecimalError.
func (d Decimal) Pow(n int64) (p Decimal, ok bool) {
	one := DecimalFromInt(1)
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	p, base := one, d
	for u > 0 {
		if u&1 == 1 {
			p = p.Mul(base)
		}
		u >>= 1
		if u > 0 {
			if base.Abs().Cmp(one) < 0 && base.Mul(base).IsZero() {
				base = Decimal{} // it stays 0 from here
			} else {
				base = base.Mul(base)
			}
		}
	}
	if neg {
		return one.Div(p)
	}
	return p, true
}

// RoundTo is d rounded to the nearest multiple of step (the DSL's
// round_to: RoundTo(2.43, 0.05) is 2.45), half away from zero as
// [Decimal.Round] (2.425 to 0.05 is 2.45, -2.425 is -2.45). The quotient
// is not rounded before the tie is decided: the result is exact. A step
// that is not positive is an error ([MsgRoundToStep]); a result beyond
// the range panics with a DecimalError.
func (d Decimal) RoundTo(step Decimal) (Decimal, error) {
	if step.Sign() <= 0 {
		return Decimal{}, fmt.Errorf(MsgRoundToStep, step)
	}
	neg, m := d.mag()
	_, s := step.mag()
	// A step of up to 20 significant digits (0.05, 50, 1000): s' * 10^j
	// with s' in 64 bits, and 128-bit arithmetic. With m = a*10^j + b and
	// a = q*s' + r, the remainder of m by the step is r*10^j + b.
	sig, j := s, 0
	for sig.hi != 0 && j < 19 {
		q, r := divMod64(sig, 10)
		if r != 0 {
			break
		}
		sig, j = q, j+1
	}
	if sig.hi == 0 {
		a, b := divMod64(m, pow10[j])
		q, r := divMod64(a, sig.lo)
		if r >= sig.lo-r || sig.lo-r == r+1 && b >= pow10[j]-b {
			q = mulAdd(q, 1, 1)
		}
		w := mulWide(q, sig.lo)
		p, ok := mulPow10(u128{w[1], w[0]}, j)
		if w[2] != 0 || !ok {
			overflow("round_to")
		}
		return mustMag("round_to", neg, p), nil
	}
	bs := bigOf(s)
	q, r := new(big.Int).QuoRem(bigOf(m), bs, new(big.Int))
	if r.Lsh(r, 1).Cmp(bs) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	p, fits := u128OfBig(q.Mul(q, bs))
	if !fits {
		overflow("round_to")
	}
	return mustMag("round_to", neg, p), nil
}

// RoundToInt is n rounded to the nearest multiple of step (the DSL's
// round_to on ints: RoundToInt(1234, 50) is 1250), half away from zero
// as round is on decimals (25 to 10 is 30, -25 is -30). A step that is
// not positive is an error ([MsgRoundToStep]), and so is a result beyond
// the int64 range ([MsgRoundToRange]).
func RoundToInt(n, step int64) (int64, error) {
	if step <= 0 {
		return 0, fmt.Errorf(MsgRoundToStep, strconv.FormatInt(step, 10))
	}
	r := n % step // n's sign
	down := n - r // toward zero: never overflows
	ar := r
	if ar < 0 {
		ar = -ar
	}
	if ar < step-ar {
		return down, nil
	}
	if n < 0 {
		if down < math.MinInt64+step {
			return 0, fmt.Errorf(MsgRoundToRange, n, step)
		}
		return down - step, nil
	}
	if down > math.MaxInt64-step {
		return 0, fmt.Errorf(MsgRoundToRange, n, step)
	}
	return down + step, nil
}
