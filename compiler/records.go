package compiler

import (
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// declareRecords creates the value record types, their fields (types
// unresolved), and for variants the tag field and the cases. Records share
// the entities' namespace.
func (c *checker) declareRecords(decls []recordDecl) {
	for _, rd := range decls {
		d := rd.decl
		if first, dup := c.structs[d.Name]; dup {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "duplicate record %q, first defined at %s (record names are unique in a world)", d.Name, short(first.Pos))
			continue
		}
		if e := c.entities[d.Name]; e != nil {
			c.errorf(diag.DuplicateName, d.Pos, d.EndPos, "record %q has the name of an entity (at %s); records and entities share one namespace", d.Name, short(e.Pos))
			continue
		}
		s := &ir.StructDef{Name: d.Name, Doc: deref(d.Doc), Pos: ir.Pos(d.Pos)}
		c.structs[d.Name] = s
		c.structDecl[s] = d
		c.structSvc[s] = c.serviceDecl[rd.svc]
		c.w.Structs = append(c.w.Structs, s)
		seen := map[string]dsl.Pos{}
		field := func(fd *dsl.Field, cs *ir.Case) *ir.Field {
			if first, dup := seen[fd.Name]; dup {
				c.errorf(diag.DuplicateName, fd.Pos, fd.EndPos, "duplicate field %s.%s, first defined at %s (the fields of all cases share one namespace)", d.Name, fd.Name, short(first))
				return nil
			}
			seen[fd.Name] = fd.Pos
			f := &ir.Field{Name: fd.Name, Doc: deref(fd.Doc), Struct: s, Case: cs, Pos: ir.Pos(fd.Pos)}
			c.fieldDecl[f] = fd
			return f
		}
		if d.By != nil {
			tag := &ir.Field{Name: *d.By, Struct: s, Pos: ir.Pos(d.Pos)}
			tag.Type = &ir.Type{Kind: ir.KindEnum, Enum: &ir.EnumDef{Field: tag}}
			s.Tag = tag
			seen[tag.Name] = d.Pos
		}
		cases := map[string]*ir.Case{}
		for _, it := range d.Items {
			switch {
			case it.Field != nil:
				if f := field(it.Field, nil); f != nil {
					s.Fields = append(s.Fields, f)
				}
			case it.Case != nil:
				cd := it.Case
				if s.Tag == nil {
					c.errorf(diag.TypeMismatch, cd.Pos, cd.EndPos, "case %s in record %s, which is not a variant; write `record %s by tag { … }` to name the field that tells the case", cd.Name, d.Name, d.Name)
					continue
				}
				if first := cases[cd.Name]; first != nil {
					c.errorf(diag.DuplicateName, cd.Pos, cd.EndPos, "duplicate case %s of %s, first at %s", cd.Name, d.Name, short(first.Pos))
					continue
				}
				cs := &ir.Case{Name: cd.Name, Pos: ir.Pos(cd.Pos)}
				cases[cd.Name] = cs
				s.Cases = append(s.Cases, cs)
				s.Tag.Type.Enum.Values = append(s.Tag.Type.Enum.Values, cd.Name)
				for _, fd := range cd.Fields {
					if f := field(fd, cs); f != nil {
						cs.Fields = append(cs.Fields, f)
					}
				}
			}
		}
		if s.Tag != nil && len(s.Cases) == 0 {
			c.errorf(diag.TypeMismatch, d.Pos, d.EndPos, "variant record %s by %s has no case; add `case name { fields }`", d.Name, *d.By)
		}
	}
}

