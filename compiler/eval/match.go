package eval

import (
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// fieldDiff is a compared field whose value differs from the expected one.
type fieldDiff struct {
	name      string
	got, want value
}

// match evaluates ir.Match: `x == E { … }` and `matches(x, { … })`.
func (ev *evaluator) match(m *ir.Match) (value, *evalError) {
	diffs, err := ev.matchDiffs(m, true)
	if err != nil {
		return nil, err
	}
	return len(diffs) == 0, nil
}

// matchDiffs evaluates m: X first, then the expected id, then every
// expected value in field order (an error in any is the result), and only
// then compares, each field with ==. It returns the fields that differ
// (the id first, as "id"), or only the first one when first is set.
func (ev *evaluator) matchDiffs(m *ir.Match, first bool) ([]fieldDiff, *evalError) {
	xv, err := ev.eval(m.X)
	if err != nil {
		return nil, err
	}
	var id value
	if m.ID != nil {
		if id, err = ev.eval(m.ID); err != nil {
			return nil, err
		}
		if r, ok := id.(*row); ok {
			id = r.id
		}
	}
	want := make([]value, len(m.Fields))
	for i, fi := range m.Fields {
		if fi == nil || fi.Field == nil {
			return nil, errorf(CodeInternal, "malformed match")
		}
		v, err := ev.eval(fi.Value)
		if err != nil {
			return nil, err
		}
		want[i] = conform(fi.Field.Type, v, ev.exact)
	}
	var read func(f *ir.Field) (value, *evalError)
	var gotID value
	switch x := xv.(type) {
	case *row:
		gotID = x.id
		read = func(f *ir.Field) (value, *evalError) {
			i := fieldIndex(x.ent, f)
			if i < 0 || i >= len(x.vals) {
				return nil, errorf(CodeInternal, "%s has no field %s", x.ent.Name, f.Name)
			}
			return x.vals[i], nil
		}
	case *structValue:
		if m.ID != nil {
			return nil, errorf(CodeInternal, "a %s value has no id", x.def.Name)
		}
		read = func(f *ir.Field) (value, *evalError) { return readField(x, f) }
	case nil:
		return nil, errorf(CodeInternal, "cannot match null")
	default:
		return nil, errorf(CodeInternal, "cannot match the fields of %s", typeName(xv))
	}
	var diffs []fieldDiff
	if m.ID != nil && !equal(gotID, id) {
		diffs = append(diffs, fieldDiff{"id", gotID, id})
		if first {
			return diffs, nil
		}
	}
	for i, fi := range m.Fields {
		got, err := read(fi.Field)
		if err != nil {
			return nil, err
		}
		if !equal(got, want[i]) {
			diffs = append(diffs, fieldDiff{fi.Field.Name, got, want[i]})
			if first {
				return diffs, nil
			}
		}
	}
	return diffs, nil
}

// matchDetail says which fields of a failed match differ:
// `status is "pending", want "cancelled"; total is 10, want 12`.
func matchDetail(diffs []fieldDiff) string {
	parts := make([]string, len(diffs))
	for i, d := range diffs {
		parts[i] = d.name + " is " + text(d.got) + ", want " + text(d.want)
	}
	return strings.Join(parts, "; ")
}
