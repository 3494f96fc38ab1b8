package runtime

// This file holds the helpers generated code uses for values of the
// composite types (list<T>, map<string, T> and records). They are small
// generic functions, instantiated per element type in each world package
// that uses them; everything that needs no type parameter is plain code.
//
// The Go shapes are: a list is a slice, a map a Go map with string keys, a
// record a struct held by value. An optional list or map is nil when it is
// null, so a non-optional one is never nil: an empty list is a non-nil empty
// slice (encoding/json writes [] for it, null for nil). The helpers here
// keep that distinction: nil in, nil out.

import (
	"cmp"
	"encoding/json"
	"iter"
	"maps"
	"slices"
	"sort"
	"strconv"
	"sync"
)

// Ptr returns a pointer to a copy of v: the value of an optional field or
// of a case field of a variant record.
func Ptr[T any](v T) *T { return &v }

// CloneSlice returns a copy of s whose elements are copied by clone, so
// that the copy shares no memory with s; nil stays nil.
func CloneSlice[T any](s []T, clone func(T) T) []T {
	if s == nil {
		return nil
	}
	c := make([]T, len(s))
	for i, x := range s {
		c[i] = clone(x)
	}
	return c
}

// CloneMap returns a copy of m whose values are copied by clone; nil stays
// nil.
func CloneMap[V any](m map[string]V, clone func(V) V) map[string]V {
	if m == nil {
		return nil
	}
	c := make(map[string]V, len(m))
	for k, v := range m {
		c[k] = clone(v)
	}
	return c
}

// ClonePtr returns a pointer to a copy of *p made by clone; nil stays nil.
// Optional records are pointers written through in place, so a row copy
// must not share them.
func ClonePtr[T any](p *T, clone func(T) T) *T {
	if p == nil {
		return nil
	}
	c := clone(*p)
	return &c
}

// SortedKeys returns the keys of m in ascending byte order, as a new
// non-nil slice: the language's keys(m), and the order in which every map is
// iterated.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sortStrings(keys) // not slices.Sort here: it would compile in every world
	return keys
}

// InKeyOrder iterates over the entries of m in ascending key order. The
// keys are collected when the iteration starts; each value is read when
// its turn comes, and a key deleted before its turn is skipped.
func InKeyOrder[V any](m map[string]V) iter.Seq2[string, V] {
	return func(yield func(string, V) bool) {
		for _, k := range SortedKeys(m) {
			v, ok := m[k]
			if ok && !yield(k, v) {
				return
			}
		}
	}
}

// Indexed iterates over s with int64 indexes, the language's int.
func Indexed[T any](s []T) iter.Seq2[int64, T] {
	return func(yield func(int64, T) bool) {
		for i, x := range s {
			if !yield(int64(i), x) {
				return
			}
		}
	}
}

// Sorted returns a sorted copy of s (never nil): the language's sorted(xs).
// Strings sort in byte order, numbers numerically with NaNs first, dates
// and date-times chronologically. The sort is stable.
func Sorted[T cmp.Ordered](s []T) []T {
	c := make([]T, len(s))
	copy(c, s)
	// sort.Stable, not slices.SortStableFunc: the sort compiles once, here,
	// instead of once per element type in every world that sorts. (Any
	// stable sort by the same order gives the same result.)
	sort.Stable(byFuncs{len(c), func(i, j int) bool { return cmp.Less(c[i], c[j]) }, func(i, j int) { c[i], c[j] = c[j], c[i] }})
	return c
}

// byFuncs is a sort.Interface over n elements given by their less and swap
// functions.
type byFuncs struct {
	n    int
	less func(i, j int) bool
	swap func(i, j int)
}

func (b byFuncs) Len() int           { return b.n }
func (b byFuncs) Less(i, j int) bool { return b.less(i, j) }
func (b byFuncs) Swap(i, j int)      { b.swap(i, j) }

// Appended returns a new list holding the elements of s and then x: the
// language's append(xs, x). The result never shares its backing array with
// s, so appending to a list of one state can never write into a list of
// another.
func Appended[T any](s []T, x T) []T {
	c := make([]T, len(s), len(s)+1)
	copy(c, s)
	return append(c, x)
}

// HasKey reports whether m has the key k: the language's `k in m`.
func HasKey[V any](m map[string]V, k string) bool {
	_, ok := m[k]
	return ok
}

// IndexError is the error of reading or writing element i of a list of n
// elements when i is out of range.
func IndexError(i int64, n int) error {
	return Internal(MsgIndexOutOfRange, i, n)
}

// KeyError is the error of reading key k of a map that does not have it.
func KeyError(k string) error {
	return Internal("map has no key %s", strconv.Quote(k))
}

