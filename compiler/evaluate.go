package compiler

import (
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// evaluate runs the validators that need the world executed at compile
// time (compiler/eval): the seed against the invariants (W012), invariants
// that can never trigger (W013), rubrics that hold before the agent acts
// (W014) and golden solutions that do not reach a full score (W021).
//
// Evaluation is bounded (W026): each invariant checked on all its records
// together, each rubric assertion and each tool call within
// eval.DefaultLimits, and all of it, for the whole spec, within
// MaxCheckSteps.
func (c *checker) evaluate() {
	seed, err := eval.NewState(c.w, nil)
	if err != nil {
		c.errorAtNode(diag.SeedViolatesInvariant, c.w.Pos, "the seed cannot be loaded: %v", err)
		return
	}
	steps := int64(MaxCheckSteps)
	if c.checkSteps > 0 {
		steps = c.checkSteps
	}
	budget := eval.NewBudget(steps)
	c.budget = budget
	seed.SetBudget(budget)

	spent := func(what string, pos ir.Pos) bool {
		if !budget.Spent() {
			return false
		}
		c.errorAtNode(diag.EvaluationBudget, pos, "checking the spec ran out of its evaluation budget of %d steps in all while evaluating %s; nothing after it was evaluated", budget.Total(), what)
		return true
	}
	records := map[[2]string]*ir.Record{}
	for _, r := range c.w.Seed {
		records[[2]string{r.Entity.Name, r.ID}] = r
	}
	violations := seed.Violations()
	if spent("the invariants on the seed", c.w.Pos) {
		return
	}
	broken := false
	for _, v := range violations {
		pos := c.w.Pos
		if r := records[[2]string{v.Entity, v.ID}]; r != nil {
			pos = r.Pos
		}
		if v.Exceeded {
			ipos := pos
			if inv := c.invariants[v.Invariant]; inv != nil {
				ipos = inv.Pos
			}
			c.errorAtNode(diag.EvaluationBudget, ipos, "checking invariant %s on the seed stopped at %s %q: %s (on all its records together)", v.Invariant, v.Entity, v.ID, v.Detail)
			broken = true
			continue
		}
		broken = true
		msg := "the seed breaks invariant %s: %s %q does not satisfy it"
		if v.Detail != "" {
			msg += " (" + v.Detail + ")"
		}
		c.errorAtNode(diag.SeedViolatesInvariant, pos, msg, v.Invariant, v.Entity, v.ID)
	}
	for _, inv := range c.w.Invariants {
		if len(c.triggerWriters(inv)) > 0 {
			// Tools change what the trigger reads, but a field it tests
			// may still never hold a value that passes the test.
			if why := c.deadTrigger(inv); why != "" {
				c.errorAtNode(diag.DeadInvariant, inv.Pos, "invariant %s can never trigger: %s", inv.Name, why)
			}
			continue
		}
		// Nothing can change which records trigger it: it is dead unless the
		// seed already triggers it. Counting the records whose trigger holds
		// is checking the same trigger against a check that never holds.
		probe := &ir.Invariant{Name: inv.Name, Entity: inv.Entity, Var: inv.Var, Where: inv.Where,
			Check: &ir.Lit{ExprBase: ir.ExprBase{T: boolT}, Value: &ir.Value{Kind: ir.KindBool}}}
		if len(seed.InvariantViolations(probe)) == 0 {
			c.errorAtNode(diag.DeadInvariant, inv.Pos, "invariant %s can never trigger: no tool creates %s or changes what its where clause reads, and no seed record triggers it", inv.Name, inv.Entity.Name)
		}
	}
	if broken {
		return // tasks built on a broken seed would only repeat the problem
	}
	starts := map[*ir.Task]*eval.State{}
	solutions := map[*ir.Task]*eval.SolutionResult{}
	if spent("the invariants' triggers", c.w.Pos) {
		return
	}
	for _, t := range c.w.Tasks {
		// A task without seed records or a clock of its own starts from the
		// world seed; nothing below changes the start state (a solution
		// runs on a copy). Another starts from the world seed shared copy
		// on write, with its own records and clock: it costs what it adds.
		start := seed
		if len(t.Seed) > 0 || t.Today != "" {
			if start, err = seed.WithTask(t); err != nil {
				c.errorAtNode(diag.SeedViolatesInvariant, t.Pos, "the start state of task %s cannot be built: %v", t.Name, err)
				continue
			}
		}
		starts[t] = start
		unchanged := false
		for _, a := range t.Assertions {
			unchanged = unchanged || a.Kind == ir.AssertUnchanged
		}
		if g := start.Grade(t, start); !unchanged && g.Total > 0 && g.Passed == g.Total {
			c.errorAtNode(diag.RubricAlreadySatisfied, t.Pos, "the rubric of task %s already holds before the agent acts", t.Name)
		}
		if spent("the rubric of task "+t.Name, t.Pos) {
			return
		}
		if t.Solution == nil {
			continue
		}
		res := eval.CheckSolution(t, start)
		solutions[t] = res
		if spent("the solution of task "+t.Name, t.Pos) {
			return
		}
		if !res.OK() {
			// At the step that went wrong: the one that failed, else the
			// one after which an always-invariant first broke.
			pos := t.Pos
			at := res.Failed
			if at < 0 {
				at = res.FirstBreak()
			}
			if at >= 0 && at < len(res.Steps) && res.Steps[at].Step != nil {
				pos = res.Steps[at].Step.Pos
			}
			c.errorAtNode(diag.SolutionFails, pos, "the solution of task %s is not golden: %s", t.Name, res.Problem())
		}
	}
	if !c.diags.HasErrors() && !c.noReachable {
		c.reachability(seed, starts, solutions)
	}
}