// resolveRecordFields resolves the types and constraints of the value
// records' fields. A value record field cannot be unique, and a record
// cannot contain itself without a list, a map or an optional in between.
func (c *checker) resolveRecordFields() {
	for _, s := range c.w.Structs {
		for _, f := range s.AllFields() {
			if f == s.Tag {
				continue
			}
			c.resolveField(f)
		}
	}
	cyclic := false
	for _, s := range c.w.Structs {
		if path := c.selfContaining(s); path != nil {
			names := make([]string, len(path))
			for i, f := range path {
				names[i] = f.Struct.Name + "." + f.Name
			}
			fd := c.fieldDecl[path[0]]
			c.errorf(diag.TypeMismatch, fd.Pos, fd.EndPos, "record %s contains itself (%s): no value of it can be built; make a field on the way optional, a list or a map", s.Name, strings.Join(names, " → "))
			cyclic = true
		}
	}
	if cyclic {
		return
	}
	// Reported at the innermost records too large: those the records
	// containing them are too large because of.
	memo := map[*ir.StructDef]int{}
	for _, s := range c.w.Structs {
		if c.valueSize(s, memo) > MaxRecordValues && !slices.ContainsFunc(s.AllFields(), func(f *ir.Field) bool {
			return f.Type != nil && f.Type.Kind == ir.KindStruct && !f.Type.Optional && f.Type.Struct != nil && memo[f.Type.Struct] > MaxRecordValues
		}) {
			d := c.structDecl[s]
			c.errorf(diag.SizeLimit, d.Pos, d.Pos, "a value of record %s holds more than %d values (fields of the records inside it, each counted where it occurs); the limit is %d", s.Name, MaxRecordValues, MaxRecordValues)
		}
	}
}

// valueSize is the number of values in the smallest value of record s as
// JSON writes it (every field present, optional ones null, lists and maps
// empty): 1 for s itself plus its common fields' and, for a variant, its
// smallest case's; at most MaxRecordValues+1. A record naming the next one
// twice, twenty deep, holds 2^21 values: every argument of its type, and
// every value the conformance tests build, would be that large.
func (c *checker) valueSize(s *ir.StructDef, memo map[*ir.StructDef]int) int {
	if n, ok := memo[s]; ok {
		return n
	}
	memo[s] = MaxRecordValues + 1 // unreachable: no record is inside itself here
	sum := func(fs []*ir.Field) int {
		n := 0
		for _, f := range fs {
			if f.Type != nil && f.Type.Kind == ir.KindStruct && !f.Type.Optional && f.Type.Struct != nil {
				n += c.valueSize(f.Type.Struct, memo)
			} else {
				n++
			}
			n = min(n, MaxRecordValues+1)
		}
		return n
	}
	n := 1 + sum(s.Fields)
	if s.Tag != nil {
		smallest := MaxRecordValues + 1
		for _, cs := range s.Cases {
			smallest = min(smallest, sum(cs.Fields))
		}
		n += smallest
	}
	n = min(n, MaxRecordValues+1)
	memo[s] = n
	return n
}

// selfContaining returns a chain of required record fields that leads from
// s back to s, or nil. A record explored once without leading back to s
// never does: it is not explored again, so the search takes time linear in
// the records' fields (a record naming the next one twice, twenty deep,
// does not make it exponential).
func (c *checker) selfContaining(s *ir.StructDef) []*ir.Field {
	var path []*ir.Field
	seen := map[*ir.StructDef]bool{}
	var walk func(t *ir.StructDef) bool
	walk = func(t *ir.StructDef) bool {
		seen[t] = true
		for _, f := range t.AllFields() {
			ft := f.Type
			if ft == nil || ft.Kind != ir.KindStruct || ft.Optional || f.Case != nil {
				continue
			}
			path = append(path, f)
			if ft.Struct == s || (!seen[ft.Struct] && walk(ft.Struct)) {
				return true
			}
			path = path[:len(path)-1]
		}
		return false
	}
	if walk(s) {
		return path
	}
	return nil
}

