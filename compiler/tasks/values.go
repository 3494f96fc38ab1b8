package tasks

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/ir"
)

// Values move between three forms here: the JSON of observations and
// records as the evaluator renders them (decoded with json.Number, so
// that a number keeps the digits it was written with), the JSON of a
// call's arguments, and the literals of the spec language.

// decode parses JSON into nil, bool, json.Number, string, []any and
// map[string]any.
func decode(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil
	}
	return v
}

// atom is the canonical text of a scalar JSON value, for comparing values
// across observations, arguments and instructions: a string as it is, a
// number in Go's shortest float form, a bool as true/false.
func atom(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return canonNumber(string(x)), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

func canonNumber(s string) string {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return s
}

// atoms adds every scalar inside v to set (map keys included: a map's
// keys are values an agent reads, such as item ids).
func atoms(v any, set map[string]bool) {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			atoms(e, set)
		}
	case map[string]any:
		for k, e := range x {
			set[k] = true
			atoms(e, set)
		}
	default:
		if a, ok := atom(v); ok {
			set[a] = true
		}
	}
}

// minorUnits are the decimals of the currencies whose minor unit is not
// two (ISO 4217); money literals may have at most that many (W031). The
// final check of the written spec catches any this table misses.
var minorUnits = map[string]int{
	"BIF": 0, "CLP": 0, "DJF": 0, "GNF": 0, "ISK": 0, "JPY": 0, "KMF": 0, "KRW": 0, "PYG": 0,
	"RWF": 0, "UGX": 0, "UYI": 0, "VND": 0, "VUV": 0, "XAF": 0, "XOF": 0, "XPF": 0,
	"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3, "CLF": 4, "UYW": 4,
}

// moneyDecimals is how many decimals a money literal of w may have; -1
// when the world's amounts are not checked.
func moneyDecimals(w *ir.World) int {
	if w.Currency == "" {
		return -1
	}
	if d, ok := minorUnits[w.Currency]; ok {
		return d
	}
	return 2
}

// decimals is the number of digits after the point of a number's text.
func decimals(s string) int {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(strings.TrimRight(s[i+1:], "0"))
	}
	return 0
}

// lit renders v, a JSON value of type t, as a literal of the spec
// language, or reports that it has none (a number with an exponent, an
// amount finer than the currency allows, a shape the type does not
// take). Enum values and refs are written as strings: a string compares
// with an enum and is an id, and cannot be taken for a seed handle or a
// local of the same name.
func (x *synth) lit(v any, t *ir.Type) (string, bool) {
	if v == nil {
		if t.Optional || t.Kind == ir.KindNull {
			return "null", true
		}
		return "", false
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindEnum, ir.KindRef:
		s, ok := v.(string)
		if !ok {
			return "", false
		}
		return strconv.Quote(s), true
	case ir.KindInt, ir.KindDecimal, ir.KindMoney:
		n, ok := v.(json.Number)
		if !ok {
			return "", false
		}
		s := string(n)
		if strings.ContainsAny(s, "eE") {
			return "", false
		}
		if t.Kind == ir.KindInt && strings.Contains(s, ".") {
			return "", false
		}
		if t.Kind == ir.KindMoney && x.money >= 0 && decimals(s) > x.money {
			return "", false
		}
		return s, true
	case ir.KindBool:
		b, ok := v.(bool)
		if !ok {
			return "", false
		}
		return strconv.FormatBool(b), true
	case ir.KindDate:
		s, ok := v.(string)
		if !ok || len(s) != 10 || s[4] != '-' || s[7] != '-' {
			return "", false
		}
		return s, true
	case ir.KindDateTime:
		s, ok := v.(string)
		if !ok || len(s) < 16 || s[10] != 'T' {
			return "", false
		}
		return s, true
	case ir.KindList:
		xs, ok := v.([]any)
		if !ok {
			return "", false
		}
		parts := make([]string, 0, len(xs))
		for _, e := range xs {
			s, ok := x.lit(e, t.Elem)
			if !ok {
				return "", false
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]", true
	case ir.KindMap:
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		if len(m) == 0 {
			return "{}", true
		}
		keys := sortedKeys(m)
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			s, ok := x.lit(m[k], t.Elem)
			if !ok {
				return "", false
			}
			parts = append(parts, strconv.Quote(k)+": "+s)
		}
		return "{ " + strings.Join(parts, ", ") + " }", true
	case ir.KindStruct:
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		return x.structLit(t.Struct, m)
	}
	return "", false
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// structLit renders a value record: its tag as a case name, then every
// field of its case that is not null (absent optional fields are null;
// a null field with a default is written out).
func (x *synth) structLit(sd *ir.StructDef, m map[string]any) (string, bool) {
	var parts []string
	if sd.Tag != nil {
		tag, ok := m[sd.Tag.Name].(string)
		if !ok || !isIdent(tag) {
			return "", false
		}
		parts = append(parts, sd.Tag.Name+": "+tag)
	}
	for _, f := range sd.AllFields() {
		if f == sd.Tag {
			continue
		}
		v, present := m[f.Name]
		if !present {
			continue // a field of another case
		}
		if v == nil && f.Default == nil {
			continue
		}
		s, ok := x.lit(v, f.Type)
		if !ok {
			return "", false
		}
		parts = append(parts, f.Name+": "+s)
	}
	if len(parts) == 0 {
		return "", false // a record literal gives at least one field
	}
	return sd.Name + " { " + strings.Join(parts, ", ") + " }", true
}

// recordLit renders a whole record of e (its JSON object) as an entity
// literal, `E { id: "…", f: v, … }`, or reports the fields it cannot
// write.
func (x *synth) recordLit(e *ir.Entity, m map[string]any) (string, []*ir.Field) {
	var parts []string
	if e.Key == nil {
		id, _ := m["id"].(string)
		parts = append(parts, "id: "+strconv.Quote(id))
	}
	var bad []*ir.Field
	for _, f := range e.Fields {
		v := m[f.Name]
		if v == nil && f.Default == nil {
			continue
		}
		s, ok := x.lit(v, f.Type)
		if !ok {
			bad = append(bad, f)
			continue
		}
		parts = append(parts, f.Name+": "+s)
	}
	return e.Name + " { " + strings.Join(parts, ", ") + " }", bad
}

// toJSON encodes a decoded JSON value again (for call arguments).
func toJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte("null")
	}
	return b
}

// isIdent reports whether s is an identifier of the language.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && r >= '0' && r <= '9':
		default:
			return false
		}
	}
	return true
}

// addDays is the date d (YYYY-MM-DD) moved by n days.
func addDays(d string, n int) string {
	t, err := time.Parse(time.DateOnly, d)
	if err != nil {
		return d
	}
	return t.AddDate(0, 0, n).Format(time.DateOnly)
}
