package compiler

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jkind is the kind of a JSON value.
type jkind uint8

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

func (k jkind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// jnode is a JSON value with the byte offsets of its first byte and of the
// byte after it, so that problems are reported inside the data file.
type jnode struct {
	kind     jkind
	off, end int
	b        bool
	str      string   // a string's value, a number's text
	elems    []*jnode // an array's elements
	members  []jmember
}

// jmember is one member of a JSON object; off is the offset of its key.
type jmember struct {
	key string
	off int
	val *jnode
}

// jsonError is a syntax error at a byte offset.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

// parseJSON parses a JSON document (RFC 8259) into a tree of jnodes. It
// refuses nesting deeper than maxDepth, invalid UTF-8 and trailing data.
func parseJSON(data []byte, maxDepth int) (*jnode, error) {
	p := &jsonParser{data: data, maxDepth: maxDepth}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.off = 3 // a byte order mark
	}
	p.space()
	n, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.off < len(p.data) {
		return nil, p.errorf("unexpected %s after the end of the JSON value", p.describe())
	}
	return n, nil
}

type jsonParser struct {
	data     []byte
	off      int
	maxDepth int
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return &jsonError{off: p.off, msg: fmt.Sprintf(format, args...)}
}

// describe names the byte at the current offset for messages.
func (p *jsonParser) describe() string {
	if p.off >= len(p.data) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.data[p.off:])
	return fmt.Sprintf("%q", r)
}

func (p *jsonParser) space() {
	for p.off < len(p.data) {
		switch p.data[p.off] {
		case ' ', '\t', '\n', '\r':
			p.off++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*jnode, error) {
	if depth > p.maxDepth {
		return nil, p.errorf("JSON nested deeper than %d levels", p.maxDepth)
	}
	if p.off >= len(p.data) {
		return nil, p.errorf("unexpected end of file (expected a JSON value)")
	}
	start := p.off
	switch c := p.data[p.off]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, off: start, end: p.off, str: s}, nil
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number()
	case p.literal("true"):
		return &jnode{kind: jBool, off: start, end: p.off, b: true}, nil
	case p.literal("false"):
		return &jnode{kind: jBool, off: start, end: p.off}, nil
	case p.literal("null"):
		return &jnode{kind: jNull, off: start, end: p.off}, nil
	}
	return nil, p.errorf("unexpected %s (expected a JSON value)", p.describe())
}

func (p *jsonParser) literal(word string) bool {
	if strings.HasPrefix(string(p.data[p.off:min(len(p.data), p.off+len(word))]), word) {
		p.off += len(word)
		return true
	}
	return false
}

func (p *jsonParser) object(depth int) (*jnode, error) {
	n := &jnode{kind: jObject, off: p.off}
	p.off++ // {
	p.space()
	if p.off < len(p.data) && p.data[p.off] == '}' {
		p.off++
		n.end = p.off
		return n, nil
	}
	for {
		p.space()
		if p.off >= len(p.data) || p.data[p.off] != '"' {
			return nil, p.errorf("unexpected %s (expected a string key)", p.describe())
		}
		keyOff := p.off
		key, err := p.string()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.off >= len(p.data) || p.data[p.off] != ':' {
			return nil, p.errorf("unexpected %s (expected :)", p.describe())
		}
		p.off++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: key, off: keyOff, val: v})
		p.space()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == '}' {
			p.off++
			n.end = p.off
			return n, nil
		}
		return nil, p.errorf("unexpected %s (expected , or })", p.describe())
	}
}

func (p *jsonParser) array(depth int) (*jnode, error) {
	n := &jnode{kind: jArray, off: p.off}
	p.off++ // [
	p.space()
	if p.off < len(p.data) && p.data[p.off] == ']' {
		p.off++
		n.end = p.off
		return n, nil
	}
	for {
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.space()
		if p.off < len(p.data) && p.data[p.off] == ',' {
			p.off++
			continue
		}
		if p.off < len(p.data) && p.data[p.off] == ']' {
			p.off++
			n.end = p.off
			return n, nil
		}
		return nil, p.errorf("unexpected %s (expected , or ])", p.describe())
	}
}

