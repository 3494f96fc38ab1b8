package compiler

import (
	"fmt"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Size limits (W019). They bound the cost of checking and generating a
// world and catch runaway generations; the large synthetic benchmark world
// (200 entities, 1,000 tools, 10,000 seed records) is well inside them.
const (
	MaxServices        = 64
	MaxEntities        = 1000
	MaxFieldsPerEntity = 200
	MaxTools           = 5000
	MaxParams          = 64
	MaxSeedRecords     = 200_000
	MaxTasks           = 1000
	MaxAssertions      = 200
	MaxSolutionSteps   = 500
	MaxEnumValues      = 500
	MaxNameLength      = 64
	MaxTextLength      = 20_000
	MaxMetaEntries     = 100 // entries in a task's meta block
	// MaxRecordValues bounds the values in the smallest value of a record
	// (its fields, and the fields of the records inside it, each counted
	// where it occurs).
	MaxRecordValues = 10_000
)

func (c *checker) checkSizes(services []*dsl.Service, recs []recordDecl, invariants []*dsl.Invariant, seeds []*dsl.Seed, tasks []*dsl.Task) {
	limit := func(n, max int, what string, pos, end dsl.Pos) {
		if n > max {
			c.errorf(diag.SizeLimit, pos, end, "%d %s; the limit is %d", n, what, max)
		}
	}
	pos := func() dsl.Pos {
		if c.w.Pos.Line > 0 {
			return dsl.Pos(c.w.Pos)
		}
		return dsl.Pos{Filename: "", Line: 1, Column: 1}
	}
	limit(len(services), MaxServices, "services", pos(), pos())
	entities, tools, records := 0, 0, 0
	for _, s := range services {
		for _, m := range s.Members {
			switch {
			case m.Entity != nil:
				entities++
				limit(len(m.Entity.Fields), MaxFieldsPerEntity, "fields in entity "+m.Entity.Name, m.Entity.Pos, m.Entity.Pos)
				for _, f := range m.Entity.Fields {
					if f.Type.Enum != nil {
						limit(len(f.Type.Enum.Values), MaxEnumValues, "values in enum "+m.Entity.Name+"."+f.Name, f.Pos, f.EndPos)
					}
					c.textLimit(f.Doc, f.Pos)
				}
				c.textLimit(m.Entity.Doc, m.Entity.Pos)
			case m.Tool != nil:
				tools++
				if m.Tool.Custom != nil {
					limit(len(m.Tool.Custom.Params), MaxParams, "parameters in tool "+m.Tool.Name, m.Tool.Pos, m.Tool.Pos)
					c.textLimit(m.Tool.Custom.Doc, m.Tool.Pos)
				}
			}
		}
	}
	for _, rd := range recs {
		r := rd.decl
		entities++
		fields := 0
		for _, it := range r.Items {
			fs := []*dsl.Field{it.Field}
			if it.Case != nil {
				fs = it.Case.Fields
			} else if it.Field == nil {
				continue
			}
			for _, f := range fs {
				fields++
				if f.Type.Enum != nil {
					limit(len(f.Type.Enum.Values), MaxEnumValues, "values in enum "+r.Name+"."+f.Name, f.Pos, f.EndPos)
				}
				c.textLimit(f.Doc, f.Pos)
			}
		}
		limit(fields, MaxFieldsPerEntity, "fields in record "+r.Name, r.Pos, r.Pos)
		c.textLimit(r.Doc, r.Pos)
	}
	for _, inv := range invariants {
		c.textLimit(&inv.Policy, inv.Pos)
	}
	limit(entities, MaxEntities, "entities and records", pos(), pos())
	limit(tools, MaxTools, "tools", pos(), pos())
	for _, s := range seeds {
		records += len(s.Records)
	}
	limit(records, MaxSeedRecords, "seed records", pos(), pos())
	c.seedCount = records
	limit(len(tasks), MaxTasks, "tasks", pos(), pos())
	for _, t := range tasks {
		limit(len(t.Expect.Assertions), MaxAssertions, "assertions in task "+t.Name, t.Pos, t.Pos)
		if t.Solution != nil {
			limit(len(t.Solution.Calls), MaxSolutionSteps, "solution calls in task "+t.Name, t.Pos, t.Pos)
		}
		c.textLimit(&t.Instruction, t.Pos)
		if t.Meta != nil {
			limit(len(t.Meta.Entries), MaxMetaEntries, "meta entries in task "+t.Name, t.Meta.Pos, t.Meta.Pos)
			for _, e := range t.Meta.Entries {
				c.metaTextLimit(e.Value, e.Pos)
			}
		}
	}
}

// metaTextLimit applies the text limit to the strings of a meta value, and
// to the number of strings of a list.
func (c *checker) metaTextLimit(v *dsl.Value, pos dsl.Pos) {
	switch {
	case v == nil:
	case v.Lit != nil:
		c.textLimit(v.Lit.String, pos)
	case v.Composite != nil && v.Composite.List != nil:
		if n := len(v.Composite.List.Elems); n > MaxMetaEntries {
			c.errorf(diag.SizeLimit, pos, pos, "%d strings in a meta list; the limit is %d", n, MaxMetaEntries)
		}
		for _, x := range v.Composite.List.Elems {
			if x.Lit != nil {
				c.textLimit(x.Lit.String, pos)
			}
		}
	}
}

func (c *checker) textLimit(s *string, pos dsl.Pos) {
	if s != nil && len(*s) > MaxTextLength {
		c.errorf(diag.SizeLimit, pos, pos, "text of %d bytes; the limit is %d", len(*s), MaxTextLength)
	}
}

var unsafeNames = map[string]bool{"_": true, "init": true, "main": true}

// checkIdent reports names that cannot become Go identifiers safely.
func (c *checker) checkIdent(name, what string, irPos, irEnd ir.Pos) {
	pos, end := dsl.Pos(irPos), dsl.Pos(irEnd)
	switch {
	case len(name) > MaxNameLength:
		c.errorf(diag.SizeLimit, pos, end, "%s name of %d characters; the limit is %d", what, len(name), MaxNameLength)
	case ir.IsGoKeyword(name):
		c.errorf(diag.UnsafeIdentifier, pos, end, "%s name %q is a Go keyword", what, name)
	case unsafeNames[name]:
		c.errorf(diag.UnsafeIdentifier, pos, end, "%s name %q is reserved in Go", what, name)
	case strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_") || strings.Contains(name, "__"):
		c.errorf(diag.UnsafeIdentifier, pos, end, "%s name %q has a leading, trailing or doubled underscore", what, name)
	}
}

// checkIdentifiers checks declared names and their Go forms for collisions.
func (c *checker) checkIdentifiers() {
	c.checkIdent(c.w.Name, "world", c.w.Pos, c.w.Pos)
	// The world's name is also its package's directory and package name,
	// which the go command reads specially.
	switch name := c.w.Name; {
	case name == "vendor":
		c.errorf(diag.UnsafeIdentifier, dsl.Pos(c.w.Pos), dsl.Pos(c.w.Pos), "world name %q names a directory the go command takes for the module's vendored dependencies", name)
	case name == "testdata":
		c.errorf(diag.UnsafeIdentifier, dsl.Pos(c.w.Pos), dsl.Pos(c.w.Pos), "world name %q names a directory the go command leaves out of ./... patterns", name)
	case strings.HasSuffix(name, "_test"):
		c.errorf(diag.UnsafeIdentifier, dsl.Pos(c.w.Pos), dsl.Pos(c.w.Pos), "world name %q ends in _test, which makes its Go package a test package", name)
	}
	pkg := map[string]string{} // Go name → what declared it
	for _, n := range ir.ReservedGoNames {
		pkg[n] = "a name every generated package declares"
	}
	claim := func(scope map[string]string, goName, what string, pos ir.Pos) {
		if prev, taken := scope[goName]; taken {
			c.errorAtNode(diag.IdentifierCollision, pos, "%s becomes the Go name %s, already taken by %s", what, goName, prev)
			return
		}
		scope[goName] = what
	}
	for _, s := range c.w.Services {
		c.checkIdent(s.Name, "service", s.Pos, s.Pos)
	}
	enums := func(owner string, f *ir.Field) {
		if def := ownEnum(f); def != nil {
			enumType := ir.GoName(owner) + ir.GoName(f.Name)
			claim(pkg, enumType, "the enum type of "+owner+"."+f.Name, f.Pos)
			for _, v := range def.Values {
				claim(pkg, enumType+ir.EnumValueName(v), fmt.Sprintf("enum value %q of %s.%s", v, owner, f.Name), f.Pos)
			}
		}
	}
	for _, e := range c.w.Entities {
		c.checkIdent(e.Name, "entity", e.Pos, e.Pos)
		claim(pkg, ir.GoName(e.Name), "entity "+e.Name, e.Pos)
		fields := map[string]string{"ID": "the implicit id"}
		for _, f := range e.Fields {
			c.checkIdent(f.Name, "field", f.Pos, f.Pos)
			claim(fields, ir.GoName(f.Name), "field "+e.Name+"."+f.Name, f.Pos)
			enums(e.Name, f)
		}
	}
	for _, st := range c.w.Structs {
		c.checkIdent(st.Name, "record", st.Pos, st.Pos)
		claim(pkg, ir.GoName(st.Name), "record "+st.Name, st.Pos)
		fields := map[string]string{}
		for _, f := range st.AllFields() {
			c.checkIdent(f.Name, "field", f.Pos, f.Pos)
			claim(fields, ir.GoName(f.Name), "field "+st.Name+"."+f.Name, f.Pos)
			enums(st.Name, f)
		}
		for _, cs := range st.Cases {
			c.checkIdent(cs.Name, "case", cs.Pos, cs.Pos)
		}
	}
	methods := map[string]string{}
	for _, n := range ir.ReservedStateMethods {
		methods[n] = "a method every generated State has"
	}
	for _, t := range c.w.Tools {
		c.checkIdent(t.Name, "tool", t.Pos, t.Pos)
		claim(methods, ir.GoName(t.Name), "tool "+t.Name, t.Pos)
		claim(pkg, ir.GoName(t.Name)+"Args", "the arguments type of tool "+t.Name, t.Pos)
		params := map[string]string{}
		for _, p := range t.Params {
			claim(params, ir.GoName(p.Name), "parameter "+p.Name+" of "+t.Name, p.Pos)
		}
	}
	for _, inv := range c.w.Invariants {
		c.checkIdent(inv.Name, "invariant", inv.Pos, inv.Pos)
	}
	for _, t := range c.w.Tasks {
		c.checkIdent(t.Name, "task", t.Pos, t.Pos)
	}
}

// hasInvalid reports whether e holds an expression the checker could not
// type (an error already reported).
func hasInvalid(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) bool {
		if isInvalid(x) {
			found = true
		}
		return !found
	})
	return found
}

