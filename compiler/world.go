package compiler

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

func (c *checker) checkInvariants(decls []*dsl.Invariant) {
	for _, d := range decls {
		if first, dup := c.invariants[d.Name]; dup {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "duplicate invariant %q, first defined at %s", d.Name, short(first.Pos))
			continue
		}
		inv := &ir.Invariant{Name: d.Name, Policy: d.Policy, Local: d.Local, Always: d.Always, Pos: ir.Pos(d.Pos)}
		c.invariants[d.Name] = inv
		if strings.TrimSpace(d.Policy) == "" {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "invariant %s has an empty policy text; the agent reads it", d.Name)
		}
		s := &scope{vars: map[string]*ir.Var{}}
		inv.Entity = c.source(d.Source, s)
		if inv.Entity == nil {
			continue
		}
		inv.Var = c.declare(s, "variable", d.Var, &ir.Type{Kind: ir.KindRecord, Entity: inv.Entity}, d.Pos, d.EndPos)
		if d.Where != nil {
			inv.Where = c.boolExpr(d.Where, s, "invariant trigger")
			s = s.knowing(narrowedBy(inv.Where, true))
		}
		inv.Check = c.boolExpr(d.Check, s, "invariant check")
		c.w.Invariants = append(c.w.Invariants, inv)
	}
}

// checkRules checks the rules on actions: a name of its own (invariants
// and rules share one namespace: a rubric's `invariant NAME` names
// either), a policy text, a custom tool, parameters of that tool, and a
// boolean check over them and the state.
func (c *checker) checkRules(decls []*dsl.Rule) {
	for _, d := range decls {
		if first, dup := c.invariants[d.Name]; dup {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "rule %q has the name of the invariant at %s (a rubric's invariant NAME names either)", d.Name, short(first.Pos))
			continue
		}
		if first, dup := c.rules[d.Name]; dup {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "duplicate rule %q, first defined at %s", d.Name, short(first.Pos))
			continue
		}
		r := &ir.Rule{Name: d.Name, Policy: d.Policy, Pos: ir.Pos(d.Pos)}
		c.rules[d.Name] = r
		if strings.TrimSpace(d.Policy) == "" {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "rule %s has an empty policy text; the agent reads it", d.Name)
		}
		name := d.Tool[len(d.Tool)-1]
		t := c.tools[name]
		if t == nil || len(d.Tool) == 2 && t.Service.Name != d.Tool[0] {
			c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "rule %s is on %s, which is no tool%s", d.Name, strings.Join(d.Tool, "."), suggestName(c.toolNames(), name))
			continue
		}
		if t.Kind != ir.ToolCustom {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "rule %s is on %s, a standard %s tool: a rule is on a custom tool, whose parameters it reads", d.Name, t.Name, t.Kind)
			continue
		}
		r.Tool = t
		s := &scope{vars: map[string]*ir.Var{}}
		for _, p := range t.Params {
			if p.Var != nil {
				s.vars[p.Name] = p.Var
			}
		}
		for _, pn := range d.Params {
			if s.vars[pn] == nil {
				c.errorf(diag.UnresolvedName, d.Pos, d.EndPos, "rule %s names %s, which is no parameter of %s", d.Name, pn, t.Name)
			}
		}
		r.Check = c.boolExpr(d.Check, s, "rule check")
		c.w.Rules = append(c.w.Rules, r)
	}
}

// answerable reports whether an answer can state a value of type t: a
// scalar, an enum, a record or ref (its id), or a list of one of these.
func answerable(t *ir.Type) bool {
	if t.Kind == ir.KindList {
		return t.Elem != nil && t.Elem.Kind != ir.KindList && answerable(t.Elem)
	}
	switch t.Kind {
	case ir.KindMap, ir.KindStruct, ir.KindSet, ir.KindNull, ir.KindInvalid:
		return false
	}
	return true
}

// toolNames lists the tools' names, for suggestions.
func (c *checker) toolNames() []string {
	out := make([]string, len(c.w.Tools))
	for i, t := range c.w.Tools {
		out[i] = t.Name
	}
	return out
}

