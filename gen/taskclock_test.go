package gen

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// taskClockWorld checks testdata/task_clock.world.
func taskClockWorld(t *testing.T) *ir.World {
	return testdataWorld(t, "task_clock.world")
}

var taskClockProbes = []probe{
	{"dates", `{}`},
	{"times", `{}`},
	{"escalate", `{"ticket":"t1"}`}, // refused: 1h30 old on the world's clock
	{"open_ticket", `{"received_on":"2026-03-13"}`},
}

// taskClockTaskProbes run in the tasks' own clocks: what the tools read
// (dates, times, the 8 hours of escalate), what they write (stamps), and
// the invariants on a start state that breaks them (overdue_wednesday: the
// task's job, not reported until t1 is repaired and broken again).
var taskClockTaskProbes = map[string][]probe{
	"overdue_wednesday": {
		{"dates", `{}`},
		{"times", `{}`},
		{"open_ticket", `{"received_on":"2026-03-18"}`},
		{"escalate", `{"ticket":"t1"}`},
		{"reopen", `{"ticket":"t1"}`},
		{"close_ticket", `{"ticket":"t1"}`},
	},
	"before_the_world": {
		{"dates", `{}`},
		{"times", `{}`},
		{"escalate", `{"ticket":"t1"}`}, // refused: opened after now
		{"close_ticket", `{"ticket":"t2"}`},
	},
	"easter": {
		{"dates", `{}`}, // the working day after next skips Good Friday, the weekend and Easter Monday
		{"times", `{}`},
		{"escalate", `{"ticket":"t1"}`},
	},
	"on_the_world_clock": {
		{"dates", `{}`},
		{"times", `{}`},
	},
}

// TestTaskClockTrajectories checks, with compiler/eval alone, that the
// probes see each task's clock and that overdue_wednesday's start state
// breaks both invariants without a step violation until t1 is reopened.
func TestTaskClockTrajectories(t *testing.T) {
	w := taskClockWorld(t)
	runs := evalRuns(t, w, taskClockProbes, taskClockTaskProbes)
	probed := map[string]diffRun{}
	for _, r := range runs {
		if r.Task == "" || len(r.Calls) == len(taskClockTaskProbes[r.Task]) {
			probed[r.Task] = r
		}
	}
	for task, want := range map[string][2]string{
		"":                   {`["2026-03-13","2026-03-17"]`, `["2026-03-13T09:30:00Z","2026-03-13T17:30:00Z"]`},
		"overdue_wednesday":  {`["2026-03-18","2026-03-20"]`, `["2026-03-18T17:45:00Z","2026-03-19T01:45:00Z"]`},
		"before_the_world":   {`["2026-03-12","2026-03-16"]`, `["2026-03-12T00:00:00Z","2026-03-12T08:00:00Z"]`},
		"easter":             {`["2026-04-02","2026-04-08"]`, `["2026-04-02T12:00:00Z","2026-04-02T20:00:00Z"]`},
		"on_the_world_clock": {`["2026-03-13","2026-03-17"]`, `["2026-03-13T09:30:00Z","2026-03-13T17:30:00Z"]`},
	} {
		r, ok := probed[task]
		if !ok {
			t.Fatalf("no probe run of task %q", task)
		}
		for i, tool := range []string{"dates", "times"} {
			if got := string(r.Calls[i].Obs); !strings.Contains(got, want[i]) {
				t.Errorf("task %q: %s observed %s, want the data %s", task, tool, got, want[i])
			}
		}
	}
	m := probed["overdue_wednesday"]
	if v := m.Start.Violations; len(v) != 2 {
		t.Errorf("overdue_wednesday starts with violations %v, want both invariants broken by t1", v)
	}
	if got := m.Calls[4].Steps; len(got) != 1 || got[0] != "open_tickets_escalated_in_time Ticket t1 5" {
		t.Errorf("overdue_wednesday: step violations %v, want t1 at step 5 (reopened after its repair)", got)
	}
	if got := m.Calls[3].Steps; len(got) != 0 {
		t.Errorf("overdue_wednesday: step violations %v before the reopening, want none (the start state's are the task's job)", got)
	}
}

// TestTaskClockDifferential holds the generated code to compiler/eval in
// every task's clock, call by call.
func TestTaskClockDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	differentialWith(t, taskClockWorld(t), taskClockProbes, taskClockTaskProbes)
}

// TestTaskClockCode: in a world where a task sets its own clock, today and
// now are the state's, set in the task's start state (from TaskInfo.Now in
// tasks.json, its date the task's today) and copied by Clone. A world without task clocks keeps
// today as a constant (TestDatePartsCode).
func TestTaskClockCode(t *testing.T) {
	files := mustGenerate(t, taskClockWorld(t))
	for file, wants := range map[string][]string{
		"tools.go": {"int64(s.now-ticket.OpenedAt)/3600 >= 8", "v := s.today", "s.addWorkingDays(s.today, 2)"},
		"state.go": {"today: today,", "now:     s.now,", "today:   s.today,"},
		"tasks.go": {"day, clock := today, now", "day, clock = d.Now.Date(), *d.Now", "taskStart(d.ID, day, clock)", "s.today, s.now = today, now"},
		// The task's clock is its TaskInfo.Now; a task on the world's
		// clock has none.
		"tasks.json": {`{"id":"overdue_wednesday",`, `"now":"2026-03-18T17:45:00Z"`},
		"world.go":   {"const now runtime.DateTime = 1773394200"},
	} {
		for _, want := range wants {
			if !strings.Contains(string(files[file]), want) {
				t.Errorf("%s lacks %s", file, want)
			}
		}
	}
	for _, l := range strings.Split(string(files["tasks.json"]), "\n") {
		if strings.Contains(l, `"id":"on_the_world_clock"`) && strings.Contains(l, `"now"`) {
			t.Errorf("a task on the world's clock has a clock of its own: %s", l)
		}
	}
}
