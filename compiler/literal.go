package compiler

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/runtime"
)

// pendingRef is a seed ref value whose handle or id is checked once every
// seed record is known.
type pendingRef struct {
	value    *ir.Value
	entity   *ir.Entity
	idx      *recordIndex
	byHandle bool // written as a name: a seed handle, not an id
	span     span
	// step is set for an argument of a golden solution's call.
	step bool
}

// recordIndex finds seed records by handle and by id. A task's index has
// the world's as its parent.
type recordIndex struct {
	parent  *recordIndex
	handles map[string]*ir.Record
	ids     map[*ir.Entity]map[string]*ir.Record
}

func newRecordIndex(handles map[string]*ir.Record, parent *recordIndex) *recordIndex {
	return &recordIndex{parent: parent, handles: handles, ids: map[*ir.Entity]map[string]*ir.Record{}}
}

// handle returns the record with a seed handle, or nil.
func (x *recordIndex) handle(name string) *ir.Record {
	for ; x != nil; x = x.parent {
		if r := x.handles[name]; r != nil {
			return r
		}
	}
	return nil
}

// byID returns the record of e with an id, or nil.
func (x *recordIndex) byID(e *ir.Entity, id string) *ir.Record {
	for ; x != nil; x = x.parent {
		if r := x.ids[e][id]; r != nil {
			return r
		}
	}
	return nil
}

// addID registers r under its id; it returns the record that already has
// the id, if any (and then does not register r).
func (x *recordIndex) addID(r *ir.Record) *ir.Record {
	if prev := x.byID(r.Entity, r.ID); prev != nil {
		return prev
	}
	m := x.ids[r.Entity]
	if m == nil {
		m = map[string]*ir.Record{}
		x.ids[r.Entity] = m
	}
	m[r.ID] = r
	return nil
}

// literal converts a constant to a value of type want. idx, when non-nil,
// is where ref values are looked up (later, see resolvePending). It reports
// problems and returns nil for a bad literal.
func (c *checker) literal(lit *dsl.Literal, want *ir.Type, idx *recordIndex) *ir.Value {
	if want == nil || want.Kind == ir.KindInvalid {
		return nil
	}
	bad := func() *ir.Value {
		c.errorf(diag.TypeMismatch, lit.Pos, lit.EndPos, "expected %s, got %s", want, describeLiteral(lit))
		return nil
	}
	if lit.Null {
		if !want.Optional {
			c.errorf(diag.TypeMismatch, lit.Pos, lit.EndPos, "null given for a %s, which is not optional", want)
			return nil
		}
		return &ir.Value{Kind: ir.KindNull}
	}
	switch want.Kind {
	case ir.KindString, ir.KindText:
		if lit.String == nil {
			return bad()
		}
		return &ir.Value{Kind: want.Kind, Str: *lit.String}
	case ir.KindInt:
		if lit.Number == nil {
			return bad()
		}
		if strings.Contains(*lit.Number, ".") {
			c.errorf(diag.TypeMismatch, lit.Pos, lit.EndPos, "expected an integer, got %s", *lit.Number)
			return nil
		}
		n, err := strconv.ParseInt(*lit.Number, 10, 64)
		if err != nil {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "integer %s is out of the 64-bit range", *lit.Number)
			return nil
		}
		return &ir.Value{Kind: ir.KindInt, Int: n}
	case ir.KindDecimal, ir.KindMoney:
		if lit.Number == nil {
			return bad()
		}
		v, ok := c.numberValue(want.Kind, *lit.Number)
		if !ok {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "number %s is out of range%s", *lit.Number, c.numberRange())
			return nil
		}
		if want.Kind == ir.KindMoney {
			c.checkMoneyText(*lit.Number, lit.Pos, lit.EndPos)
		}
		return v
	case ir.KindBool:
		if lit.Bool == nil {
			return bad()
		}
		return &ir.Value{Kind: ir.KindBool, Bool: *lit.Bool == "true"}
	case ir.KindDate:
		if lit.Date == nil {
			return bad()
		}
		if _, err := time.Parse(time.DateOnly, *lit.Date); err != nil {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "date %s does not exist", *lit.Date)
			return nil
		}
		return &ir.Value{Kind: ir.KindDate, Str: *lit.Date}
	case ir.KindDateTime:
		if lit.DateTime == nil {
			return bad()
		}
		s, err := normalizeDateTime(*lit.DateTime)
		if err != nil {
			c.errorf(diag.InvalidLiteral, lit.Pos, lit.EndPos, "%v", err)
			return nil
		}
		return &ir.Value{Kind: ir.KindDateTime, Str: s}
	case ir.KindEnum:
		var name string
		switch {
		case lit.Ident != nil:
			name = *lit.Ident
		case lit.String != nil:
			name = *lit.String
		default:
			return bad()
		}
		if !want.Enum.Has(name) {
			c.errorf(diag.UnknownEnumValue, lit.Pos, lit.EndPos, "%q is not a value of %s; values: %s", name, want, strings.Join(want.Enum.Values, ", "))
			return nil
		}
		return &ir.Value{Kind: ir.KindEnum, Str: name}
	case ir.KindRef:
		var id string
		switch {
		case lit.Ident != nil:
			id = *lit.Ident
		case lit.String != nil:
			id = *lit.String
		default:
			return bad()
		}
		v := &ir.Value{Kind: ir.KindRef, Str: id}
		if idx != nil {
			c.pending = append(c.pending, pendingRef{value: v, entity: want.Entity, idx: idx, byHandle: lit.Ident != nil, span: specSpan(lit.Pos, lit.EndPos), step: c.inSolution})
		}
		return v
	}
	return bad()
}

