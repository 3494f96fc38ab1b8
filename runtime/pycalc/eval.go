package pycalc

import (
	"math"
	"math/big"
)

// eval evaluates the node as CPython's bytecode does: operands left to
// right, then the operation; a call evaluates the callee, then its
// argument, then fails (no value of these types is callable).
func (n *node) eval() (value, *Error) {
	switch n.kind {
	case nNumber:
		return literal(n.tok), nil
	case nEllipsis:
		return value{kind: vEllipsis}, nil
	case nTuple:
		return value{kind: vTuple}, nil
	case nUnary:
		x, err := n.x.eval()
		if err != nil {
			return value{}, err
		}
		return unary(n.op, x)
	case nBinary:
		l, err := n.x.eval()
		if err != nil {
			return value{}, err
		}
		r, err := n.y.eval()
		if err != nil {
			return value{}, err
		}
		return binary(n.op, l, r)
	}
	return n.call()
}

func (n *node) call() (value, *Error) {
	f, err := n.x.eval()
	if err != nil {
		return value{}, err
	}
	notCallable := newError("TypeError", "'%s' object is not callable", f.typeName())
	if n.arg == argNone {
		return value{}, notCallable
	}
	a, err := n.y.eval()
	if err != nil {
		return value{}, err
	}
	switch {
	case n.arg == argStar && a.kind != vTuple:
		// CALL_FUNCTION_EX checks the iterable before calling; the
		// message names the callee by str(), which fails for an int of
		// more than 4300 digits.
		s, err := f.repr()
		if err != nil {
			return value{}, err
		}
		return value{}, newError("TypeError", "%s argument after * must be an iterable, not %s", s, a.typeName())
	case n.arg == argDoubleStar:
		// DICT_MERGE: none of these types is a mapping, () included.
		s, err := f.repr()
		if err != nil {
			return value{}, err
		}
		return value{}, newError("TypeError", "%s argument after ** must be a mapping, not %s", s, a.typeName())
	}
	return value{}, notCallable
}

func opName(op tokKind) string {
	switch op {
	case tPlus:
		return "+"
	case tMinus:
		return "-"
	case tStar:
		return "*"
	case tSlash:
		return "/"
	case tDSlash:
		return "//"
	}
	return "** or pow()"
}

func unary(op tokKind, x value) (value, *Error) {
	switch x.kind {
	case vInt:
		if op == tMinus {
			return intValue(new(big.Int).Neg(x.i)), nil
		}
		return x, nil
	case vFloat:
		if op == tMinus {
			return floatValue(-x.f), nil
		}
		return x, nil
	case vComplex:
		if op == tMinus {
			return complexValue(-x.f, -x.im), nil
		}
		return x, nil
	}
	return value{}, newError("TypeError", "bad operand type for unary %s: '%s'", opName(op), x.typeName())
}

// binary applies a binary operator as CPython's binary_op1 does, with the
// sequence fallbacks of + and * for the empty tuple.
func binary(op tokKind, l, r value) (value, *Error) {
	if l.isNumber() && r.isNumber() {
		switch {
		case l.kind == vComplex || r.kind == vComplex:
			if op == tDSlash { // complex has no floor division
				break
			}
			return complexOp(op, l, r)
		case l.kind == vFloat || r.kind == vFloat:
			return floatOp(op, l, r)
		default:
			return intOp(op, l.i, r.i)
		}
	} else {
		switch {
		case op == tPlus && l.kind == vTuple:
			if r.kind == vTuple {
				return l, nil
			}
			return value{}, newError("TypeError", "can only concatenate tuple (not \"%s\") to tuple", r.typeName())
		case op == tStar && l.kind == vTuple:
			return repeat(l, r)
		case op == tStar && r.kind == vTuple:
			return repeat(r, l)
		}
	}
	return value{}, newError("TypeError", "unsupported operand type(s) for %s: '%s' and '%s'", opName(op), l.typeName(), r.typeName())
}

// repeat is sequence_repeat: the count must be an int that fits a
// Py_ssize_t. The tuple is empty, so the result is too.
func repeat(seq, n value) (value, *Error) {
	if n.kind != vInt {
		return value{}, newError("TypeError", "can't multiply sequence by non-int of type '%s'", n.typeName())
	}
	if !n.i.IsInt64() {
		return value{}, newError("OverflowError", "cannot fit 'int' into an index-sized integer")
	}
	return seq, nil
}

// limitInt refuses an int of more than MaxIntBits bits.
func limitInt(i *big.Int) (value, *Error) {
	if i.BitLen() > MaxIntBits {
		return value{}, errIntTooLarge()
	}
	return intValue(i), nil
}

func errIntTooLarge() *Error {
	return newError("LimitError", "integer result too large: calc stops at %d bits", MaxIntBits)
}

