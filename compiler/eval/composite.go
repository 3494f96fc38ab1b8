package eval

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// Composite values (lists, maps and value records) are immutable: every
// operation that "changes" one (append, an assignment through a path,
// conform) builds a new value and leaves the old one as it was. So values
// never alias: a value held by a local, a loop snapshot, an earlier
// observation, a cloned state or the undo log keeps what it held.
//
// A list is a []value, never nil inside a non-null value (an empty list is
// a zero-length slice). A map is a *mapValue, a value record a
// *structValue.

// mapValue is a map<string, T>: its keys in byte-wise sorted order, without
// duplicates, and the value of each key.
type mapValue struct {
	keys []string
	vals []value
}

// get returns the value at key k.
func (m *mapValue) get(k string) (value, bool) {
	i, ok := slices.BinarySearch(m.keys, k)
	if !ok {
		return nil, false
	}
	return m.vals[i], true
}

// with returns a copy of m where key k holds v (inserted when absent).
func (m *mapValue) with(k string, v value) *mapValue {
	i, ok := slices.BinarySearch(m.keys, k)
	n := &mapValue{keys: slices.Clone(m.keys), vals: slices.Clone(m.vals)}
	if ok {
		n.vals[i] = v
		return n
	}
	n.keys = slices.Insert(n.keys, i, k)
	n.vals = slices.Insert(n.vals, i, v)
	return n
}

// newMap builds a map from entries in any order; of two entries with the
// same key the later wins.
func newMap(keys []string, vals []value) *mapValue {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
	m := &mapValue{keys: make([]string, 0, len(keys)), vals: make([]value, 0, len(keys))}
	for _, i := range idx {
		if n := len(m.keys); n > 0 && m.keys[n-1] == keys[i] {
			m.vals[n-1] = vals[i]
			continue
		}
		m.keys = append(m.keys, keys[i])
		m.vals = append(m.vals, vals[i])
	}
	return m
}

// structValue is a value record: one value per field of def in
// def.AllFields() order. The fields of a variant's other cases are null.
type structValue struct {
	def  *ir.StructDef
	vals []value
}

// numFields is len(d.AllFields()) without allocating.
func numFields(d *ir.StructDef) int {
	n := len(d.Fields)
	if d.Tag != nil {
		n++
	}
	for _, c := range d.Cases {
		n += len(c.Fields)
	}
	return n
}

// eachField calls fn with the position and field of every field of d in
// AllFields order until fn returns false.
func eachField(d *ir.StructDef, fn func(i int, f *ir.Field) bool) {
	i := 0
	if d.Tag != nil {
		if !fn(i, d.Tag) {
			return
		}
		i++
	}
	for _, f := range d.Fields {
		if !fn(i, f) {
			return
		}
		i++
	}
	for _, c := range d.Cases {
		for _, f := range c.Fields {
			if !fn(i, f) {
				return
			}
			i++
		}
	}
}

// structFieldIndex is the position of f in d.AllFields(), or -1.
func structFieldIndex(d *ir.StructDef, f *ir.Field) int {
	at := -1
	eachField(d, func(i int, g *ir.Field) bool {
		if g == f {
			at = i
			return false
		}
		return true
	})
	return at
}

// caseOf is the case the value's tag names; nil for a plain record or a
// tag that names no case.
func (sv *structValue) caseOf() *ir.Case {
	if sv.def.Tag == nil || len(sv.vals) == 0 {
		return nil
	}
	tag, _ := sv.vals[0].(string)
	for _, c := range sv.def.Cases {
		if c.Name == tag {
			return c
		}
	}
	return nil
}

// inCase reports whether field f of d belongs in a value of case c: a
// common field (or the tag), or a field of c itself.
func inCase(d *ir.StructDef, f *ir.Field, c *ir.Case) bool {
	fc := fieldCase(d, f)
	return fc == nil || fc == c
}

// fieldCase is the case that declares f, looked up in d when f.Case is not
// set.
func fieldCase(d *ir.StructDef, f *ir.Field) *ir.Case {
	if f.Case != nil {
		return f.Case
	}
	for _, c := range d.Cases {
		if slices.Contains(c.Fields, f) {
			return c
		}
	}
	return nil
}