// resolvePending checks that every seed ref names a record of the right
// entity, and replaces a handle by the record's id (they differ for an
// entity with a key).
func (c *checker) resolvePending() {
	for _, p := range c.pending {
		name := p.value.Str
		var r *ir.Record
		if p.byHandle {
			if r = p.idx.handle(name); r == nil {
				r = p.idx.byID(p.entity, name) // an id that is a name: u1
			}
		} else if r = p.idx.byID(p.entity, name); r == nil {
			if h := p.idx.handle(name); h != nil && h.ID != name {
				c.errorAt(diag.DanglingRef, p.span, "no %s with id %q; %s is the handle of %s %q: write %s without quotes", p.entity.Name, name, name, h.Entity.Name, h.ID, name)
				continue
			}
			r = p.idx.handle(name)
		}
		switch {
		case r == nil && p.step:
			// Most often a record an earlier call of the solution creates.
			pos, end := p.span.at()
			c.errorHint(diag.DanglingRef, "A call's arguments name seed records; a record an earlier call creates is named by binding that call (o = create_order(…)) and passing the name (order: o).",
				pos, end, "no %s record %q in the seed; to pass a record an earlier call of the solution creates, bind that call (x = tool(…)) and pass x", p.entity.Name, name)
		case r == nil:
			c.errorAt(diag.DanglingRef, p.span, "no %s record %q in the seed", p.entity.Name, name)
		case r.Entity != p.entity:
			c.errorAt(diag.DanglingRef, p.span, "%q is a %s record, not a %s", name, r.Entity.Name, p.entity.Name)
		default:
			p.value.Str = r.ID
		}
	}
	c.pending = nil
}

// constant converts a seed value or a solution argument, a literal or a
// list, map or record constant, to a value of type want.
func (c *checker) constant(comp *dsl.Composite, lit *dsl.Literal, want *ir.Type, idx *recordIndex) *ir.Value {
	if comp == nil {
		if lit == nil {
			return nil
		}
		return c.literal(lit, want, idx)
	}
	if want == nil || want.Kind == ir.KindInvalid {
		return nil
	}
	got := ""
	switch {
	case comp.List != nil:
		if want.Kind == ir.KindList {
			out := &ir.Value{Kind: ir.KindList, List: []*ir.Value{}}
			ok := true
			for _, el := range comp.List.Elems {
				v := c.constant(el.Composite, el.Lit, want.Elem, idx)
				if v == nil {
					ok = false
					continue
				}
				out.List = append(out.List, v)
			}
			if !ok {
				return nil
			}
			return out
		}
		got = "a list"
	case comp.Map != nil:
		if want.Kind == ir.KindMap {
			out := &ir.Value{Kind: ir.KindMap, Entries: []ir.MapEntry{}}
			seen := map[string]*dsl.MapValueEntry{}
			ok := true
			for _, e := range comp.Map.Entries {
				if first := seen[e.Key]; first != nil {
					c.errorf(diag.DuplicateName, e.Pos, e.EndPos, "duplicate key %q, first at %s", e.Key, short(first.Pos))
					ok = false
					continue
				}
				seen[e.Key] = e
				v := c.constant(e.Value.Composite, e.Value.Lit, want.Elem, idx)
				if v == nil {
					ok = false
					continue
				}
				out.Entries = append(out.Entries, ir.MapEntry{Key: e.Key, Value: v})
			}
			if !ok {
				return nil
			}
			sortEntries(out.Entries)
			return out
		}
		got = "a map"
	case comp.Record != nil:
		if want.Kind == ir.KindStruct {
			return c.structConstant(comp.Record, want.Struct, idx)
		}
		got = "a " + comp.Record.Name + " record"
	}
	c.errorf(diag.TypeMismatch, comp.Pos, comp.EndPos, "expected %s, got %s", want, got)
	return nil
}

