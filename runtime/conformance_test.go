package runtime_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

func TestWorldtestConforms(t *testing.T) {
	for _, err := range runtime.Conformance(worldtest.World) {
		t.Error(err)
	}
}

// broken wraps worldtest.World, changing one behaviour.
type broken struct {
	runtime.World
	tools   func([]runtime.ToolInfo) []runtime.ToolInfo
	tasks   func([]runtime.TaskInfo) []runtime.TaskInfo
	episode func(w *broken, task string) (runtime.Episode, error)
	n       int // episodes created
}

func (b *broken) Tools() []runtime.ToolInfo {
	ts := b.World.Tools()
	if b.tools != nil {
		ts = b.tools(ts)
	}
	return ts
}

func (b *broken) Tasks() []runtime.TaskInfo {
	ts := b.World.Tasks()
	if b.tasks != nil {
		ts = b.tasks(ts)
	}
	return ts
}

func (b *broken) NewEpisode(task string) (runtime.Episode, error) {
	b.n++
	if b.episode != nil {
		return b.episode(b, task)
	}
	return b.World.NewEpisode(task)
}

// ep wraps an episode, changing one behaviour.
type ep struct {
	runtime.Episode
	call  func(e *ep, tool string, args json.RawMessage) runtime.Observation
	hash  func(e *ep) string
	grade func(e *ep) runtime.Grade
}

func (e *ep) Call(tool string, args json.RawMessage) runtime.Observation {
	if e.call != nil {
		return e.call(e, tool, args)
	}
	return e.Episode.Call(tool, args)
}

func (e *ep) StateHash() string {
	if e.hash != nil {
		return e.hash(e)
	}
	return e.Episode.StateHash()
}

func (e *ep) Grade() runtime.Grade {
	if e.grade != nil {
		return e.grade(e)
	}
	return e.Episode.Grade()
}

func wrapEp(w *broken, task string, e *ep) (runtime.Episode, error) {
	inner, err := w.World.NewEpisode(task)
	if err != nil {
		return nil, err
	}
	e.Episode = inner
	return e, nil
}

// expect checks that the errors contain one with every fragment.
func expect(t *testing.T, name string, errs []error, fragments ...string) {
	t.Helper()
	for _, err := range errs {
		all := true
		for _, f := range fragments {
			if !strings.Contains(err.Error(), f) {
				all = false
			}
		}
		if all {
			return
		}
	}
	t.Errorf("%s: no error contains all of %q; got:\n%s", name, fragments, joinErrs(errs))
}

func joinErrs(errs []error) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %v\n", e)
	}
	return b.String()
}

