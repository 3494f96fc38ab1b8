package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
	"math"
)

// A Hasher computes the canonical SHA-256 digest of a state. Generated code
// feeds it the state's tables ([Journal.HashTo]) plus any other state with
// the Write methods, then reads [Hasher.Sum].
//
// Every item is framed (type tag and length prefix), so different sequences
// of writes never collide by concatenation. A row is represented by its ID
// and the SHA-256 of its canonical form: for a row that implements
// [Hashable] (the records of generated worlds), the stream its HashFields
// method writes into a [FieldHasher] (see there for the form); for any
// other row, its encoding/json encoding (struct fields in declared order,
// map keys sorted, HTML characters not escaped, with encoding/json's
// trailing newline). The row digests of a frozen table's base are
// computed once and shared by all its clones, so hashing a state costs one
// small write per row plus, for each row changed since the base, what
// writing its fields costs.
type Hasher struct {
	h   hash.Hash
	enc rowEncoder
	buf []byte // pending input of h, written in chunks
}

// NewHasher returns an empty Hasher.
func NewHasher() *Hasher { return &Hasher{h: sha256.New(), buf: make([]byte, 0, 256)} }

const hashChunk = 4 << 10

func (h *Hasher) flushIfFull() {
	if len(h.buf) >= hashChunk {
		h.h.Write(h.buf)
		h.buf = h.buf[:0]
	}
}

func (h *Hasher) tag(b byte) { h.buf = append(h.buf, b) }

func (h *Hasher) digest(d *[32]byte) {
	h.buf = append(h.buf, d[:]...)
	h.flushIfFull()
}

// WriteString adds a string.
func (h *Hasher) WriteString(s string) {
	h.buf = append(h.buf, 's')
	h.buf = binary.AppendUvarint(h.buf, uint64(len(s)))
	h.buf = append(h.buf, s...)
	h.flushIfFull()
}

// WriteInt adds an integer.
func (h *Hasher) WriteInt(v int64) {
	h.buf = append(h.buf, 'i')
	h.buf = binary.AppendVarint(h.buf, v)
	h.flushIfFull()
}

// WriteValue adds the canonical form of v (as for a row), for state that
// does not live in a table.
func (h *Hasher) WriteValue(v any) {
	d := h.enc.digest(v)
	h.tag('V')
	h.digest(&d)
}

// WriteRow adds one row: its ID and the digest of its canonical form.
// [Journal.HashTo] does the same for every row of every table.
func (h *Hasher) WriteRow(id string, row any) {
	d := h.enc.digest(row)
	h.tag('R')
	h.WriteString(id)
	h.digest(&d)
}

// Sum returns the hex SHA-256 of everything written so far.
func (h *Hasher) Sum() string {
	h.h.Write(h.buf)
	h.buf = h.buf[:0]
	var b [sha256.Size]byte
	return hex.EncodeToString(h.h.Sum(b[:0]))
}

// rowEncoder encodes rows canonically with reusable buffers.
type rowEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
	fh  FieldHasher
}

func (e *rowEncoder) encode(v any) []byte {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf)
		e.enc.SetEscapeHTML(false)
	}
	e.buf.Reset()
	if err := e.enc.Encode(v); err != nil {
		// Deterministic for a given value; rows of generated worlds always
		// encode (no NaN or infinite numbers).
		e.buf.Reset()
		e.buf.WriteString("!error: ")
		e.buf.WriteString(err.Error())
	}
	return e.buf.Bytes()
}

// encodeCompact is encode without the trailing newline.
func (e *rowEncoder) encodeCompact(v any) []byte {
	b := e.encode(v)
	if len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	return b
}

// digest is the SHA-256 of the canonical form of the row v: its HashFields
// stream if it is Hashable, else its encoding/json encoding.
func (e *rowEncoder) digest(v any) [32]byte {
	if hv, ok := v.(Hashable); ok {
		e.fh.buf = e.fh.buf[:0]
		hv.HashFields(&e.fh)
		return sha256.Sum256(e.fh.buf)
	}
	return sha256.Sum256(e.encode(v))
}

// A Hashable value writes its fields to a [FieldHasher] in the canonical
// form of state hashes. The records of generated worlds implement it;
// their HashFields methods are generated from the record's fields.
type Hashable interface {
	HashFields(w *FieldHasher)
}

