package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestDateAgainstTimePackage(t *testing.T) {
	// every day from 0001-01-01 to 9999-12-31 in steps, plus a dense range
	start := time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	end := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	check := func(tm time.Time) {
		d := DateOf(tm)
		if d.String() != tm.Format("2006-01-02") {
			t.Fatalf("%v: %s", tm, d)
		}
		if d.Weekday() != tm.Weekday() {
			t.Fatalf("%v: weekday %v", tm, d.Weekday())
		}
		if !d.Time().Equal(tm) {
			t.Fatalf("%v: Time %v", tm, d.Time())
		}
		back, err := ParseDate(d.String())
		if err != nil || back != d {
			t.Fatalf("%v: round trip %v %v", tm, back, err)
		}
		y, m, day := d.Civil()
		if y != tm.Year() || m != int(tm.Month()) || day != tm.Day() || d.Year() != y || d.Month() != m || d.Day() != day {
			t.Fatalf("%v: civil %d %d %d", tm, y, m, day)
		}
	}
	for tm := start; !tm.After(end); tm = tm.AddDate(0, 0, 37) {
		check(tm)
	}
	for tm := time.Date(1999, 12, 1, 0, 0, 0, 0, time.UTC); tm.Year() < 2030; tm = tm.AddDate(0, 0, 1) {
		check(tm)
	}
	check(end)
	if MustDate("1970-01-01") != 0 {
		t.Fatal("epoch")
	}
}

func TestDateArithmetic(t *testing.T) {
	d := MustDate("2026-03-14")
	if d.AddDays(20).String() != "2026-04-03" || d.AddDays(-14).String() != "2026-02-28" {
		t.Fatal(d.AddDays(20), d.AddDays(-14))
	}
	if DaysBetween(MustDate("2024-02-28"), MustDate("2024-03-01")) != 2 || MustDate("2026-03-01").Sub(MustDate("2026-02-01")) != 28 {
		t.Fatal("days between")
	}
	for _, c := range [][3]any{
		{"2026-01-31", 1, "2026-02-28"}, {"2024-01-31", 1, "2024-02-29"}, {"2026-03-14", -3, "2025-12-14"},
		{"2026-03-31", 12, "2027-03-31"}, {"2026-05-31", -1, "2026-04-30"}, {"0001-03-01", -2, "0001-01-01"},
	} {
		if got := MustDate(c[0].(string)).AddMonths(c[1].(int)).String(); got != c[2] {
			t.Errorf("%s + %d months = %s, want %s", c[0], c[1], got, c[2])
		}
	}
	a, b := MustDate("2026-03-14"), MustDate("2026-03-15")
	if !a.Before(b) || !b.After(a) || a.Compare(b) != -1 || b.Compare(a) != 1 || a.Compare(a) != 0 || !(a < b) {
		t.Fatal("compare")
	}
}

func TestDateParseErrors(t *testing.T) {
	for in, want := range map[string]string{
		"2026-3-14":  `expected a date "YYYY-MM-DD", got "2026-3-14"`,
		"14/03/2026": `expected a date "YYYY-MM-DD", got "14/03/2026"`,
		"2026-02-29": `invalid date "2026-02-29": 2026-02 has no day 29`,
		"2026-13-01": `invalid date "2026-13-01": month 13 out of range 1..12`,
		"0000-01-01": `invalid date "0000-01-01": year 0 out of range 1..9999`,
		"2026-0a-01": `expected a date "YYYY-MM-DD", got "2026-0a-01"`,
		"":           `expected a date "YYYY-MM-DD", got ""`,
	} {
		_, err := ParseDate(in)
		if err == nil || err.Error() != want {
			t.Errorf("%q: got %v, want %s", in, err, want)
		}
	}
	if _, err := NewDate(2024, 2, 29); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("MustDate did not panic")
		}
	}()
	MustDate("nope")
}