// analyse runs the structural validators that need the whole resolved world.
func (c *checker) analyse() {
	for _, inv := range c.w.Invariants {
		if inv.Check == nil || hasInvalid(inv.Check) || inv.Local {
			continue // a check with an error is reported as such
		}
		home := inv.Entity.Service
		cross := false
		var names []string
		for _, e := range ir.Touches(inv.Check) {
			names = append(names, e.Name)
			if e.Service != home {
				cross = true
			}
		}
		if !cross {
			c.errorAtNode(diag.InvariantSameService, inv.Pos, "invariant %s: its trigger (%s) and its check (%s) are all in service %s",
				inv.Name, inv.Entity.Name, strings.Join(names, ", "), home.Name)
		}
	}
	c.checkObservable()
	c.checkIsolated()
}

// triggerWriters lists the tools that can change which records trigger an
// invariant: they insert the trigger entity, set a field its where clause
// reads, or write an entity the where clause aggregates over.
func (c *checker) triggerWriters(inv *ir.Invariant) []*ir.Tool {
	var fields []*ir.Field
	touched := map[*ir.Entity]bool{inv.Entity: true}
	if inv.Where != nil {
		fields = ir.FieldsRead(inv.Where)
		for _, e := range ir.Touches(inv.Where) {
			touched[e] = true
		}
	}
	var out []*ir.Tool
	for _, t := range c.w.Tools {
		f := c.facts[t]
		hit := false
		for e := range touched {
			if f.inserts[e] || (e != inv.Entity && f.deletes[e]) {
				hit = true
			}
		}
		for _, fld := range fields {
			if f.sets[fld] {
				hit = true
			}
		}
		if hit {
			out = append(out, t)
		}
	}
	return out
}

