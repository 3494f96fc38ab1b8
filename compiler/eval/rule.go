package eval

import (
	"github.com/worldc/worldc/compiler/ir"
)

// RuleViolations checks the rules on actions (ir.Rule) of tool before a
// call with args on s: each rule's check with the tool's parameters bound
// as in its body. A rule whose check is false, or whose evaluation fails
// (a followed ref whose record is missing: Detail is the error), gives a
// violation; arguments the call would refuse give none (a call that fails
// breaks no rule). The violation names the record of the tool's first ref
// parameter (Entity and ID), or nothing for a tool without one; its
// Detail is the rule's policy text or the evaluation error. Rules come in
// declaration order. s is not changed.
func (s *State) RuleViolations(tool *ir.Tool, args map[string]*ir.Value) []Violation {
	var rules []*ir.Rule
	for _, r := range s.w.Rules {
		if r != nil && r.Tool == tool {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	ev := s.evaluator()
	bound, err := ev.bindArgs(tool, args)
	if err != nil {
		return nil
	}
	entity, id := "", ""
	for _, p := range tool.Params {
		if p.Var == nil {
			continue
		}
		v := bound[p]
		if r, ok := v.(*row); ok {
			if entity == "" && !p.Type.Optional {
				entity, id = r.ent.Name, r.id
			}
			if p.Var.Type == nil || p.Var.Type.Kind != ir.KindRecord {
				v = r.id
			}
		}
		ev.bind(p.Var, v)
	}
	var out []Violation
	for _, r := range rules {
		ok, err := ev.cond(r.Check)
		switch {
		case err != nil:
			out = append(out, Violation{Invariant: r.Name, Entity: entity, ID: id, Detail: err.msg, Rule: true})
		case !ok:
			out = append(out, Violation{Invariant: r.Name, Entity: entity, ID: id, Detail: r.Policy, Rule: true})
		}
	}
	return out
}
