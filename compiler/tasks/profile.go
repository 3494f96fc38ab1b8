package tasks

import (
	"slices"

	"github.com/worldc/worldc/compiler/ir"
)

// Profile is a task's difficulty, measured on its golden run.
type Profile struct {
	// Calls is the number of calls of the golden solution; Writes those
	// that write (or are refused), Lookups those that find a record.
	Calls   int `json:"calls"`
	Writes  int `json:"writes"`
	Lookups int `json:"lookups"`
	// Services is the number of services whose tools are called.
	Services int `json:"services"`
	// Depth is the length of the longest chain of calls each depending on
	// the one before: a value it passes came from that call's
	// observation, or a field its tool's requires read was written by it.
	Depth int `json:"depth"`
	// Distractors are the records the agent must tell apart from the ones
	// it needs: others its lookups return (records sharing the values
	// the words give), the records of a program's group it must leave.
	Distractors int `json:"distractors"`
	// Branches are the records a program decides on; LoopIterations the
	// records it writes.
	Branches       int `json:"branches"`
	LoopIterations int `json:"loop_iterations"`
	// Implied are the writes the policy requires that the words do not
	// ask for (a repair of an invariant the asked-for writes break).
	Implied int `json:"implied"`
	// InvariantSensitive: doing only what the words ask would break an
	// invariant (the task needs an implied write, or is a refusal the
	// policy demands).
	InvariantSensitive bool `json:"invariant_sensitive"`
	// Refusal: the right outcome is that nothing changes.
	Refusal bool `json:"refusal"`
	// Level is easy, medium or hard, from the measures above.
	Level string `json:"level"`
}

// measure computes a task's profile from its calls.
func (x *synth) measure(t *task, cls []clause, g *groundCtx) Profile {
	p := Profile{Calls: len(t.calls), Distractors: g.distractors}
	t.seedSeen = len(g.seedSeen)
	var services []string
	for _, c := range t.calls {
		if c.lookup {
			p.Lookups++
		} else if x.byTool[c.tool].writer() {
			p.Writes++
		}
		if !slices.Contains(services, c.tool.Service.Name) {
			services = append(services, c.tool.Service.Name)
		}
	}
	p.Services = len(services)
	for _, cl := range cls {
		if cl.c.implied {
			p.Implied++
		}
	}
	p.InvariantSensitive = p.Implied > 0
	p.Depth = x.depth(t.calls)
	p.Level = level(p)
	return p
}

// depth is the longest path of the calls' dependencies (see Profile).
func (x *synth) depth(calls []*call) int {
	longest := make([]int, len(calls))
	best := 0
	for j, c := range calls {
		longest[j] = 1
		f := x.byTool[c.tool]
		passed := map[string]bool{}
		for _, a := range c.args {
			if f.names[a.p] != nil {
				for _, id := range stringsIn(a.v) {
					passed[id] = true
				}
			}
		}
		for i := 0; i < j; i++ {
			dep := false
			for _, a := range c.args {
				if a.bound != "" && a.bound == calls[i].bind {
					dep = true
				}
			}
			if !dep && len(passed) > 0 {
				seen := map[string]bool{}
				atoms(calls[i].obs, seen)
				for id := range passed {
					if seen[id] && calls[i].lookup {
						dep = true
					}
				}
			}
			if !dep && !calls[i].lookup {
				prev := x.byTool[calls[i].tool]
				for _, r := range f.reads {
					if slices.Contains(prev.writes, r) && sharesRecord(x, calls[i], c) {
						dep = true
						break
					}
				}
			}
			if dep && longest[i]+1 > longest[j] {
				longest[j] = longest[i] + 1
			}
		}
		best = max(best, longest[j])
	}
	return best
}

// sharesRecord reports whether two calls name a common record (or one
// names the record the other returned).
func sharesRecord(x *synth, a, b *call) bool {
	ids := func(c *call) map[string]bool {
		out := map[string]bool{}
		f := x.byTool[c.tool]
		for _, ar := range c.args {
			if f.names[ar.p] != nil {
				for _, id := range stringsIn(ar.v) {
					out[id] = true
				}
			}
		}
		if c.id != "" {
			out[c.id] = true
		}
		return out
	}
	ia, ib := ids(a), ids(b)
	for id := range ia {
		if ib[id] {
			return true
		}
	}
	for _, ar := range b.args {
		if ar.bound != "" && ar.bound == a.bind {
			return true
		}
	}
	return false
}

// level grades a profile: hard when it needs a long chain, an implied
// write, telling several records apart, a loop or a refusal the policy
// demands; medium when it needs several writes, a chain of lookups, a
// distractor, several services, a decision or a refusal; easy otherwise
// (one write on records found in one step).
func level(p Profile) string {
	switch {
	case p.Depth >= 4 || p.Implied > 0 || p.Distractors >= 2 || p.LoopIterations >= 2 || p.Writes >= 4 || (p.Refusal && p.InvariantSensitive):
		return "hard"
	case p.Writes >= 2 || p.Depth >= 3 || p.Distractors >= 1 || p.Services >= 2 || p.Branches > 0 || p.Refusal:
		return "medium"
	}
	return "easy"
}

// factors maps a profile onto atomic difficulty factors, where they
// apply: grounding (ids found from what a user knows), disambiguation
// (distractors), multi-step planning, cross-service coordination, state
// tracking (a later call on what an earlier one created or changed),
// conditional logic and iteration (programs), policy compliance (an
// implied write), risk and refusal, structured information (composite
// arguments).
func factors(p Profile, calls []*call) []string {
	var out []string
	add := func(ok bool, f string) {
		if ok {
			out = append(out, f)
		}
	}
	structured := false
	for _, c := range calls {
		for _, a := range c.args {
			switch a.p.Type.Kind {
			case ir.KindList, ir.KindMap, ir.KindStruct:
				structured = true
			}
		}
	}
	add(p.Lookups > 0, "grounding")
	add(p.Distractors > 0, "disambiguation")
	add(p.Writes >= 2 || p.Depth >= 3, "multi_step_planning")
	add(p.Services >= 2, "cross_service")
	add(p.Depth >= 2 && p.Writes >= 2, "state_tracking")
	add(p.Branches > 0, "conditional_logic")
	add(p.LoopIterations > 0, "iteration")
	add(p.Implied > 0, "policy_compliance")
	add(p.Refusal, "risk_refusal")
	add(structured, "structured_information")
	return out
}
