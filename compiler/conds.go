package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
)

// Conditions over constants: unsatisfiable conjunctions (W028) and
// triggers that test a field for values it never holds (W013).
//
// An atom is a test of one operand against constants: `x.s == a`,
// `x.n > 5`, `x.s in [a, b]`, `x.flag`, `not x.flag`. The operand is a
// pure path (a local, fields read through it, refs followed, today), so
// two atoms of one condition on the same path test the same value: nothing
// changes state while an expression is evaluated.

// atom is `subject op values`: op is one of == != < <= > >= in notin;
// values holds one constant, or the list of in and notin.
type atom struct {
	key     string // identifies the subject: equal keys, equal values
	subject ir.Expr
	op      string
	values  []*ir.Value
}

// constValue returns the constant e denotes, if it is a scalar constant.
func constValue(e ir.Expr) (*ir.Value, bool) {
	switch x := e.(type) {
	case *ir.Lit:
		switch x.Value.Kind {
		case ir.KindList, ir.KindMap, ir.KindStruct:
			return nil, false
		}
		return x.Value, true
	case *ir.Convert:
		v, ok := constValue(x.X)
		if ok && v.Kind == ir.KindInt && x.T.Kind.Numeric() && x.T.Kind != ir.KindInt {
			return &ir.Value{Kind: x.T.Kind, Num: float64(v.Int), Dec: strconv.FormatInt(v.Int, 10)}, true
		}
	case *ir.Unary:
		if x.Op != "-" {
			return nil, false
		}
		v, ok := constValue(x.X)
		switch {
		case !ok:
		case v.Kind == ir.KindInt:
			return &ir.Value{Kind: ir.KindInt, Int: -v.Int}, true
		case v.Kind == ir.KindDecimal || v.Kind == ir.KindMoney:
			return &ir.Value{Kind: v.Kind, Num: -v.Num, Dec: ir.NegDec(v.Dec)}, true
		}
	case *ir.Handle:
		return &ir.Value{Kind: ir.KindRef, Str: x.ID}, true
	}
	return nil, false
}

// pathKey identifies a pure path: a local, fields of a path, refs
// followed, ids taken, a lookup by a constant key, today.
func pathKey(e ir.Expr) (string, bool) {
	switch x := e.(type) {
	case *ir.VarRef:
		return fmt.Sprintf("v%p", x.Var), true
	case *ir.Today:
		if x.Now {
			return "now", true
		}
		return "today", true
	case *ir.FieldRef:
		k, ok := pathKey(x.X)
		if !ok {
			return "", false
		}
		if x.Field == nil {
			return k + ".id", true
		}
		return fmt.Sprintf("%s.f%p", k, x.Field), true
	case *ir.Deref:
		return pathKey(x.X)
	case *ir.NotNull:
		return pathKey(x.X)
	case *ir.IDOf:
		return pathKey(x.X)
	case *ir.Convert:
		if t := x.X.Type(); t != nil && t.Kind.Numeric() {
			return pathKey(x.X)
		}
	case *ir.Lookup:
		if v, ok := constValue(x.Key); ok {
			return fmt.Sprintf("e%p[%q]", x.Entity, v.Str), true
		}
	}
	return "", false
}

// pathText renders a pure path as the spec writes it.
func pathText(e ir.Expr) string {
	switch x := e.(type) {
	case *ir.VarRef:
		return x.Var.Name
	case *ir.Today:
		if x.Now {
			return "now"
		}
		return "today"
	case *ir.FieldRef:
		if x.Field == nil {
			return pathText(x.X) + ".id"
		}
		return pathText(x.X) + "." + x.Field.Name
	case *ir.Deref:
		return pathText(x.X)
	case *ir.NotNull:
		return pathText(x.X)
	case *ir.IDOf:
		return pathText(x.X)
	case *ir.Convert:
		return pathText(x.X)
	case *ir.Lookup:
		v, _ := constValue(x.Key)
		return fmt.Sprintf("%s[%s]", x.Entity.Name, strconv.Quote(v.Str))
	}
	return "?"
}