// A FieldHasher collects the canonical form of one row, which [Hasher]
// digests with SHA-256. The form is a sequence of tagged items, each
// self-delimiting, so that two different values never write the same
// bytes:
//
//	string   's' uvarint(length) bytes
//	integer  'i' varint(n)               (zig-zag, as encoding/binary)
//	number   'f' 8 bytes                 (IEEE 754 bits, big-endian)
//	boolean  't' or 'F'
//	null     'n'                         (an unset optional value)
//	date     'd' varint(days since 1970-01-01)
//	instant  'D' varint(seconds since 1970-01-01T00:00:00Z)
//	list     'l' uvarint(length) elements
//	map      'm' uvarint(length) then key (as a string) and value, in key order
//	record   'r' uvarint(number of fields) then the fields in declaration
//	         order (a variant: its tag, its common fields, its case's fields)
//
// Lengths count bytes for strings and elements for the rest. The form
// depends on nothing but the values: not on the platform, the process or
// the order in which a map was filled.
type FieldHasher struct {
	buf []byte
}

// Begin starts a record of n fields.
//
//go:noinline
func (w *FieldHasher) Begin(n int) {
	w.buf = append(w.buf, 'r')
	w.buf = binary.AppendUvarint(w.buf, uint64(n))
}

// Null writes null.
//
//go:noinline
func (w *FieldHasher) Null() { w.buf = append(w.buf, 'n') }

// HashString writes a string.
//
// It is not inlined (nor are the other writers of FieldHasher): generated
// HashFields methods call the writers once per field, and inlined copies
// would multiply the compile time of every world package.
//
//go:noinline
func HashString(w *FieldHasher, s string) {
	w.buf = append(w.buf, 's')
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	w.buf = append(w.buf, s...)
}

// HashInt writes an integer.
//
//go:noinline
func HashInt(w *FieldHasher, n int64) {
	w.buf = append(w.buf, 'i')
	w.buf = binary.AppendVarint(w.buf, n)
}

// HashFloat writes a number.
//
//go:noinline
func HashFloat(w *FieldHasher, f float64) {
	w.buf = append(w.buf, 'f')
	w.buf = binary.BigEndian.AppendUint64(w.buf, math.Float64bits(f))
}

// HashBool writes a boolean.
//
//go:noinline
func HashBool(w *FieldHasher, b bool) {
	if b {
		w.buf = append(w.buf, 't')
	} else {
		w.buf = append(w.buf, 'F')
	}
}

// HashEnum writes the value of an enum, as a string.
func HashEnum[S ~string](w *FieldHasher, s S) { HashString(w, string(s)) }

// HashValue writes v by its HashFields method: the element writer of a
// list or map of records or dates.
func HashValue[T Hashable](w *FieldHasher, v T) { v.HashFields(w) }

// HashOptional writes *p with f, or null when p is nil.
func HashOptional[T any](w *FieldHasher, p *T, f func(*FieldHasher, T)) {
	if p == nil {
		w.Null()
		return
	}
	f(w, *p)
}

// HashList writes the list s, each element with f; a nil list is null.
func HashList[T any](w *FieldHasher, s []T, f func(*FieldHasher, T)) {
	if s == nil {
		w.Null()
		return
	}
	w.buf = append(w.buf, 'l')
	w.buf = binary.AppendUvarint(w.buf, uint64(len(s)))
	for _, x := range s {
		f(w, x)
	}
}

// HashMap writes the map m in key order, each value with f; a nil map is
// null.
func HashMap[V any](w *FieldHasher, m map[string]V, f func(*FieldHasher, V)) {
	if m == nil {
		w.Null()
		return
	}
	w.buf = append(w.buf, 'm')
	w.buf = binary.AppendUvarint(w.buf, uint64(len(m)))
	var buf [32]string
	for _, k := range sortKeys(m, buf[:0]) {
		HashString(w, k)
		f(w, m[k])
	}
}

// HashStringMap is HashMap of a map of strings: not generic, and a small
// map is read in one pass (as AppendStringMap).
func HashStringMap(w *FieldHasher, m map[string]string) {
	if m == nil || len(m) > smallMap {
		HashMap(w, m, HashString)
		return
	}
	w.buf = append(w.buf, 'm')
	w.buf = binary.AppendUvarint(w.buf, uint64(len(m)))
	var keys, vals [smallMap]string
	var order [smallMap]uint8
	n := 0
	for k, v := range m {
		keys[n], vals[n] = k, v
		n++
	}
	for _, j := range sortSmall(keys[:n], order[:n]) {
		HashString(w, keys[j])
		HashString(w, vals[j])
	}
}

// HashFields writes the date.
func (d Date) HashFields(w *FieldHasher) {
	w.buf = append(w.buf, 'd')
	w.buf = binary.AppendVarint(w.buf, int64(d))
}

// HashFields writes the instant.
func (t DateTime) HashFields(w *FieldHasher) {
	w.buf = append(w.buf, 'D')
	w.buf = binary.AppendVarint(w.buf, int64(t))
}

// marshalJSON is json.Marshal without HTML escaping.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode appends a newline
}