// NotInEnum is the error of `v as T` when v is not one of the values of
// the enum type T: `"x" is not a value of Order.cancel_reason; values: no
// longer needed, ordered by mistake` (constraint_violation). typ is T as
// the spec writes it and values its values, joined with ", ".
func NotInEnum(v, typ, values string) error {
	return ConstraintViolation("%s is not a value of %s; values: %s", strconv.Quote(v), typ, values)
}

// NoMatch is the error of first(x in S where c) when no element of S (or
// record, what being the entity's name) satisfies c.
func NoMatch(what string) error {
	return Internal("first: no %s matches", what)
}

// At returns element i of s, or the zero value and IndexError when i is out
// of range.
func At[T any](s []T, i int64) (T, error) {
	if i < 0 || i >= int64(len(s)) {
		var zero T
		return zero, IndexError(i, len(s))
	}
	return s[i], nil
}

// Lookup returns the value at key k of m, or the zero value and KeyError.
func Lookup[V any](m map[string]V, k string) (V, error) {
	v, ok := m[k]
	if !ok {
		return v, KeyError(k)
	}
	return v, nil
}

// MarshalJSON is json.Marshal without HTML escaping, the encoding of
// observations, snapshots and hashes, for MarshalJSON methods of generated
// types (a variant record writes only the fields of its case).
func MarshalJSON(v any) ([]byte, error) { return marshalJSON(v) }

// VariantTag reads the member named tag of the JSON object data, the case
// of a variant record, and checks that it is one of cases. Its errors are
// invalid_arguments [ToolError]s: `missing required field "source"`,
// `field "source": expected one of "gift_card", "paypal", got "cash"`.
func VariantTag(data []byte, tag string, cases []string) (string, error) {
	d := trimJSONSpace(data)
	if len(d) == 0 || d[0] != '{' || !json.Valid(d) {
		return "", InvalidArguments("expected an object, got %s", describeJSON(d))
	}
	var raw []byte
	found := false
	eachMember(d, func(key, val []byte) {
		if !found && unquoteKey(key) == tag {
			raw, found = val, true
		}
	})
	if !found || string(raw) == "null" {
		return "", InvalidArguments(MsgMissingField, tag)
	}
	s, _, err := decodeEnum(raw, cases)
	if err != nil {
		return "", InvalidArguments("field %q: %s", tag, AsToolError(err).Message)
	}
	return s, nil
}

// Members returns the names of the members of the JSON object data that
// are present and not null (a record field left out takes its default).
func Members(data []byte) map[string]bool {
	out := map[string]bool{}
	d := trimJSONSpace(data)
	if len(d) == 0 || d[0] != '{' || !json.Valid(d) {
		return out
	}
	eachMember(d, func(key, val []byte) {
		if string(val) != "null" {
			out[unquoteKey(key)] = true
		}
	})
	return out
}

// EqualPtr is == on optional values: both null, or both set and equal.
func EqualPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// EqualPtrFunc is EqualPtr with eq comparing the values.
func EqualPtrFunc[T any](a, b *T, eq func(T, T) bool) bool {
	return a == nil && b == nil || a != nil && b != nil && eq(*a, *b)
}

// EqualLists is == on lists: both null, or both set with equal elements in
// the same order (an empty list is not null).
func EqualLists[T comparable](a, b []T) bool {
	return (a == nil) == (b == nil) && slices.Equal(a, b)
}

// EqualListsFunc is EqualLists with eq comparing the elements.
func EqualListsFunc[T any](a, b []T, eq func(T, T) bool) bool {
	return (a == nil) == (b == nil) && slices.EqualFunc(a, b, eq)
}

// EqualMaps is == on maps: both null, or both set with the same keys and
// equal values.
func EqualMaps[V comparable](a, b map[string]V) bool {
	return (a == nil) == (b == nil) && maps.Equal(a, b)
}

// EqualMapsFunc is EqualMaps with eq comparing the values.
func EqualMapsFunc[V any](a, b map[string]V, eq func(V, V) bool) bool {
	return (a == nil) == (b == nil) && maps.EqualFunc(a, b, eq)
}

// Constant returns a function that decodes data, a JSON value of type T, on
// its first call and returns the same value on every call: the large
// constant values of rubrics and invariants (a whole order to compare
// with), embedded as data rather than compiled as Go literals. The value
// is shared and must not be modified. data comes from the generator and
// always decodes; a failure panics.
func Constant[T any](data string) func() T {
	return sync.OnceValue(func() T {
		var v T
		if err := json.Unmarshal([]byte(data), &v); err != nil {
			panic("runtime: a generated constant does not decode: " + err.Error())
		}
		return v
	})
}
