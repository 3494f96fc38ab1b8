package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// A Date is a calendar day in the proleptic Gregorian calendar, stored as
// the number of days since 1970-01-01 (which is Date(0)). Dates compare with
// < and ==, and d+n is n days later; the methods say the same in words. Its
// JSON and text form is "2026-03-14". Dates of generated worlds lie in years
// 1 to 9999 (ParseDate and NewDate accept no others).
type Date int32

// DateTime is an instant at second precision, UTC, stored as seconds since
// 1970-01-01T00:00:00Z. Its JSON and text form is RFC 3339 in UTC,
// "2026-03-14T09:30:00Z".
type DateTime int64

// A Clock is the world's clock. There is no wall-clock time anywhere in a
// world: "today" is the world's date, fixed by its spec.
type Clock struct {
	Today Date `json:"today"` // the world's date
}

// Now is the start of Today, 00:00:00 UTC: the world's clock does not tick.
func (c Clock) Now() DateTime { return DateTime(int64(c.Today) * secondsPerDay) }

const secondsPerDay = 86400

// daysFromCivil is the day number of y-m-d (H. Hinnant's algorithm).
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

func isLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if isLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// NewDate returns the date year-month-day, or an error if there is no such
// day or the year is outside 1..9999.
func NewDate(year, month, day int) (Date, error) {
	if year < 1 || year > 9999 {
		return 0, fmt.Errorf("year %d out of range 1..9999", year)
	}
	if month < 1 || month > 12 {
		return 0, fmt.Errorf("month %d out of range 1..12", month)
	}
	if day < 1 || day > daysIn(year, month) {
		return 0, fmt.Errorf("%04d-%02d has no day %d", year, month, day)
	}
	return Date(daysFromCivil(year, month, day)), nil
}

// ParseDate parses "YYYY-MM-DD". Errors read
// `expected a date "YYYY-MM-DD", got "14/03/2026"` or `"2026-02-30": 2026-02 has no day 30`.
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return 0, fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", quoteTrunc(s))
	}
	y, ok1 := digits(s[0:4])
	m, ok2 := digits(s[5:7])
	d, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return 0, fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", quoteTrunc(s))
	}
	date, err := NewDate(y, m, d)
	if err != nil {
		return 0, fmt.Errorf("invalid date %q: %v", s, err)
	}
	return date, nil
}

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

// MustDate is ParseDate for constants of generated code; it panics on an
// invalid date (the compiler has already checked them).
func MustDate(s string) Date {
	d, err := ParseDate(s)
	if err != nil {
		panic("runtime.MustDate: " + err.Error())
	}
	return d
}

// DateOf returns the date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date(daysFromCivil(y, int(m), d))
}

// Civil returns the year, month (1-12) and day of the month.
func (d Date) Civil() (year, month, day int) { return civilFromDays(int(d)) }

// Year returns the year.
func (d Date) Year() int { y, _, _ := d.Civil(); return y }

// Month returns the month, 1-12.
func (d Date) Month() int { _, m, _ := d.Civil(); return m }

// Day returns the day of the month, 1-31.
func (d Date) Day() int { _, _, day := d.Civil(); return day }

// Weekday returns the day of the week.
func (d Date) Weekday() time.Weekday {
	// 1970-01-01 was a Thursday.
	w := (int(d) + 4) % 7
	if w < 0 {
		w += 7
	}
	return time.Weekday(w)
}

// AddDays returns the date n days later (earlier for negative n).
func (d Date) AddDays(n int) Date { return d + Date(n) }

// AddMonths returns the same day n months later, clamped to the end of the
// month (2026-01-31 plus one month is 2026-02-28).
func (d Date) AddMonths(n int) Date {
	y, m, day := d.Civil()
	total := y*12 + (m - 1) + n
	y, m = total/12, total%12+1
	if total < 0 && total%12 != 0 {
		y, m = total/12-1, total%12+13
	}
	return Date(daysFromCivil(y, m, min(day, daysIn(y, m))))
}

// EndOfMonth returns the last day of d's month (2026-02-10 is 2026-02-28,
// 2028-02-10 2028-02-29): the DSL's end_of_month.
func (d Date) EndOfMonth() Date {
	y, m, _ := d.Civil()
	return Date(daysFromCivil(y, m, daysIn(y, m)))
}

// Sub returns the number of days from o to d (d - o).
func (d Date) Sub(o Date) int { return int(d) - int(o) }

// DaysBetween returns the number of days from a to b (b - a), the DSL's
// days_between(a, b).
func DaysBetween(a, b Date) int { return int(b) - int(a) }

// Before reports whether d is before o.
func (d Date) Before(o Date) bool { return d < o }

// After reports whether d is after o.
func (d Date) After(o Date) bool { return d > o }

// Compare returns -1, 0 or +1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d < o:
		return -1
	case d > o:
		return 1
	}
	return 0
}

// Time returns the start of the day in UTC.
func (d Date) Time() time.Time { return time.Unix(int64(d)*secondsPerDay, 0).UTC() }

// String returns "YYYY-MM-DD".
func (d Date) String() string { return string(d.appendTo(make([]byte, 0, 10))) }

func (d Date) appendTo(b []byte) []byte {
	y, m, day := d.Civil()
	if y < 0 || y > 9999 {
		b = strconv.AppendInt(b, int64(y), 10)
	} else {
		b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10))
	}
	return append(b, '-', byte('0'+m/10), byte('0'+m%10), '-', byte('0'+day/10), byte('0'+day%10))
}