func TestDateJSON(t *testing.T) {
	type rec struct {
		D  Date     `json:"d"`
		P  *Date    `json:"p"`
		T  DateTime `json:"t"`
		PT *DateTime
	}
	r := rec{D: MustDate("2026-03-14"), T: MustDateTime("2026-03-14T09:30:00Z")}
	b, err := json.Marshal(r)
	if err != nil || string(b) != `{"d":"2026-03-14","p":null,"t":"2026-03-14T09:30:00Z","PT":null}` {
		t.Fatal(string(b), err)
	}
	var back rec
	if err := json.Unmarshal(b, &back); err != nil || back != r {
		t.Fatal(back, err)
	}
	if err := json.Unmarshal([]byte(`{"d":"2026-02-30"}`), &back); err == nil || !strings.Contains(err.Error(), "has no day 30") {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"d":"2026\u002d03-14"}`), &back); err != nil || back.D.String() != "2026-03-14" {
		t.Fatal(err)
	}
	// map keys use the text form
	m := map[Date]int{MustDate("2026-01-02"): 1}
	if b, _ := json.Marshal(m); string(b) != `{"2026-01-02":1}` {
		t.Fatal(string(b))
	}
}

func TestDateTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-03-14T09:30:00Z":      "2026-03-14T09:30:00Z",
		"2026-03-14T09:30Z":         "2026-03-14T09:30:00Z",
		"2026-03-14T09:30":          "2026-03-14T09:30:00Z",
		"2026-03-14T09:30:05":       "2026-03-14T09:30:05Z",
		"2026-03-14t09:30:00z":      "2026-03-14T09:30:00Z",
		"2026-03-14T00:30:00+01:00": "2026-03-13T23:30:00Z",
		"2026-03-14T23:30:00-05:30": "2026-03-15T05:00:00Z",
		"1969-12-31T23:59:59Z":      "1969-12-31T23:59:59Z",
	} {
		got, err := ParseDateTime(in)
		if err != nil || got.String() != want {
			t.Errorf("%s: %v %v, want %s", in, got, err, want)
		}
		if tm, _ := time.Parse(time.RFC3339, want); !got.Time().Equal(tm) || DateTimeOf(tm) != got {
			t.Errorf("%s: Time %v", in, got.Time())
		}
	}
	for _, in := range []string{"2026-03-14", "2026-03-14T25:00:00Z", "2026-03-14T09:30:00.5Z", "2026-03-14T09:30:00+0100",
		"2026-02-30T09:30:00Z", "2026-03-14 09:30:00Z", "2026-03-14T09:3x:00Z", "2026-03-14T09:30:00+24:00"} {
		if _, err := ParseDateTime(in); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	dt := MustDateTime("2026-03-14T09:30:00Z")
	if dt.Date() != MustDate("2026-03-14") || dt.AddDays(1).String() != "2026-03-15T09:30:00Z" ||
		dt.Add(90*time.Minute).String() != "2026-03-14T11:00:00Z" || dt.AddDays(1).Sub(dt) != 24*time.Hour {
		t.Fatal("arithmetic")
	}
	if h, m, s := dt.Clock(); h != 9 || m != 30 || s != 0 {
		t.Fatal(h, m, s)
	}
	neg := MustDateTime("1969-12-31T23:00:00Z")
	if neg.Date().String() != "1969-12-31" {
		t.Fatal(neg.Date())
	}
	if !neg.Before(dt) || !dt.After(neg) || dt.Compare(neg) != 1 || neg.Compare(dt) != -1 || dt.Compare(dt) != 0 {
		t.Fatal("compare")
	}
	if c := (Clock{Today: MustDate("2026-03-14")}); c.Now().String() != "2026-03-14T00:00:00Z" {
		t.Fatal(c.Now())
	}
	if _, err := NewDateTime(0, 24, 0, 0); err == nil {
		t.Fatal("hour 24")
	}
}
