package runtime

import (
	"encoding/json"
	"fmt"
)

// World is what every generated world package provides (usually as a
// package-level value), so servers, trainers and the conformance checks use
// all worlds the same way. Its methods return fresh copies where they
// return slices; a World is safe for concurrent use.
type World interface {
	// Info describes the world.
	Info() WorldInfo
	// Tools describes the agent-callable tools in declaration order.
	Tools() []ToolInfo
	// Tasks lists the tasks in declaration order.
	Tasks() []TaskInfo
	// Policy is the visible policy document (markdown) shown to agents.
	Policy() string
	// NewEpisode starts an episode in a fresh copy of the task's start
	// state (the world seed plus the task's seed); taskID "" starts from the
	// world seed alone. An unknown task is an error. It is cheap: a
	// copy-on-write clone.
	NewEpisode(taskID string) (Episode, error)
}

// An Episode is one agent's run in one world state. It is not safe for
// concurrent use: calls are serialised by the caller.
type Episode interface {
	// Call runs a tool atomically and returns its observation. It never
	// panics.
	Call(tool string, args json.RawMessage) Observation
	// StateHash is the canonical hash of the current state (see [Hasher]).
	StateHash() string
	// Violations runs the hidden invariant checks on the current state.
	Violations() []Violation
	// Grade grades the current state against the task's rubric, with the
	// invariant violations beside it. An episode of the world seed (task
	// "") has no rubric.
	Grade() Grade
	// Snapshot is the full state as JSON, for debugging and diffs.
	Snapshot() json.RawMessage
}

// An AnswerGrader is an Episode of a world whose tasks may expect an
// answer (`expect { answer EXPR }`): the agent's final message is graded
// too. Grade grades without one (answer assertions fail).
type AnswerGrader interface {
	// GradeAnswer is Grade with the agent's final message.
	GradeAnswer(answer string) Grade
	// GoldenAnswer is what a golden final message states on the current
	// state: each answer assertion's expected value, one a line.
	GoldenAnswer() string
}

// GradeWithAnswer grades ep with the agent's final message when ep grades
// answers, else as Grade: what a server's grade request calls.
func GradeWithAnswer(ep Episode, answer string) Grade {
	if a, ok := ep.(AnswerGrader); ok {
		return a.GradeAnswer(answer)
	}
	return ep.Grade()
}

// GradeGolden grades ep as at the end of a golden solution: with the
// golden final message when ep grades answers.
func GradeGolden(ep Episode) Grade {
	if a, ok := ep.(AnswerGrader); ok {
		return a.GradeAnswer(a.GoldenAnswer())
	}
	return ep.Grade()
}

// WorldInfo identifies a world.
type WorldInfo struct {
	Name     string `json:"name"`     // lower snake case; the Go package name
	Title    string `json:"title"`    // e.g. "Northwind Logistics GmbH"
	Industry string `json:"industry"` // e.g. "logistics"
	Country  string `json:"country"`  // ISO 3166 alpha-2
	Currency string `json:"currency"` // ISO 4217
	Today    Date   `json:"today"`    // the world's clock
	// Now is the world's date-time: the header's `now`, else Today at
	// 00:00 UTC. An episode of a task without a clock of its own runs on
	// Today and Now.
	Now DateTime `json:"now"`
}

// TaskInfo describes a task.
type TaskInfo struct {
	ID          string   `json:"id"`          // unique in the world; NewEpisode's argument
	Persona     string   `json:"persona"`     // who the agent acts for
	Instruction string   `json:"instruction"` // the request, as the user would say it
	Tags        TaskTags `json:"tags"`
	// Solution is the golden trace, nil when the task has none.
	Solution []Call `json:"solution,omitempty"`
	// Meta is the task's free-form metadata (`meta { … }` in the spec),
	// for the harness; nil when the task has none. It is never graded.
	Meta Meta `json:"meta,omitempty"`
	// Answer is set when the rubric expects the agent's final message to
	// state a value (`answer EXPR`): grade the episode with
	// GradeWithAnswer.
	Answer bool `json:"answer,omitempty"`
	// Now is the task's own clock (`today`/`now` in the task), nil when
	// its episodes run on the world's (WorldInfo.Today and Now). Its
	// episodes' tools, invariants and rubric read it as today and now; the
	// policy document gives the world's date, so a harness that shows the
	// agent the date shows this one for the task (the bundle's server
	// does, on every protocol).
	Now *DateTime `json:"now,omitempty"`
}

// TaskTags classify a task.
type TaskTags struct {
	Domain       string   `json:"domain"`       // e.g. "ToB/finance/billing"
	Capabilities []string `json:"capabilities"` // e.g. tool_use, state_management
	Difficulty   []string `json:"difficulty"`   // e.g. cross_service, multi_step
}

// A Call is one step of a golden solution: a tool and its arguments.
//
// Bind names the record the call returns (its observation data must be an
// object with a string "id", or with the string member BindKey for an
// entity whose id is a key field); Uses passes such a bound ID as an
// argument of a later call, overriding or adding to Args. This is how a
// solution refers to records created at run time: `o =
// create_order(customer: acme)` then `add_line(order: o)`.
//
// Fails, when set, says that the call is expected to fail with exactly that
// error message (`call(…) fails "msg"` in the spec): a golden solution may
// hold calls that an agent would make and that the world refuses, and the
// replay goes on after them.
type Call struct {
	Tool    string          `json:"tool"`               // the tool to call
	Args    json.RawMessage `json:"args"`               // its constant arguments (a JSON object)
	Bind    string          `json:"bind,omitempty"`     // "" or a name for the id of the record returned
	BindKey string          `json:"bind_key,omitempty"` // the member holding that id; "" for "id"
	Uses    []BoundArg      `json:"uses,omitempty"`     // arguments taken from earlier bindings
	Fails   string          `json:"fails,omitempty"`    // "" or the error message the call must fail with
}

