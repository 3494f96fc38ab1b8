package eval_test

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

func at(s string) *runtime.DateTime {
	d := runtime.MustDateTime(s)
	return &d
}

// TestTaskClock: a task's own clock wins over the world's; a task without
// one runs on the world's date-time (its now, else today at 00:00 UTC,
// also when an Info leaves Now unset).
func TestTaskClock(t *testing.T) {
	world := runtime.WorldInfo{Name: "w", Today: runtime.MustDate("2026-05-12"), Now: *at("2026-05-12T10:30:00Z")}
	for _, c := range []struct {
		name  string
		info  runtime.WorldInfo
		task  runtime.TaskInfo
		today string
		now   string
		say   string
	}{
		{"world's now", world, runtime.TaskInfo{ID: "a"}, "2026-05-12", "2026-05-12T10:30:00Z",
			"Today is Tuesday, 2026-05-12; the time is 10:30 UTC (2026-05-12T10:30:00Z)."},
		{"task's own", world, runtime.TaskInfo{ID: "b", Now: at("2026-05-22T09:00:05Z")}, "2026-05-22", "2026-05-22T09:00:05Z",
			"Today is Friday, 2026-05-22; the time is 09:00:05 UTC (2026-05-22T09:00:05Z)."},
		{"task's own before the world's", world, runtime.TaskInfo{ID: "c", Now: at("2025-12-31T23:59:00Z")}, "2025-12-31", "2025-12-31T23:59:00Z",
			"Today is Wednesday, 2025-12-31; the time is 23:59 UTC (2025-12-31T23:59:00Z)."},
		{"no Now in Info", runtime.WorldInfo{Today: runtime.MustDate("2026-03-14")}, runtime.TaskInfo{}, "2026-03-14", "2026-03-14T00:00:00Z",
			"Today is Saturday, 2026-03-14; the time is 00:00 UTC (2026-03-14T00:00:00Z)."},
	} {
		got := eval.TaskClock(c.info, c.task)
		if got.Today.String() != c.today || got.Now.String() != c.now {
			t.Errorf("%s: clock %s %s, want %s %s", c.name, got.Today, got.Now, c.today, c.now)
		}
		if s := got.Sentence(); s != c.say {
			t.Errorf("%s: %q, want %q", c.name, s, c.say)
		}
	}
}

// TestTaskPolicy: the world's date line of worldc's policy template is
// replaced by the task's clock, and the world's date is not said beside
// it; a policy without that line (a spec's own file) gets the clock as
// its first paragraph; a date line of another date, or not at the start
// of a line, is not the template's.
func TestTaskPolicy(t *testing.T) {
	info := runtime.WorldInfo{Today: runtime.MustDate("2026-05-12")}
	c := eval.TaskClock(info, runtime.TaskInfo{Now: at("2026-05-22T00:00:00Z")})
	say := c.Sentence()
	template := "# Mutuelle\n\n- Currency: EUR\n- Today's date: 2026-05-12 (the world's; a task may set its own date and time, given with the task)\n\n## Policy\n\n1. Decide within 10 working days.\n"
	for _, tc := range []struct{ name, policy, want string }{
		{"template", template, strings.Replace(template, "- Today's date: 2026-05-12 (the world's; a task may set its own date and time, given with the task)", "- "+say, 1)},
		{"template, last line", "# T\n- Today's date: 2026-05-12", "# T\n- " + say},
		{"template, first line", "- Today's date: 2026-05-12\nrest\n", "- " + say + "\nrest\n"},
		{"own file", "# Retail agent policy\n\nBe kind.\n", say + "\n\n# Retail agent policy\n\nBe kind.\n"},
		{"another date", "- Today's date: 2020-01-01\n", say + "\n\n- Today's date: 2020-01-01\n"},
		{"not at a line's start", "Note: - Today's date: 2026-05-12 is old.\n- Today's date: 2026-05-12 x\n", "Note: - Today's date: 2026-05-12 is old.\n- " + say + "\n"},
		{"empty", "", say + "\n\n"},
	} {
		got := eval.TaskPolicy(tc.policy, info, c)
		if got != tc.want {
			t.Errorf("%s:\n%q\nwant\n%q", tc.name, got, tc.want)
		}
		if strings.Contains(got, "2026-05-12") && tc.name != "not at a line's start" {
			t.Errorf("%s: the world's date is still shown: %q", tc.name, got)
		}
	}
}

// FuzzTaskPolicy holds TaskPolicy to a line-by-line reading of the same
// rule: the first line that starts with the world's date line is replaced
// by the clock, else the clock is the first paragraph; nothing else of
// the document changes.
func FuzzTaskPolicy(f *testing.F) {
	for _, s := range []string{"", "- Today's date: 2026-05-12", "# T\n\n- Today's date: 2026-05-12 (x)\n\nrules\n", "x- Today's date: 2026-05-12\n", "\n- Today's date: 2026-05-12\n- Today's date: 2026-05-12\n", "- Today's date: 2026-05-1"} {
		f.Add(s)
	}
	info := runtime.WorldInfo{Today: runtime.MustDate("2026-05-12")}
	c := eval.TaskClock(info, runtime.TaskInfo{Now: at("2026-05-22T09:00:00Z")})
	f.Fuzz(func(t *testing.T, policy string) {
		got := eval.TaskPolicy(policy, info, c)
		lines := strings.SplitAfter(policy, "\n")
		want := c.Sentence() + "\n\n" + policy
		for i, l := range lines {
			if strings.HasPrefix(l, "- Today's date: 2026-05-12") {
				nl := ""
				if strings.HasSuffix(l, "\n") {
					nl = "\n"
				}
				lines[i] = "- " + c.Sentence() + nl
				want = strings.Join(lines, "")
				break
			}
		}
		if got != want {
			t.Fatalf("TaskPolicy(%q) = %q, want %q", policy, got, want)
		}
	})
}