// resolveKeys checks `entity E key f`: f is a declared, required string
// field without a default, and becomes the record's id.
func (c *checker) resolveKeys() {
	for _, e := range c.w.Entities {
		ed := c.entityDecl[e]
		if ed.Key == nil {
			continue
		}
		f := e.Field(*ed.Key)
		if f == nil {
			c.errorf(diag.UnresolvedName, ed.Pos, ed.EndPos, "key %q of %s is not one of its fields; declare `%s string`", *ed.Key, e.Name, *ed.Key)
			continue
		}
		fd := c.fieldDecl[f]
		switch {
		case f.Type == nil || f.Type.Kind == ir.KindInvalid:
			continue
		case f.Type.Kind != ir.KindString:
			c.errorf(diag.TypeMismatch, fd.Pos, fd.EndPos, "%s.%s is the key of %s and must be a string, not %s", e.Name, f.Name, e.Name, f.Type)
			continue
		case f.Type.Optional:
			c.errorf(diag.TypeMismatch, fd.Pos, fd.EndPos, "%s.%s is the key of %s and cannot be optional", e.Name, f.Name, e.Name)
			continue
		case f.Default != nil:
			c.errorf(diag.TypeMismatch, fd.Pos, fd.EndPos, "%s.%s is the key of %s and cannot have a default: every record has its own", e.Name, f.Name, e.Name)
			continue
		}
		e.Key = f
	}
}

// structByName resolves a record name, plain or qualified by its service.
func (c *checker) structByName(q *dsl.QualName) *ir.StructDef {
	switch len(q.Parts) {
	case 1:
		return c.structs[q.Parts[0]]
	case 2:
		if svc := c.services[q.Parts[0]]; svc != nil {
			if s := c.structs[q.Parts[1]]; s != nil && c.structSvc[s] == svc {
				return s
			}
		}
	}
	return nil
}

// sameType reports whether values of a and b have the same type,
// optionality included; string and text count as one.
func sameType(a, b *ir.Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Optional != b.Optional {
		return false
	}
	if a.Kind.Textual() && b.Kind.Textual() {
		return true
	}
	if a.Kind != b.Kind {
		return false
	}
	switch a.Kind {
	case ir.KindEnum:
		return a.Enum == b.Enum
	case ir.KindRef, ir.KindRecord, ir.KindSet:
		return a.Entity == b.Entity
	case ir.KindStruct:
		return a.Struct == b.Struct
	case ir.KindList, ir.KindMap:
		return sameType(a.Elem, b.Elem)
	}
	return true
}

// composite reports whether values of t hold other values.
func composite(t *ir.Type) bool {
	return t.Kind == ir.KindList || t.Kind == ir.KindMap || t.Kind == ir.KindStruct
}

// typeString renders a type for messages. ir.Type.String follows an enum
// to its entity, which a value record's enum field does not have.
func typeString(t *ir.Type) string {
	if t == nil {
		return "invalid"
	}
	var s string
	switch t.Kind {
	case ir.KindEnum:
		s = "enum"
		if t.Enum != nil && t.Enum.Field != nil {
			f := t.Enum.Field
			switch {
			case f.Entity != nil:
				s = f.Entity.Name + "." + f.Name
			case f.Struct != nil:
				s = f.Struct.Name + "." + f.Name
			}
		}
	case ir.KindList:
		s = "list<" + typeString(t.Elem) + ">"
	case ir.KindMap:
		s = "map<string, " + typeString(t.Elem) + ">"
	case ir.KindStruct:
		s = t.Struct.Name
	default:
		cp := *t
		cp.Optional = false
		s = cp.String()
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// ownerName names the record type that declares a field.
func ownerName(f *ir.Field) string {
	if f.Entity != nil {
		return f.Entity.Name
	}
	if f.Struct != nil {
		return f.Struct.Name
	}
	return "?"
}

// fieldNames lists the names of fields.
func fieldNames(fs []*ir.Field) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Name
	}
	return out
}

// suggestName proposes a name close to name, as "; did you mean x?".
func suggestName(names []string, name string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}
