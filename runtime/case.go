package runtime

// Python's str.lower() and str.upper(), which the language's lower() and
// upper() are: the full case mappings of Unicode (one code point may map to
// several: "İ".lower() is "i̇", "ß".upper() is "SS") and, in lower(), the
// final sigma ("ΟΔΟΣ".lower() is "οδος"). Go's unicode package gives the
// simple mappings, which agree with Python 3.11's (Unicode 14.0) for every
// code point but the expansions below; TestCaseMatchesPython checks every
// code point and the final sigma against a table of Python's own results
// (testdata/case_python.txt, written by testdata/case_python.py).
//
// The comparisons EqualLower, EqualUpper, IsLower, IsUpper, ContainsLower
// and ContainsUpper compare mapped strings without building them: they
// allocate nothing, and ASCII text takes a fast path of its own.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// upperFull are the code points whose upper() is several code points
// (SpecialCasing.txt, unconditional mappings, as Python 3.11 applies them).
var upperFull = map[rune][3]rune{
	0xDF:   {0x53, 0x53},
	0x149:  {0x2BC, 0x4E},
	0x1F0:  {0x4A, 0x30C},
	0x390:  {0x399, 0x308, 0x301},
	0x3B0:  {0x3A5, 0x308, 0x301},
	0x587:  {0x535, 0x552},
	0x1E96: {0x48, 0x331},
	0x1E97: {0x54, 0x308},
	0x1E98: {0x57, 0x30A},
	0x1E99: {0x59, 0x30A},
	0x1E9A: {0x41, 0x2BE},
	0x1F50: {0x3A5, 0x313},
	0x1F52: {0x3A5, 0x313, 0x300},
	0x1F54: {0x3A5, 0x313, 0x301},
	0x1F56: {0x3A5, 0x313, 0x342},
	0x1F80: {0x1F08, 0x399},
	0x1F81: {0x1F09, 0x399},
	0x1F82: {0x1F0A, 0x399},
	0x1F83: {0x1F0B, 0x399},
	0x1F84: {0x1F0C, 0x399},
	0x1F85: {0x1F0D, 0x399},
	0x1F86: {0x1F0E, 0x399},
	0x1F87: {0x1F0F, 0x399},
	0x1F88: {0x1F08, 0x399},
	0x1F89: {0x1F09, 0x399},
	0x1F8A: {0x1F0A, 0x399},
	0x1F8B: {0x1F0B, 0x399},
	0x1F8C: {0x1F0C, 0x399},
	0x1F8D: {0x1F0D, 0x399},
	0x1F8E: {0x1F0E, 0x399},
	0x1F8F: {0x1F0F, 0x399},
	0x1F90: {0x1F28, 0x399},
	0x1F91: {0x1F29, 0x399},
	0x1F92: {0x1F2A, 0x399},
	0x1F93: {0x1F2B, 0x399},
	0x1F94: {0x1F2C, 0x399},
	0x1F95: {0x1F2D, 0x399},
	0x1F96: {0x1F2E, 0x399},
	0x1F97: {0x1F2F, 0x399},
	0x1F98: {0x1F28, 0x399},
	0x1F99: {0x1F29, 0x399},
	0x1F9A: {0x1F2A, 0x399},
	0x1F9B: {0x1F2B, 0x399},
	0x1F9C: {0x1F2C, 0x399},
	0x1F9D: {0x1F2D, 0x399},
	0x1F9E: {0x1F2E, 0x399},
	0x1F9F: {0x1F2F, 0x399},
	0x1FA0: {0x1F68, 0x399},
	0x1FA1: {0x1F69, 0x399},
	0x1FA2: {0x1F6A, 0x399},
	0x1FA3: {0x1F6B, 0x399},
	0x1FA4: {0x1F6C, 0x399},
	0x1FA5: {0x1F6D, 0x399},
	0x1FA6: {0x1F6E, 0x399},
	0x1FA7: {0x1F6F, 0x399},
	0x1FA8: {0x1F68, 0x399},
	0x1FA9: {0x1F69, 0x399},
	0x1FAA: {0x1F6A, 0x399},
	0x1FAB: {0x1F6B, 0x399},
	0x1FAC: {0x1F6C, 0x399},
	0x1FAD: {0x1F6D, 0x399},
	0x1FAE: {0x1F6E, 0x399},
	0x1FAF: {0x1F6F, 0x399},
	0x1FB2: {0x1FBA, 0x399},
	0x1FB3: {0x391, 0x399},
	0x1FB4: {0x386, 0x399},
	0x1FB6: {0x391, 0x342},
	0x1FB7: {0x391, 0x342, 0x399},
	0x1FBC: {0x391, 0x399},
	0x1FC2: {0x1FCA, 0x399},
	0x1FC3: {0x397, 0x399},
	0x1FC4: {0x389, 0x399},
	0x1FC6: {0x397, 0x342},
	0x1FC7: {0x397, 0x342, 0x399},
	0x1FCC: {0x397, 0x399},
	0x1FD2: {0x399, 0x308, 0x300},
	0x1FD3: {0x399, 0x308, 0x301},
	0x1FD6: {0x399, 0x342},
	0x1FD7: {0x399, 0x308, 0x342},
	0x1FE2: {0x3A5, 0x308, 0x300},
	0x1FE3: {0x3A5, 0x308, 0x301},
	0x1FE4: {0x3A1, 0x313},
	0x1FE6: {0x3A5, 0x342},
	0x1FE7: {0x3A5, 0x308, 0x342},
	0x1FF2: {0x1FFA, 0x399},
	0x1FF3: {0x3A9, 0x399},
	0x1FF4: {0x38F, 0x399},
	0x1FF6: {0x3A9, 0x342},
	0x1FF7: {0x3A9, 0x342, 0x399},
	0x1FFC: {0x3A9, 0x399},
	0xFB00: {0x46, 0x46},
	0xFB01: {0x46, 0x49},
	0xFB02: {0x46, 0x4C},
	0xFB03: {0x46, 0x46, 0x49},
	0xFB04: {0x46, 0x46, 0x4C},
	0xFB05: {0x53, 0x54},
	0xFB06: {0x53, 0x54},
	0xFB13: {0x544, 0x546},
	0xFB14: {0x544, 0x535},
	0xFB15: {0x544, 0x53B},
	0xFB16: {0x54E, 0x546},
	0xFB17: {0x544, 0x53D},
}

