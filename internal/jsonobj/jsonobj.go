// Package jsonobj is a JSON object that keeps its members in the order they
// were added: tool schemas and probe candidates are written in a fixed
// order, byte for byte the same for the same world.
package jsonobj

import (
	"bytes"
	"encoding/json"
)

// Object is a JSON object's members, in order.
type Object []Member

// Member is one key and its value (anything encoding/json encodes).
type Member struct {
	Key   string
	Value any
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(m.Value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// M is the member key: value.
func M(key string, value any) Member { return Member{Key: key, Value: value} }
