package runtime

// This file holds the JSON reader that generated decoders use: the seed's
// records at start-up and tool arguments on every call, without
// reflection. It reads a string (a copy of the arguments, or the embedded
// seed itself) and returns strings that are substrings of it, so that
// decoding allocates only for the values' own containers.
//
// The generated decoders are a fast path: they accept only input that the
// reflection-based decoders ([DecodeArgs], encoding/json with the records'
// UnmarshalJSON methods) accept, and produce the same values from it. On
// anything else — a missing, unknown, repeated or null-but-required
// member, a value of the wrong type or out of range, an enum value that is
// not one, invalid JSON — the reader fails and the caller decodes again
// with the reflection-based decoder, whose error (every problem at once,
// with hints) is the one reported.

import (
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// A JSONReader reads one JSON text. Its methods read the value at the
// current position; after the first problem it is failed (Failed) and
// every method returns a zero value. The small ones that generated
// decoders call for every member are not inlined: inlined copies would
// multiply the compile time of every world package.
type JSONReader struct {
	s      string
	i      int
	failed bool
	// key is the name of the member NextMember read.
	key string
	// the arguments read (Arg): seen, and given (not null)
	argSeen, argGiven uint64
	// shared holds, for a reader of a seed, the maps of strings read so
	// far by their text (see NewSeedReader).
	shared map[string]map[string]string
}

// NewJSONReader returns a reader of s.
func NewJSONReader(s string) JSONReader { return JSONReader{s: s} }

// NewSeedReader returns a reader of a world's embedded seed s that reads
// the same text of an object of strings into the same map every time it
// meets it (ReadStringMap): in tau2's retail seed, 3,569 maps of options
// hold 591 different ones. Rows of a state are never modified in place
// once they are shared (a write copies the row, its maps and lists
// included, first), and the seed's rows are shared as soon as they are
// frozen, so that no map read from a seed is ever modified; sharing them
// saves the allocations (and the memory, and the collector's work) of the
// copies.
func NewSeedReader(s string) JSONReader {
	return JSONReader{s: s, shared: map[string]map[string]string{}}
}

// Failed reports whether the reader met a problem.
func (r *JSONReader) Failed() bool { return r.failed }

// Fail marks the reader failed: the input is not what the decoder
// accepts.
//
//go:noinline
func (r *JSONReader) Fail() { r.failed = true }

// End checks that nothing but white space follows and reports whether the
// whole text was read without a problem.
//
//go:noinline
func (r *JSONReader) End() bool {
	r.skipSpace()
	if r.i != len(r.s) {
		r.failed = true
	}
	return !r.failed
}

// Blank reports whether the text is empty, white space or null: the empty
// arguments object of [DecodeArgs].
func (r *JSONReader) Blank() bool {
	r.skipSpace()
	if r.i == len(r.s) {
		return true
	}
	if r.s[r.i:] == "null" || len(r.s)-r.i > 4 && r.s[r.i:r.i+4] == "null" && onlySpace(r.s[r.i+4:]) {
		r.i = len(r.s)
		return true
	}
	return false
}

func onlySpace(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isJSONSpace(s[i]) {
			return false
		}
	}
	return true
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (r *JSONReader) skipSpace() {
	for r.i < len(r.s) && isJSONSpace(r.s[r.i]) {
		r.i++
	}
}

// peek returns the next byte that is not white space, or 0 at the end.
func (r *JSONReader) peek() byte {
	r.skipSpace()
	if r.failed || r.i >= len(r.s) {
		return 0
	}
	return r.s[r.i]
}

func (r *JSONReader) expect(c byte) bool {
	if r.peek() != c {
		r.failed = true
		return false
	}
	r.i++
	return true
}

// Null reads null if it comes next and reports whether it did.
//
//go:noinline
func (r *JSONReader) Null() bool {
	if r.peek() == 'n' && len(r.s)-r.i >= 4 && r.s[r.i:r.i+4] == "null" {
		r.i += 4
		return true
	}
	return false
}

// BeginObject reads the { of an object.
//
//go:noinline
func (r *JSONReader) BeginObject() bool { return r.expect('{') }

// NextMember reads the name of the next member of the object begun and
// its colon, and reports whether there is one; after the last it reads
// the }. Key returns the name.
func (r *JSONReader) NextMember(first bool) bool {
	c := r.peek()
	if c == '}' {
		r.i++
		return false
	}
	if !first {
		if c != ',' {
			r.failed = true
			return false
		}
		r.i++
		c = r.peek()
	}
	if c != '"' {
		r.failed = true
		return false
	}
	r.key = r.String()
	return r.expect(':')
}

// Key is the name of the member NextMember read.
func (r *JSONReader) Key() string { return r.key }

// BeginArray reads the [ of an array.
//
//go:noinline
func (r *JSONReader) BeginArray() bool { return r.expect('[') }

// NextElement reports whether the array begun has another element (and
// reads the comma before it); after the last it reads the ].
func (r *JSONReader) NextElement(first bool) bool {
	c := r.peek()
	if c == ']' {
		r.i++
		return false
	}
	if !first {
		if c != ',' {
			r.failed = true
			return false
		}
		r.i++
	} else if c == 0 {
		r.failed = true
		return false
	}
	return !r.failed
}

// String reads a string. One without escapes is a substring of the text;
// invalid UTF-8 becomes U+FFFD, as encoding/json decodes it.
func (r *JSONReader) String() string {
	if r.peek() != '"' {
		r.failed = true
		return ""
	}
	start := r.i + 1
	simple := true
	j := start
	// eight bytes at a time while none is a quote, a backslash, a control
	// character or not ASCII (AppendKeyString's test)
	for len(r.s)-j >= 8 {
		t := r.s[j : j+8]
		if needsEscape8(uint64(t[0]) | uint64(t[1])<<8 | uint64(t[2])<<16 | uint64(t[3])<<24 |
			uint64(t[4])<<32 | uint64(t[5])<<40 | uint64(t[6])<<48 | uint64(t[7])<<56) {
			break
		}
		j += 8
	}
	for ; j < len(r.s); j++ {
		c := r.s[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			simple = false
			j++
			continue
		}
		if c < 0x20 {
			r.failed = true
			return ""
		}
		if c >= utf8.RuneSelf {
			simple = false
		}
	}
	if j >= len(r.s) {
		r.failed = true
		return ""
	}
	r.i = j + 1
	raw := r.s[start:j]
	if simple || utf8.ValidString(raw) && !containsByte(raw, '\\') {
		return raw
	}
	s, ok := unquoteJSON(raw)
	if !ok {
		r.failed = true
		return ""
	}
	return s
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// unquoteJSON decodes the body of a JSON string with escapes or invalid
// UTF-8, as encoding/json does: invalid UTF-8 and lone surrogates become
// U+FFFD.
func unquoteJSON(s string) (string, bool) {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			switch s[i+1] {
			case '"', '\\', '/':
				b = append(b, s[i+1])
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r1, ok := hex4(s, i+2)
				if !ok {
					return "", false
				}
				i += 6
				if utf16.IsSurrogate(r1) {
					if r2, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if dec := utf16.DecodeRune(r1, r2); dec != utf8.RuneError {
							b = utf8.AppendRune(b, dec)
							i += 6
							continue
						}
					}
					r1 = utf8.RuneError
				}
				b = utf8.AppendRune(b, r1)
				continue
			default:
				return "", false
			}
			i += 2
		case c < utf8.RuneSelf:
			b = append(b, c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\ufffd"...)
			} else {
				b = append(b, s[i:i+size]...)
			}
			i += size
		}
	}
	return string(b), true
}