// structConstant converts `Name { field: value, … }` to a value of the
// record s: one value per s.AllFields(), the tag set to the case, defaults
// applied, null for absent optional fields and the other cases' fields.
func (c *checker) structConstant(rv *dsl.RecordValue, s *ir.StructDef, idx *recordIndex) *ir.Value {
	if rv.Name != s.Name {
		c.errorf(diag.TypeMismatch, rv.Pos, rv.EndPos, "expected %s, got a %s record", s.Name, rv.Name)
		return nil
	}
	given := map[string]*dsl.FieldValue{}
	ok := true
	for _, fv := range rv.Fields {
		if prev := given[fv.Name]; prev != nil {
			c.errorf(diag.DuplicateName, fv.Pos, fv.EndPos, "field %s given twice (first at %s)", fv.Name, short(prev.Pos))
			ok = false
			continue
		}
		given[fv.Name] = fv
		if s.Field(fv.Name) == nil {
			c.errorf(diag.UnresolvedName, fv.Pos, fv.EndPos, "%s has no field %q%s", s.Name, fv.Name, suggestName(fieldNames(s.AllFields()), fv.Name))
			ok = false
		}
	}
	var cs *ir.Case
	if s.Tag != nil {
		tv := given[s.Tag.Name]
		if tv == nil {
			c.errorf(diag.MissingRequired, rv.Pos, rv.EndPos, "a value of %s must give %s: one of %s", s.Name, s.Tag.Name, strings.Join(s.Tag.Type.Enum.Values, ", "))
			return nil
		}
		v := c.constant(tv.Composite, tv.Value, s.Tag.Type, nil)
		if v == nil {
			return nil
		}
		cs = caseNamed(s, v.Str)
	}
	out := &ir.Value{Kind: ir.KindStruct, Fields: make([]*ir.Value, 0, len(s.AllFields()))}
	for _, f := range s.AllFields() {
		var v *ir.Value
		fv := given[f.Name]
		switch {
		case f == s.Tag:
			v = &ir.Value{Kind: ir.KindEnum, Str: cs.Name}
		case f.Case != nil && f.Case != cs:
			if fv != nil {
				c.errorf(diag.UnresolvedName, fv.Pos, fv.EndPos, "%s.%s belongs to case %s, not to %s", s.Name, f.Name, f.Case.Name, cs.Name)
				ok = false
			}
			v = &ir.Value{Kind: ir.KindNull}
		case f.Type == nil || f.Type.Kind == ir.KindInvalid:
			ok = false
		case fv != nil:
			v = c.constant(fv.Composite, fv.Value, f.Type, idx)
			if v == nil {
				ok = false
				continue
			}
			if v.Kind != ir.KindNull {
				if msg := boundViolation(f, v); msg != "" {
					c.errorf(diag.OutOfRange, fv.Pos, fv.EndPos, "%s.%s %s", s.Name, f.Name, msg)
				}
			}
		case f.Default != nil:
			v = f.Default
		case f.Type.Optional:
			v = &ir.Value{Kind: ir.KindNull}
		default:
			what := s.Name
			if cs != nil {
				what += " (case " + cs.Name + ")"
			}
			c.errorf(diag.MissingRequired, rv.Pos, rv.EndPos, "a value of %s does not give required field %q", what, f.Name)
			ok = false
		}
		out.Fields = append(out.Fields, v)
	}
	if !ok {
		return nil
	}
	return out
}

// caseNamed returns the case of s with the given name (the tag's enum
// value, already checked).
func caseNamed(s *ir.StructDef, name string) *ir.Case {
	for _, cs := range s.Cases {
		if cs.Name == name {
			return cs
		}
	}
	return nil
}

func sortEntries(es []ir.MapEntry) {
	slices.SortFunc(es, func(a, b ir.MapEntry) int { return strings.Compare(a.Key, b.Key) })
}