// number scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? and keeps
// its text.
func (p *jsonParser) number() (*jnode, error) {
	start, d := p.off, p.data
	i := p.off
	if i < len(d) && d[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case digits() == 0:
		p.off = i
		return nil, p.errorf("malformed number")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if digits() == 0 {
			p.off = i
			return nil, p.errorf("malformed number: digits must follow the decimal point")
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			p.off = i
			return nil, p.errorf("malformed number: digits must follow the exponent")
		}
	}
	p.off = i
	return &jnode{kind: jNumber, off: start, end: i, str: string(d[start:i])}, nil
}

// string scans a JSON string starting at its quote and decodes it.
func (p *jsonParser) string() (string, error) {
	d := p.data
	i := p.off + 1
	// Fast path: no escapes.
	for j := i; j < len(d); j++ {
		c := d[j]
		if c == '"' {
			if !utf8.Valid(d[i:j]) {
				return "", p.badUTF8(i, j)
			}
			p.off = j + 1
			return string(d[i:j]), nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			// Escapes are ASCII and decode to valid UTF-8: checking the raw
			// bytes checks the rest.
			if !utf8.Valid(d[p.off+1 : i]) {
				return "", p.badUTF8(p.off+1, i)
			}
			p.off = i + 1
			return b.String(), nil
		case c < 0x20:
			p.off = i
			return "", p.errorf("control character %q in a string; escape it", c)
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		if i+1 >= len(d) {
			break
		}
		esc := d[i+1]
		i += 2
		switch esc {
		case '"', '\\', '/':
			b.WriteByte(esc)
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			r, ok := hex4(d, i)
			if !ok {
				p.off = i - 2
				return "", p.errorf("malformed \\u escape")
			}
			i += 4
			if utf16.IsSurrogate(r) {
				r2, ok := rune(0), false
				if i+6 <= len(d) && d[i] == '\\' && d[i+1] == 'u' {
					r2, ok = hex4(d, i+2)
				}
				if dec := utf16.DecodeRune(r, r2); ok && dec != utf8.RuneError {
					r = dec
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			b.WriteRune(r)
		default:
			p.off = i - 2
			return "", p.errorf("invalid escape \\%c in a string", esc)
		}
	}
	p.off = len(d)
	return "", p.errorf("string not closed before the end of the file")
}

func (p *jsonParser) badUTF8(from, to int) error {
	for i := from; i < to; {
		r, size := utf8.DecodeRune(p.data[i:to])
		if r == utf8.RuneError && size <= 1 {
			p.off = i
			break
		}
		i += size
	}
	return p.errorf("invalid UTF-8 in a string")
}

func hex4(d []byte, i int) (rune, bool) {
	if i+4 > len(d) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(d[i:i+4]), 16, 16)
	return rune(n), err == nil
}

// lineIndex converts byte offsets of a file to 1-based lines and columns
// (columns count runes, as spec positions do).
type lineIndex struct {
	data   []byte
	starts []int // the offset of each line's first byte

	// The last position asked for: positions are mostly asked in file
	// order, so a column on a long line (a minified JSON file is one line)
	// is counted from there rather than from the line's start.
	lastOff, lastLine, lastCol int
}

func newLineIndex(data []byte) *lineIndex {
	starts := make([]int, 1, len(data)/40+1)
	for i, c := range data {
		if c == '\n' {
			starts = append(starts, i+1)
		}
	}
	return &lineIndex{data: data, starts: starts}
}

// at returns the line and column of byte offset off.
func (x *lineIndex) at(off int) (line, col int) {
	off = max(0, min(off, len(x.data)))
	lo, hi := 0, len(x.starts)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if x.starts[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	line = lo + 1
	if line == x.lastLine && off >= x.lastOff {
		col = x.lastCol + utf8.RuneCount(x.data[x.lastOff:off])
	} else {
		col = utf8.RuneCount(x.data[x.starts[lo]:off]) + 1
	}
	x.lastOff, x.lastLine, x.lastCol = off, line, col
	return line, col
}

// offset returns the byte offset of a 1-based line and byte column.
func (x *lineIndex) offset(line, byteCol int) int {
	if line < 1 || line > len(x.starts) {
		return len(x.data)
	}
	return min(x.starts[line-1]+byteCol-1, len(x.data))
}