// observable reports whether some tool shows the agent records of e.
func (c *checker) observable(e *ir.Entity) bool {
	for _, t := range c.w.Tools {
		if t.Entity == e {
			return true
		}
		if r := t.Returns; r != nil {
			if r.Entity == e || (r.Elem != nil && r.Elem.Entity == e) {
				return true
			}
		}
	}
	return false
}

func (c *checker) checkObservable() {
	for _, t := range c.w.Tasks {
		for _, a := range t.Assertions {
			if a.Expr == nil || isInvalid(a.Expr) {
				continue
			}
			reported := map[*ir.Entity]bool{}
			ir.WalkExpr(a.Expr, func(x ir.Expr) bool {
				var e *ir.Entity
				switch x := x.(type) {
				case *ir.FieldRef:
					if x.Field != nil {
						e = x.Field.Entity
					}
				case *ir.Aggregate:
					e = x.Entity
				case *ir.Lookup:
					e = x.Entity
				case *ir.Match:
					e = x.Entity()
				case *ir.KeyIn:
					e = x.Entity
				}
				if e != nil && !reported[e] && !c.observable(e) {
					reported[e] = true
					c.errorAtNode(diag.UnobservableRubric, a.Pos, "task %s: the rubric reads %s, but no tool lets the agent observe %s records", t.Name, e.Name, e.Name)
				}
				return true
			})
		}
	}
}