func describeLiteral(lit *dsl.Literal) string {
	switch {
	case lit.Number != nil:
		return "number " + *lit.Number
	case lit.String != nil:
		return "string " + strconv.Quote(*lit.String)
	case lit.Date != nil:
		return "date " + *lit.Date
	case lit.DateTime != nil:
		return "date-time " + *lit.DateTime
	case lit.Bool != nil:
		return *lit.Bool
	case lit.Null:
		return "null"
	case lit.Ident != nil:
		return "name " + *lit.Ident
	}
	return "nothing"
}

// normalizeDateTime accepts YYYY-MM-DDTHH:MM[:SS][Z] and returns RFC 3339
// in UTC with seconds.
func normalizeDateTime(s string) (string, error) {
	t := strings.TrimSuffix(s, "Z")
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if tm, err := time.Parse(layout, t); err == nil {
			return tm.Format("2006-01-02T15:04:05Z"), nil
		}
	}
	return "", fmt.Errorf("date-time %s does not exist", s)
}

// boundViolation reports how v breaks a bound of f ("" when it does not).
func boundViolation(f *ir.Field, v *ir.Value) string {
	for _, b := range f.Bounds {
		c := compareValues(v, b.Value)
		ok := true
		switch b.Op {
		case ">=":
			ok = c >= 0
		case ">":
			ok = c > 0
		case "<=":
			ok = c <= 0
		case "<":
			ok = c < 0
		}
		if !ok {
			return fmt.Sprintf("is %s, must be %s %s", formatValue(v), b.Op, formatValue(b.Value))
		}
	}
	return ""
}

// numberValue is the decimal or money constant (kind k) written text, a
// number the parser or a data file read: Num its nearest float, and in a
// world of exact numbers Dec its exact value. ok is false when the number
// is out of range (a float's range, or in a world of exact numbers a
// decimal's).
func (c *checker) numberValue(k ir.Kind, text string) (v *ir.Value, ok bool) {
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	if f == 0 {
		f = 0 // not -0
	}
	v = &ir.Value{Kind: k, Num: f}
	if !c.w.FloatNumbers {
		d, err := runtime.ParseDecimal(text)
		if err != nil {
			return nil, false
		}
		v.Dec = d.String()
	}
	return v, true
}

// numberRange says what the range of a number is, for a message.
func (c *checker) numberRange() string {
	if c.w.FloatNumbers {
		return ""
	}
	return " (a decimal has at most 20 digits before the point and 18 after)"
}

// compareValues orders two constants of compatible kinds.
func compareValues(a, b *ir.Value) int {
	num := func(v *ir.Value) float64 {
		if v.Kind == ir.KindInt {
			return float64(v.Int)
		}
		return v.Num
	}
	if a.Kind.Numeric() && b.Kind.Numeric() && decOrInt(a) != "" && decOrInt(b) != "" {
		return runtime.MustDecimal(decOrInt(a)).Cmp(runtime.MustDecimal(decOrInt(b)))
	}
	if a.Kind.Numeric() && b.Kind.Numeric() {
		x, y := num(a), num(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	}
	return strings.Compare(a.Str, b.Str)
}

// decOrInt is the exact text of a numeric constant: an int's digits, a
// decimal's Dec ("" in a world of float numbers).
func decOrInt(v *ir.Value) string {
	if v.Kind == ir.KindInt {
		return strconv.FormatInt(v.Int, 10)
	}
	return v.Dec
}

// formatValue renders a constant as the spec would write it.
func formatValue(v *ir.Value) string {
	switch v.Kind {
	case ir.KindNull:
		return "null"
	case ir.KindInt:
		return strconv.FormatInt(v.Int, 10)
	case ir.KindDecimal, ir.KindMoney:
		if v.Dec != "" {
			return v.Dec
		}
		return strconv.FormatFloat(v.Num, 'f', -1, 64)
	case ir.KindBool:
		return strconv.FormatBool(v.Bool)
	case ir.KindString, ir.KindText:
		return strconv.Quote(v.Str)
	case ir.KindList:
		parts := make([]string, len(v.List))
		for i, x := range v.List {
			parts[i] = formatValue(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case ir.KindMap:
		parts := make([]string, len(v.Entries))
		for i, e := range v.Entries {
			parts[i] = strconv.Quote(e.Key) + ": " + formatValue(e.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case ir.KindStruct:
		parts := make([]string, len(v.Fields))
		for i, x := range v.Fields {
			parts[i] = formatValue(x)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return v.Str
}