// seedRecords checks the records of a seed block against the schema and
// registers their handles and ids in idx (a task's index has the world's as
// its parent: its handles are visible but owned there). Records loaded from
// data files come after the records written out, in load order.
func (c *checker) seedRecords(s *dsl.Seed, idx *recordIndex) []*ir.Record {
	// First every handle, so that records may refer to later ones.
	var out []*ir.Record
	decls := map[*ir.Record]*dsl.Record{}
	for _, rd := range s.Records {
		e := c.lookupEntity(rd.Entity)
		if first := idx.handles[rd.Handle]; first != nil {
			c.errorf(diag.DuplicateName, rd.Pos, rd.EndPos, "duplicate seed handle %q, first at %s", rd.Handle, short(first.Pos))
			continue
		}
		if first := idx.parent.handle(rd.Handle); first != nil {
			c.errorf(diag.DuplicateName, rd.Pos, rd.EndPos, "seed handle %q is already a world seed record (at %s)", rd.Handle, short(first.Pos))
			continue
		}
		if e == nil {
			continue
		}
		r := &ir.Record{Entity: e, ID: rd.Handle, Pos: ir.Pos(rd.Pos), Values: make([]*ir.Value, len(e.Fields))}
		idx.handles[rd.Handle] = r
		decls[r] = rd
		out = append(out, r)
	}
	for _, r := range out {
		c.seedValues(r, decls[r], idx)
		c.registerID(r, idx)
	}
	for _, l := range s.Loads {
		out = append(out, c.load(l, idx)...)
	}
	return out
}

// registerID sets the id of a record of an entity with a key (the key
// field's value) and registers the id, reporting a second record with it.
func (c *checker) registerID(r *ir.Record, idx *recordIndex) {
	if k := r.Entity.Key; k != nil {
		v := r.Values[fieldIndex(r.Entity, k)]
		if v == nil || v.Kind != ir.KindString {
			return // reported
		}
		r.ID = v.Str
		if r.ID == "" {
			c.errorAtNode(diag.TypeMismatch, r.Pos, "the key %s of a %s record is empty", k.Name, r.Entity.Name)
			return
		}
	}
	if r.ID == "" {
		c.errorAtNode(diag.TypeMismatch, r.Pos, "the id of a %s record is empty", r.Entity.Name)
		return
	}
	if prev := idx.addID(r); prev != nil && r.Entity.Key != nil {
		c.errorAtNode(diag.SeedNotUnique, r.Pos, "%s.%s is the key and must be unique: %s has %q too", r.Entity.Name, r.Entity.Key.Name, c.recordName(prev), r.ID)
	} else if prev != nil {
		c.errorAtNode(diag.SeedNotUnique, r.Pos, "two %s records have the id %q (the other is %s)", r.Entity.Name, r.ID, c.recordName(prev))
	}
}

// recordName names a seed record in messages: where it is (in the spec,
// or in a data file).
func (c *checker) recordName(r *ir.Record) string {
	if r.Pos.Filename != c.w.Pos.Filename {
		return fmt.Sprintf("the record at %s:%d:%d", r.Pos.Filename, r.Pos.Line, r.Pos.Column)
	}
	return "the record at " + short(r.Pos)
}

func fieldIndex(e *ir.Entity, f *ir.Field) int {
	for i, g := range e.Fields {
		if g == f {
			return i
		}
	}
	return -1
}

// seedValues checks and converts the field values of one seed record.
func (c *checker) seedValues(r *ir.Record, rd *dsl.Record, idx *recordIndex) {
	e := r.Entity
	given := map[string]*dsl.FieldValue{}
	for _, fv := range rd.Fields {
		if prev := given[fv.Name]; prev != nil {
			c.errorf(diag.DuplicateName, fv.Pos, fv.EndPos, "field %s given twice (first at %s)", fv.Name, short(prev.Pos))
			continue
		}
		given[fv.Name] = fv
		if fv.Name == "id" {
			if e.Key != nil {
				c.errorf(diag.TypeMismatch, fv.Pos, fv.EndPos, "the id of a %s is its key %s; give %s instead of id", e.Name, e.Key.Name, e.Key.Name)
			} else {
				c.errorf(diag.TypeMismatch, fv.Pos, fv.EndPos, "a seed record's id is its handle (%s); remove the id field", rd.Handle)
			}
			continue
		}
		if e.Field(fv.Name) == nil {
			c.errorf(diag.UnresolvedName, fv.Pos, fv.EndPos, "%s has no field %q%s", e.Name, fv.Name, suggestField(e, fv.Name))
		}
	}
	for i, f := range e.Fields {
		r.Values[i] = &ir.Value{Kind: ir.KindNull}
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			continue
		}
		fv := given[f.Name]
		switch {
		case fv != nil:
			v := c.constant(fv.Composite, fv.Value, f.Type, idx)
			if v == nil {
				continue
			}
			r.Values[i] = v
			if v.Kind != ir.KindNull {
				if msg := boundViolation(f, v); msg != "" {
					c.errorf(diag.OutOfRange, fv.Pos, fv.EndPos, "%s.%s of %s %s", e.Name, f.Name, rd.Handle, msg)
				}
			}
		case f.Default != nil:
			r.Values[i] = f.Default
		case !f.Type.Optional:
			c.errorf(diag.MissingRequired, rd.Pos, rd.EndPos, "seed record %s (%s) does not give required field %q", rd.Handle, e.Name, f.Name)
		}
	}
}

