package runtime

// This file holds the JSON encoders that generated code calls from the
// AppendJSON methods of records: append-style, without reflection, writing
// exactly the bytes encoding/json writes for the same Go value with
// SetEscapeHTML(false) (the encoding of observations): members in
// declaration order, map keys sorted bytewise, nil slices and maps as null,
// floats in encoding/json's format, strings escaped as encoding/json
// escapes them without HTML escaping (invalid UTF-8 becomes \ufffd, U+2028
// and U+2029 are escaped).

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// A JSONAppender appends its JSON encoding to dst and returns the extended
// slice. Generated records, entities and enums implement it; [Registry]
// encodes a handler's data with it when the data implements it.
//
// AppendJSON panics with an [*EncodeError] for a value encoding/json
// cannot encode (a NaN or infinite float, a variant record whose case is
// not one of its cases); the rows of a world never hold one (their
// constraints are checked on every write).
type JSONAppender interface {
	AppendJSON(dst []byte) []byte
}

// An EncodeError is the panic value of an AppendJSON method given a value
// that has no JSON encoding; its message is encoding/json's.
type EncodeError struct {
	Message string
}

func (e *EncodeError) Error() string { return e.Message }

// BadCase panics with the EncodeError of a variant record whose case is
// not one of its cases (generated AppendJSON methods call it).
func BadCase(record, tag string) {
	panic(&EncodeError{Message: "json: error calling MarshalJSON for " + record + ": " + strconv.Quote(tag) + " is not a case"})
}

// AppendJSONOf returns v's encoding by its AppendJSON method, recovering
// the panic of a value that has no encoding as an error.
func AppendJSONOf(dst []byte, v JSONAppender) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			ee, ok := r.(*EncodeError)
			if !ok {
				panic(r)
			}
			out, err = dst, ee
		}
	}()
	return v.AppendJSON(dst), nil
}

const hexDigits = "0123456789abcdef"

// jsonSafe[b] is true for the ASCII bytes encoding/json writes as they are
// inside a string when it does not escape HTML.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\'
	}
	return t
}()

// AppendString appends s as a JSON string, as encoding/json writes it
// without HTML escaping.
//
// The encoders of scalars are not generic, so that they compile once, in
// this package, and not again in every world package; AppendEnum and
// HashEnum adapt them to the string types of enums.
func AppendString(dst []byte, s string) []byte { return AppendKeyString(dst, "", s) }