func hex4(s string, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[i : i+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// number reads a JSON number token, checking its grammar.
func (r *JSONReader) number() string {
	r.skipSpace()
	start := r.i
	s := r.s
	i := start
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	default:
		r.failed = true
		return ""
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			r.failed = true
			return ""
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			r.failed = true
			return ""
		}
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	r.i = i
	return s[start:i]
}

// Float reads a number as a float64 (out of range fails).
func (r *JSONReader) Float() float64 {
	tok := r.number()
	if r.failed {
		return 0
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil {
		r.failed = true
		return 0
	}
	return f
}

// Int reads an integer (a number with a fraction or an exponent, or out of
// the range of int64, fails).
func (r *JSONReader) Int() int64 {
	tok := r.number()
	if r.failed {
		return 0
	}
	n, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		r.failed = true
		return 0
	}
	return n
}

// Bool reads true or false.
func (r *JSONReader) Bool() bool {
	switch r.peek() {
	case 't':
		if len(r.s)-r.i >= 4 && r.s[r.i:r.i+4] == "true" {
			r.i += 4
			return true
		}
	case 'f':
		if len(r.s)-r.i >= 5 && r.s[r.i:r.i+5] == "false" {
			r.i += 5
			return false
		}
	}
	r.failed = true
	return false
}

// Date reads a date "YYYY-MM-DD".
func (r *JSONReader) Date() Date {
	s := r.String()
	if r.failed {
		return 0
	}
	d, err := ParseDate(s)
	if err != nil {
		r.failed = true
	}
	return d
}

// DateTime reads a date-time (see [ParseDateTime]).
func (r *JSONReader) DateTime() DateTime {
	s := r.String()
	if r.failed {
		return 0
	}
	t, err := ParseDateTime(s)
	if err != nil {
		r.failed = true
	}
	return t
}

// Enum reads a string that must be valid (one of an enum's values).
func Enum[E ~string](r *JSONReader, valid func(E) bool) E {
	v := E(r.String())
	if !r.failed && !valid(v) {
		r.failed = true
	}
	return v
}

// Seen records that the member with bit b of an object was read, and
// fails when it was read before (a member given twice).
//
//go:noinline
func (r *JSONReader) Seen(seen *uint64, b uint) {
	if *seen&(1<<b) != 0 {
		r.failed = true
	}
	*seen |= 1 << b
}

// Arg reads the start of the value of argument i (the bit of a tool's
// arguments object a generated decoder gives it): it fails when the
// argument was given before, reads null (an argument left out) and
// reports false, else reports true, and the caller reads the value.
//
//go:noinline
func (r *JSONReader) Arg(i uint) bool {
	if r.argSeen&(1<<i) != 0 {
		r.failed = true
		return false
	}
	r.argSeen |= 1 << i
	if r.Null() {
		return false
	}
	r.argGiven |= 1 << i
	return true
}

// ArgsEnd reports whether the arguments object was read to its end
// without a problem, nothing following it, and every argument whose bit
// is in required given.
//
//go:noinline
func (r *JSONReader) ArgsEnd(required uint64) bool {
	return r.argGiven&required == required && r.End()
}

// DecodeStringArgs is the generated decoder of a tool whose arguments are
// all strings: names[i] is decoded into *dst[i] (null leaves it as it
// is), the bits of required must be given. It reports whether it could
// decode text as [DecodeArgs] would; it does not allocate.
func DecodeStringArgs(text string, names []string, required uint64, dst ...*string) bool {
	r := NewJSONReader(text)
	if r.Blank() {
		return required == 0
	}
	if !r.BeginObject() {
		return false
	}
	for first := true; r.NextMember(first); first = false {
		i := 0
		for i < len(names) && names[i] != r.key {
			i++
		}
		if i == len(names) || i == 64 {
			r.failed = true
			return false
		}
		if r.Arg(uint(i)) {
			*dst[i] = r.String()
		}
	}
	return r.ArgsEnd(required)
}

// ReadList reads an array, each element with elem; null is a nil list
// when nullable, else a failure.
func ReadList[T any](r *JSONReader, nullable bool, elem func(*JSONReader) T) []T {
	if r.Null() {
		if !nullable {
			r.failed = true
		}
		return nil
	}
	if !r.BeginArray() {
		return nil
	}
	out := []T{}
	for first := true; r.NextElement(first); first = false {
		out = append(out, elem(r))
		if r.failed {
			return nil
		}
	}
	return out
}

// ReadMap reads an object whose values elem reads; null is a nil map when
// nullable, else a failure. A repeated key keeps its last value, as
// encoding/json does.
func ReadMap[V any](r *JSONReader, nullable bool, elem func(*JSONReader) V) map[string]V {
	if r.Null() {
		if !nullable {
			r.failed = true
		}
		return nil
	}
	if !r.BeginObject() {
		return nil
	}
	out := map[string]V{}
	for first := true; r.NextMember(first); first = false {
		k := r.Key()
		out[k] = elem(r)
		if r.failed {
			return nil
		}
	}
	return out
}

// ReadStringMap is ReadMap of a map of strings, not generic. On a reader
// of a seed (NewSeedReader), the same text of an object is read into the
// same map every time.
func ReadStringMap(r *JSONReader, nullable bool) map[string]string {
	if r.shared == nil || r.peek() != '{' {
		return ReadMap(r, nullable, ReadString)
	}
	start := r.i
	end := flatObjectEnd(r.s, start)
	if end == start {
		return ReadMap(r, nullable, ReadString)
	}
	text := r.s[start:end]
	if m, ok := r.shared[text]; ok {
		r.i = end
		return m
	}
	m := ReadMap(r, nullable, ReadString)
	if !r.failed {
		r.shared[text] = m
	}
	return m
}

// flatObjectEnd is the end of the object at s[i:] when it holds no object
// or array (a map of scalars), else i. Its strings, numbers and literals
// are not checked: the decoder reads them.
func flatObjectEnd(s string, i int) int {
	if i >= len(s) || s[i] != '{' {
		return i
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '"':
			for j++; j < len(s) && s[j] != '"'; j++ {
				if s[j] == '\\' {
					j++
				}
			}
		case '}':
			return j + 1
		case '{', '[', ']':
			return i
		}
	}
	return i
}