var flipped = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// parseAtom reads e as an atom.
func parseAtom(e ir.Expr) (atom, bool) {
	switch x := e.(type) {
	case *ir.Binary:
		switch x.Op {
		case "==", "!=", "<", "<=", ">", ">=":
			if k, ok := pathKey(x.L); ok {
				if v, ok := constValue(x.R); ok {
					return atom{k, x.L, x.Op, []*ir.Value{v}}, true
				}
			}
			if k, ok := pathKey(x.R); ok {
				if v, ok := constValue(x.L); ok {
					return atom{k, x.R, flipped[x.Op], []*ir.Value{v}}, true
				}
			}
		case "in", "notin":
			k, ok := pathKey(x.L)
			list, isList := x.R.(*ir.ListLit)
			if !ok || !isList {
				return atom{}, false
			}
			vals := make([]*ir.Value, len(list.Elems))
			for i, el := range list.Elems {
				if vals[i], ok = constValue(el); !ok {
					return atom{}, false
				}
			}
			return atom{k, x.L, x.Op, vals}, true
		}
	case *ir.Unary:
		if x.Op != "not" {
			return atom{}, false
		}
		a, ok := parseAtom(x.X)
		if !ok {
			return atom{}, false
		}
		// Only negations that stay exact with nulls: a null orders false
		// both ways, but is equal only to null.
		neg := map[string]string{"==": "!=", "!=": "==", "in": "notin", "notin": "in"}[a.op]
		if neg == "" {
			return atom{}, false
		}
		a.op = neg
		return a, true
	}
	if t := e.Type(); t != nil && t.Kind == ir.KindBool {
		if k, ok := pathKey(e); ok {
			return atom{k, e, "==", []*ir.Value{{Kind: ir.KindBool, Bool: true}}}, true
		}
	}
	return atom{}, false
}

// text renders the atom as the spec writes it.
func (a atom) text() string {
	if a.op == "in" || a.op == "notin" {
		parts := make([]string, len(a.values))
		for i, v := range a.values {
			parts[i] = valueText(v)
		}
		op := a.op
		if op == "notin" {
			op = "not in"
		}
		return fmt.Sprintf("%s %s [%s]", pathText(a.subject), op, strings.Join(parts, ", "))
	}
	return fmt.Sprintf("%s %s %s", pathText(a.subject), a.op, valueText(a.values[0]))
}

// valueText renders a constant as the spec writes it (an enum value or a
// ref by its name).
func valueText(v *ir.Value) string {
	switch v.Kind {
	case ir.KindEnum:
		return v.Str
	case ir.KindRef:
		return strconv.Quote(v.Str)
	}
	return formatValue(v)
}

// valueEq is == on constants: null equals only null.
func valueEq(a, b *ir.Value) bool {
	switch {
	case a.Kind == ir.KindNull || b.Kind == ir.KindNull:
		return a.Kind == b.Kind
	case a.Kind.Numeric() && b.Kind.Numeric():
		return compareValues(a, b) == 0
	case a.Kind == ir.KindBool || b.Kind == ir.KindBool:
		return a.Kind == b.Kind && a.Bool == b.Bool
	}
	return a.Str == b.Str
}

// orderable reports whether two constants order as compareValues orders
// them: numbers, dates, date-times.
func orderable(a, b *ir.Value) bool {
	switch {
	case a.Kind.Numeric() && b.Kind.Numeric():
		return true
	case a.Kind == ir.KindDate && b.Kind == ir.KindDate, a.Kind == ir.KindDateTime && b.Kind == ir.KindDateTime:
		return true
	}
	return false
}

// mayHold reports whether the value v can pass the atom: false only when
// it certainly fails.
func (a atom) mayHold(v *ir.Value) bool {
	switch a.op {
	case "==":
		return valueEq(v, a.values[0])
	case "!=":
		return !valueEq(v, a.values[0])
	case "in":
		return slices.ContainsFunc(a.values, func(c *ir.Value) bool { return valueEq(v, c) })
	case "notin":
		return !slices.ContainsFunc(a.values, func(c *ir.Value) bool { return valueEq(v, c) })
	}
	c := a.values[0]
	if v.Kind == ir.KindNull || c.Kind == ir.KindNull {
		return false // a null orders false against anything
	}
	if !orderable(v, c) {
		return true
	}
	d := compareValues(v, c)
	switch a.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	}
	return true
}

// conjuncts flattens a chain of `and`.
func conjuncts(e ir.Expr, out []ir.Expr) []ir.Expr {
	if b, ok := e.(*ir.Binary); ok && b.Op == "and" {
		return conjuncts(b.R, conjuncts(b.L, out))
	}
	return append(out, e)
}

