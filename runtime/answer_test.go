package runtime

import "testing"

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
		{"12,50 EUR", num("12.5"), false},
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