// ReadOptional reads null as nil, else a value with elem.
func ReadOptional[T any](r *JSONReader, elem func(*JSONReader) T) *T {
	if r.Null() {
		return nil
	}
	v := elem(r)
	return &v
}

// ReadString, ReadFloat, ReadInt, ReadBool, ReadDate and ReadDateTime are
// the element readers of lists, maps and optional values.
func ReadString(r *JSONReader) string { return r.String() }

// ReadFloat reads a number; see ReadString.
func ReadFloat(r *JSONReader) float64 { return r.Float() }

// ReadInt reads an integer; see ReadString.
func ReadInt(r *JSONReader) int64 { return r.Int() }

// ReadBool reads a boolean; see ReadString.
func ReadBool(r *JSONReader) bool { return r.Bool() }

// ReadDate reads a date; see ReadString.
func ReadDate(r *JSONReader) Date { return r.Date() }

// ReadDateTime reads a date-time; see ReadString.
func ReadDateTime(r *JSONReader) DateTime { return r.DateTime() }

// ArgsText is the text of a tool call's arguments for a JSONReader: a
// copy, so that the strings decoded from it may be kept in the state.
func ArgsText(raw []byte) string { return string(raw) }

// ArgsView is the text of a tool call's arguments for a JSONReader
// without a copy: the strings decoded from it share raw's memory, which
// the caller may reuse once the call returns. Generated code uses it only
// for tools that write no table, whose results [Registry.Call] encodes
// (and whose error messages it copies) before it returns.
func ArgsView(raw []byte) string { return unsafe.String(unsafe.SliceData(raw), len(raw)) }
