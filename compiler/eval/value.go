package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

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

// date is a day: the number of days since 1970-01-01 (proleptic
// Gregorian), an int32 like runtime.Date, so that day arithmetic wraps the
// same way.
type date int32

// dateTime is an instant at second precision: seconds since
// 1970-01-01T00:00:00Z, like runtime.DateTime.
type dateTime int64

const secondsPerDay = 86400

// parseDate parses "YYYY-MM-DD" as runtime.ParseDate does: exactly that
// shape, a year in 1..9999 and a day that exists.
func parseDate(s string) (date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", quoteTrunc(s))
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", quoteTrunc(s))
	}
	day, err := newDate(y, m, d)
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: %v", s, err)
	}
	return day, nil
}

func newDate(y, m, d int) (date, error) {
	switch {
	case y < 1 || y > 9999:
		return 0, fmt.Errorf("year %d out of range 1..9999", y)
	case m < 1 || m > 12:
		return 0, fmt.Errorf("month %d out of range 1..12", m)
	case d < 1 || d > daysIn(y, m):
		return 0, fmt.Errorf("%04d-%02d has no day %d", y, m, d)
	}
	return date(daysFromCivil(y, m, d)), nil
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the day number of y-m-d (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := m + 9
	if m > 2 {
		mp = m - 3
	}
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int) (y, m, d int) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	if mp < 10 {
		m = mp + 3
	} else {
		m = mp - 9
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}

// digits parses a string of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// String renders the date as YYYY-MM-DD.
func (d date) String() string { return string(d.append(nil)) }

// append writes the date as YYYY-MM-DD; a year outside 0..9999 (reachable
// only by day arithmetic) is written in full, with its sign.
func (d date) append(b []byte) []byte {
	y, m, day := civilFromDays(int(d))
	if y < 0 || y > 9999 {
		b = strconv.AppendInt(b, int64(y), 10)
	} else {
		b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	return append(b, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+day/10), byte('0'+day%10))
}

// parseDateTime parses an RFC 3339 date-time as runtime.ParseDateTime does:
// "2026-03-14T09:30:00Z", "2026-03-14T10:30:00+01:00"; the seconds and the
// zone (then UTC) may be left out; 'T' and 'Z' may be lower case;
// fractions of a second are rejected.
func parseDateTime(s string) (dateTime, error) {
	bad := func() (dateTime, error) {
		return 0, fmt.Errorf("expected a date-time \"YYYY-MM-DDThh:mm:ssZ\", got %s", quoteTrunc(s))
	}
	if len(s) < 16 || (s[10] != 'T' && s[10] != 't') || s[4] != '-' || s[7] != '-' {
		return bad()
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	dd, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	d, err := newDate(y, mo, dd)
	if err != nil {
		return 0, fmt.Errorf("invalid date-time %s: %v", quoteTrunc(s), err)
	}
	rest := s[11:]
	if len(rest) < 5 || rest[2] != ':' {
		return bad()
	}
	h, ok1 := digits(rest[0:2])
	mi, ok2 := digits(rest[3:5])
	if !ok1 || !ok2 {
		return bad()
	}
	sec := 0
	rest = rest[5:]
	if len(rest) >= 3 && rest[0] == ':' {
		v, ok := digits(rest[1:3])
		if !ok {
			return bad()
		}
		sec = v
		rest = rest[3:]
	}
	if len(rest) > 0 && rest[0] == '.' {
		return 0, fmt.Errorf("invalid date-time %s: fractions of a second are not supported", quoteTrunc(s))
	}
	offset := 0
	switch {
	case rest == "" || rest == "Z" || rest == "z":
	case len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':':
		oh, ok1 := digits(rest[1:3])
		om, ok2 := digits(rest[4:6])
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return bad()
		}
		offset = oh*3600 + om*60
		if rest[0] == '-' {
			offset = -offset
		}
	default:
		return bad()
	}
	if h > 23 || mi > 59 || sec > 59 {
		return 0, fmt.Errorf("invalid date-time %s: time %02d:%02d:%02d out of range", quoteTrunc(s), h, mi, sec)
	}
	return dateTime(int64(d)*secondsPerDay + int64(h*3600+mi*60+sec) - int64(offset)), nil
}

func (t dateTime) String() string { return string(t.append(nil)) }

// append writes the instant as YYYY-MM-DDThh:mm:ssZ.
func (t dateTime) append(b []byte) []byte {
	s := int64(t)
	days := s / secondsPerDay
	if s%secondsPerDay < 0 {
		days--
	}
	b = date(days).append(b)
	r := int(s - days*secondsPerDay)
	h, m, sec := r/3600, r/60%60, r%60
	return append(b, 'T', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10),
		':', byte('0'+sec/10), byte('0'+sec%10), 'Z')
}

// quoteTrunc quotes s, cut to 40 runes, as the runtime's messages do.
func quoteTrunc(s string) string {
	n := 0
	for i := range s {
		if n == 40 {
			return strconv.Quote(s[:i]) + "…"
		}
		n++
	}
	return strconv.Quote(s)
}

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
		return ok && x == y
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
// is an array; dates are "YYYY-MM-DD", date-times "YYYY-MM-DDThh:mm:ssZ";
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
	case bool:
		return strconv.AppendBool(b, x)
	case date:
		b = append(b, '"')
		b = x.append(b)
		return append(b, '"')
	case dateTime:
		b = append(b, '"')
		b = x.append(b)
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
