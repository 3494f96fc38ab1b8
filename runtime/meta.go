package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Meta is a task's free-form metadata, in the order the spec writes it
// (`meta { split: ["train"], weight: 2 }`): entries with unique keys whose
// values are a string, an int64 (a number written without a decimal
// point), a float64, a bool or a []string. As JSON it is an object whose
// members keep that order: {"split":["train"],"weight":2}.
type Meta []MetaEntry

// MetaEntry is one key and value of a Meta.
type MetaEntry struct {
	Key   string
	Value any // string, int64, float64, bool or []string
}

// Get returns the value of key.
func (m Meta) Get(key string) (any, bool) {
	for _, e := range m {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// Clone returns a copy of m that shares no list with it.
func (m Meta) Clone() Meta {
	if m == nil {
		return nil
	}
	out := slices.Clone(m)
	for i, e := range out {
		if xs, ok := e.Value.([]string); ok {
			out[i].Value = slices.Clone(xs)
		}
	}
	return out
}

// MarshalJSON writes m as a JSON object, members in order; a float64 is
// always written with a fraction or an exponent (2.0, not 2), so that it
// reads back as a float64. A value of another type than those of
// MetaEntry, or a float that is not finite, is an error.
func (m Meta) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(e.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		switch v := e.Value.(type) {
		case string, bool, int64:
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return nil, fmt.Errorf("meta %s: %v is not a JSON number", e.Key, v)
			}
		case []string:
			if v == nil {
				e.Value = []string{}
			}
		default:
			return nil, fmt.Errorf("meta %s: a value of type %T", e.Key, e.Value)
		}
		val, err := marshalJSON(e.Value)
		if err != nil {
			return nil, err
		}
		b.Write(val)
		if _, ok := e.Value.(float64); ok && !bytes.ContainsAny(val, ".eE") {
			b.WriteString(".0") // stays a float when read back: 2.0, not 2
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads a JSON object into m, members in order: a number
// without a fraction or exponent that fits becomes an int64, any other a
// float64; an array must hold strings only. Objects, null and duplicate
// keys are errors.
func (m *Meta) UnmarshalJSON(data []byte) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("runtime: meta is not a JSON object")
	}
	out := Meta{}
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		key := tok.(string)
		if seen[key] {
			return fmt.Errorf("runtime: meta key %q twice", key)
		}
		seen[key] = true
		var raw any
		if err := d.Decode(&raw); err != nil {
			return err
		}
		v, err := metaValue(raw)
		if err != nil {
			return fmt.Errorf("runtime: meta %s: %w", key, err)
		}
		out = append(out, MetaEntry{key, v})
	}
	if _, err := d.Token(); err != nil {
		return err
	}
	*m = out
	return nil
}

// metaValue converts a decoded JSON value to a meta value.
func metaValue(raw any) (any, error) {
	switch v := raw.(type) {
	case string, bool:
		return v, nil
	case json.Number:
		if !strings.ContainsAny(string(v), ".eE") {
			if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
				return n, nil
			}
		}
		f, err := v.Float64()
		if err != nil {
			return nil, err
		}
		return f, nil
	case []any:
		xs := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("a list holds strings only, not %v", x)
			}
			xs[i] = s
		}
		return xs, nil
	}
	return nil, fmt.Errorf("a value is a string, number, boolean or list of strings, not %v", raw)
}