func (c *checker) checkIsolated() {
	if len(c.w.Services) < 2 {
		return
	}
	linked := map[*ir.Service]bool{}
	link := func(a, b *ir.Service) {
		if a != nil && b != nil && a != b {
			linked[a], linked[b] = true, true
		}
	}
	for _, e := range c.w.Entities {
		for _, f := range e.Fields {
			for _, to := range refsIn(f.Type, map[*ir.StructDef]bool{}) {
				link(e.Service, to.Service)
			}
		}
	}
	for _, t := range c.w.Tools {
		for e := range c.facts[t].reads {
			link(t.Service, e.Service)
		}
	}
	for _, inv := range c.w.Invariants {
		if inv.Check == nil {
			continue
		}
		for _, e := range ir.Touches(inv.Check) {
			link(inv.Entity.Service, e.Service)
		}
	}
	for _, s := range c.w.Services {
		if !linked[s] {
			c.errorAtNode(diag.IsolatedService, s.Pos, "service %s has no link to any other service: no ref, no tool reading across, no invariant", s.Name)
		}
	}
}

// ownEnum returns the enum a field declares inline (its type, or the
// element type of its list or map), or nil.
func ownEnum(f *ir.Field) *ir.EnumDef {
	for t := f.Type; t != nil; t = t.Elem {
		if t.Kind == ir.KindEnum && t.Enum != nil && t.Enum.Field == f {
			return t.Enum
		}
	}
	return nil
}

// refsIn lists the entities that values of t refer to: through a ref, the
// elements of a list or map, or the fields of a value record.
func refsIn(t *ir.Type, seen map[*ir.StructDef]bool) []*ir.Entity {
	switch {
	case t == nil:
	case t.Kind == ir.KindRef:
		return []*ir.Entity{t.Entity}
	case t.Kind == ir.KindList || t.Kind == ir.KindMap:
		return refsIn(t.Elem, seen)
	case t.Kind == ir.KindStruct && !seen[t.Struct]:
		seen[t.Struct] = true
		var out []*ir.Entity
		for _, f := range t.Struct.AllFields() {
			out = append(out, refsIn(f.Type, seen)...)
		}
		return out
	}
	return nil
}