// BoundArg passes the ID bound to Name as the argument Arg.
type BoundArg struct {
	Arg  string `json:"arg"`  // the argument to set
	Name string `json:"name"` // the binding whose id it takes
}

// An AssertionResult is the outcome of one rubric assertion.
type AssertionResult struct {
	// Kind is "expr" (a boolean expression), "invariant" (an invariant must
	// hold) or "unchanged" (the state equals the task's start state).
	Kind   string `json:"kind"`
	Text   string `json:"text"`             // the assertion as written in the spec
	Passed bool   `json:"passed"`           // the assertion holds
	Detail string `json:"detail,omitempty"` // why it failed, with the values seen
}

// The assertion kinds.
const (
	AssertExpr      = "expr"
	AssertInvariant = "invariant"
	AssertUnchanged = "unchanged"
	AssertRule      = "rule"
	AssertAnswer    = "answer"
)

// A Violation is one record breaking one invariant.
type Violation struct {
	Invariant string `json:"invariant"` // the invariant's name
	Entity    string `json:"entity"`    // the entity of the offending record
	ID        string `json:"id"`        // the offending record's id
	Message   string `json:"message"`   // what is wrong, with the values involved
	// Step is, for a violation of an always-invariant seen during an
	// episode ([Grade.StepViolations]), the 1-based index of the call after
	// which the record first broke it, counting every call of the episode
	// as its trajectory does (failed calls included), and Tool is that
	// call's tool; 0 and "" for a violation of the current state.
	Step int    `json:"step,omitempty"`
	Tool string `json:"tool,omitempty"`
	// Rule marks the violation of a rule on actions (`rule NAME` in the
	// spec): the call at Step broke it, judged on the state before it;
	// Entity and ID name the record of the tool's first ref parameter,
	// if it has one.
	Rule bool `json:"rule,omitempty"`
}

// String reads `paid_invoices_are_posted: Invoice "inv1": message`, with
// ` (after step 3, mark_paid)` before the colon of a step's violation.
func (v Violation) String() string {
	if v.Rule {
		return fmt.Sprintf("%s: broken by the call of %s at step %d on %s %q: %s", v.Invariant, v.Tool, v.Step, v.Entity, v.ID, v.Message)
	}
	if v.Step > 0 {
		return fmt.Sprintf("%s: %s %q (after step %d, %s): %s", v.Invariant, v.Entity, v.ID, v.Step, v.Tool, v.Message)
	}
	return fmt.Sprintf("%s: %s %q: %s", v.Invariant, v.Entity, v.ID, v.Message)
}

// A Grade is the result of grading an episode.
//
// Reward is the fraction of assertions that passed, in [0, 1]. A grade with
// no assertions has reward 0: an empty rubric never rewards (tasks must have
// one; the world seed's episodes have none). Violations of the hidden
// invariants are reported beside the reward and do not change it (a rubric
// that cares says `invariant NAME`): those of the current state, and, for
// the invariants written `always invariant`, which are checked after every
// successful call, the first step at which each record broke one.
type Grade struct {
	Reward     float64           `json:"reward"`     // fraction of assertions passed, in [0, 1]
	Assertions []AssertionResult `json:"assertions"` // every rubric assertion, in rubric order
	Violations []Violation       `json:"violations"` // hidden invariant violations of the current state, beside the reward
	// StepViolations are the violations of always-invariants seen after
	// the calls of the episode: the first per invariant and record, each
	// with its Step and Tool, in step order (then invariant order, then
	// id). A record that broke such a rule and was repaired later is here,
	// not in Violations.
	StepViolations []Violation `json:"step_violations"`
}

// NewGrade computes the reward of the assertions. stepViolations are the
// always-invariants' violations seen along the episode (none for a world
// without such invariants).
func NewGrade(assertions []AssertionResult, violations []Violation, stepViolations ...Violation) Grade {
	g := Grade{Assertions: assertions, Violations: violations, StepViolations: stepViolations}
	if g.Assertions == nil {
		g.Assertions = []AssertionResult{}
	}
	if g.Violations == nil {
		g.Violations = []Violation{}
	}
	if g.StepViolations == nil {
		g.StepViolations = []Violation{}
	}
	passed := 0
	for _, a := range assertions {
		if a.Passed {
			passed++
		}
	}
	if len(assertions) > 0 {
		g.Reward = float64(passed) / float64(len(assertions))
	}
	return g
}

// Solved reports whether every assertion passed (there is at least one) and
// no invariant is violated, now or (an always-invariant) at any step.
func (g Grade) Solved() bool {
	return g.Reward == 1 && len(g.Violations) == 0 && len(g.StepViolations) == 0
}

// Failed returns the assertions that did not pass.
func (g Grade) Failed() []AssertionResult {
	var out []AssertionResult
	for _, a := range g.Assertions {
		if !a.Passed {
			out = append(out, a)
		}
	}
	return out
}