// uniqueKey is a value of a unique field.
type uniqueKey struct {
	f *ir.Field
	v string
}

// checkUnique reports seed records that share a unique field's value, and
// returns the first record holding each value. With seen (the world seed's
// values, which it does not change), it checks a task's own records
// against the world seed's and each other's in time proportional to them.
func (c *checker) checkUnique(records []*ir.Record, seen map[uniqueKey]*ir.Record) map[uniqueKey]*ir.Record {
	first := map[uniqueKey]*ir.Record{}
	for _, r := range records {
		for i, f := range r.Entity.Fields {
			v := r.Values[i]
			if !f.Unique || v == nil || v.Kind == ir.KindNull {
				continue
			}
			k := uniqueKey{f, formatValue(v)}
			prev := seen[k]
			if prev == nil {
				prev = first[k]
			}
			if prev != nil {
				c.errorAtNode(diag.SeedNotUnique, r.Pos, "%s.%s must be unique: %s and %s both have %s", r.Entity.Name, f.Name, prev.ID, r.ID, formatValue(v))
				continue
			}
			first[k] = r
		}
	}
	return first
}

func (c *checker) checkTasks(decls []*dsl.Task) {
	worldUnique := c.checkUnique(c.w.Seed, nil)
	seen := map[string]*ir.Task{}
	for _, d := range decls {
		if first, dup := seen[d.Name]; dup {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "duplicate task %q, first defined at %s", d.Name, short(first.Pos))
			continue
		}
		t := &ir.Task{Name: d.Name, Persona: d.Persona, Instruction: d.Instruction, Pos: ir.Pos(d.Pos)}
		seen[d.Name] = t
		c.w.Tasks = append(c.w.Tasks, t)
		if strings.TrimSpace(d.Instruction) == "" {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "task %s has an empty instruction", d.Name)
		}
		c.taskClock(d, t)
		if d.Tags != nil {
			t.Domain = deref(d.Tags.Domain)
			t.Capabilities = d.Tags.Capabilities
			t.Difficulty = d.Tags.Difficulty
		}
		if d.Meta != nil {
			t.Meta = c.taskMeta(d.Meta)
		}
		taskHandles := map[string]*ir.Record{}
		taskIdx := newRecordIndex(taskHandles, c.ids)
		if d.Seed != nil {
			t.Seed = c.seedRecords(d.Seed, taskIdx)
			c.resolvePending()
			c.checkUnique(t.Seed, worldUnique)
		}
		s := &scope{vars: map[string]*ir.Var{}, handles: c.handles, taskHandles: taskHandles}
		if len(d.Expect.Assertions) == 0 {
			c.errorf(diag.MissingRequired, d.Expect.Pos, d.Expect.EndPos, "task %s has an empty rubric", d.Name)
		}
		for _, a := range d.Expect.Assertions {
			as := &ir.Assertion{Pos: ir.Pos(a.Pos), Text: a.String()}
			switch {
			case a.Invariant != nil && c.rules[*a.Invariant] != nil:
				as.Kind = ir.AssertRule
				as.Rule = c.rules[*a.Invariant]
			case a.Invariant != nil:
				as.Kind = ir.AssertInvariant
				as.Invariant = c.invariants[*a.Invariant]
				if as.Invariant == nil {
					c.errorf(diag.UnresolvedName, a.Pos, a.EndPos, "unknown invariant %q", *a.Invariant)
					continue
				}
			case a.Unchanged:
				as.Kind = ir.AssertUnchanged
				for _, x := range a.Except {
					if l := c.exceptRecord(x, s); l != nil {
						as.Except = append(as.Except, l)
					}
				}
			case a.Answer != nil:
				as.Kind = ir.AssertAnswer
				// A list literal is typed by its elements, as it is where no
				// context types it ([vis_1, vis_2], ["a", "b"]).
				// `answer []` is the answer that there is none (the agent
				// must say none, nothing or no): its elements' type does
				// not matter, and a text list's is the plainest.
				x := c.expr(a.Answer, s)
				if l, isList := x.(*ir.ListLit); isList && len(l.Elems) == 0 {
					x = c.coerce(x, &ir.Type{Kind: ir.KindList, Elem: stringT}, a.EndPos, "answer")
				}
				as.Expr = c.settle(x, a.EndPos)
				if t := as.Expr.Type(); t != nil && t.Kind != ir.KindInvalid && !answerable(t) {
					c.errorf(diag.TypeMismatch, a.Pos, a.EndPos, "an answer is a number, an amount, a date, a text, an id, a yes or no, or a list of one of these, not %s", t)
				}
			default:
				as.Kind = ir.AssertExpr
				as.Expr = c.boolExpr(a.Expr, s, "rubric assertion")
			}
			t.Assertions = append(t.Assertions, as)
		}
		if d.Solution != nil {
			t.Solution = c.solution(d.Solution, taskIdx)
			if t.Solution == nil {
				t.Solution = []*ir.Step{}
			}
		}
	}
}

