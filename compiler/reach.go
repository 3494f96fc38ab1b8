package compiler

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/probe"
	"github.com/worldc/worldc/runtime"
)

// Reachability (W025). The executability gate requires every tool to
// succeed at least once on arguments its conformance search builds
// (internal/probe: candidates from the seed, the task seeds and the golden
// solutions), tried from the world seed, each task's start state, the
// states along each golden solution and the states after one or two
// successful calls of other tools (runtime.ProbeFrom). The checker runs
// the same search, on the same probes, with the compile-time evaluator in
// place of the generated package, and reports every tool it cannot
// reach: the gate's verdict, predicted at the spec position.

// evalCaller runs tool calls on a state of the compile-time evaluator,
// counting them in calls.
type evalCaller struct {
	s     *eval.State
	calls *int
}

func (e evalCaller) Call(tool string, args json.RawMessage) runtime.Observation {
	*e.calls++
	data, terr := e.s.CallJSON(tool, args)
	if terr != nil {
		return runtime.Observation{Error: &runtime.ToolError{Code: terr.Code, Message: terr.Message}}
	}
	return runtime.Observation{OK: true, Data: data.JSON()}
}

// stateStart is a start of the search: fresh copies of s. The calls on
// copies of a state that starts the search more than once (m.shared: the
// world seed, from which every task without seed records starts) are
// remembered, and run again on another copy only when needed.
func (m *probeMemo) stateStart(name string, s *eval.State) runtime.Start {
	if m.shared[s] {
		return runtime.Start{Name: name, New: func() (runtime.Caller, error) { return &memoCaller{m: m, start: s}, nil }}
	}
	return runtime.Start{Name: name, New: func() (runtime.Caller, error) { return evalCaller{s.Clone(), &m.calls}, nil }}
}

// searchWork is what a reachability search did: the calls it tried (as
// runtime.ProbeResult.Tries counts them) and those the evaluator ran.
type searchWork struct {
	tries, calls int
}

// probeMemo holds the observations of the calls the search made on fresh
// copies of the states in shared, by state and sequence of calls. Tool
// calls are deterministic: the same calls on copies of the same state
// observe the same, so a search from a state that starts it again (a
// task that starts from the world seed) costs lookups, not calls, and
// tries, and reports, exactly what it would by calling (the evaluation
// budget aside: a lookup charges it nothing).
type probeMemo struct {
	shared map[*eval.State]bool
	obs    map[memoKey]runtime.Observation
	calls  int // calls the evaluator ran
}

type memoKey struct {
	start *eval.State
	calls string // each call's tool and arguments, NUL-terminated
}

// memoCaller is one episode on a copy of start: its calls so far (calls,
// and in key) are looked up while they were made before; the copy is made,
// and they are replayed on it, at the first call that was not.
type memoCaller struct {
	m     *probeMemo
	start *eval.State
	key   string
	calls []memoCall
	s     *eval.State // the copy, once made
}

type memoCall struct {
	tool string
	args json.RawMessage
}

func (c *memoCaller) Call(tool string, args json.RawMessage) runtime.Observation {
	key := c.key + tool + "\x00" + string(args) + "\x00"
	k := memoKey{c.start, key}
	c.key = key
	if o, ok := c.m.obs[k]; ok && c.s == nil {
		c.calls = append(c.calls, memoCall{tool, args})
		return o
	}
	if c.s == nil {
		c.s = c.start.Clone()
		for _, call := range c.calls {
			c.m.calls++
			c.s.CallJSON(call.tool, call.args)
		}
		c.calls = nil
	}
	o := evalCaller{c.s, &c.m.calls}.Call(tool, args)
	if _, ok := c.m.obs[k]; !ok {
		c.m.obs[k] = o
	}
	return o
}