// lowerDottedI is "İ".lower(): i and a combining dot above.
var lowerDottedI = [3]rune{'i', 0x307}

const (
	capitalSigma = 0x3A3
	smallSigma   = 0x3C3
	finalSigma   = 0x3C2
)

// PyLower returns s as Python's s.lower() (invalid UTF-8 becomes U+FFFD,
// as in strings.ToLower).
func PyLower(s string) string { return pyCase(s, false) }

// PyUpper returns s as Python's s.upper() (invalid UTF-8 becomes U+FFFD).
func PyUpper(s string) string { return pyCase(s, true) }

func pyCase(s string, upper bool) string {
	if isASCII(s) {
		if upper {
			return strings.ToUpper(s)
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	it := caseIter{s: s, upper: upper}
	for {
		r, ok := it.next()
		if !ok {
			return b.String()
		}
		b.WriteRune(r)
	}
}

// EqualLower reports whether PyLower(a) == PyLower(b): lower(a) ==
// lower(b), without allocating.
func EqualLower(a, b string) bool { return equalCase(a, b, false) }

// EqualUpper reports whether PyUpper(a) == PyUpper(b), without allocating.
func EqualUpper(a, b string) bool { return equalCase(a, b, true) }

// ContainsLower reports whether PyLower(s) contains sub: contains(lower(s),
// sub), without allocating. (A search tool's filter on a string field is
// ContainsLower(value, PyLower(filter)).)
func ContainsLower(s, sub string) bool { return containsCase(s, sub, false) }

// ContainsUpper reports whether PyUpper(s) contains sub, without
// allocating.
func ContainsUpper(s, sub string) bool { return containsCase(s, sub, true) }

// IsLower reports whether PyLower(s) == want: lower(s) == want, without
// allocating.
func IsLower(s, want string) bool { return isCase(s, want, false) }

// IsUpper reports whether PyUpper(s) == want, without allocating.
func IsUpper(s, want string) bool { return isCase(s, want, true) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldASCII maps an ASCII byte to lower or upper case.
func foldASCII(c byte, upper bool) byte {
	if upper {
		if 'a' <= c && c <= 'z' {
			return c - ('a' - 'A')
		}
	} else if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func equalCase(a, b string, upper bool) bool {
	// With b ASCII, b mapped is len(b) ASCII bytes, and the code points
	// whose mapping is ASCII take at least as many bytes as it (lower: only
	// the Kelvin sign, 3 bytes for "k"; upper: ß, ı, ſ and the Latin
	// ligatures): a shorter a does not match, and is answered without
	// reading it (a search compares the rows' strings with an argument).
	if len(a) < len(b) && isASCII(b) {
		return false
	}
	// ASCII prefix: byte by byte. Each ASCII byte maps to one byte and
	// nothing before a non-ASCII code point changes how it maps (a final
	// sigma looks back, but through the whole string, which caseIter has).
	i := 0
	for ; i < len(a) && i < len(b); i++ {
		ca, cb := a[i], b[i]
		if ca >= utf8.RuneSelf || cb >= utf8.RuneSelf {
			break
		}
		if foldASCII(ca, upper) != foldASCII(cb, upper) {
			return false
		}
	}
	if i == len(a) && i == len(b) {
		return true
	}
	if i == len(a) || i == len(b) {
		return false // the rest of the other maps to at least one code point
	}
	ia := caseIter{s: a, i: i, upper: upper}
	ib := caseIter{s: b, i: i, upper: upper}
	for {
		ra, oka := ia.next()
		rb, okb := ib.next()
		if oka != okb || ra != rb {
			return false
		}
		if !oka {
			return true
		}
	}
}

func isCase(s, want string, upper bool) bool {
	i := 0
	for ; i < len(s) && i < len(want); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || want[i] >= utf8.RuneSelf {
			break
		}
		if foldASCII(c, upper) != want[i] {
			return false
		}
	}
	if i == len(s) {
		return i == len(want)
	}
	it := caseIter{s: s, i: i, upper: upper}
	j := i
	var buf [utf8.UTFMax]byte
	for {
		r, ok := it.next()
		if !ok {
			return j == len(want)
		}
		enc := utf8.AppendRune(buf[:0], r)
		if len(want)-j < len(enc) || want[j:j+len(enc)] != string(enc) {
			return false
		}
		j += len(enc)
	}
}

// containsCase reports whether the mapping of s (PyLower or PyUpper)
// contains sub, byte for byte: at each byte of the mapped text in turn, a
// copy of the iterator compares the bytes that follow with sub.
func containsCase(s, sub string, upper bool) bool {
	if sub == "" {
		return true
	}
	if isASCII(s) {
	outer:
		for i := 0; i+len(sub) <= len(s); i++ {
			for j := 0; j < len(sub); j++ {
				if foldASCII(s[i+j], upper) != sub[j] {
					continue outer
				}
			}
			return true
		}
		return false
	}
	it := caseBytes{it: caseIter{s: s, upper: upper}}
	for {
		at := it // the mapped text from here
		j := 0
		for ; j < len(sub); j++ {
			if c, ok := at.next(); !ok || c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
		if _, ok := it.next(); !ok {
			return false
		}
	}
}

// caseBytes yields the UTF-8 bytes of a caseIter's code points.
type caseBytes struct {
	it   caseIter
	enc  [utf8.UTFMax]byte
	k, n int // enc[k:n] are pending
}

func (b *caseBytes) next() (byte, bool) {
	if b.k == b.n {
		r, ok := b.it.next()
		if !ok {
			return 0, false
		}
		b.k, b.n = 0, len(utf8.AppendRune(b.enc[:0], r))
	}
	c := b.enc[b.k]
	b.k++
	return c, true
}

// caseIter yields the code points of s lowered or uppered, one at a time.
type caseIter struct {
	s     string
	i     int // next byte of s
	upper bool
	pend  [3]rune // the rest of a mapping to several code points
	np    int     // pend[pi:np] are pending
	pi    int
}

func (it *caseIter) next() (rune, bool) {
	if it.pi < it.np {
		r := it.pend[it.pi]
		it.pi++
		return r, true
	}
	if it.i >= len(it.s) {
		return 0, false
	}
	if c := it.s[it.i]; c < utf8.RuneSelf {
		it.i++
		return rune(foldASCII(c, it.upper)), true
	}
	r, size := utf8.DecodeRuneInString(it.s[it.i:])
	at := it.i
	it.i += size
	if it.upper {
		if m, ok := upperFull[r]; ok {
			return it.expand(m)
		}
		return unicode.ToUpper(r), true
	}
	switch r {
	case 0x130:
		return it.expand(lowerDottedI)
	case capitalSigma:
		if isFinalSigma(it.s, at, it.i) {
			return finalSigma, true
		}
		return smallSigma, true
	}
	return unicode.ToLower(r), true
}

// expand yields m[0] and keeps the rest of m (up to the first zero)
// pending.
func (it *caseIter) expand(m [3]rune) (rune, bool) {
	it.pi, it.np = 0, 0
	for _, r := range m[1:] {
		if r == 0 {
			break
		}
		it.pend[it.np] = r
		it.np++
	}
	return m[0], true
}

// isFinalSigma reports whether the capital sigma at s[at:end] is in the
// Final_Sigma context, as CPython decides it: a cased code point before it
// and none after it, skipping case-ignorable code points on both sides.
func isFinalSigma(s string, at, end int) bool {
	j := at
	found := false
	for j > 0 {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if !isCaseIgnorable(r) {
			found = isCased(r)
			break
		}
	}
	if !found {
		return false
	}
	for k := end; k < len(s); {
		r, size := utf8.DecodeRuneInString(s[k:])
		k += size
		if !isCaseIgnorable(r) {
			return !isCased(r)
		}
	}
	return true
}

// isCased is Unicode's Cased property: Lowercase, Uppercase or Lt.
func isCased(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z'
	}
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase) &&
		!unicode.Is(newSincePython, r)
}

// newSincePython are the code points that Go's tables (Unicode 15.0)
// give a property the final sigma looks at and that Python 3.11 (Unicode
// 14.0) does not know: they were assigned in Unicode 15.0. None of them
// has a case mapping.
var newSincePython = &unicode.RangeTable{
	R16: []unicode.Range16{{Lo: 0x0ECE, Hi: 0x0ECE, Stride: 1}},
	R32: []unicode.Range32{
		{Lo: 0x10EFD, Hi: 0x10EFF, Stride: 1},
		{Lo: 0x11241, Hi: 0x11241, Stride: 1},
		{Lo: 0x11F00, Hi: 0x11F01, Stride: 1},
		{Lo: 0x11F36, Hi: 0x11F3A, Stride: 1},
		{Lo: 0x11F40, Hi: 0x11F42, Stride: 2},
		{Lo: 0x13439, Hi: 0x13440, Stride: 1},
		{Lo: 0x13447, Hi: 0x13455, Stride: 1},
		{Lo: 0x1DF25, Hi: 0x1DF2A, Stride: 1},
		{Lo: 0x1E030, Hi: 0x1E06D, Stride: 1},
		{Lo: 0x1E08F, Hi: 0x1E08F, Stride: 1},
		{Lo: 0x1E4EB, Hi: 0x1E4EF, Stride: 1},
	},
}

// isCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm,
// Sk, and the Word_Break classes MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '^', '`', 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A:
		return true
	}
	if r < utf8.RuneSelf {
		return false
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) && !unicode.Is(newSincePython, r)
}
