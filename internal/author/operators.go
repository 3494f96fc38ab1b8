package author

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// operators is the registry of corruption operators (see Operators).
var operators = []Operator{
	{"unknown-entity", diag.UnresolvedName, "A seed record names an entity that does not exist (a misspelling).", unknownEntitySites},
	{"type-mismatch", diag.TypeMismatch, "A number field of a seed record gets a string.", typeMismatchSites},
	{"unknown-enum-value", diag.UnknownEnumValue, "An enum field of a seed record gets a value the enum does not have.", unknownEnumSites},
	{"missing-required", diag.MissingRequired, "A seed record leaves out a required field.", missingRequiredSites},
	{"duplicate-unique", diag.SeedNotUnique, "Two seed records share the value of a unique field.", duplicateUniqueSites},
	{"out-of-range", diag.OutOfRange, "A seed value breaks its field's bound.", outOfRangeSites},
	{"dangling-ref", diag.DanglingRef, "A ref field of a seed record names no record.", danglingRefSites},
	{"cross-service-write", diag.WriteOutsideService, "A tool that writes its service's entities is moved to another service.", crossServiceWriteSites},
	{"same-service-invariant", diag.InvariantSameService, "An invariant's check only reads the record it iterates.", sameServiceInvariantSites},
	{"rubric-already-true", diag.RubricAlreadySatisfied, "A task's rubric is replaced by one that holds before the agent acts.", rubricAlreadyTrueSites},
	{"go-keyword-name", diag.UnsafeIdentifier, "A task is named with a Go keyword.", goKeywordSites},
	{"missing-today", diag.WorldHeader, "The world header loses its clock (today).", missingTodaySites},
	{"failing-solution", diag.SolutionFails, "A task's golden solution loses its steps, so it no longer reaches reward 1.", failingSolutionSites},
	{"invalid-date", diag.InvalidLiteral, "A date of a seed record does not exist (February 30).", invalidDateSites},
	{"duplicate-tool", diag.DuplicateName, "A tool is declared twice.", duplicateToolSites},
}

// seedRecords are the records written out in the world seed, in order.
func (s *subject) seedRecords() []*dsl.Record {
	var out []*dsl.Record
	for _, d := range s.file.Decls {
		if d.Seed != nil {
			out = append(out, d.Seed.Records...)
		}
	}
	return out
}

func (s *subject) entity(q *dsl.QualName) *ir.Entity {
	if q == nil || len(q.Parts) == 0 {
		return nil
	}
	name := q.Parts[len(q.Parts)-1]
	for _, e := range s.w.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func (s *subject) text(pos, end dsl.Pos) string { return s.src[pos.Offset:end.Offset] }

// recordFields visits the literal field values of seed records with their
// declared fields.
func (s *subject) recordFields(visit func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field)) {
	for _, r := range s.seedRecords() {
		e := s.entity(r.Entity)
		if e == nil {
			continue
		}
		for _, fv := range r.Fields {
			if f := e.Field(fv.Name); f != nil && fv.Value != nil {
				visit(r, fv, f)
			}
		}
	}
}

func replaceSite(what string, pos, end dsl.Pos, text string) site {
	return site{what: what, pos: pos, edits: []edit{{pos.Offset, end.Offset, text}}}
}

func unknownEntitySites(s *subject) []site {
	var out []site
	for _, r := range s.seedRecords() {
		q := r.Entity
		out = append(out, replaceSite("seed record "+r.Handle, q.Pos, q.EndPos, s.text(q.Pos, q.EndPos)+"s_misspelt"))
	}
	return out
}

func typeMismatchSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if fv.Value.Number != nil && f.Type.Kind.Numeric() {
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), fv.Value.Pos, fv.Value.EndPos, strconv.Quote(*fv.Value.Number)))
		}
	})
	return out
}

func unknownEnumSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if fv.Value.Ident != nil && f.Type.Kind == ir.KindEnum {
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), fv.Value.Pos, fv.Value.EndPos, "no_such_value"))
		}
	})
	return out
}

func missingRequiredSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if !f.Required() {
			return
		}
		end := fv.EndPos.Offset
		// The comma after the field goes with it.
		rest := s.src[end:]
		if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, ",") {
			end += len(rest) - len(t) + 1
		}
		out = append(out, site{what: fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), pos: fv.Pos, edits: []edit{{fv.Pos.Offset, end, ""}}})
	})
	return out
}

func duplicateUniqueSites(s *subject) []site {
	var out []site
	first := map[*ir.Field]*dsl.FieldValue{}
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if !f.Unique || fv.Value.Null {
			return
		}
		prev, ok := first[f]
		if !ok {
			first[f] = fv
			return
		}
		text := s.text(prev.Value.Pos, prev.Value.EndPos)
		if text != s.text(fv.Value.Pos, fv.Value.EndPos) {
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), fv.Value.Pos, fv.Value.EndPos, text))
		}
	})
	return out
}

func outOfRangeSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if fv.Value.Number == nil || !f.Type.Kind.Numeric() {
			return
		}
		for _, b := range f.Bounds {
			if b.Value == nil || !b.Value.Kind.Numeric() {
				continue
			}
			bound := b.Value.Num
			if b.Value.Kind == ir.KindInt {
				bound = float64(b.Value.Int)
			}
			var bad float64
			switch b.Op {
			case ">=", ">":
				bad = bound - 1
			case "<=", "<":
				bad = bound + 1
			default:
				continue
			}
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s %s %v", r.Handle, fv.Name, b.Op, bound), fv.Value.Pos, fv.Value.EndPos, strconv.FormatFloat(bad, 'f', -1, 64)))
			return
		}
	})
	return out
}

func danglingRefSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if f.Type.Kind == ir.KindRef && (fv.Value.Ident != nil || fv.Value.String != nil) {
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), fv.Value.Pos, fv.Value.EndPos, `"no_such_record"`))
		}
	})
	return out
}

// crossServiceWriteSites moves a custom tool that writes its own
// service's entities (set, insert, delete) to the end of the next service.
func crossServiceWriteSites(s *subject) []site {
	var services []*dsl.Service
	for _, d := range s.file.Decls {
		if d.Service != nil {
			services = append(services, d.Service)
		}
	}
	var out []site
	for i, svc := range services {
		if len(services) < 2 {
			break
		}
		other := services[(i+1)%len(services)]
		for _, m := range svc.Members {
			t := m.Tool
			if t == nil || t.Custom == nil || !writes(t.Custom.Body, varsOf(t.Custom.Body, map[string]bool{})) {
				continue
			}
			text := s.text(m.Pos, m.EndPos)
			closing := other.EndPos.Offset - 1 // the service's closing brace
			for closing > 0 && s.src[closing] != '}' {
				closing--
			}
			out = append(out, site{what: fmt.Sprintf("tool %s moved from service %s to %s", t.Name, svc.Name, other.Name), pos: m.Pos,
				edits: []edit{{m.Pos.Offset, m.EndPos.Offset, ""}, {closing, closing, "\n  " + text + "\n"}}})
		}
	}
	return out
}

// writes reports whether a block writes the state: sets a path from a
// record (not a `var` local), inserts or deletes.
func writes(b *dsl.Block, vars map[string]bool) bool {
	if b == nil {
		return false
	}
	for _, st := range b.Stmts {
		switch {
		case st.Insert != nil, st.Delete != nil:
			return true
		case st.Let != nil && st.Let.Insert != nil:
			return true
		case st.Set != nil:
			target := st.Set.Target.String()
			root := target[:strings.IndexAny(target+".", ".[")]
			if !vars[root] {
				return true
			}
		case st.If != nil:
			for i := st.If; i != nil; i = i.ElseIf {
				if writes(i.Then, vars) || writes(i.Else, vars) {
					return true
				}
			}
		case st.For != nil:
			if writes(st.For.Body, vars) {
				return true
			}
		}
	}
	return false
}