// conform converts v to type t, deeply: a record where a ref is expected
// becomes its id, an int where a decimal or money is expected a float64,
// and the elements, map values and record fields of a composite value
// likewise. Values already of the right shape are returned as they are
// (nothing is copied unless something changes).
func conform(t *ir.Type, v value, exact bool) value {
	out, _ := conformed(t, v, exact)
	return out
}

func conformed(t *ir.Type, v value, exact bool) (value, bool) {
	if t == nil || v == nil {
		return v, false
	}
	switch x := v.(type) {
	case *row:
		if t.Kind == ir.KindRef {
			return x.id, true
		}
	case int64:
		if t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney {
			return intToNum(x, exact), true
		}
	case []value:
		if t.Kind != ir.KindList {
			return v, false
		}
		var out []value
		for i, e := range x {
			c, changed := conformed(t.Elem, e, exact)
			if changed && out == nil {
				out = slices.Clone(x)
			}
			if out != nil {
				out[i] = c
			}
		}
		if out != nil {
			return out, true
		}
	case *mapValue:
		if t.Kind != ir.KindMap {
			return v, false
		}
		var out []value
		for i, e := range x.vals {
			c, changed := conformed(t.Elem, e, exact)
			if changed && out == nil {
				out = slices.Clone(x.vals)
			}
			if out != nil {
				out[i] = c
			}
		}
		if out != nil {
			return &mapValue{keys: x.keys, vals: out}, true
		}
	case *structValue:
		var out []value
		eachField(x.def, func(i int, f *ir.Field) bool {
			if i >= len(x.vals) {
				return false
			}
			c, changed := conformed(f.Type, x.vals[i], exact)
			if changed && out == nil {
				out = slices.Clone(x.vals)
			}
			if out != nil {
				out[i] = c
			}
			return true
		})
		if out != nil {
			return &structValue{def: x.def, vals: out}, true
		}
	}
	return v, false
}

// deepEqual is == on values of any kind; nanEqual makes NaN equal to NaN
// (for comparing stored states, where equality must be reflexive).
func deepEqual(a, b value, nanEqual bool) bool {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok && nanEqual && x != x && y != y {
			return true
		}
	case []value:
		y, ok := b.([]value)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i], nanEqual) {
				return false
			}
		}
		return true
	case *mapValue:
		y, ok := b.(*mapValue)
		if !ok || len(x.keys) != len(y.keys) {
			return false
		}
		for i := range x.keys {
			if x.keys[i] != y.keys[i] || !deepEqual(x.vals[i], y.vals[i], nanEqual) {
				return false
			}
		}
		return true
	case *structValue:
		y, ok := b.(*structValue)
		if !ok || x.def != y.def || len(x.vals) != len(y.vals) {
			return false
		}
		for i := range x.vals {
			if !deepEqual(x.vals[i], y.vals[i], nanEqual) {
				return false
			}
		}
		return true
	}
	return equal(a, b)
}

// elements are the values a loop or an aggregate visits in a list (in
// order) or a map (its values, in key order), with their keys: int64
// indexes for a list, strings for a map.
func elements(v value) (keys func(i int) value, vals []value, err *evalError) {
	switch x := v.(type) {
	case []value:
		return func(i int) value { return int64(i) }, x, nil
	case *mapValue:
		return func(i int) value { return x.keys[i] }, x.vals, nil
	case nil:
		return nil, nil, errorf(CodeInternal, runtime.MsgIterateNull)
	}
	return nil, nil, errorf(CodeInternal, "cannot iterate over %s", typeName(v))
}

// indexValue is xs[i] of a list or m[k] of a map. Out of range and a missing
// key are evaluation errors (code internal: the spec must check first).
func indexValue(c, k value) (value, *evalError) {
	switch x := c.(type) {
	case []value:
		i, ok := k.(int64)
		if !ok {
			break
		}
		if i < 0 || i >= int64(len(x)) {
			return nil, errorf(CodeInternal, runtime.MsgIndexOutOfRange, i, len(x))
		}
		return x[i], nil
	case *mapValue:
		s, ok := k.(string)
		if !ok {
			break
		}
		v, ok := x.get(s)
		if !ok {
			return nil, errorf(CodeInternal, "map has no key %q", s)
		}
		return v, nil
	case nil:
		return nil, errorf(CodeInternal, runtime.MsgIndexNull)
	}
	return nil, errorf(CodeInternal, "cannot index %s with %s", typeName(c), typeName(k))
}

