package gen

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// dateParts checks testdata/date_parts.world.
func dateParts(t *testing.T) *ir.World {
	return testdataWorld(t, "date_parts.world")
}

// datePartsProbes take dates at the edges: the first and last days the
// language has, a leap day, the epoch, a Sunday, date-times just before
// and at midnight, days that do not exist.
var datePartsProbes = []probe{
	{"parts", `{"d":"2026-03-14","t":"2026-03-14T23:59:59Z"}`},
	{"parts", `{"d":"2026-03-15","t":"2026-03-15T00:00:00Z"}`},
	{"parts", `{"d":"2024-02-29","t":"1970-01-01T00:00:00Z"}`},
	{"parts", `{"d":"0001-01-01","t":"9999-12-31T23:59:59Z"}`},
	{"parts", `{"d":"1969-12-31","t":"2000-02-29T12:00:00Z"}`},
	{"make_date", `{"y":2024,"m":2,"d":29}`},
	{"make_date", `{"y":2026,"m":2,"d":29}`},
	{"make_date", `{"y":2026,"m":13,"d":1}`},
	{"make_date", `{"y":0,"m":1,"d":1}`},
	{"make_date", `{"y":10000,"m":1,"d":1}`},
	{"make_date", `{"y":-9223372036854775808,"m":1,"d":1}`},
	{"make_date", `{"y":9999,"m":12,"d":31}`},
	{"make_date", `{"y":2026,"m":4,"d":0}`},
	{"in_winter", `{"d":"2026-11-01"}`},
	{"in_winter", `{"d":"2026-10-31"}`},
	{"in_winter", `{"d":"2026-03-31"}`},
	{"in_winter", `{"d":"2026-04-01"}`},
	{"issue_bill", `{"bill":"b1"}`},
	{"issue_bill", `{"bill":"b1"}`},
	{"issue_bill", `{"bill":"b3"}`},
	{"list_bills", `{}`},
}

// TestDatePartsDifferential holds the generated code of the date parts to
// compiler/eval, call by call: observations (faults included), states,
// invariant verdicts and rubric results.
func TestDatePartsDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differential(t, dateParts(t), datePartsProbes)
}

// TestDatePartsCode pins the shape of the code: a date of constant parts is
// a constant, other dates go through the helper that records a fault.
func TestDatePartsCode(t *testing.T) {
	files := mustGenerate(t, dateParts(t))
	tools, state := string(files["tools.go"]), string(files["state.go"])
	for _, want := range []string{
		"int64(today.Day()) < 25",
		"int64((today.Weekday()+6)%7+1) <= 6",
		"s.date(int64(today.Year()), int64(today.Month()), 25)",
		"int64(args.T.Date().Year())",
	} {
		if !strings.Contains(tools, want) {
			t.Errorf("tools.go lacks %s", want)
		}
	}
	if !strings.Contains(state, "func (s *State) date(year, month, day int64) runtime.Date {") {
		t.Error("state.go lacks the date helper")
	}
}
