package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// A value is what an expression evaluates to. Its dynamic type is one of:
//
//	nil        null
//	string     string, text, enum (the value name), ref (the id)
//	int64      int
//	float64    decimal, money
//	bool       bool
//	date       date
//	dateTime   datetime
//	*row       a record (live: reads see later writes of the same call)
//	[]value    a list (immutable, see composite.go)
//	*mapValue  a map<string, T> (immutable)
//	*structValue a value record (immutable)
type value = any

// date is a day, runtime.Date itself: an int32 number of days since
// 1970-01-01 (proleptic Gregorian), so that parsing, rendering and day
// arithmetic are the generated code's by construction.
type date = runtime.Date

// dateTime is an instant at second precision, runtime.DateTime itself.
type dateTime = runtime.DateTime

// decimal is an exact decimal or money of a world of exact numbers,
// runtime.Decimal itself; a world of float numbers has float64 instead.
type decimal = runtime.Decimal

// parseDate parses "YYYY-MM-DD" (runtime.ParseDate: a year in 1..9999 and
// a day that exists).
func parseDate(s string) (date, error) { return runtime.ParseDate(s) }

// parseDateTime parses an RFC 3339 date-time at second precision
// (runtime.ParseDateTime: seconds and zone optional, no fractions).
func parseDateTime(s string) (dateTime, error) { return runtime.ParseDateTime(s) }

// fromIR converts a constant to a value. A decimal or money constant is a
// decimal when it has its exact value (Dec), a float64 otherwise; when want
// is given and is decimal or money, an int constant becomes a decimal
// (exact) or a float64; enum, ref, string and text constants are strings;
// dates and date-times are parsed.
func fromIR(v *ir.Value, want *ir.Type, exact bool) (value, error) {
	if v == nil {
		return nil, fmt.Errorf("missing constant")
	}
	var out value
	switch v.Kind {
	case ir.KindNull:
		return nil, nil
	case ir.KindString, ir.KindText, ir.KindEnum, ir.KindRef:
		out = v.Str
	case ir.KindInt:
		out = v.Int
	case ir.KindDecimal, ir.KindMoney:
		if v.Dec != "" {
			d, err := runtime.ParseDecimal(v.Dec)
			if err != nil {
				return nil, fmt.Errorf("decimal %s: %v", v.Dec, err)
			}
			out = d
		} else {
			out = v.Num
		}
	case ir.KindBool:
		out = v.Bool
	case ir.KindDate:
		d, err := parseDate(v.Str)
		if err != nil {
			return nil, err
		}
		out = d
	case ir.KindDateTime:
		d, err := parseDateTime(v.Str)
		if err != nil {
			return nil, err
		}
		out = d
	case ir.KindList:
		var elem *ir.Type
		if want != nil && want.Kind == ir.KindList {
			elem = want.Elem
		}
		list := make([]value, len(v.List))
		for i, e := range v.List {
			x, err := fromIR(e, elem, exact)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %v", i, err)
			}
			list[i] = x
		}
		return list, nil
	case ir.KindMap:
		var elem *ir.Type
		if want != nil && want.Kind == ir.KindMap {
			elem = want.Elem
		}
		keys := make([]string, len(v.Entries))
		vals := make([]value, len(v.Entries))
		for i, e := range v.Entries {
			x, err := fromIR(e.Value, elem, exact)
			if err != nil {
				return nil, fmt.Errorf("[%q]: %v", e.Key, err)
			}
			keys[i], vals[i] = e.Key, x
		}
		return newMap(keys, vals), nil
	case ir.KindStruct:
		if want == nil || want.Kind != ir.KindStruct || want.Struct == nil {
			return nil, fmt.Errorf("a record constant without its record type")
		}
		d := want.Struct
		if len(v.Fields) != numFields(d) {
			return nil, fmt.Errorf("%s constant with %d fields, want %d", d.Name, len(v.Fields), numFields(d))
		}
		vals := make([]value, len(v.Fields))
		var ferr error
		eachField(d, func(i int, f *ir.Field) bool {
			x, err := fromIR(v.Fields[i], f.Type, exact)
			if err != nil {
				ferr = fmt.Errorf(".%s: %v", f.Name, err)
				return false
			}
			vals[i] = x
			return true
		})
		if ferr != nil {
			return nil, ferr
		}
		return &structValue{def: d, vals: vals}, nil
	default:
		return nil, fmt.Errorf("constant of kind %s", v.Kind)
	}
	return coerce(out, want, exact), nil
}

// coerce converts an int64 to a decimal (exact) or a float64 when t is
// decimal or money: the only implicit conversion of the language.
func coerce(v value, t *ir.Type, exact bool) value {
	if i, ok := v.(int64); ok && t != nil && (t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney) {
		return intToNum(i, exact)
	}
	return v
}

// intToNum is the int i as a decimal (exact) or a float64.
func intToNum(i int64, exact bool) value {
	if exact {
		return runtime.DecimalFromInt(i)
	}
	return float64(i)
}

// equal is the language's ==: records and refs by id, an enum against a
// string by value name, null equal only to null, int against decimal
// numerically, floats as IEEE (NaN is unequal to everything); lists element
// by element, maps by keys and values, value records of the same record
// type field by field.
func equal(a, b value) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if ra, ok := a.(*row); ok {
		a = ra.id
	}
	if rb, ok := b.(*row); ok {
		b = rb.id
	}
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y
		case decimal:
			return runtime.DecimalFromInt(x) == y
		}
	case decimal:
		switch y := b.(type) {
		case int64:
			return x == runtime.DecimalFromInt(y)
		case decimal:
			return x == y
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return x == float64(y)
		case float64:
			return x == y
		}
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case date:
		y, ok := b.(date)
		return ok && x == y
	case dateTime:
		y, ok := b.(dateTime)
		return ok && x == y
	case []value, *mapValue, *structValue:
		return deepEqual(a, b, false)
	}
	return false
}