// unsatisfiable returns a reason why no value passes all the atoms (on
// one subject), or "".
func unsatisfiable(atoms []atom) string {
	all := func(v *ir.Value) bool {
		for _, a := range atoms {
			if !a.mayHold(v) {
				return false
			}
		}
		return true
	}
	texts := func() string {
		parts := make([]string, len(atoms))
		for i, a := range atoms {
			parts[i] = a.text()
		}
		return strings.Join(parts, " and ")
	}
	// A test that pins the value to finitely many: try each.
	for _, a := range atoms {
		if a.op == "==" || a.op == "in" {
			if !slices.ContainsFunc(a.values, all) {
				return fmt.Sprintf("no value of %s passes %s", pathText(a.subject), texts())
			}
			return ""
		}
	}
	// A finite type: try every value.
	t := atoms[0].subject.Type()
	var domain []*ir.Value
	switch {
	case t == nil:
	case t.Kind == ir.KindEnum && t.Enum != nil:
		for _, name := range t.Enum.Values {
			domain = append(domain, &ir.Value{Kind: ir.KindEnum, Str: name})
		}
	case t.Kind == ir.KindBool:
		domain = []*ir.Value{{Kind: ir.KindBool, Bool: true}, {Kind: ir.KindBool}}
	}
	if domain != nil {
		if t.Optional {
			domain = append(domain, &ir.Value{Kind: ir.KindNull})
		}
		if !slices.ContainsFunc(domain, all) {
			return fmt.Sprintf("no value of %s passes %s", pathText(atoms[0].subject), texts())
		}
		return ""
	}
	// A range: the bounds must overlap (and, for ints, hold an integer).
	var lo, hi *atom
	for i := range atoms {
		a := &atoms[i]
		if a.values[0].Kind == ir.KindNull {
			if a.op != "==" && a.op != "!=" {
				return fmt.Sprintf("%s never holds: null orders false against anything", a.text())
			}
			continue
		}
		switch a.op {
		case ">", ">=":
			if lo == nil || tighter(a, lo, 1) {
				lo = a
			}
		case "<", "<=":
			if hi == nil || tighter(a, hi, -1) {
				hi = a
			}
		}
	}
	if lo == nil || hi == nil || !orderable(lo.values[0], hi.values[0]) {
		return ""
	}
	l, h := lo.values[0], hi.values[0]
	d := compareValues(l, h)
	empty := d > 0 || (d == 0 && (lo.op == ">" || hi.op == "<"))
	if !empty && t != nil && t.Kind == ir.KindInt && l.Kind == ir.KindInt && h.Kind == ir.KindInt {
		a, b := l.Int, h.Int
		if lo.op == ">" {
			a++
		}
		if hi.op == "<" {
			b--
		}
		empty = a > b
	}
	if !empty && d == 0 {
		// x >= c and x <= c: only c, which a != may exclude.
		empty = !all(l)
	}
	if empty {
		return fmt.Sprintf("the range %s and %s is empty", lo.text(), hi.text())
	}
	return ""
}

// tighter reports whether bound a is stricter than b: dir 1 for lower
// bounds, -1 for upper ones.
func tighter(a, b *atom, dir int) bool {
	if !orderable(a.values[0], b.values[0]) {
		return false
	}
	d := compareValues(a.values[0], b.values[0]) * dir
	return d > 0 || (d == 0 && (a.op == ">" || a.op == "<"))
}

// checkConditions is W028: every chain of `and` in the spec's expressions
// (requires, if conditions, where clauses, triggers and checks of
// invariants, rubric assertions) whose tests of one value leave no value
// that passes them all.
func (c *checker) checkConditions() {
	visit := func(what string, e ir.Expr) {
		if e == nil || hasInvalid(e) {
			return
		}
		inner := map[ir.Expr]bool{}
		ir.WalkExpr(e, func(x ir.Expr) bool {
			b, ok := x.(*ir.Binary)
			if !ok || b.Op != "and" || inner[x] {
				return true
			}
			// Mark the chain's own and-nodes: they are analysed with it.
			var mark func(ir.Expr)
			mark = func(y ir.Expr) {
				if yb, ok := y.(*ir.Binary); ok && yb.Op == "and" {
					inner[y] = true
					mark(yb.L)
					mark(yb.R)
				}
			}
			mark(b)
			bySubject := map[string][]atom{}
			var order []string
			for _, cj := range conjuncts(b, nil) {
				a, ok := parseAtom(cj)
				if !ok {
					continue
				}
				if bySubject[a.key] == nil {
					order = append(order, a.key)
				}
				bySubject[a.key] = append(bySubject[a.key], a)
			}
			for _, k := range order {
				atoms := bySubject[k]
				if len(atoms) < 2 {
					continue
				}
				if why := unsatisfiable(atoms); why != "" {
					c.errorAtNode(diag.UnsatisfiableCondition, b.Pos, "this condition of %s can never hold: %s", what, why)
				}
			}
			return true
		})
	}
	for _, t := range c.w.Tools {
		ir.WalkStmts(t.Body, nil, func(x ir.Expr) bool {
			visit("tool "+t.Name, x)
			return false // visit walks the expression itself
		})
	}
	for _, inv := range c.w.Invariants {
		visit("invariant "+inv.Name, inv.Where)
		visit("invariant "+inv.Name, inv.Check)
	}
	for _, t := range c.w.Tasks {
		for _, a := range t.Assertions {
			visit("task "+t.Name, a.Expr)
		}
	}
}