func (c *checker) solution(sol *dsl.Solution, idx *recordIndex) []*ir.Step {
	c.inSolution = true
	defer func() { c.inSolution = false }()
	var out []*ir.Step
	bound := map[string]*ir.Step{}
	for _, cd := range sol.Calls {
		t := c.tools[cd.Tool]
		if t == nil {
			c.errorf(diag.UnresolvedName, cd.Pos, cd.EndPos, "unknown tool %q", cd.Tool)
			continue
		}
		step := &ir.Step{Tool: t, Pos: ir.Pos(cd.Pos), Fails: cd.Fails}
		given := map[string]*ir.Arg{}
		for _, ad := range cd.Args {
			var p *ir.Param
			for _, q := range t.Params {
				if q.Name == ad.Name {
					p = q
				}
			}
			if p == nil {
				names := make([]string, len(t.Params))
				for i, q := range t.Params {
					names[i] = q.Name
				}
				c.errorf(diag.UnresolvedName, ad.Pos, ad.EndPos, "tool %s has no parameter %q; parameters: %s", t.Name, ad.Name, strings.Join(names, ", "))
				continue
			}
			if given[ad.Name] != nil {
				c.errorf(diag.DuplicateName, ad.Pos, ad.EndPos, "argument %s given twice", ad.Name)
				continue
			}
			arg := &ir.Arg{Param: p, Pos: ir.Pos(ad.Pos)}
			given[ad.Name] = arg
			if ad.Value != nil && ad.Value.Ident != nil && p.Type.Kind == ir.KindRef {
				if b := bound[*ad.Value.Ident]; b != nil {
					if b.Tool.Returns == nil || b.Tool.Returns.Entity != p.Type.Entity || b.Tool.Returns.Kind != ir.KindRecord {
						c.errorf(diag.TypeMismatch, ad.Pos, ad.EndPos, "%s is bound to the result of %s, which is not a %s record", *ad.Value.Ident, b.Tool.Name, p.Type.Entity.Name)
						continue
					}
					arg.Bound = *ad.Value.Ident
					continue
				}
			}
			arg.Value = c.constant(ad.Composite, ad.Value, p.Type, idx)
		}
		for _, p := range t.Params {
			if a := given[p.Name]; a != nil {
				if a.Value != nil || a.Bound != "" {
					step.Args = append(step.Args, a)
				}
			} else if p.Required() {
				c.errorHint(diag.MissingRequired, fmt.Sprintf("Pass every required parameter of the tool in the call (%s: …), or make the parameter optional in the tool (%s: %s?).", p.Name, p.Name, typeString(p.Type)),
					cd.Pos, cd.EndPos, "call of %s does not give required argument %q", t.Name, p.Name)
			}
		}
		if cd.Bind != nil {
			if prev := bound[*cd.Bind]; prev != nil {
				c.errorf(diag.DuplicateName, cd.Pos, cd.EndPos, "%s is already bound at %s", *cd.Bind, short(prev.Pos))
			} else if idx.handle(*cd.Bind) != nil {
				c.errorf(diag.DuplicateName, cd.Pos, cd.EndPos, "%s is a seed handle; bind the result to another name", *cd.Bind)
			} else if t.Returns == nil || t.Returns.Kind != ir.KindRecord {
				// The replay binds the id of the record the call returns.
				what := "nothing"
				if t.Returns != nil {
					what = typeString(t.Returns)
				}
				c.errorHint(diag.TypeMismatch, "Bind only a call that returns a record (`o = create_order(…)`, whose body ends in `return o`): a later argument passes that record's id. Otherwise leave the binding out.",
					cd.Pos, cd.EndPos, "%s = %s(…) binds the result of %s, which returns %s, not a record", *cd.Bind, t.Name, t.Name, what)
			} else {
				step.Bind = *cd.Bind
				bound[*cd.Bind] = step
			}
		}
		out = append(out, step)
	}
	c.resolvePending()
	return out
}