// order evaluates a < <= > >= b with Go's operators on numbers (IEEE: any
// comparison with NaN is false), day numbers, instants and strings (byte
// order). Ordering against null is false. ok is false when the operands
// cannot be ordered.
func order(op string, a, b value) (result, ok bool) {
	if a == nil || b == nil {
		return false, true
	}
	switch x := a.(type) {
	case int64:
		switch y := b.(type) {
		case int64:
			return cmpOp(op, x, y), true
		case float64:
			return cmpOp(op, float64(x), y), true
		case decimal:
			return cmpOp(op, int64(runtime.DecimalFromInt(x).Cmp(y)), 0), true
		}
	case decimal:
		switch y := b.(type) {
		case int64:
			return cmpOp(op, int64(x.Cmp(runtime.DecimalFromInt(y))), 0), true
		case decimal:
			return cmpOp(op, int64(x.Cmp(y)), 0), true
		}
	case float64:
		switch y := b.(type) {
		case int64:
			return cmpOp(op, x, float64(y)), true
		case float64:
			return cmpOp(op, x, y), true
		}
	case string:
		if y, ok := b.(string); ok {
			return cmpOp(op, x, y), true
		}
	case date:
		if y, ok := b.(date); ok {
			return cmpOp(op, x, y), true
		}
	case dateTime:
		if y, ok := b.(dateTime); ok {
			return cmpOp(op, x, y), true
		}
	}
	return false, false
}

func cmpOp[T int64 | float64 | string | date | dateTime](op string, x, y T) bool {
	switch op {
	case "<":
		return x < y
	case "<=":
		return x <= y
	case ">":
		return x > y
	case ">=":
		return x >= y
	}
	return false
}

// typeName names a value's dynamic type for messages.
func typeName(v value) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case int64:
		return "int"
	case float64, decimal:
		return "decimal"
	case bool:
		return "bool"
	case date:
		return "date"
	case dateTime:
		return "datetime"
	case *row:
		return "record"
	case []value:
		return "list"
	case *mapValue:
		return "map"
	case *structValue:
		return x.def.Name
	}
	return fmt.Sprintf("%T", v)
}

// appendJSON renders v as JSON with the package's rules: a record is an
// object with "id" first (none for a keyed entity) and then its fields in
// declaration order; a list is an array; a map an object in key order; a
// value record an object of its fields in AllFields order, leaving out the
// fields of a variant's other cases; dates are "YYYY-MM-DD", date-times "YYYY-MM-DDThh:mm:ssZ";
// numbers as encoding/json writes them, except that NaN and ±Inf (which
// JSON cannot carry, and which Call never returns) render as null; strings
// as encoding/json writes them without HTML escaping.
func appendJSON(b []byte, v value) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, x)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case float64:
		return appendFloat(b, x)
	case decimal:
		return runtime.AppendDecimal(b, x)
	case bool:
		return strconv.AppendBool(b, x)
	case date:
		b = append(b, '"')
		b = append(b, x.String()...)
		return append(b, '"')
	case dateTime:
		b = append(b, '"')
		b = append(b, x.String()...)
		return append(b, '"')
	case *row:
		return appendRecord(b, x.ent, x.id, x.vals)
	case *recordData:
		return appendRecord(b, x.ent, x.id, x.vals)
	case []value:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case *mapValue:
		b = append(b, '{')
		for i, k := range x.keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, x.vals[i])
		}
		return append(b, '}')
	case *structValue:
		b = append(b, '{')
		c := x.caseOf()
		first := true
		eachField(x.def, func(i int, f *ir.Field) bool {
			if f != x.def.Tag && !inCase(x.def, f, c) {
				return true
			}
			if !first {
				b = append(b, ',')
			}
			first = false
			b = appendString(b, f.Name)
			b = append(b, ':')
			if i < len(x.vals) {
				b = appendJSON(b, x.vals[i])
			} else {
				b = append(b, "null"...)
			}
			return true
		})
		return append(b, '}')
	}
	return appendString(b, fmt.Sprint(v))
}

// appendRecord renders a record: "id" first and then every field in
// declaration order; for an entity with a key field, no "id" (the key
// field, at its place among the fields, is the id).
func appendRecord(b []byte, e *ir.Entity, id string, vals []value) []byte {
	b = append(b, '{')
	if e.Key == nil {
		b = append(b, `"id":`...)
		b = appendString(b, id)
	}
	for i, f := range e.Fields {
		if i > 0 || e.Key == nil {
			b = append(b, ',')
		}
		b = appendString(b, f.Name)
		b = append(b, ':')
		if i < len(vals) {
			b = appendJSON(b, vals[i])
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}

// appendFloat writes x as encoding/json does (NaN and ±Inf as null).
func appendFloat(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	if a := math.Abs(x); a == 0 || a >= 1e-6 && a < 1e21 {
		// encoding/json's own fast case.
		return strconv.AppendFloat(b, x, 'f', -1, 64)
	}
	j, _ := json.Marshal(x)
	return append(b, j...)
}

// appendString writes s as encoding/json does without HTML escaping (as
// the runtime encodes observations and snapshots).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s)
			return append(b, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// text renders a value for a message: as JSON, a record as its entity and id.
func text(v value) string {
	switch x := v.(type) {
	case *row:
		return fmt.Sprintf("%s %q", x.ent.Name, x.id)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return string(appendJSON(nil, v))
}
