package runtime

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash"
)

// A Hasher computes the canonical SHA-256 digest of a state. Generated code
// feeds it the state's tables ([Journal.HashTo]) plus any other state with
// the Write methods, then reads [Hasher.Sum].
//
// Every item is framed (type tag and length prefix), so different sequences
// of writes never collide by concatenation. A row is represented by its ID
// and the SHA-256 of its canonical encoding: encoding/json of the row
// (struct fields in declared order, map keys sorted, HTML characters not
// escaped). The row digests of a frozen table's base are computed once and
// shared by all its clones, so hashing a state costs one small write per
// row plus one encoding per row changed since the base.
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

// WriteValue adds the canonical encoding of v (as for a row), for state that
// does not live in a table.
func (h *Hasher) WriteValue(v any) {
	d := h.enc.digest(v)
	h.tag('V')
	h.digest(&d)
}

// WriteRow adds one row: its ID and canonical encoding. [Journal.HashTo]
// does the same for every row of every table.
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

// rowEncoder encodes rows canonically with a reusable buffer.
type rowEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
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

func (e *rowEncoder) digest(v any) [32]byte { return sha256.Sum256(e.encode(v)) }

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
