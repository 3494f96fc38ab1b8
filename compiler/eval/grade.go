package eval

import (
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// AssertionResult is the outcome of one rubric assertion.
type AssertionResult struct {
	Kind   ir.AssertionKind
	Text   string // the assertion as written
	Passed bool
	// Detail says why a failed assertion failed: the evaluation error, the
	// two sides of a failed comparison, the first violating record of an
	// invariant, or the tables that changed. It is for people; compare
	// Passed, not Detail, across implementations.
	Detail string
}

// Grade is a rubric's verdict on a state.
type Grade struct {
	// Reward is Passed/Total, or 1 for a rubric without assertions.
	Reward        float64
	Passed, Total int
	Results       []AssertionResult // in rubric order
	// Violations are every invariant's violations, reported beside the
	// reward (see State.Violations).
	Violations []Violation
	// StepViolations are the violations of always-invariants seen along
	// the episode graded (Trace.Violations; see GradeEpisode), also
	// reported beside the reward.
	StepViolations []Violation
}

// Failures describes the failed assertions, one per line; "" when all
// passed.
func (g Grade) Failures() string {
	var b strings.Builder
	for _, r := range g.Results {
		if r.Passed {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(r.Text)
		if r.Detail != "" {
			b.WriteString(": ")
			b.WriteString(r.Detail)
		}
	}
	return b.String()
}

// comparisons are the operators whose two sides a failed assertion reports.
var comparisons = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

// Grade evaluates task's rubric on s. start is the task's start state, for
// `unchanged`; when nil it is built with NewState(world, task). An
// expression assertion passes when it evaluates to true; an evaluation error
// fails it. An invariant assertion passes when the invariant has no
// violation. Every assertion is evaluated on its own, with fresh limits.
func (s *State) Grade(task *ir.Task, start *State) Grade { return s.GradeEpisode(task, start, nil) }

// GradeEpisode is Grade for the episode whose calls tr followed (nil: an
// episode of no call): the violations of always-invariants it saw are
// reported beside the reward (Grade.StepViolations), and an invariant
// assertion on an always-invariant passes only when the invariant has no
// violation now and had none after any step.
func (s *State) GradeEpisode(task *ir.Task, start *State, tr *Trace) Grade {
	return s.GradeAnswer(task, start, tr, nil)
}

// GradeAnswer is GradeEpisode with the agent's final message (nil: none
// given, and every answer assertion fails): an answer assertion passes
// when runtime.AnswerMatches finds its expected value in the message.
func (s *State) GradeAnswer(task *ir.Task, start *State, tr *Trace, answer *string) Grade {
	g := Grade{Reward: 1}
	if tr != nil {
		g.StepViolations = slices.Clone(tr.Violations)
	}
	// Each invariant is checked once, for the report and its assertions.
	byInv := map[*ir.Invariant][]Violation{}
	for _, inv := range s.w.Invariants {
		vs := s.InvariantViolations(inv)
		byInv[inv] = vs
		g.Violations = append(g.Violations, vs...)
	}
	if task == nil {
		return g
	}
	for _, a := range task.Assertions {
		if a == nil {
			continue
		}
		res := s.assert(a, task, &start, byInv, tr, answer)
		g.Results = append(g.Results, res)
		g.Total++
		if res.Passed {
			g.Passed++
		}
	}
	if g.Total > 0 {
		g.Reward = float64(g.Passed) / float64(g.Total)
	}
	return g
}

func (s *State) assert(a *ir.Assertion, task *ir.Task, start **State, byInv map[*ir.Invariant][]Violation, tr *Trace, answer *string) (res AssertionResult) {
	res = AssertionResult{Kind: a.Kind, Text: a.Text}
	defer func() {
		if p := recover(); p != nil {
			res.Passed, res.Detail = false, fmt.Sprintf("internal error: %v", p)
		}
	}()
	switch a.Kind {
	case ir.AssertExpr:
		res.Passed, res.Detail = s.evalAssertion(a.Expr)
	case ir.AssertAnswer:
		want, err := s.Expected(a)
		switch {
		case err != nil:
			res.Detail = err.Error()
		case answer == nil:
			res.Detail = "no answer given; expected one stating " + want.Text()
		default:
			res.Passed, res.Detail = runtime.AnswerMatches(*answer, want)
		}
	case ir.AssertRule:
		if a.Rule == nil {
			res.Detail = "no rule"
			return res
		}
		vs := tr.ofRule(a.Rule)
		res.Passed = len(vs) == 0
		if !res.Passed {
			res.Detail = vs[0].String()
			if len(vs) > 1 {
				res.Detail += fmt.Sprintf(" (and %d more)", len(vs)-1)
			}
		}
	case ir.AssertInvariant:
		if a.Invariant == nil {
			res.Detail = "no invariant"
			return res
		}
		vs, ok := byInv[a.Invariant]
		if !ok {
			vs = s.InvariantViolations(a.Invariant)
		}
		if a.Invariant.Always {
			// A violation after a step comes first: it is the earlier.
			vs = append(tr.of(a.Invariant), vs...)
		}
		res.Passed = len(vs) == 0
		if len(vs) > 0 {
			res.Detail = vs[0].String()
			if len(vs) > 1 {
				res.Detail += fmt.Sprintf(" (and %d more)", len(vs)-1)
			}
		}
	case ir.AssertUnchanged:
		if *start == nil {
			st, err := NewState(s.w, task)
			if err != nil {
				res.Detail = err.Error()
				return res
			}
			*start = st
		}
		except, err := s.exceptions(a.Except)
		if err != nil {
			res.Detail = err.msg
			return res
		}
		res.Passed = s.EqualExcept(*start, except)
		if !res.Passed {
			res.Detail = "changed: " + strings.Join(s.changedTables(*start, except), ", ")
		}
	default:
		res.Detail = fmt.Sprintf("unknown assertion kind %q", a.Kind)
	}
	return res
}

// evalAssertion evaluates a boolean assertion; a failed comparison reports
// both sides, a failed match the fields that differ.
func (s *State) evalAssertion(x ir.Expr) (passed bool, detail string) {
	ev := s.evaluator()
	ev.readIndexes(false, x)
	if m, ok := x.(*ir.Match); ok {
		diffs, err := ev.matchDiffs(m, false)
		if err != nil {
			return false, err.msg
		}
		return len(diffs) == 0, matchDetail(diffs)
	}
	if b, ok := x.(*ir.Binary); ok && comparisons[b.Op] {
		l, err := ev.eval(b.L)
		if err != nil {
			return false, err.msg
		}
		r, err := ev.eval(b.R)
		if err != nil {
			return false, err.msg
		}
		res, err := compare(b.Op, l, r)
		if err != nil {
			return false, err.msg
		}
		if res {
			return true, ""
		}
		return false, fmt.Sprintf("left side is %s, right side is %s", text(l), text(r))
	}
	ok, err := ev.cond(x)
	if err != nil {
		return false, err.msg
	}
	if agg, isAgg := x.(*ir.Aggregate); !ok && isAgg && agg.Op == "exists" {
		return false, s.missDetail(agg)
	}
	return ok, ""
}

// missDetail says why `exists(v in E where c)` found no record: how many E
// records there are and, for the one closest to matching (the most of c's
// conjuncts true; the first in the table's order of those), each conjunct
// it fails, a comparison with its two sides. It is the evaluator's
// explanation only (implementations agree on Passed, not on Detail), read
// within the evaluation's usual limits: past them it says less.
func (s *State) missDetail(x *ir.Aggregate) string {
	if x.Entity == nil {
		return ""
	}
	ev := s.evaluator()
	rows, err := ev.rows(x.Entity)
	if err != nil {
		return ""
	}
	if len(rows) == 0 {
		return fmt.Sprintf("there is no %s record", x.Entity.Name)
	}
	if x.Where == nil {
		return ""
	}
	var conj []ir.Expr
	var split func(ir.Expr)
	split = func(e ir.Expr) {
		if b, ok := e.(*ir.Binary); ok && b.Op == "and" {
			split(b.L)
			split(b.R)
			return
		}
		conj = append(conj, e)
	}
	split(x.Where)
	n := len(ev.vars)
	ev.vars = append(ev.vars, binding{v: x.Var})
	defer func() { ev.vars = ev.vars[:n] }()
	var (
		closest   *row
		most      = -1
		closeMiss []string
	)
	for _, r := range rows {
		ev.vars[n].val = any(r)
		held := 0
		var miss []string
		for _, c := range conj {
			if e := ev.tick(); e != nil {
				return fmt.Sprintf("none of the %d %s records matches", len(rows), x.Entity.Name)
			}
			why, ok := ev.explainCond(c)
			if ok {
				held++
			} else {
				miss = append(miss, why)
			}
		}
		if held > most {
			closest, most, closeMiss = r, held, miss
		}
	}
	return fmt.Sprintf("none of the %d %s records matches; the closest, %s, fails %s", len(rows), x.Entity.Name, closest.id, strings.Join(closeMiss, "; "))
}

// explainCond evaluates a condition; when it is false it says where it is
// and, for a comparison, what its two sides are.
func (ev *evaluator) explainCond(c ir.Expr) (string, bool) {
	at := fmt.Sprintf("the condition at %d:%d", c.Position().Line, c.Position().Column)
	if b, isBin := c.(*ir.Binary); isBin && comparisons[b.Op] {
		l, err := ev.eval(b.L)
		if err != nil {
			return at + ": " + err.msg, false
		}
		r, err := ev.eval(b.R)
		if err != nil {
			return at + ": " + err.msg, false
		}
		if res, err := compare(b.Op, l, r); err != nil {
			return at + ": " + err.msg, false
		} else if res {
			return "", true
		}
		return fmt.Sprintf("%s (%s): left side is %s, right side is %s", at, b.Op, text(l), text(r)), false
	}
	ok, err := ev.cond(c)
	if err != nil {
		return at + ": " + err.msg, false
	}
	return at, ok
}

// exceptions evaluates the records of `unchanged except …`: each lookup's
// key (the record need not exist) by entity.
func (s *State) exceptions(recs []*ir.Lookup) (map[*ir.Entity]map[string]bool, *evalError) {
	if len(recs) == 0 {
		return nil, nil
	}
	out := map[*ir.Entity]map[string]bool{}
	ev := s.evaluator()
	for _, l := range recs {
		if l == nil {
			return nil, errorf(CodeInternal, "malformed except")
		}
		k, err := ev.eval(l.Key)
		if err != nil {
			return nil, err
		}
		if r, ok := k.(*row); ok {
			k = r.id
		}
		id, ok := k.(string)
		if !ok {
			return nil, errorf(CodeInternal, "except: the key of %s is %s, not a string", l.Entity.Name, typeName(k))
		}
		if out[l.Entity] == nil {
			out[l.Entity] = map[string]bool{}
		}
		out[l.Entity][id] = true
	}
	return out, nil
}

// changedTables names the entities whose tables differ between s and o,
// ignoring the excepted records.
func (s *State) changedTables(o *State, except map[*ir.Entity]map[string]bool) []string {
	var out []string
	for i, t := range s.tables {
		if i >= len(o.tables) {
			break
		}
		if !t.equalExcept(o.tables[i], except[t.ent]) {
			out = append(out, t.ent.Name)
		}
	}
	return out
}

// StepResult is the outcome of one solution step.
type StepResult struct {
	Step *ir.Step
	// Args are the arguments passed, by parameter name, with bound names
	// replaced by the ids they stand for.
	Args map[string]*ir.Value
	Data Data       // the observation data when the call succeeded
	Err  *ToolError // the failure, or nil
	Hash string     // the state hash after the step (RunSolution only)
}

// AsExpected reports whether the step did what the solution says: it
// succeeded, or, for a step written `… fails "msg"` (Step.Fails), it failed
// with exactly that message (any code).
func (r StepResult) AsExpected() bool {
	if r.Step != nil && r.Step.Fails != nil {
		return r.Err != nil && r.Err.Message == *r.Step.Fails
	}
	return r.Err == nil
}

// Observation is the step's outcome in the runtime's observation protocol
// (see ObservationJSON).
func (r StepResult) Observation() []byte { return ObservationJSON(r.Data, r.Err) }

// SolutionResult is the outcome of replaying a task's golden solution.
type SolutionResult struct {
	// Steps holds the steps run: all of them, or up to and including the
	// first that did not do what the solution says (see AsExpected).
	Steps []StepResult
	// Failed is the index in Steps of that step, or -1.
	Failed int
	// Unbound is set when the step Failed succeeded but binds a name
	// (`o = tool(…)`) to a result that is no record: the gate's replay
	// stops there, for it has no id to pass on.
	Unbound   bool
	Grade     Grade  // the rubric on the final state, violations included
	StartHash string // RunSolution only
	FinalHash string // RunSolution only
	Final     *State // the state after the last step run
}

// OK reports whether the solution is golden: every step succeeded (or
// failed as expected, with its message), the reward is 1 and no invariant
// is violated, at the end or (an always-invariant) after any step.
func (r *SolutionResult) OK() bool {
	return r.Failed < 0 && r.Grade.Reward == 1 && len(r.Grade.Violations) == 0 && len(r.Grade.StepViolations) == 0
}

// FirstBreak is the index in Steps of the step after which an
// always-invariant was first broken, or -1.
func (r *SolutionResult) FirstBreak() int {
	if len(r.Grade.StepViolations) == 0 {
		return -1
	}
	return r.Grade.StepViolations[0].Step - 1
}

// Problem describes why the solution is not golden, or returns "".
func (r *SolutionResult) Problem() string {
	var parts []string
	if r.Failed >= 0 {
		st := r.Steps[r.Failed]
		name := "?"
		if st.Step != nil && st.Step.Tool != nil {
			name = st.Step.Tool.Name
		}
		switch {
		case r.Unbound:
			parts = append(parts, fmt.Sprintf("step %d (%s) binds %s, but its result is no record with an id: %s", r.Failed+1, name, st.Step.Bind, st.Observation()))
		case st.Step == nil || st.Step.Fails == nil:
			parts = append(parts, fmt.Sprintf("step %d (%s) failed: %s", r.Failed+1, name, st.Err))
		case st.Err == nil:
			parts = append(parts, fmt.Sprintf("step %d (%s) should fail with %q but succeeded", r.Failed+1, name, *st.Step.Fails))
		default:
			parts = append(parts, fmt.Sprintf("step %d (%s) should fail with %q but failed with %s", r.Failed+1, name, *st.Step.Fails, st.Err))
		}
	}
	for _, v := range r.Grade.StepViolations {
		parts = append(parts, v.String())
	}
	failed := ""
	if r.Grade.Reward < 1 {
		failed = strings.ReplaceAll(r.Grade.Failures(), "\n", "; ")
		parts = append(parts, fmt.Sprintf("reward %d/%d; failed: %s", r.Grade.Passed, r.Grade.Total, failed))
	}
	// A violation a failed `invariant NAME` assertion already states is
	// not said twice.
	for _, v := range r.Grade.Violations {
		if s := v.String(); !strings.Contains(failed, s) {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// RunSolution replays task's golden solution from the task's start state
// (see NewState) and grades the state it reaches. A step written `… fails
// "msg"` must fail with exactly that message, and the replay goes on after
// it (the failed call left the state unchanged). Replay stops at the first
// step that does not do what the solution says (an unexpected failure, an
// expected failure that succeeded or failed with another message); the
// grade is then of the state after that step (unchanged when it failed).
// An argument bound to an earlier step's name passes the id of the record
// that step returned. The result holds the state hash after every step,
// at the start and at the end, for comparison with the generated package.
// The error is for a task without a solution or a start state that cannot
// be built.
func RunSolution(w *ir.World, task *ir.Task) (*SolutionResult, error) {
	if task == nil {
		return nil, fmt.Errorf("eval: nil task")
	}
	if task.Solution == nil {
		return nil, fmt.Errorf("eval: task %s has no solution", task.Name)
	}
	start, err := NewState(w, task)
	if err != nil {
		return nil, err
	}
	return replay(task, start, true), nil
}

// CheckSolution is RunSolution from start, the task's start state (which
// it leaves unchanged), without the state hashes: what tells whether a
// solution is golden. Hashing the whole state after every step is most of
// the cost of a replay on a large world. task must have a solution.
func CheckSolution(task *ir.Task, start *State) *SolutionResult {
	return replay(task, start, false)
}

// replay runs task's solution on a copy of start; hash tells whether to
// record the state hashes. The always-invariants are checked after every
// step (see Trace).
func replay(task *ir.Task, start *State, hash bool) *SolutionResult {
	s := start.Clone()
	res := &SolutionResult{Failed: -1, Final: s}
	if hash {
		res.StartHash = start.Hash()
	}
	bound := map[string]Data{}
	var tr Trace
	tr.Start(s)
	for i, step := range task.Solution {
		sr := s.runStep(step, bound, hash, &tr)
		tool := ""
		if step != nil && step.Tool != nil {
			tool = step.Tool.Name
		}
		tr.After(s, tool, sr.Err == nil)
		res.Steps = append(res.Steps, sr)
		if !sr.AsExpected() {
			res.Failed = i
			break
		}
		if sr.Err == nil && step.Bind != "" {
			if sr.Data.ID() == "" {
				res.Failed, res.Unbound = i, true
				break
			}
			bound[step.Bind] = sr.Data
		}
	}
	if hash {
		res.FinalHash = s.Hash()
	}
	// A golden solution's final message states what the task asks.
	var answer *string
	if ExpectsAnswer(task) {
		golden := s.GoldenAnswer(task)
		answer = &golden
	}
	res.Grade = s.GradeAnswer(task, start, &tr, answer)
	return res
}

func (s *State) runStep(step *ir.Step, bound map[string]Data, hash bool, tr *Trace) StepResult {
	sr := StepResult{Step: step, Args: map[string]*ir.Value{}}
	fail := func(code, format string, args ...any) StepResult {
		sr.Err = &ToolError{Code: code, Message: fmt.Sprintf(format, args...)}
		if hash {
			sr.Hash = s.Hash()
		}
		return sr
	}
	if step == nil || step.Tool == nil {
		return fail(CodeUnknownTool, "step without a tool")
	}
	for _, a := range step.Args {
		if a == nil || a.Param == nil {
			return fail(CodeInvalidArguments, "argument without a parameter")
		}
		v := a.Value
		if a.Bound != "" {
			d, ok := bound[a.Bound]
			if !ok || d.ID() == "" {
				return fail(CodeInvalidArguments, "argument %q: %s is not bound to a returned record", a.Param.Name, a.Bound)
			}
			v = &ir.Value{Kind: ir.KindRef, Str: d.ID()}
		}
		sr.Args[a.Param.Name] = v
	}
	tr.Before(s, step.Tool, sr.Args)
	sr.Data, sr.Err = s.Call(step.Tool, sr.Args)
	if hash {
		sr.Hash = s.Hash()
	}
	return sr
}