// readField reads field f of the value record sv; a field of another case
// reads as null (it is null).
func readField(sv *structValue, f *ir.Field) (value, *evalError) {
	i := structFieldIndex(sv.def, f)
	if i < 0 || i >= len(sv.vals) {
		return nil, errorf(CodeInternal, "%s has no field %s", sv.def.Name, fieldName(f))
	}
	return sv.vals[i], nil
}

func fieldName(f *ir.Field) string {
	if f == nil {
		return "id"
	}
	return f.Name
}

// replaceAt returns cur with the value at path (steps with their evaluated
// keys) replaced by v, conformed to the type found there; t is cur's type.
// Every value along the path is copied, none is changed. The last step of
// a path into a map inserts the key when it is absent; every other missing
// key, an index out of range, null along the path or a step that does not
// fit the value is an evaluation error.
func replaceAt(cur value, t *ir.Type, steps []ir.PathStep, keys []value, v value, exact bool) (value, *evalError) {
	if len(steps) == 0 {
		return conform(t, v, exact), nil
	}
	st, k := steps[0], keys[0]
	if st.Field != nil {
		sv, ok := cur.(*structValue)
		if !ok {
			if cur == nil {
				return nil, errorf(CodeInternal, runtime.MsgFieldOfNull, st.Field.Name)
			}
			return nil, errorf(CodeInternal, "cannot read field %s of %s", st.Field.Name, typeName(cur))
		}
		i := structFieldIndex(sv.def, st.Field)
		if i < 0 || i >= len(sv.vals) {
			return nil, errorf(CodeInternal, "%s has no field %s", sv.def.Name, st.Field.Name)
		}
		nv, err := replaceAt(sv.vals[i], st.Field.Type, steps[1:], keys[1:], v, exact)
		if err != nil {
			return nil, err
		}
		out := &structValue{def: sv.def, vals: slices.Clone(sv.vals)}
		out.vals[i] = nv
		return out, nil
	}
	var elem *ir.Type
	if t != nil {
		elem = t.Elem
	}
	switch x := cur.(type) {
	case []value:
		i, ok := k.(int64)
		if !ok {
			break
		}
		if i < 0 || i >= int64(len(x)) {
			return nil, errorf(CodeInternal, runtime.MsgIndexOutOfRange, i, len(x))
		}
		nv, err := replaceAt(x[i], elem, steps[1:], keys[1:], v, exact)
		if err != nil {
			return nil, err
		}
		out := slices.Clone(x)
		out[i] = nv
		return out, nil
	case *mapValue:
		s, ok := k.(string)
		if !ok {
			break
		}
		old, present := x.get(s)
		if !present && len(steps) > 1 {
			return nil, errorf(CodeInternal, "map has no key %q", s)
		}
		nv, err := replaceAt(old, elem, steps[1:], keys[1:], v, exact)
		if err != nil {
			return nil, err
		}
		return x.with(s, nv), nil
	case nil:
		return nil, errorf(CodeInternal, runtime.MsgIndexNull)
	}
	return nil, errorf(CodeInternal, "cannot index %s with %s", typeName(cur), typeName(k))
}

// sortedList is sorted(xs): a new list in ascending order, stable (equal
// elements keep their order), as slices.SortStableFunc with cmp.Compare:
// strings byte-wise, numbers numerically (ints exactly; NaN before every
// other number), dates, date-times. A null element or elements of other
// kinds are an evaluation error.
func sortedList(xs []value) ([]value, *evalError) {
	out := slices.Clone(xs)
	if len(out) == 0 {
		return out, nil
	}
	kind := ""
	for _, e := range out {
		k := ""
		switch e.(type) {
		case string:
			k = "string"
		case int64, float64, decimal:
			k = "number"
		case date:
			k = "date"
		case dateTime:
			k = "datetime"
		case nil:
			return nil, errorf(CodeInternal, "sorted: the list holds null")
		default:
			return nil, errorf(CodeInternal, "sorted: cannot order %s values", typeName(e))
		}
		if kind == "" {
			kind = k
		} else if kind != k {
			return nil, errorf(CodeInternal, "sorted: cannot order %s and %s values", kind, k)
		}
	}
	slices.SortStableFunc(out, func(a, b value) int {
		switch x := a.(type) {
		case string:
			return strings.Compare(x, b.(string))
		case date:
			return cmp.Compare(x, b.(date))
		case dateTime:
			return cmp.Compare(x, b.(dateTime))
		case int64:
			switch y := b.(type) {
			case int64:
				return cmp.Compare(x, y)
			case decimal:
				return runtime.DecimalFromInt(x).Cmp(y)
			}
			return cmp.Compare(float64(x), b.(float64))
		case decimal:
			if y, ok := b.(int64); ok {
				return x.Cmp(runtime.DecimalFromInt(y))
			}
			return x.Cmp(b.(decimal))
		case float64:
			if y, ok := b.(int64); ok {
				return cmp.Compare(x, float64(y))
			}
			return cmp.Compare(x, b.(float64))
		}
		return 0
	})
	return out, nil
}