func intOp(op tokKind, a, b *big.Int) (value, *Error) {
	switch op {
	case tPlus:
		return limitInt(new(big.Int).Add(a, b))
	case tMinus:
		return limitInt(new(big.Int).Sub(a, b))
	case tStar:
		return limitInt(new(big.Int).Mul(a, b))
	case tSlash:
		if b.Sign() == 0 {
			return value{}, newError("ZeroDivisionError", "division by zero")
		}
		f, ok := trueDivide(a, b)
		if !ok {
			return value{}, newError("OverflowError", "integer division result too large for a float")
		}
		return floatValue(f), nil
	case tDSlash:
		if b.Sign() == 0 {
			return value{}, newError("ZeroDivisionError", "integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		if m.Sign() != 0 && m.Sign() != b.Sign() {
			q.Sub(q, big.NewInt(1))
		}
		return intValue(q), nil
	}
	return intPow(a, b)
}

// intPow is long_pow without a modulus: a negative exponent makes it a
// float power; otherwise an exact int, which calc refuses past MaxIntBits.
func intPow(a, b *big.Int) (value, *Error) {
	if b.Sign() < 0 {
		x, err := intToFloat(a)
		if err != nil {
			return value{}, err
		}
		y, err := intToFloat(b)
		if err != nil {
			return value{}, err
		}
		return floatPow(x, y)
	}
	switch {
	case b.Sign() == 0:
		return intValue(big.NewInt(1)), nil
	case a.Sign() == 0:
		return intValue(new(big.Int)), nil
	case a.IsInt64() && a.Int64() == 1:
		return intValue(big.NewInt(1)), nil
	case a.IsInt64() && a.Int64() == -1:
		return intValue(big.NewInt(1 - 2*int64(b.Bit(0)))), nil
	}
	// |a| >= 2, so the result has more than (bitlen(a)-1)*b bits.
	if !b.IsInt64() || b.Int64() >= MaxIntBits || int64(a.BitLen()-1)*b.Int64() >= MaxIntBits {
		return value{}, errIntTooLarge()
	}
	return limitInt(new(big.Int).Exp(a, b, nil))
}

func floatOp(op tokKind, l, r value) (value, *Error) {
	a, err := l.asFloat()
	if err != nil {
		return value{}, err
	}
	b, err := r.asFloat()
	if err != nil {
		return value{}, err
	}
	switch op {
	case tPlus:
		return floatValue(a + b), nil
	case tMinus:
		return floatValue(a - b), nil
	case tStar:
		return floatValue(a * b), nil
	case tSlash:
		if b == 0 {
			return value{}, newError("ZeroDivisionError", "float division by zero")
		}
		return floatValue(a / b), nil
	case tDSlash:
		if b == 0 {
			return value{}, newError("ZeroDivisionError", "float floor division by zero")
		}
		return floatValue(floorDiv(a, b)), nil
	}
	return floatPow(a, b)
}

// floorDiv is CPython's _float_div_mod, quotient part.
func floorDiv(vx, wx float64) float64 {
	mod := math.Mod(vx, wx)
	div := (vx - mod) / wx
	if mod != 0 && (wx < 0) != (mod < 0) {
		div -= 1.0
	}
	if div == 0 {
		return math.Copysign(0, vx/wx)
	}
	floordiv := math.Floor(div)
	if div-floordiv > 0.5 {
		floordiv += 1.0
	}
	return floordiv
}

// floatPow is CPython's float_pow: Python's special cases, then the
// platform pow (here correctly rounded), an OverflowError from ERANGE; a
// negative base with a fractional exponent is a complex power.
func floatPow(iv, iw float64) (value, *Error) {
	isOddInt := func(x float64) bool { return math.Mod(math.Abs(x), 2) == 1 }
	switch {
	case iw == 0:
		return floatValue(1), nil
	case math.IsNaN(iv):
		return floatValue(iv), nil
	case math.IsNaN(iw):
		if iv == 1 {
			return floatValue(1), nil
		}
		return floatValue(iw), nil
	case math.IsInf(iw, 0):
		av := math.Abs(iv)
		switch {
		case av == 1:
			return floatValue(1), nil
		case (iw > 0) == (av > 1):
			return floatValue(math.Inf(1)), nil
		}
		return floatValue(0), nil
	case math.IsInf(iv, 0):
		odd := isOddInt(iw)
		if iw > 0 {
			if odd {
				return floatValue(iv), nil
			}
			return floatValue(math.Abs(iv)), nil
		}
		if odd {
			return floatValue(math.Copysign(0, iv)), nil
		}
		return floatValue(0), nil
	case iv == 0:
		if iw < 0 {
			return value{}, newError("ZeroDivisionError", "0.0 cannot be raised to a negative power")
		}
		if isOddInt(iw) {
			return floatValue(iv), nil
		}
		return floatValue(0), nil
	}
	negate := false
	if iv < 0 {
		if iw != math.Floor(iw) {
			return complexPow(iv, 0, iw, 0)
		}
		iv = -iv
		negate = isOddInt(iw)
	}
	if iv == 1 {
		if negate {
			return floatValue(-1), nil
		}
		return floatValue(1), nil
	}
	ix := crPow(iv, iw)
	if math.IsInf(ix, 0) {
		return value{}, newError("OverflowError", "(34, 'Numerical result out of range')")
	}
	if negate {
		ix = -ix
	}
	return floatValue(ix), nil
}

func complexOp(op tokKind, l, r value) (value, *Error) {
	ar, ai, err := l.asComplex()
	if err != nil {
		return value{}, err
	}
	br, bi, err := r.asComplex()
	if err != nil {
		return value{}, err
	}
	switch op {
	case tPlus:
		return complexValue(ar+br, ai+bi), nil
	case tMinus:
		return complexValue(ar-br, ai-bi), nil
	case tStar:
		re, im := cProd(ar, ai, br, bi)
		return complexValue(re, im), nil
	case tSlash:
		re, im, edom := cQuot(ar, ai, br, bi)
		if edom {
			return value{}, newError("ZeroDivisionError", "complex division by zero")
		}
		return complexValue(re, im), nil
	}
	return complexPow(ar, ai, br, bi)
}

// cProd is _Py_c_prod. The explicit conversions keep each product rounded
// on its own (no fused multiply-add), as CPython computes it.
func cProd(ar, ai, br, bi float64) (re, im float64) {
	return float64(ar*br) - float64(ai*bi), float64(ar*bi) + float64(ai*br)
}

// cQuot is _Py_c_quot (Smith's algorithm); edom reports a zero divisor.
func cQuot(ar, ai, br, bi float64) (re, im float64, edom bool) {
	absBr, absBi := math.Abs(br), math.Abs(bi)
	switch {
	case absBr >= absBi:
		if absBr == 0 {
			return 0, 0, true
		}
		ratio := bi / br
		denom := br + float64(bi*ratio)
		return (ar + float64(ai*ratio)) / denom, (ai - float64(ar*ratio)) / denom, false
	case absBi >= absBr:
		ratio := br / bi
		denom := float64(br*ratio) + bi
		return (float64(ar*ratio) + ai) / denom, (float64(ai*ratio) - ar) / denom, false
	}
	return math.NaN(), math.NaN(), false
}

// complexPow is CPython's complex_pow: small integral exponents by
// repeated multiplication (c_powi), others by _Py_c_pow; a zero base with a
// negative or complex exponent is EDOM, an infinite part ERANGE.
func complexPow(ar, ai, br, bi float64) (value, *Error) {
	var re, im float64
	var edom bool
	if bi == 0 && br == math.Floor(br) && math.Abs(br) <= 100 {
		re, im, edom = cPowi(ar, ai, int(br))
	} else {
		re, im, edom = cPow(ar, ai, br, bi)
	}
	if edom {
		return value{}, newError("ZeroDivisionError", "0.0 to a negative or complex power")
	}
	if math.IsInf(re, 0) || math.IsInf(im, 0) {
		return value{}, newError("OverflowError", "complex exponentiation")
	}
	return complexValue(re, im), nil
}

// cPowi is c_powi: c_powu for n > 0, 1/c_powu(x, -n) otherwise.
func cPowi(xr, xi float64, n int) (re, im float64, edom bool) {
	powu := func(n int) (float64, float64) {
		rr, ri := 1.0, 0.0
		pr, pi := xr, xi
		for mask := 1; mask > 0 && n >= mask; mask <<= 1 {
			if n&mask != 0 {
				rr, ri = cProd(rr, ri, pr, pi)
			}
			pr, pi = cProd(pr, pi, pr, pi)
		}
		return rr, ri
	}
	if n > 0 {
		re, im = powu(n)
		return re, im, false
	}
	pr, pi := powu(-n)
	return cQuot(1, 0, pr, pi)
}

// cPow is _Py_c_pow, with the C library functions correctly rounded.
func cPow(ar, ai, br, bi float64) (re, im float64, edom bool) {
	switch {
	case br == 0 && bi == 0:
		return 1, 0, false
	case ar == 0 && ai == 0:
		return 0, 0, bi != 0 || br < 0
	}
	vabs := cHypot(ar, ai)
	length := cPowC(vabs, br)
	at := cAtan2(ai, ar)
	phase := float64(at * br)
	if bi != 0 {
		length /= cExp(float64(at * bi))
		phase += float64(bi * cLog(vabs))
	}
	c, e1 := cCos(phase)
	s, e2 := cSin(phase)
	return float64(length * c), float64(length * s), e1 || e2
}