// AppendKeyString appends key as it is (the `,"name":` before a member, as
// AppendKey) and then s as AppendString does: one call for a string member
// of a generated AppendJSON method.
func AppendKeyString(dst []byte, key, s string) []byte {
	dst = append(dst, key...)
	dst = append(dst, '"')
	// Eight bytes at a time while none needs escaping (the common case:
	// ids, names, addresses).
	rest := s
	for len(rest) >= 8 && !needsEscape8(uint64(rest[0])|uint64(rest[1])<<8|uint64(rest[2])<<16|uint64(rest[3])<<24|
		uint64(rest[4])<<32|uint64(rest[5])<<40|uint64(rest[6])<<48|uint64(rest[7])<<56) {
		rest = rest[8:]
	}
	for i := len(s) - len(rest); i < len(s); i++ {
		if b := s[i]; b >= utf8.RuneSelf || !jsonSafe[b] {
			return appendStringEscaped(dst, s, i)
		}
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

const (
	lsb8 = 0x0101010101010101
	msb8 = 0x8080808080808080
)

// needsEscape8 reports whether one of the eight bytes of w is a control
// character, '"', '\\' or not ASCII: whether AppendString must look at
// them one by one.
func needsEscape8(w uint64) bool {
	// a byte below 0x20, or one that is zero once xored with '"' or '\\'
	lt := (w - lsb8*0x20) &^ w
	q := w ^ lsb8*'"'
	bs := w ^ lsb8*'\\'
	return (lt|(q-lsb8)&^q|(bs-lsb8)&^bs|w)&msb8 != 0
}

// appendStringEscaped appends the rest of AppendString's work: s from its
// first byte that may need escaping, at i.
func appendStringEscaped(dst []byte, s string, i int) []byte {
	start := 0
	for i < len(s) {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// AppendFloat appends f as encoding/json writes a float64: the shortest
// representation that reads back as f, in exponent form below 1e-6 and
// from 1e21 on ("1e-07", "1e+21"). It panics with an [*EncodeError] for a
// NaN or an infinity, which JSON cannot express.
func AppendFloat(dst []byte, x float64) []byte {
	if c := math.Round(x * 100); c/100 == x && math.Abs(c) < 1e15 && x != 0 {
		return appendCents(dst, int64(c))
	}
	if math.IsInf(x, 0) || math.IsNaN(x) {
		panic(&EncodeError{Message: "json: unsupported value: " + strconv.FormatFloat(x, 'g', -1, 64)})
	}
	format := byte('f')
	if abs := math.Abs(x); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, x, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendCents appends c/100 as AppendFloat would: the fast path of the
// floats of worlds, prices and amounts, which are integers or have one or
// two decimals. It is exact: when c/100 (|c| < 1e15) is x, that decimal has
// at most 15 significant digits and so is the only decimal of at most 15
// digits that reads back as x, the shortest, which strconv writes with its
// trailing zeros cut.
func appendCents(dst []byte, c int64) []byte {
	if c < 0 {
		dst = append(dst, '-')
		c = -c
	}
	dst = strconv.AppendInt(dst, c/100, 10)
	switch f := c % 100; {
	case f == 0:
	case f%10 == 0:
		dst = append(dst, '.', byte('0'+f/10))
	default:
		dst = append(dst, '.', byte('0'+f/10), byte('0'+f%10))
	}
	return dst
}

// AppendKeyFloat appends key as it is and then x as AppendFloat does.
func AppendKeyFloat(dst []byte, key string, x float64) []byte {
	return AppendFloat(append(dst, key...), x)
}

// AppendKeyInt appends key as it is and then n in decimal.
func AppendKeyInt(dst []byte, key string, n int64) []byte {
	return strconv.AppendInt(append(dst, key...), n, 10)
}

// AppendKeyBool appends key as it is and then true or false.
func AppendKeyBool(dst []byte, key string, b bool) []byte {
	return strconv.AppendBool(append(dst, key...), b)
}

// AppendEnum appends the value of an enum as a JSON string.
func AppendEnum[S ~string](dst []byte, s S) []byte { return AppendString(dst, string(s)) }

// AppendInt appends the integer n in decimal.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// AppendBool appends true or false.
func AppendBool(dst []byte, b bool) []byte { return strconv.AppendBool(dst, b) }

// AppendValue appends v by its AppendJSON method: the element encoder of a
// list or map of records or dates.
func AppendValue[T JSONAppender](dst []byte, v T) []byte { return v.AppendJSON(dst) }

// AppendKey appends text as it is: the `,"name":` before a member of an
// object, in generated AppendJSON methods. It is not inlined, so that
// those methods compile to a call per member.
//
//go:noinline
func AppendKey(dst []byte, text string) []byte { return append(dst, text...) }

// AppendNull appends null.
func AppendNull(dst []byte) []byte { return append(dst, "null"...) }

// AppendOptional appends *p with enc, or null when p is nil.
func AppendOptional[T any](dst []byte, p *T, enc func([]byte, T) []byte) []byte {
	if p == nil {
		return append(dst, "null"...)
	}
	return enc(dst, *p)
}

// AppendList appends the list s, each element with enc; a nil slice is
// null, an empty one [].
func AppendList[T any](dst []byte, s []T, enc func([]byte, T) []byte) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, x := range s {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = enc(dst, x)
	}
	return append(dst, ']')
}

// AppendMap appends the map m as an object whose members are in key order
// (bytewise, as encoding/json sorts them), each value with enc; a nil map
// is null. Maps of up to 32 keys are sorted without allocating. (Maps of
// strings have AppendStringMap, which generated code calls for them.)
func AppendMap[V any](dst []byte, m map[string]V, enc func([]byte, V) []byte) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	var buf [32]string
	dst = append(dst, '{')
	for i, k := range sortKeys(m, buf[:0]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, k)
		dst = append(dst, ':')
		dst = enc(dst, m[k])
	}
	return append(dst, '}')
}

// AppendStringMap is AppendMap of a map of strings (options, attributes):
// not generic, so compiled once, here; a small map is read in one pass
// and its keys sorted in place.
func AppendStringMap(dst []byte, m map[string]string) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	if len(m) > smallMap {
		return AppendMap(dst, m, AppendString)
	}
	var keys, vals [smallMap]string
	var order [smallMap]uint8
	n := 0
	for k, v := range m {
		keys[n], vals[n] = k, v
		n++
	}
	sep := "{"
	for _, j := range sortSmall(keys[:n], order[:n]) {
		dst = AppendKeyString(dst, sep, keys[j])
		dst = AppendKeyString(dst, ":", vals[j])
		sep = ","
	}
	if n == 0 {
		dst = append(dst, '{')
	}
	return append(dst, '}')
}

// smallMap is the size up to which AppendStringMap and HashStringMap read
// a map in one pass and sort its keys in place.
const smallMap = 8

// sortSmall sets order to the indexes of keys (at most smallMap) in the
// order of the keys, by insertion sort, and returns it.
func sortSmall(keys []string, order []uint8) []uint8 {
	for i := range order {
		order[i] = uint8(i)
		for j := i; j > 0 && less(keys[order[j]], keys[order[j-1]]); j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	return order
}

// less is a < b, deciding most pairs of keys by their first bytes.
func less(a, b string) bool {
	if a != "" && b != "" && a[0] != b[0] {
		return a[0] < b[0]
	}
	return a < b
}

// sortKeys appends the keys of m to keys, sorted.
func sortKeys[V any](m map[string]V, keys []string) []string {
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys)
	return keys
}

// sortStrings sorts keys: out of sortKeys, so that the sort compiles
// once, here, and not in every package that instantiates sortKeys.
func sortStrings(keys []string) {
	if len(keys) > 1 {
		slices.Sort(keys)
	}
}

// AppendJSON appends the date as a JSON string "YYYY-MM-DD", as
// encoding/json writes it (by MarshalText).
func (d Date) AppendJSON(dst []byte) []byte {
	dst = append(dst, '"')
	return append(d.appendTo(dst), '"')
}

// AppendJSON appends the instant as a JSON string "YYYY-MM-DDThh:mm:ssZ",
// as encoding/json writes it (by MarshalText).
func (t DateTime) AppendJSON(dst []byte) []byte {
	dst = append(dst, '"')
	return append(t.appendTo(dst), '"')
}

// JSONAppenderFunc is a function appending a JSON value, as a
// [JSONAppender]: the result of a generated tool that is a list, a map or
// an optional value, given to the [Registry] as a closure over the value
// that appends it. (Not generic, unlike [Encoded], so that a world
// compiles no code per result type for it.)
type JSONAppenderFunc func(dst []byte) []byte

// AppendJSON appends f's JSON value to dst.
func (f JSONAppenderFunc) AppendJSON(dst []byte) []byte { return f(dst) }

// Encoded returns v as a JSONAppender that appends it with enc: the
// result of a tool that is a list, a map or an optional value, given to
// the [Registry] with its encoder.
func Encoded[T any](v T, enc func([]byte, T) []byte) JSONAppender { return encoded[T]{v, enc} }

type encoded[T any] struct {
	v   T
	enc func([]byte, T) []byte
}

func (e encoded[T]) AppendJSON(dst []byte) []byte { return e.enc(dst, e.v) }