func TestConformanceCatchesBrokenWorlds(t *testing.T) {
	// Episodes share one state: isolation fails.
	var shared runtime.Episode
	w := &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		if task != "settle_acme" {
			return w.World.NewEpisode(task)
		}
		if shared == nil {
			shared, _ = w.World.NewEpisode(task)
		}
		return shared, nil
	}}
	expect(t, "shared state", runtime.CheckIsolation(w), `world "worldtest": task "settle_acme": isolation:`, "changed the state hash of another episode")

	// A tool whose observation depends on a counter outside the state.
	counter := 0
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{call: func(e *ep, tool string, args json.RawMessage) runtime.Observation {
			obs := e.Episode.Call(tool, args)
			if tool == "create_invoice" && obs.OK {
				counter++
				obs.Data = json.RawMessage(fmt.Sprintf(`{"id":"invoice_1","n":%d}`, counter))
			}
			return obs
		}})
	}}
	expect(t, "nondeterministic", runtime.CheckDeterminism(w), `task "settle_acme": step 2: tool "create_invoice": determinism: replaying the solution gives a different observation`)

	// Fresh episodes that start in different states.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		n := w.n
		return wrapEp(w, task, &ep{hash: func(e *ep) string { return fmt.Sprint(n, e.Episode.StateHash()) }})
	}}
	expect(t, "different start", runtime.CheckDeterminism(w), "two fresh episodes have different state hashes")

	// A tool that accepts anything.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{call: func(e *ep, tool string, args json.RawMessage) runtime.Observation {
			if tool == "find_invoices" {
				return runtime.OKObservation(json.RawMessage(`[]`))
			}
			return e.Episode.Call(tool, args)
		}})
	}}
	errs := runtime.CheckBadArguments(w)
	expect(t, "lenient tool", errs, `world "worldtest": tool "find_invoices": bad-arguments: args {"no_such_argument_xyzzy":1}: want ok:false with code invalid_arguments`)
	expect(t, "lenient tool", errs, `tool "find_invoices"`, `args {"status":"__not_a_valid_value__"}`)
	for _, err := range errs {
		if !strings.Contains(err.Error(), `tool "find_invoices"`) {
			t.Errorf("a correct tool was reported: %v", err)
		}
	}

	// A tool whose errors do not name the argument, and one that changes
	// the state when it fails.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{call: func(e *ep, tool string, args json.RawMessage) runtime.Observation {
			obs := e.Episode.Call(tool, args)
			if tool == "get_invoice" && !obs.OK {
				obs.Error = runtime.InvalidArguments("bad")
			}
			if tool == "mark_paid" && !obs.OK {
				e.Episode.Call("mark_paid", json.RawMessage(`{"invoice":"inv1"}`))
			}
			return obs
		}})
	}}
	errs = runtime.CheckBadArguments(w)
	expect(t, "vague message", errs, `tool "get_invoice"`, `the message does not name "id"`)
	expect(t, "vague message", errs, `tool "get_invoice"`, `does not name "no_such_argument_xyzzy"`)
	expect(t, "dirty failure", errs, `tool "mark_paid"`, "a failed call changed the state")

	// A solution that does not finish the job.
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = ts[0].Solution[:1]
		return ts
	}}
	expect(t, "short solution", runtime.CheckSolutions(w), `world "worldtest": task "settle_acme": solutions: after the solution the reward is 0.6666666666666666, want 1; failing assertions: "exists(i in Invoice where i.customer == globex and i.amount == 500 and i.status == issued)"`)

	// A solution call that fails.
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = append([]runtime.Call{{Tool: "mark_paid", Args: json.RawMessage(`{"invoice":"inv2"}`)}}, ts[0].Solution...)
		return ts
	}}
	expect(t, "failing call", runtime.CheckSolutions(w), `task "settle_acme": step 1: tool "mark_paid": solutions: solution call failed: precondition_failed: only issued invoices can be paid`)

	// A call expected to fail: the replay goes on after it, and it must fail
	// with exactly its message.
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = append([]runtime.Call{{Tool: "mark_paid", Args: json.RawMessage(`{"invoice":"inv2"}`), Fails: "only issued invoices can be paid"}}, ts[0].Solution...)
		return ts
	}}
	for _, err := range runtime.CheckSolutions(w) {
		t.Errorf("expected failure: %v", err)
	}
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = append([]runtime.Call{{Tool: "mark_paid", Args: json.RawMessage(`{"invoice":"inv2"}`), Fails: "only paid invoices"}}, ts[0].Solution...)
		ts[0].Solution[1].Fails = "nope"
		return ts
	}}
	errs = runtime.CheckSolutions(w)
	expect(t, "wrong failure", errs, `task "settle_acme": step 1: tool "mark_paid": solutions: solution call failed with precondition_failed: only issued invoices can be paid, but it is expected to fail with "only paid invoices"`)
	expect(t, "unexpected success", errs, `task "settle_acme": step 2: tool`, `solutions: solution call succeeded, but it is expected to fail with "nope"`)

	// A rubric that already holds.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{grade: func(e *ep) runtime.Grade {
			return runtime.NewGrade([]runtime.AssertionResult{{Kind: runtime.AssertExpr, Text: "true", Passed: true}}, nil)
		}})
	}}
	expect(t, "vacuous rubric", runtime.CheckSolutions(w), `task "settle_acme": solutions: the rubric already holds before any call`)
	// … unless it says unchanged
	w.episode = func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{grade: func(e *ep) runtime.Grade {
			return runtime.NewGrade([]runtime.AssertionResult{{Kind: runtime.AssertUnchanged, Text: "unchanged", Passed: true}}, nil)
		}})
	}
	for _, err := range runtime.CheckSolutions(w) {
		t.Errorf("unchanged rubric: %v", err)
	}

	// A state hash that does not cover the state.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{hash: func(*ep) string { return strings.Repeat("a", 64) }})
	}}
	expect(t, "blind hash", runtime.CheckSolutions(w), "the state hash did not change")

	// Invariant violations after the solution.
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = append(ts[0].Solution, runtime.Call{Tool: "create_invoice", Args: json.RawMessage(`{"customer":"globex","amount":5000}`)})
		return ts
	}}
	errs = runtime.CheckSolutions(w)
	expect(t, "violation", errs, `after the solution invariants are violated: within_credit: Invoice "invoice_2": amount 5000 exceeds the credit limit of customer "globex"`)
	expect(t, "violation", errs, `failing assertions: "invariant within_credit"`)

	// An always-invariant broken along the solution, though not at its end.
	w = &broken{World: worldtest.World, episode: func(w *broken, task string) (runtime.Episode, error) {
		return wrapEp(w, task, &ep{grade: func(e *ep) runtime.Grade {
			g := e.Episode.Grade()
			g.StepViolations = []runtime.Violation{{Invariant: "within_credit", Entity: "Invoice", ID: "inv1", Message: "over the limit", Step: 2, Tool: "mark_paid"}}
			return g
		}})
	}}
	expect(t, "step violation", runtime.CheckSolutions(w), `task "settle_acme": step 2: tool "mark_paid": solutions: after this call the always-invariant within_credit is violated by Invoice "inv1": over the limit`)

	// Tool descriptions.
	w = &broken{World: worldtest.World, tools: func(ts []runtime.ToolInfo) []runtime.ToolInfo {
		ts[0].Parameters = json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"},"x":{"type":"string"}},"required":["id","y"]}`)
		ts[1].Name = "bad name"
		ts[2].Description = " "
		return append(ts, ts[3])
	}}
	errs = runtime.CheckTools(w)
	expect(t, "schema", errs, `tool "get_invoice": tools: parameters: want "additionalProperties": false`)
	expect(t, "schema", errs, `tool "get_invoice"`, `property "x" is not listed in "required"`)
	expect(t, "schema", errs, `tool "get_invoice"`, `required "y" is not a property`)
	expect(t, "name", errs, `tool "bad name": tools: invalid tool name`)
	expect(t, "description", errs, `tool "mark_paid": tools: empty description`)
	expect(t, "duplicate", errs, `tool "create_invoice": tools: duplicate tool name`)

	// Tasks.
	w = &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		ts[0].Solution = append(ts[0].Solution, runtime.Call{Tool: "no_such_tool"})
		return append(ts, ts[0], runtime.TaskInfo{ID: "ghost"})
	}}
	errs = runtime.CheckTasks(w)
	expect(t, "tasks", errs, `task "settle_acme": step 4: tool "no_such_tool": tasks: solution calls an unknown tool`)
	expect(t, "tasks", errs, `task "settle_acme": tasks: duplicate task ID`)
	expect(t, "tasks", errs, `task "ghost": tasks: NewEpisode: world worldtest has no task "ghost"`)

	// A world that panics is reported, not fatal.
	w = &broken{World: worldtest.World, episode: func(*broken, string) (runtime.Episode, error) { panic("boom") }}
	errs = runtime.Conformance(w)
	expect(t, "panic", errs, `world "worldtest": solutions: panic: boom`)
	expect(t, "panic", errs, `world "worldtest": bad-arguments: panic: boom`)
}

// TestProbeFromNoStarts: a search with nowhere to start (a world with no
// seed state worth trying) reports every tool as failing; it does not
// panic on outcomes that were never observed.
func TestProbeFromNoStarts(t *testing.T) {
	probes := []runtime.ToolProbe{{Tool: "a"}, {Tool: "b", Requires: []string{"must"}}}
	res := runtime.ProbeFrom(nil, nil, probes)
	if len(res) != 2 || res[0].Args != nil || res[1].Args != nil {
		t.Fatalf("results %+v", res)
	}
}