// reachability reports the tools the gate's conformance search would not
// reach (W025). seed is the world seed's state; starts holds each task's
// start state and solutions each golden solution's replay.
func (c *checker) reachability(seed *eval.State, starts map[*ir.Task]*eval.State, solutions map[*ir.Task]*eval.SolutionResult) {
	if len(c.w.Tools) == 0 {
		return
	}
	memo := &probeMemo{shared: map[*eval.State]bool{}, obs: map[memoKey]runtime.Observation{}}
	seen := map[*eval.State]bool{seed: true}
	for _, t := range c.w.Tasks {
		if s := starts[t]; seen[s] {
			memo.shared[s] = true
		} else {
			seen[s] = true
		}
	}
	base := []runtime.Start{memo.stateStart("", seed)}
	var along []runtime.Start
	for _, t := range c.w.Tasks {
		start := starts[t]
		if start == nil {
			return // the start state did not build: reported as such
		}
		base = append(base, memo.stateStart(t.Name, start))
	}
	for _, t := range c.w.Tasks {
		res := solutions[t]
		if res == nil {
			continue
		}
		// The states after each step, as runtime.SolutionStarts builds
		// them by replaying the solution (a step that fails changes
		// nothing).
		s := starts[t].Clone()
		for k, step := range res.Steps {
			s.Call(step.Step.Tool, step.Args)
			along = append(along, memo.stateStart(fmt.Sprintf("%s after step %d", t.Name, k+1), s.Clone()))
		}
		t.Created = created(c.w, starts[t], s)
	}
	probes := probe.Probes(c.w)
	results := runtime.ProbeFrom(base, along, probes)
	c.searched.calls = memo.calls
	for i, t := range c.w.Tools {
		res := results[i]
		c.searched.tries += res.Tries
		if res.Err != nil || res.Args != nil {
			continue
		}
		c.unreachable(t, probes[i], res)
	}
}

// created lists the records of after that are not in before, entity by
// entity in world order, each in insertion order. after is a clone of
// before, written since: this costs what the solution changed, not the
// records the two states share.
func created(w *ir.World, before, after *eval.State) []ir.Created {
	var out []ir.Created
	for _, e := range w.Entities {
		for _, id := range after.NewIDs(before, e) {
			out = append(out, ir.Created{Entity: e, ID: id})
		}
	}
	return out
}

// maxShown bounds the candidate values a W025 message lists per parameter.
const maxShown = 5

// unreachable reports tool t, which no tried call succeeded on.
func (c *checker) unreachable(t *ir.Tool, tp runtime.ToolProbe, res runtime.ProbeResult) {
	var msg strings.Builder
	fmt.Fprintf(&msg, "tool %s never succeeds in the conformance search: none of the %d calls tried (from the world seed, the task start states, the states along the golden solutions and after other tools' calls) succeeded", t.Name, res.Tries)
	if o := res.Best; o.Error != nil {
		fmt.Fprintf(&msg, "; the furthest got: %s: %s", o.Error.Code, o.Error.Message)
		if pos, ok := requirePos(t, tp.RequireIndex(o.Error.Message)); ok && o.Error.Code == runtime.CodePreconditionFailed {
			fmt.Fprintf(&msg, " (the require at %s: make it hold in some state for one of the values tried)", short(pos))
		}
	}
	var tried []string
	for _, p := range tp.Params {
		var vals []string
		for _, v := range p.Candidates {
			s := string(v)
			if s == "null" {
				s = "(left out)"
			}
			vals = append(vals, s)
		}
		if len(vals) > maxShown {
			vals = append(vals[:maxShown], fmt.Sprintf("… (%d in all)", len(p.Candidates)))
		}
		if len(vals) == 0 {
			vals = []string{"(none)"}
			if pt := paramType(t, p.Name); pt != nil && pt.Kind == ir.KindRef {
				vals = []string{fmt.Sprintf("(none: no record of %s in the seed or created by a golden solution)", pt.Entity.Name)}
			}
		}
		tried = append(tried, p.Name+": "+strings.Join(vals, ", "))
	}
	if len(tried) > 0 {
		fmt.Fprintf(&msg, "; values tried: %s", strings.Join(tried, "; "))
	}
	c.errorAtNode(diag.UnreachableTool, t.Pos, "%s", msg.String())
}

// paramType is the type of t's parameter name.
func paramType(t *ir.Tool, name string) *ir.Type {
	for _, p := range t.Params {
		if p.Name == name {
			return p.Type
		}
	}
	return nil
}

// requirePos is the position of the i-th require or fail of t, in the
// order of the probe's require messages.
func requirePos(t *ir.Tool, i int) (ir.Pos, bool) {
	var out []ir.Pos
	ir.WalkStmts(t.Body, func(st ir.Stmt) {
		switch x := st.(type) {
		case *ir.Require:
			out = append(out, x.Pos)
		case *ir.Fail:
			out = append(out, x.Pos)
		}
	}, nil)
	if i < 0 || i >= len(out) {
		return ir.Pos{}, false
	}
	return out[i], true
}
