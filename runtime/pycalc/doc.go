// Package pycalc evaluates the arithmetic that tau2-bench's retail
// `calculate` tool accepts, exactly as CPython does: an expression written
// with the characters of Alphabet (digits, + - * / ( ) . and the space) is
// evaluated as Python's eval(expr, {"__builtins__": None}, {}) would, with
// Python's values, results and error messages. It is the runtime of the
// world language's calc built-in.
//
// What "exactly" covers, all held to CPython 3.11.7 (and 3.12.1, which
// answers every probe the same) by the probe corpus in testdata (see
// probes.py there):
//
//   - The grammar reachable from the alphabet: int and float literals
//     (.5, 5., 08.5, 00, but not 01), unary + and -, + - * / // and **
//     (right-associative, binding tighter than a unary minus on its
//     left), parentheses, the empty tuple (), the Ellipsis (...), calls
//     f(), f(x), f(*x), f(**x), which always fail at run time.
//   - The syntax errors: the tokenizer's (unmatched ')', leading zeros,
//     too many nested parentheses, '(' was never closed) and the parser's,
//     whose message CPython chooses in a second pass through its invalid_*
//     rules ("invalid syntax. Perhaps you forgot a comma?", "cannot use
//     starred expression here", …). The parser (parse.go) is CPython's PEG
//     parser reduced to these tokens: same rules, alternatives, memoization
//     and passes, because the message depends on how far each pass reads.
//   - Values: unbounded ints; floats; complex numbers (from a negative base
//     to a fractional power); the empty tuple and Ellipsis, with the
//     operations CPython allows on them (tuple concatenation and
//     repetition) and the TypeErrors it raises otherwise.
//   - Arithmetic: int true division correctly rounded, floor division of
//     ints and of floats (CPython's _float_div_mod, signed zeros included),
//     int ** int exact (a negative exponent makes it a float power), float
//     ** float with Python's special cases (0.0 to a negative power, a
//     negative base to a fractional power becoming complex, overflow as
//     "(34, 'Numerical result out of range')"), int to float conversion
//     correctly rounded ("int too large to convert to float"), complex
//     arithmetic as CPython's complexobject.c (Smith's division, c_powi and
//     _Py_c_pow).
//   - Results: Float is float(value); FormatFloat is Python's repr of a
//     float (4.0, 1e+16, -0.0, inf, nan), so calculate's answer is
//     FormatFloat(runtime.RoundDigits(f, 2)).
//
// What differs from CPython:
//
//   - The limits, the one accepted deviation (a hostile expression such as
//     9**9**9 would make Python compute for hours): an int result of more
//     than MaxIntBits bits, an expression of more than MaxLength characters
//     and a nesting deeper than MaxNesting parentheses fail with a
//     LimitError. Near CPython's own nesting limit of 200 its parser runs
//     out of stack (a MemoryError whose message depends on the version),
//     and far beyond 1000 characters its compiler's recursion limit
//     depends on the caller's stack: the limits keep calc inside the inputs
//     where Python's answer is well defined.
//   - Powers and the functions of a complex power: CPython calls the C
//     library's pow (and hypot, atan2, exp, log, cos, sin for a complex
//     power), which on glibc is within about half a unit in the last place
//     but not always correctly rounded; calc rounds correctly (math/big).
//     They differ in the last bit for about 1 in 1,100 random operands of
//     pow (for example 755.71**2: glibc 571097.6041000001, calc and the
//     exact square 571097.6041). After calculate's round(x, 2) this shows
//     only in results of 16 or more significant digits before the point.
//   - CPython 3.13 reports a '*' that is not followed by an expression,
//     inside a call or parentheses, as "Invalid star expression" where 3.11
//     and 3.12 say "invalid syntax" (18 of the corpus' probes).
package pycalc
