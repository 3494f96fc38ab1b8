package compiler

import (
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Shadowed names (W032, a warning). Names are looked up locals first
// (parameters, lets, vars, loop and aggregate variables), then services,
// entities and, where an enum is expected, enum values: a local named
// like one of those hides it wherever the local is in scope. A parameter
// `paid: bool` beside a status value `paid` turns `set o.status = paid`
// into a type error at best, and a local `billing` makes `billing.Invoice`
// a field access. Existing specs keep checking: it is a warning, at the
// declaration.

// checkShadow warns when the local name of kind what (parameter,
// variable) hides a service, an entity or an enum value.
func (c *checker) checkShadow(what, name string, pos, end dsl.Pos) {
	if c.without[diag.ShadowedName] {
		return
	}
	var hidden string
	switch {
	case c.services[name] != nil:
		hidden = "the service " + name + " (" + name + ".Entity no longer names its entities there)"
	case c.entities[name] != nil:
		hidden = "the entity " + name + " (" + name + "[id] and aggregates over " + name + " no longer name it there)"
	default:
		enum := c.enumWithValue(name)
		if enum == nil {
			return
		}
		hidden = "the value " + name + " of " + typeString(&ir.Type{Kind: ir.KindEnum, Enum: enum}) + " (it must be written as a string, \"" + name + "\", there)"
	}
	d := diagAt(diag.ShadowedName, pos, end, "%s %s hides %s", what, name, hidden)
	d.Severity = SeverityWarning
	c.diags = append(c.diags, d)
}

// enumWithValue is the first enum type, in declaration order, that has
// the value name: of the entities' fields, then the value records' (their
// variants' tags included), lists and maps of enums included.
func (c *checker) enumWithValue(name string) *ir.EnumDef {
	if c.enumValues == nil {
		c.enumValues = map[string]*ir.EnumDef{}
		add := func(fs []*ir.Field) {
			for _, f := range fs {
				for t := f.Type; t != nil; t = t.Elem {
					if t.Kind == ir.KindEnum && t.Enum != nil {
						for _, v := range t.Enum.Values {
							if c.enumValues[v] == nil {
								c.enumValues[v] = t.Enum
							}
						}
					}
				}
			}
		}
		for _, e := range c.w.Entities {
			add(e.Fields)
		}
		for _, s := range c.w.Structs {
			add(s.AllFields())
		}
	}
	return c.enumValues[name]
}