// typeString renders a type as the spec writes it, like ir.Type.String but
// also for enums declared on value-record fields (Struct.field).
func typeString(t *ir.Type) string {
	if t == nil {
		return "invalid"
	}
	var s string
	switch t.Kind {
	case ir.KindEnum:
		s = "enum"
		if t.Enum != nil && t.Enum.Field != nil {
			switch f := t.Enum.Field; {
			case f.Entity != nil:
				s = f.Entity.Name + "." + f.Name
			case f.Struct != nil:
				s = f.Struct.Name + "." + f.Name
			}
		}
	case ir.KindRef, ir.KindRecord, ir.KindSet:
		if t.Entity == nil {
			s = t.Kind.String()
			break
		}
		switch t.Kind {
		case ir.KindRef:
			s = "ref " + t.Entity.Name
		case ir.KindRecord:
			s = t.Entity.Name
		default:
			s = "set of " + t.Entity.Name
		}
	case ir.KindList:
		s = "list<" + typeString(t.Elem) + ">"
	case ir.KindMap:
		s = "map<string, " + typeString(t.Elem) + ">"
	case ir.KindStruct:
		s = "record"
		if t.Struct != nil {
			s = t.Struct.Name
		}
	default:
		s = t.Kind.String()
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// baseType is t without its optional mark.
func baseType(t *ir.Type) string {
	c := *t
	c.Optional = false
	return typeString(&c)
}

// ProblemCase: a field of another case of a variant record holds a value.
const ProblemCase = "case"

// valueProblem checks v, about to be stored at path (for messages: E.f,
// E.f[2], E.f["k"].g), against its type t and, when it is a field's value,
// the field f's enum and bounds; then, in order, the elements of a list,
// the values of a map (key order) and the fields of a value record. It
// returns the kind and message of the first problem, or "" and "".
func valueProblem(path string, f *ir.Field, t *ir.Type, v value) (kind, msg string) {
	if t == nil {
		return ProblemType, path + " has no type"
	}
	if v == nil {
		if !t.Optional {
			return ProblemRequired, path + " is required"
		}
		return "", ""
	}
	if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
		return ProblemType, fmt.Sprintf("%s must be a finite number, got %s", path, text(v))
	}
	if !typeHolds(t, v) {
		return ProblemType, fmt.Sprintf("%s must be %s, got %s", path, baseType(t), typeName(v))
	}
	if t.Kind == ir.KindEnum && t.Enum != nil && !t.Enum.Has(v.(string)) {
		return ProblemEnum, fmt.Sprintf("%s must be one of %s, got %s", path, strings.Join(t.Enum.Values, ", "), text(v))
	}
	if f != nil {
		for _, b := range f.Bounds {
			_, isFloat := v.(float64)
			bv, err := fromIR(b.Value, f.Type, !isFloat)
			if err != nil {
				return ProblemBound, fmt.Sprintf("%s: bound %s: %v", path, b.Op, err)
			}
			if ok, comparable := order(b.Op, v, bv); !ok || !comparable {
				return ProblemBound, fmt.Sprintf(runtime.MsgOutOfBounds, path, b.Op, text(bv), text(v))
			}
		}
	}
	switch x := v.(type) {
	case []value:
		for i, e := range x {
			if kind, msg := valueProblem(path+"["+strconv.Itoa(i)+"]", nil, t.Elem, e); msg != "" {
				return kind, msg
			}
		}
	case *mapValue:
		for i, k := range x.keys {
			if kind, msg := valueProblem(path+"["+strconv.Quote(k)+"]", nil, t.Elem, x.vals[i]); msg != "" {
				return kind, msg
			}
		}
	case *structValue:
		return structProblem(path, x)
	}
	return "", ""
}

// structProblem checks the fields of a value record in AllFields order:
// the tag first (a variant's case), then each field: a field of another
// case must be null, every other field must satisfy valueProblem.
func structProblem(path string, sv *structValue) (kind, msg string) {
	d := sv.def
	if len(sv.vals) != numFields(d) {
		return ProblemType, fmt.Sprintf("%s has %d fields, %s has %d", path, len(sv.vals), d.Name, numFields(d))
	}
	c := sv.caseOf()
	cname := "<none>"
	if c != nil {
		cname = c.Name
	}
	eachField(d, func(i int, f *ir.Field) bool {
		if f != d.Tag && !inCase(d, f, c) {
			if sv.vals[i] != nil {
				kind, msg = ProblemCase, fmt.Sprintf("%s.%s belongs to case %s, not %s", path, f.Name, fieldCase(d, f).Name, cname)
				return false
			}
			return true
		}
		kind, msg = valueProblem(path+"."+f.Name, f, f.Type, sv.vals[i])
		return msg == ""
	})
	return kind, msg
}

// typeHolds reports whether v (not null) is a value of t's kind: scalars
// by their Go type, a list, a map, a value record of t's record type.
func typeHolds(t *ir.Type, v value) bool {
	switch x := v.(type) {
	case []value:
		return t.Kind == ir.KindList
	case *mapValue:
		return t.Kind == ir.KindMap
	case *structValue:
		return t.Kind == ir.KindStruct && x.def == t.Struct
	}
	return kindHolds(t.Kind, v)
}

// refProblem finds the first ref inside v (of type t, at path) that names
// no record, in valueProblem's order.
func (s *State) refProblem(path string, t *ir.Type, v value) string {
	if t == nil || v == nil {
		return ""
	}
	switch x := v.(type) {
	case string:
		if t.Kind != ir.KindRef {
			return ""
		}
		if rt := s.table(t.Entity); rt == nil || rt.get(x) == nil {
			return fmt.Sprintf("%s refers to %s, which does not exist", path, refName(t.Entity, x))
		}
	case []value:
		if t.Kind != ir.KindList {
			return ""
		}
		for i, e := range x {
			if m := s.refProblem(path+"["+strconv.Itoa(i)+"]", t.Elem, e); m != "" {
				return m
			}
		}
	case *mapValue:
		if t.Kind != ir.KindMap {
			return ""
		}
		for i, k := range x.keys {
			if m := s.refProblem(path+"["+strconv.Quote(k)+"]", t.Elem, x.vals[i]); m != "" {
				return m
			}
		}
	case *structValue:
		out := ""
		eachField(x.def, func(i int, f *ir.Field) bool {
			if i < len(x.vals) {
				out = s.refProblem(path+"."+f.Name, f.Type, x.vals[i])
			}
			return out == ""
		})
		return out
	}
	return ""
}

// mentions reports whether a value of type t can hold a ref to e.
func mentions(t *ir.Type, e *ir.Entity, seen map[*ir.StructDef]bool) bool {
	if t == nil {
		return false
	}
	switch t.Kind {
	case ir.KindRef:
		return t.Entity == e
	case ir.KindList, ir.KindMap:
		return mentions(t.Elem, e, seen)
	case ir.KindStruct:
		if t.Struct == nil || seen[t.Struct] {
			return false
		}
		seen[t.Struct] = true
		found := false
		eachField(t.Struct, func(_ int, f *ir.Field) bool {
			found = mentions(f.Type, e, seen)
			return !found
		})
		return found
	}
	return false
}

// holdsRef reports whether v (of type t) holds a ref to the record id of e
// anywhere inside.
func holdsRef(t *ir.Type, v value, e *ir.Entity, id string) bool {
	if t == nil || v == nil {
		return false
	}
	switch x := v.(type) {
	case string:
		return t.Kind == ir.KindRef && t.Entity == e && x == id
	case []value:
		if t.Kind == ir.KindList {
			for _, el := range x {
				if holdsRef(t.Elem, el, e, id) {
					return true
				}
			}
		}
	case *mapValue:
		if t.Kind == ir.KindMap {
			for _, el := range x.vals {
				if holdsRef(t.Elem, el, e, id) {
					return true
				}
			}
		}
	case *structValue:
		found := false
		eachField(x.def, func(i int, f *ir.Field) bool {
			found = i < len(x.vals) && holdsRef(f.Type, x.vals[i], e, id)
			return !found
		})
		return found
	}
	return false
}
