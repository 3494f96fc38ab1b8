package pycalc

import (
	"math"
	"math/big"
	"strconv"
)

type valueKind uint8

const (
	vInt valueKind = iota
	vFloat
	vComplex
	vTuple    // ()
	vEllipsis // ...
)

// value is a Python object of one of the five types the alphabet can make.
type value struct {
	kind valueKind
	i    *big.Int // vInt
	f    float64  // vFloat; the real part of a vComplex
	im   float64  // the imaginary part of a vComplex
}

func intValue(i *big.Int) value         { return value{kind: vInt, i: i} }
func floatValue(f float64) value        { return value{kind: vFloat, f: f} }
func complexValue(re, im float64) value { return value{kind: vComplex, f: re, im: im} }
func (v value) isNumber() bool          { return v.kind <= vComplex }

// typeName is Python's type(v).__name__.
func (v value) typeName() string {
	switch v.kind {
	case vInt:
		return "int"
	case vFloat:
		return "float"
	case vComplex:
		return "complex"
	case vTuple:
		return "tuple"
	}
	return "ellipsis"
}

// toFloat is Python's float(v).
func (v value) toFloat() (float64, *Error) {
	switch v.kind {
	case vInt:
		return intToFloat(v.i)
	case vFloat:
		return v.f, nil
	}
	return 0, newError("TypeError", "float() argument must be a string or a real number, not '%s'", v.typeName())
}

// asFloat converts an int or float operand of a float operation
// (CPython's CONVERT_TO_DOUBLE).
func (v value) asFloat() (float64, *Error) {
	if v.kind == vInt {
		return intToFloat(v.i)
	}
	return v.f, nil
}

// asComplex converts a number operand of a complex operation (CPython's
// to_complex): an int or a float becomes (x, 0).
func (v value) asComplex() (re, im float64, err *Error) {
	switch v.kind {
	case vInt:
		f, err := intToFloat(v.i)
		return f, 0, err
	case vFloat:
		return v.f, 0, nil
	}
	return v.f, v.im, nil
}

// maxStrDigits is CPython's default sys.get_int_max_str_digits().
const maxStrDigits = 4300

// repr is Python's repr(v), which is also its str(v) for these types.
func (v value) repr() (string, *Error) {
	switch v.kind {
	case vInt:
		s := v.i.String()
		digits := len(s)
		if v.i.Sign() < 0 {
			digits--
		}
		if digits > maxStrDigits {
			return "", newError("ValueError", "Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", maxStrDigits)
		}
		return s, nil
	case vFloat:
		return FormatFloat(v.f), nil
	case vComplex:
		return complexRepr(v.f, v.im), nil
	case vTuple:
		return "()", nil
	}
	return "Ellipsis", nil
}

// complexRepr is CPython's complex_repr: the imaginary part alone when the
// real part is +0, else both in parentheses; parts in repr form without a
// ".0" (1.0 shows as 1).
func complexRepr(re, im float64) string {
	if re == 0 && !math.Signbit(re) {
		return formatR(im, false, false) + "j"
	}
	return "(" + formatR(re, false, false) + formatR(im, false, true) + "j)"
}

// intToFloat is PyLong_AsDouble: the nearest float64, ties to even, or an
// OverflowError when that is beyond the float range.
func intToFloat(i *big.Int) (float64, *Error) {
	if i.IsInt64() {
		if n := i.Int64(); n > -1<<53 && n < 1<<53 {
			return float64(n), nil
		}
	}
	f, _ := new(big.Float).SetInt(i).Float64()
	if math.IsInf(f, 0) {
		return 0, newError("OverflowError", "int too large to convert to float")
	}
	return f, nil
}

// literal is the value of a number token: an int for digits alone, else a
// float (Python reads it correctly rounded; too large is inf).
func literal(t token) value {
	if t.float {
		f, _ := strconv.ParseFloat(t.text, 64)
		return floatValue(f)
	}
	i, _ := new(big.Int).SetString(t.text, 10)
	return intValue(i)
}
