package eval

import (
	"math"
	"testing"
)

func TestDates(t *testing.T) {
	for _, s := range []string{"1970-01-01", "2026-03-14", "2024-02-29", "1969-12-31", "0001-01-01", "9999-12-31", "1600-03-01", "2000-02-29", "1900-03-01"} {
		d, err := parseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		if d.String() != s {
			t.Errorf("round trip %s = %s", s, d)
		}
	}
	if d, _ := parseDate("1970-01-02"); d != 1 {
		t.Errorf("day number %d", d)
	}
	if d, _ := parseDate("1969-12-31"); d != -1 {
		t.Errorf("day number %d", d)
	}
	for _, bad := range []string{"2026-02-29", "2026-3-14", "26-03-14", "2026-03-14T00:00", "", "2026-03-14 ", "0000-01-01", "2026-00-10", "2026-04-31", "+026-01-01", "2026-01-0a"} {
		if _, err := parseDate(bad); err == nil {
			t.Errorf("parseDate(%q) accepted", bad)
		}
	}
	d, _ := parseDate("9999-12-31")
	if got := (d + 1).String(); got != "10000-01-01" {
		t.Errorf("beyond 9999: %s", got)
	}
	if got := date(-719528).String(); got != "0000-01-01" {
		t.Errorf("year 0: %s", got)
	}
	if got := date(-719529).String(); got != "-1-12-31" {
		t.Errorf("year -1: %s", got)
	}
	// Extreme day numbers render; day arithmetic wraps like int32.
	_ = date(math.MaxInt32).String()
	_ = date(math.MinInt32).String()
	if v, _ := arith("+", date(math.MaxInt32), int64(1), true); v != date(math.MinInt32) {
		t.Errorf("date wrap: %v", v)
	}
	if v, _ := arith("+", date(0), int64(1)<<32+1, true); v != date(1) {
		t.Errorf("days truncated to int32: %v", v)
	}
	for in, want := range map[string]string{
		"2026-03-14T09:30:00Z":      "2026-03-14T09:30:00Z",
		"2026-03-14t09:30:00z":      "2026-03-14T09:30:00Z",
		"2026-03-14T10:30:00+01:00": "2026-03-14T09:30:00Z",
		"2026-03-14T00:30-01:00":    "2026-03-14T01:30:00Z",
		"2026-03-14T00:30+01:00":    "2026-03-13T23:30:00Z",
		"2026-03-14T09:30":          "2026-03-14T09:30:00Z",
		"2026-03-14T09:30:59":       "2026-03-14T09:30:59Z",
		"1969-12-31T23:59:59Z":      "1969-12-31T23:59:59Z",
	} {
		dt, err := parseDateTime(in)
		if err != nil || dt.String() != want {
			t.Errorf("parseDateTime(%s) = %s, %v; want %s", in, dt, err, want)
		}
	}
	for _, bad := range []string{"2026-03-14", "2026-03-14T09:30:00.5Z", "2026-03-14T24:00", "2026-03-14T09:60", "2026-03-14T09:30:00+1:00", "2026-02-30T09:30", "2026-03-14 09:30", "2026-03-14T09:30:00Zx"} {
		if dt, err := parseDateTime(bad); err == nil {
			t.Errorf("parseDateTime(%q) = %s, want an error", bad, dt)
		}
	}
}

func TestArgsFromJSON(t *testing.T) {
	m, err := ArgsFromJSON([]byte(`{"s":"x","i":-5,"f":5.0,"e":1e3,"b":false,"n":null,"big":18446744073709551616,"a":[],"o":{}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"s": "string", "i": "int", "f": "decimal", "e": "decimal", "b": "bool", "n": "null", "big": "decimal", "a": "array", "o": "object"}
	for k, kind := range want {
		if got := jsonKind(m[k]); got != kind {
			t.Errorf("%s: %s, want %s", k, got, kind)
		}
	}
	if m["i"].Int != -5 || m["f"].Num != 5 || m["e"].Num != 1000 {
		t.Errorf("numbers: %+v %+v %+v", m["i"], m["f"], m["e"])
	}
	for _, bad := range []string{`"x"`, `{"a":1e999}`, `{`, `{}x`, `{"a":1,"a":2}`, `[]`} {
		if _, err := ArgsFromJSON([]byte(bad)); err == nil {
			t.Errorf("ArgsFromJSON(%s) accepted", bad)
		}
	}
}

func TestJSONRendering(t *testing.T) {
	for _, tc := range []struct {
		v    value
		want string
	}{
		{nil, "null"}, {"a\u2028", `"a\u2028"`}, {"<&>", `"<&>"`}, {"\xff", `"\ufffd"`}, {"\x01\t\"\\", `"\u0001\t\"\\"`}, {int64(-1), "-1"}, {1e21, "1e+21"}, {1e20, "100000000000000000000"},
		{0.000001, "0.000001"}, {1e-7, "1e-7"}, {math.Inf(1), "null"}, {math.NaN(), "null"}, {true, "true"},
		{date(0), `"1970-01-01"`}, {dateTime(90), `"1970-01-01T00:01:30Z"`}, {[]value{int64(1), "x", nil}, `[1,"x",null]`}, {[]value{}, "[]"},
	} {
		if got := string(appendJSON(nil, tc.v)); got != tc.want {
			t.Errorf("appendJSON(%v) = %s, want %s", tc.v, got, tc.want)
		}
	}
}
