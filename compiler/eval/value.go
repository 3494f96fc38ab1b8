package eval

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/ir"
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
//	[]value    a list literal
type value = any

// date is a day: the number of days since 1970-01-01 (proleptic Gregorian).
type date int64

// dateTime is an instant, always in UTC.
type dateTime struct{ t time.Time }

const dateLayout = "2006-01-02"

// parseDate parses YYYY-MM-DD strictly.
func parseDate(s string) (date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil || len(s) != len(dateLayout) {
		return 0, fmt.Errorf("invalid date %q (want YYYY-MM-DD)", s)
	}
	return date(t.Unix() / 86400), nil
}

// String renders the date as YYYY-MM-DD (years outside 0000-9999 with as
// many digits as needed and a sign).
func (d date) String() string { return string(d.append(nil)) }

// append writes the date as YYYY-MM-DD. The conversion is Howard Hinnant's
// days-to-civil algorithm, exact for every day number that does not
// overflow int64 arithmetic.
func (d date) append(b []byte) []byte {
	z := int64(d) + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day := doy - (153*mp+2)/5 + 1
	month := mp + 3
	if month > 12 {
		month -= 12
	}
	if month <= 2 {
		y++
	}
	if y >= 0 && y < 10000 {
		b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	} else {
		b = fmt.Appendf(b, "%04d", y)
	}
	return append(b, '-', byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10))
}

// datetime layouts accepted besides RFC 3339: the language's literal forms,
// read as UTC.
var dateTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"}

func parseDateTime(s string) (dateTime, error) {
	for _, l := range dateTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return dateTime{t.UTC()}, nil
		}
	}
	return dateTime{}, fmt.Errorf("invalid datetime %q (want RFC 3339, e.g. 2026-03-14T09:30:00Z)", s)
}

func (d dateTime) String() string { return d.t.UTC().Format(time.RFC3339Nano) }

// fromIR converts a constant to a value. When want is given and is decimal or
// money, an int constant becomes a float64; enum, ref, string and text
// constants are strings; dates and date-times are parsed.
func fromIR(v *ir.Value, want *ir.Type) (value, error) {
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
		out = v.Num
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
	default:
		return nil, fmt.Errorf("constant of kind %s", v.Kind)
	}
	return coerce(out, want), nil
}

// coerce converts an int64 to float64 when t is decimal or money: the only
// implicit conversion of the language.
func coerce(v value, t *ir.Type) value {
	if i, ok := v.(int64); ok && t != nil && (t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney) {
		return float64(i)
	}
	return v
}

// equal is the language's ==: records and refs by id, an enum against a
// string by value name, null equal only to null, int against decimal
// numerically, floats as IEEE (NaN is unequal to everything).
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
		return ok && x.t.Equal(y.t)
	case []value:
		y, ok := b.([]value)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
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
			c := x.t.Compare(y.t)
			return cmpOp(op, c, 0), true
		}
	}
	return false, false
}

func cmpOp[T int | int64 | float64 | string | date](op string, x, y T) bool {
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
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case int64:
		return "int"
	case float64:
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
	}
	return fmt.Sprintf("%T", v)
}

// appendJSON renders v as JSON with the package's rules: a record is an
// object with "id" first and then its fields in declaration order; a list
// is an array; dates are "YYYY-MM-DD", date-times RFC 3339 in UTC; numbers
// as encoding/json writes them, except that NaN and ±Inf (which JSON cannot
// carry) render as null; strings with encoding/json's escaping.
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
	case bool:
		return strconv.AppendBool(b, x)
	case date:
		b = append(b, '"')
		b = x.append(b)
		return append(b, '"')
	case dateTime:
		return appendString(b, x.String())
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
	}
	return appendString(b, fmt.Sprint(v))
}

func appendRecord(b []byte, e *ir.Entity, id string, vals []value) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	for i, f := range e.Fields {
		b = append(b, ',')
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

// appendString writes s as encoding/json does, HTML escaping included.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			j, _ := json.Marshal(s)
			return append(b, j...)
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

// snakeCase converts an entity name to lower snake case for new ids:
// an underscore goes before an upper-case letter that follows a lower-case
// letter or digit, or that starts a new word after an acronym
// (LineItem → line_item, HTTPRequest → http_request, OrderV2 → order_v2).
func snakeCase(name string) string {
	var sb strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 {
			prev := rs[i-1]
			prevLowerOrDigit := (prev >= 'a' && prev <= 'z') || (prev >= '0' && prev <= '9')
			prevUpper := prev >= 'A' && prev <= 'Z'
			nextLower := i+1 < len(rs) && rs[i+1] >= 'a' && rs[i+1] <= 'z'
			if prevLowerOrDigit || (prevUpper && nextLower) {
				sb.WriteByte('_')
			}
		}
		if upper {
			r += 'a' - 'A'
		}
		sb.WriteRune(r)
	}
	return sb.String()
}
