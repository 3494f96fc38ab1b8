package runtime

import (
	"fmt"
	"slices"
	"time"
)

// A Calendar is a world's working days: Monday to Friday, except its
// public holidays (`holidays "2026-04-03, 2026-12-25"` in the world's
// header). The DSL's add_working_days, working_days_between and
// is_working_day are its methods, shared by compiler/eval and the
// generated code. The zero Calendar has no holidays.
type Calendar struct {
	holidays []Date // sorted, each once
}

// MaxWorkingDays bounds add_working_days's n: a call beyond it fails
// rather than scanning the calendar for ever.
const MaxWorkingDays = 1_000_000

// NewCalendar is the calendar with these holidays (in any order).
func NewCalendar(holidays ...Date) Calendar {
	h := slices.Clone(holidays)
	slices.Sort(h)
	return Calendar{holidays: slices.Compact(h)}
}

// IsHoliday reports whether d is one of the calendar's holidays.
func (c Calendar) IsHoliday(d Date) bool {
	_, ok := slices.BinarySearch(c.holidays, d)
	return ok
}

// IsWorkingDay reports whether d is a Monday to Friday that is no holiday.
func (c Calendar) IsWorkingDay(d Date) bool {
	wd := d.Weekday()
	return wd != time.Saturday && wd != time.Sunday && !c.IsHoliday(d)
}

// AddWorkingDays is the date n working days after d (before it, for a
// negative n): the n-th working day counted from the day after d; d
// itself for n = 0. |n| beyond MaxWorkingDays is an error.
func (c Calendar) AddWorkingDays(d Date, n int64) (Date, error) {
	if n > MaxWorkingDays || n < -MaxWorkingDays {
		return d, fmt.Errorf(MsgWorkingDaysRange, n, MaxWorkingDays)
	}
	step := Date(1)
	if n < 0 {
		step, n = -1, -n
	}
	for n > 0 {
		d += step
		if c.IsWorkingDay(d) {
			n--
		}
	}
	return d, nil
}

// WorkingDaysBetween is the number of working days after a up to and
// including b (negative when b is before a): 0 from a Friday to the
// Sunday after it, 1 to the Monday.
func (c Calendar) WorkingDaysBetween(a, b Date) int64 {
	if b < a {
		return -c.WorkingDaysBetween(b, a)
	}
	n := weekdaysThrough(b) - weekdaysThrough(a)
	// The holidays in (a, b] that fall on a weekday.
	lo, _ := slices.BinarySearch(c.holidays, a+1)
	for _, h := range c.holidays[lo:] {
		if h > b {
			break
		}
		if wd := h.Weekday(); wd != time.Saturday && wd != time.Sunday {
			n--
		}
	}
	return n
}

// weekdaysThrough counts the Mondays to Fridays from a fixed Monday up to
// and including d (negative before it): differences of it count weekdays.
func weekdaysThrough(d Date) int64 {
	k := int64(d) - 4 // 1970-01-05, day 4, is a Monday
	q, r := k/7, k%7
	if r < 0 {
		q, r = q-1, r+7
	}
	return 5*q + min(r+1, 5)
}

// MaxRange bounds the ints of a range loop (`for i in a..b`): a longer
// range fails the call rather than building a list without end.
const MaxRange = 100_000

// IntRange is the list of the ints from a to b, both included (empty when
// b < a), for `for i in a..b`; more than MaxRange ints is an error.
func IntRange(a, b int64) ([]int64, error) {
	if b < a {
		return []int64{}, nil
	}
	if uint64(b-a) >= MaxRange {
		return nil, fmt.Errorf(MsgRangeTooLong, a, b, MaxRange)
	}
	out := make([]int64, 0, b-a+1)
	for i := a; ; i++ {
		out = append(out, i)
		if i == b {
			return out, nil
		}
	}
}
