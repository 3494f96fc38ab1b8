package pycalc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Alphabet is the set of characters an expression may hold: digits, the
// operators, parentheses, the point and the space (no tab). Any other
// character fails with "Invalid characters in expression" before anything
// else is looked at.
const Alphabet = "0123456789+-*/(). "

// The limits, the one place where calc does not do what Python does (see
// the package documentation).
const (
	// MaxLength is the longest expression accepted, in bytes.
	MaxLength = 1000
	// MaxNesting is the deepest parenthesis nesting accepted.
	MaxNesting = 100
	// MaxIntBits is the largest integer, in bits, an operation may produce.
	MaxIntBits = 1 << 16
)

// Error is a failed evaluation: the Python exception calc's Python would
// raise, as its class name and str(e). Type is "LimitError" for the limits
// above, which Python does not have.
type Error struct {
	Type string // SyntaxError, ZeroDivisionError, OverflowError, TypeError, ValueError or LimitError
	Msg  string // Python's str(e)
}

// Error returns Python's str(e).
func (e *Error) Error() string { return e.Msg }

func newError(typ, format string, args ...any) *Error {
	return &Error{Type: typ, Msg: fmt.Sprintf(format, args...)}
}

// syntaxError is a SyntaxError as str() shows it for a one-line eval.
func syntaxError(msg string, line int) *Error {
	return &Error{Type: "SyntaxError", Msg: fmt.Sprintf("%s (<string>, line %d)", msg, line)}
}

// Float evaluates expr and converts the result to a float, as Python's
// float(eval(expr, {"__builtins__": None}, {})) does after checking that
// every character is in Alphabet. The error, if any, is an *Error.
func Float(expr string) (float64, error) {
	v, err := eval(expr)
	if err != nil {
		return 0, err
	}
	f, err := v.toFloat()
	if err != nil {
		return 0, err
	}
	return f, nil
}

// Eval evaluates expr and returns Python's repr of the result (an int, a
// float, a complex number, "()" or "Ellipsis"), or the error. It is Float
// without the final conversion, for tests and tools.
func Eval(expr string) (string, error) {
	v, err := eval(expr)
	if err != nil {
		return "", err
	}
	s, err := v.repr()
	if err != nil {
		return "", err
	}
	return s, nil
}

func eval(expr string) (value, *Error) {
	for i := 0; i < len(expr); i++ {
		if strings.IndexByte(Alphabet, expr[i]) < 0 {
			return value{}, newError("ValueError", "Invalid characters in expression")
		}
	}
	if len(expr) > MaxLength {
		return value{}, newError("LimitError", "expression too long: calc accepts at most %d characters", MaxLength)
	}
	// Python's eval strips leading spaces and tabs of a string source.
	src := strings.TrimLeft(expr, " ")
	toks, err := tokenize(src)
	if err != nil {
		return value{}, err
	}
	depth := 0
	for _, t := range toks {
		depth = max(depth, t.level)
	}
	if depth > MaxNesting {
		return value{}, newError("LimitError", "expression too deeply nested: calc accepts at most %d nested parentheses", MaxNesting)
	}
	n, err := parse(toks)
	if err != nil {
		return value{}, err
	}
	return n.eval()
}

// FormatFloat is Python's repr (and str) of a float: the shortest digits
// that read back as x, in fixed notation when the decimal exponent is in
// [-5, 16) (with ".0" on an integral value) and in exponent notation
// otherwise: 4.0, 0.1, 1e+16, 1.5e-05, -0.0, inf, -inf, nan.
func FormatFloat(x float64) string { return formatR(x, true, false) }

// formatR is CPython's float_repr_style 'r' formatting
// (PyOS_double_to_string with format code 'r'): addDot0 appends ".0" to an
// integral value written without exponent (float repr); alwaysSign writes a
// "+" before a non-negative value (the imaginary part of a complex repr).
func formatR(x float64, addDot0, alwaysSign bool) string {
	var sb strings.Builder
	switch {
	case math.IsNaN(x):
		// The sign of a NaN is ignored.
		if alwaysSign {
			sb.WriteByte('+')
		}
		sb.WriteString("nan")
		return sb.String()
	case math.IsInf(x, 0):
		if x < 0 {
			sb.WriteByte('-')
		} else if alwaysSign {
			sb.WriteByte('+')
		}
		sb.WriteString("inf")
		return sb.String()
	}
	// The shortest digits that read back as x (the same digits as
	// CPython's dtoa mode 0): "-d.ddde±XX".
	e := strconv.FormatFloat(x, 'e', -1, 64)
	neg := e[0] == '-'
	if neg {
		e = e[1:]
	}
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	expv, _ := strconv.Atoi(exp)
	decpt := expv + 1 // the value is 0.DIGITS × 10^decpt
	if neg {
		sb.WriteByte('-')
	} else if alwaysSign {
		sb.WriteByte('+')
	}
	if decpt <= -4 || decpt > 16 {
		sb.WriteByte(digits[0])
		if len(digits) > 1 {
			sb.WriteByte('.')
			sb.WriteString(digits[1:])
		}
		fmt.Fprintf(&sb, "e%+03d", decpt-1)
		return sb.String()
	}
	switch {
	case decpt <= 0:
		sb.WriteString("0.")
		sb.WriteString(strings.Repeat("0", -decpt))
		sb.WriteString(digits)
	case decpt >= len(digits):
		sb.WriteString(digits)
		sb.WriteString(strings.Repeat("0", decpt-len(digits)))
		if addDot0 {
			sb.WriteString(".0")
		}
	default:
		sb.WriteString(digits[:decpt])
		sb.WriteByte('.')
		sb.WriteString(digits[decpt:])
	}
	return sb.String()
}
