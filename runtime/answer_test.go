package runtime

import (
	"strings"
	"testing"
)

func TestAnswerMatches(t *testing.T) {
	num := func(v ...string) Expected { return Expected{Kind: AnswerNumber, Values: v} }
	for _, c := range []struct {
		answer string
		want   Expected
		ok     bool
	}{
		{"Your balance is $1,234.50.", num("1234.5"), true},
		{"Your balance is 1234.5 USD", num("1234.5"), true},
		{"The refund is €54.04", num("54.04"), true},
		{"The refund is 54.05", num("54.04"), false},
		{"That is 107.980 EUR", num("107.98"), true},
		{"Order inv_12 costs 9", num("12"), false},
		{"12kg", num("12"), true},
		{"-5 degrees", num("-5"), true},
		{"12,50 EUR", num("12.5"), true},
		{"12,50 EUR", num("1250"), false},
		{"Two visits: v1 and v3.", Expected{AnswerText, []string{"v1", "v3"}}, true},
		{"Only V1.", Expected{AnswerText, []string{"v1", "v3"}}, false},
		{"the order #W123", Expected{AnswerText, []string{"#W12"}}, false},
		{"Anna   Schmidt is assigned", Expected{AnswerText, []string{"anna schmidt"}}, true},
		{"It is due on 2026-03-14.", Expected{AnswerDate, []string{"2026-03-14"}}, true},
		{"It is due on 14 March 2026.", Expected{AnswerDate, []string{"2026-03-14"}}, true},
		{"It is due on March 14, 2026.", Expected{AnswerDate, []string{"2026-03-14"}}, true},
		{"It is due on March 15, 2026.", Expected{AnswerDate, []string{"2026-03-14"}}, false},
		{"Yes, it is paid.", Expected{AnswerBool, []string{"true"}}, true},
		{"No.", Expected{AnswerBool, []string{"true"}}, false},
		{"Yes and no", Expected{AnswerBool, []string{"true"}}, false},
		{"There are none.", Expected{AnswerText, nil}, true},
		{"There are some.", Expected{AnswerText, nil}, false},
	} {
		if ok, detail := AnswerMatches(c.answer, c.want); ok != c.ok {
			t.Errorf("AnswerMatches(%q, %v) = %v (%s), want %v", c.answer, c.want, ok, detail, c.ok)
		}
		// The golden answer always matches.
		if ok, detail := AnswerMatches(c.want.Text(), c.want); !ok {
			t.Errorf("the golden answer %q does not match %v: %s", c.want.Text(), c.want, detail)
		}
	}
}

// TestAnswerNumbersLocales holds the reading of numbers written as other
// locales write them, and English numbers to their English reading.
func TestAnswerNumbersLocales(t *testing.T) {
	for _, c := range []struct {
		answer string
		want   []string // every number read, in order
	}{
		// English, as before
		{"1,234", []string{"1234"}},
		{"$1,234.50", []string{"1234.5"}},
		{"1,234,567.89", []string{"1234567.89"}},
		{"1,234.567", []string{"1234.567"}},
		{"1234,567", []string{"1234567"}},
		{"1.5", []string{"1.5"}},
		{"1.234", []string{"1.234"}},
		{"100, 250 and 3", []string{"100", "250", "3"}},
		{"1,2,3", []string{"1", "2", "3"}},
		{"1,234,5", []string{"1234", "5"}},
		{"In 2026 123 claims", []string{"2026", "123"}},
		{"On 14 March 2026.", []string{"14", "2026"}},
		// French: spaces, no-break spaces, a decimal comma
		{"5 800,00 €", []string{"5800"}},
		{"5\u00a0800,00\u00a0€", []string{"5800"}},
		{"5\u202f800,00 €", []string{"5800"}},
		{"1 234 567,89", []string{"1234567.89"}},
		{"1 234,567", []string{"1234.567"}},
		{"1,5", []string{"1.5"}},
		{"12,50 EUR", []string{"12.5"}},
		{"-5 800,25", []string{"-5800.25"}},
		{"Le total est de 5 800,00.", []string{"5800"}},
		{"1,2345", []string{"1.2345"}},
		// German: points and a decimal comma
		{"1.234,50", []string{"1234.5"}},
		{"1.234.567,00", []string{"1234567"}},
		// Swiss: apostrophes
		{"CHF 1'234.50", []string{"1234.5"}},
		{"CHF 1’234’567", []string{"1234567"}},
		{"1'234,50", []string{"1234.5"}},
		{"the claim's 12'5", []string{"12", "5"}},
		// a number groups by one separator throughout
		{"1 234,567,8", []string{"1234", "567", "8"}},
		{"1,234 567", []string{"1234", "567"}},
		{"1'234 567", []string{"1234", "567"}},
	} {
		var got []string
		for _, d := range answerNumbers(normalizeAnswer(c.answer)) {
			got = append(got, d.String())
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("the numbers of %q are %q, want %q", c.answer, got, c.want)
		}
	}
}

// FuzzAnswerMatches holds AnswerMatches to ending without a panic on any
// answer, and to accepting the golden answer.
func FuzzAnswerMatches(f *testing.F) {
	for _, s := range []string{"5 800,00 €", "1.234,50", "CHF 1’234.50", "1,2,3", "-1,", "1'", "1.", "9,999,999,999,999,999,999.5", "none"} {
		f.Add(s, "5800")
	}
	f.Fuzz(func(t *testing.T, answer, want string) {
		for _, kind := range []string{AnswerNumber, AnswerDate, AnswerText, AnswerBool} {
			e := Expected{Kind: kind, Values: []string{want}}
			AnswerMatches(answer, e)
			if kind == AnswerNumber {
				d, err := ParseDecimal(want)
				if err != nil {
					continue
				}
				e.Values = []string{d.String()} // canonical, as Expected holds it
			}
			if kind == AnswerDate {
				if _, err := ParseDate(want); err != nil {
					continue
				}
			}
			if kind == AnswerBool && want != "true" && want != "false" {
				continue
			}
			if kind == AnswerText && normalizeAnswer(want) == "" {
				continue
			}
			if ok, detail := AnswerMatches(e.Text(), e); !ok {
				t.Errorf("the golden answer %q does not match %v: %s", e.Text(), e, detail)
			}
		}
	})
}