// exceptRecord checks one record of `unchanged except E[k], …`.
func (c *checker) exceptRecord(x *dsl.Postfix, s *scope) *ir.Lookup {
	e := c.postfix(x, s)
	if isInvalid(e) {
		return nil
	}
	if l, ok := e.(*ir.Lookup); ok {
		return l
	}
	c.errorf(diag.TypeMismatch, x.Pos, x.EndPos, "unchanged except lists records as Entity[key], got %s", e.Type())
	return nil
}

// taskMeta checks a task's metadata: unique keys, and values that are
// strings, numbers, booleans or lists of strings.
func (c *checker) taskMeta(m *dsl.Meta) []ir.MetaEntry {
	var out []ir.MetaEntry
	seen := map[string]*dsl.MetaEntry{}
	for _, e := range m.Entries {
		if first, dup := seen[e.Key]; dup {
			c.errorf(diag.DuplicateName, e.Pos, e.EndPos, "duplicate meta key %q, first at %s", e.Key, short(first.Pos))
			continue
		}
		seen[e.Key] = e
		if v, ok := c.metaValue(e); ok {
			out = append(out, ir.MetaEntry{Key: e.Key, Value: v, Pos: ir.Pos(e.Pos)})
		}
	}
	return out
}

// metaValue is the value of a meta entry, or false when it is reported.
func (c *checker) metaValue(e *dsl.MetaEntry) (any, bool) {
	const kinds = "meta values are strings, numbers, booleans or lists of strings"
	v := e.Value
	if v.Composite != nil {
		l := v.Composite.List
		if l == nil {
			c.errorf(diag.TypeMismatch, v.Pos, v.EndPos, "meta %s: %s, not maps or records", e.Key, kinds)
			return nil, false
		}
		out := make([]string, 0, len(l.Elems))
		ok := true
		for _, x := range l.Elems {
			if x.Lit == nil || x.Lit.String == nil {
				c.errorf(diag.TypeMismatch, x.Pos, x.EndPos, "meta %s: a list in meta holds strings only; quote the element", e.Key)
				ok = false
				continue
			}
			out = append(out, *x.Lit.String)
		}
		return out, ok
	}
	lit := v.Lit
	switch {
	case lit.String != nil:
		return *lit.String, true
	case lit.Bool != nil:
		return *lit.Bool == "true", true
	case lit.Number != nil && !strings.Contains(*lit.Number, "."):
		n, err := strconv.ParseInt(*lit.Number, 10, 64)
		if err != nil {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "integer %s is out of the 64-bit range", *lit.Number)
			return nil, false
		}
		return n, true
	case lit.Number != nil:
		f, err := strconv.ParseFloat(*lit.Number, 64)
		if err != nil || math.IsInf(f, 0) {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "number %s is out of range", *lit.Number)
			return nil, false
		}
		if f == 0 {
			f = 0 // not -0
		}
		return f, true
	case lit.Ident != nil:
		c.errorf(diag.TypeMismatch, lit.Pos, lit.EndPos, "meta %s: %s; write a name as a string: %q", e.Key, kinds, *lit.Ident)
	default:
		c.errorf(diag.TypeMismatch, lit.Pos, lit.EndPos, "meta %s: %s; write it as a string: %q", e.Key, kinds, metaLiteralText(lit))
	}
	return nil, false
}

// metaLiteralText is the text of a date, date-time or null literal.
func metaLiteralText(l *dsl.Literal) string {
	switch {
	case l.Date != nil:
		return *l.Date
	case l.DateTime != nil:
		return *l.DateTime
	}
	return "null"
}