// varsOf collects the names of the `var` locals of a block and the blocks
// inside it.
func varsOf(b *dsl.Block, vars map[string]bool) map[string]bool {
	if b == nil {
		return vars
	}
	for _, st := range b.Stmts {
		switch {
		case st.Var != nil:
			vars[st.Var.Name] = true
		case st.If != nil:
			for i := st.If; i != nil; i = i.ElseIf {
				varsOf(i.Then, vars)
				varsOf(i.Else, vars)
			}
		case st.For != nil:
			varsOf(st.For.Body, vars)
		}
	}
	return vars
}

func sameServiceInvariantSites(s *subject) []site {
	var out []site
	for _, d := range s.file.Decls {
		inv := d.Invariant
		if inv == nil || inv.Local {
			continue
		}
		out = append(out, replaceSite("invariant "+inv.Name, inv.Check.Pos, inv.Check.EndPos, inv.Var+`.id != ""`))
	}
	return out
}

// rubricAlreadyTrueSites replaces a task's rubric with a count that holds
// in any state, over an entity a tool shows.
func rubricAlreadyTrueSites(s *subject) []site {
	var shown *ir.Entity
	for _, t := range s.w.Tools {
		if t.Entity != nil && (t.Kind == ir.ToolGet || t.Kind == ir.ToolList || t.Kind == ir.ToolSearch) {
			shown = t.Entity
			break
		}
	}
	if shown == nil {
		return nil
	}
	var out []site
	for _, d := range s.file.Decls {
		if t := d.Task; t != nil && !hasUnchanged(t) {
			e := t.Expect
			out = append(out, replaceSite("task "+t.Name, e.Pos, e.EndPos, fmt.Sprintf("{\n    count(r in %s.%s) >= 0\n  }", shown.Service.Name, shown.Name)))
		}
	}
	return out
}

func hasUnchanged(t *dsl.Task) bool {
	for _, a := range t.Expect.Assertions {
		if a.Unchanged {
			return true
		}
	}
	return false
}

var goKeywords = []string{"func", "type", "range", "chan", "select", "package", "import", "defer"}

func goKeywordSites(s *subject) []site {
	var out []site
	i := 0
	for _, d := range s.file.Decls {
		if t := d.Task; t != nil {
			at := strings.Index(s.src[t.Pos.Offset:], t.Name) + t.Pos.Offset
			kw := goKeywords[i%len(goKeywords)]
			i++
			out = append(out, site{what: "task " + t.Name + " renamed " + kw, pos: t.Pos, edits: []edit{{at, at + len(t.Name), kw}}})
		}
	}
	return out
}

func missingTodaySites(s *subject) []site {
	for _, d := range s.file.Decls {
		if d.World == nil {
			continue
		}
		for _, p := range d.World.Props {
			if p.Key == "today" {
				return []site{replaceSite("world "+d.World.Name+", today", p.Pos, p.EndPos, "")}
			}
		}
	}
	return nil
}

func failingSolutionSites(s *subject) []site {
	var out []site
	for _, d := range s.file.Decls {
		if t := d.Task; t != nil && t.Solution != nil && len(t.Solution.Calls) > 0 && !hasUnchanged(t) {
			out = append(out, replaceSite("task "+t.Name, t.Solution.Pos, t.Solution.EndPos, "{\n  }"))
		}
	}
	return out
}

func invalidDateSites(s *subject) []site {
	var out []site
	s.recordFields(func(r *dsl.Record, fv *dsl.FieldValue, f *ir.Field) {
		if fv.Value.Date != nil {
			year, _, _ := strings.Cut(*fv.Value.Date, "-")
			out = append(out, replaceSite(fmt.Sprintf("seed record %s, field %s", r.Handle, fv.Name), fv.Value.Pos, fv.Value.EndPos, year+"-02-30"))
		}
	})
	return out
}

func duplicateToolSites(s *subject) []site {
	var out []site
	for _, d := range s.file.Decls {
		if d.Service == nil {
			continue
		}
		for _, m := range d.Service.Members {
			if m.Tool != nil {
				text := s.text(m.Pos, m.EndPos)
				out = append(out, site{what: "tool " + m.Tool.Name, pos: m.Pos, edits: []edit{{m.EndPos.Offset, m.EndPos.Offset, "\n  " + text}}})
			}
		}
	}
	return out
}
