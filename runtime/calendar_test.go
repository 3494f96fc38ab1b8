package runtime

import "testing"

func TestCalendar(t *testing.T) {
	c := NewCalendar(MustDate("2026-04-06"), MustDate("2026-04-03"), MustDate("2026-04-04")) // Easter Monday, Good Friday, a Saturday
	d := MustDate
	for _, x := range []struct {
		from string
		n    int64
		want string
	}{
		{"2026-03-31", 1, "2026-04-01"},
		{"2026-04-02", 1, "2026-04-07"}, // over Good Friday, the weekend and Easter Monday
		{"2026-04-07", -1, "2026-04-02"},
		{"2026-04-04", 0, "2026-04-04"},
		{"2026-03-13", 20, "2026-04-14"},
	} {
		got, err := c.AddWorkingDays(d(x.from), x.n)
		if err != nil || got != d(x.want) {
			t.Errorf("AddWorkingDays(%s, %d) = %s, %v; want %s", x.from, x.n, got, err, x.want)
		}
		if x.n > 0 {
			if n := c.WorkingDaysBetween(d(x.from), got); n != x.n {
				t.Errorf("WorkingDaysBetween(%s, %s) = %d, want %d", x.from, got, n, x.n)
			}
		}
	}
	// Between agrees with counting day by day, across years and backwards.
	for a := d("2025-12-20"); a < d("2026-01-20"); a++ {
		for b := a - 30; b < a+400; b += 7 {
			var want int64
			if b >= a {
				for x := a + 1; x <= b; x++ {
					if c.IsWorkingDay(x) {
						want++
					}
				}
			} else {
				for x := b + 1; x <= a; x++ {
					if c.IsWorkingDay(x) {
						want--
					}
				}
			}
			if got := c.WorkingDaysBetween(a, b); got != want {
				t.Fatalf("WorkingDaysBetween(%s, %s) = %d, want %d", a, b, got, want)
			}
		}
	}
	if _, err := c.AddWorkingDays(d("2026-01-01"), MaxWorkingDays+1); err == nil {
		t.Error("no error beyond MaxWorkingDays")
	}
}