// MarshalText implements encoding.TextMarshaler; encoding/json uses it to
// write the date as a JSON string.
func (d Date) MarshalText() ([]byte, error) { return d.appendTo(make([]byte, 0, 10)), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (d *Date) UnmarshalText(b []byte) error {
	v, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// UnmarshalJSON decodes "YYYY-MM-DD"; null leaves d unchanged.
func (d *Date) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", describeJSON(b))
	}
	if bytes.IndexByte(b, '\\') >= 0 {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("expected a date \"YYYY-MM-DD\", got %s", describeJSON(b))
		}
		return d.UnmarshalText([]byte(s))
	}
	return d.UnmarshalText(b[1 : len(b)-1])
}

// NewDateTime returns the instant hour:minute:second UTC of the date d, or
// an error if a component is out of range.
func NewDateTime(d Date, hour, minute, second int) (DateTime, error) {
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 {
		return 0, fmt.Errorf("time %02d:%02d:%02d out of range", hour, minute, second)
	}
	return DateTime(int64(d)*secondsPerDay + int64(hour*3600+minute*60+second)), nil
}

// ParseDateTime parses an RFC 3339 date-time and converts it to UTC:
// "2026-03-14T09:30:00Z", "2026-03-14T10:30:00+01:00". Seconds may be left
// out ("2026-03-14T09:30Z"), and so may the zone, which then is UTC (the
// world's zone). Fractions of a second are rejected.
func ParseDateTime(s string) (DateTime, error) {
	bad := func() (DateTime, error) {
		return 0, fmt.Errorf("expected a date-time \"YYYY-MM-DDThh:mm:ssZ\", got %s", quoteTrunc(s))
	}
	if len(s) < 16 || (s[10] != 'T' && s[10] != 't') {
		return bad()
	}
	if s[4] != '-' || s[7] != '-' {
		return bad()
	}
	y, ok1 := digits(s[0:4])
	mo, ok2 := digits(s[5:7])
	dd, ok3 := digits(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return bad()
	}
	d, err := NewDate(y, mo, dd)
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
	dt, err := NewDateTime(d, h, mi, sec)
	if err != nil {
		return 0, fmt.Errorf("invalid date-time %s: %v", quoteTrunc(s), err)
	}
	return dt - DateTime(offset), nil
}

// MustDateTime is ParseDateTime for constants of generated code; it panics
// on an invalid value.
func MustDateTime(s string) DateTime {
	t, err := ParseDateTime(s)
	if err != nil {
		panic("runtime.MustDateTime: " + err.Error())
	}
	return t
}

// DateTimeOf returns t truncated to the second, in UTC.
func DateTimeOf(t time.Time) DateTime { return DateTime(t.Unix()) }

// Date returns the (UTC) day of the instant.
func (t DateTime) Date() Date {
	s := int64(t)
	d := s / secondsPerDay
	if s%secondsPerDay < 0 {
		d--
	}
	return Date(d)
}

// Clock returns the hour, minute and second of the day (UTC).
func (t DateTime) Clock() (hour, minute, second int) {
	s := int(int64(t) - int64(t.Date())*secondsPerDay)
	return s / 3600, s / 60 % 60, s % 60
}

// Add returns the instant d later.
func (t DateTime) Add(d time.Duration) DateTime { return t + DateTime(d/time.Second) }

// AddDays returns the instant n days later.
func (t DateTime) AddDays(n int) DateTime { return t + DateTime(n)*secondsPerDay }

// Sub returns the duration t - o.
func (t DateTime) Sub(o DateTime) time.Duration { return time.Duration(t-o) * time.Second }

// Before reports whether t is before o.
func (t DateTime) Before(o DateTime) bool { return t < o }

// After reports whether t is after o.
func (t DateTime) After(o DateTime) bool { return t > o }

// Compare returns -1, 0 or +1 as t is before, equal to or after o.
func (t DateTime) Compare(o DateTime) int {
	switch {
	case t < o:
		return -1
	case t > o:
		return 1
	}
	return 0
}

// Time returns the instant as a time.Time in UTC.
func (t DateTime) Time() time.Time { return time.Unix(int64(t), 0).UTC() }

// String returns "YYYY-MM-DDThh:mm:ssZ".
func (t DateTime) String() string { return string(t.appendTo(make([]byte, 0, 20))) }

func (t DateTime) appendTo(b []byte) []byte {
	b = t.Date().appendTo(b)
	h, m, s := t.Clock()
	return append(b, 'T', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+m/10), byte('0'+m%10),
		':', byte('0'+s/10), byte('0'+s%10), 'Z')
}

// MarshalText implements encoding.TextMarshaler; encoding/json uses it to
// write the instant as a JSON string.
func (t DateTime) MarshalText() ([]byte, error) { return t.appendTo(make([]byte, 0, 20)), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *DateTime) UnmarshalText(b []byte) error {
	v, err := ParseDateTime(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// UnmarshalJSON decodes an RFC 3339 string (see ParseDateTime); null
// leaves t unchanged.
func (t *DateTime) UnmarshalJSON(b []byte) error {
	b = trimJSONSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return fmt.Errorf("expected a date-time \"YYYY-MM-DDThh:mm:ssZ\", got %s", describeJSON(b))
	}
	if bytes.IndexByte(b, '\\') >= 0 {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("expected a date-time \"YYYY-MM-DDThh:mm:ssZ\", got %s", describeJSON(b))
		}
		return t.UnmarshalText([]byte(s))
	}
	return t.UnmarshalText(b[1 : len(b)-1])
}
