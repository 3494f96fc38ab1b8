package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// checkTriggerRead is W029: an invariant's check must read its trigger
// record. `for o in Order where … require C` checks C once per triggering
// record; a C that never reads o gives them all the same verdict, which is
// a rule about the world reported against every record — nearly always a
// check written against the wrong variable or a copied rule.
func (c *checker) checkTriggerRead() {
	for _, inv := range c.w.Invariants {
		if inv.Var == nil || inv.Check == nil || hasInvalid(inv.Check) {
			continue
		}
		read := false
		ir.WalkExpr(inv.Check, func(x ir.Expr) bool {
			if v, ok := x.(*ir.VarRef); ok && v.Var == inv.Var {
				read = true
			}
			return !read
		})
		if !read {
			pos := inv.Check.Position()
			c.errorAtNode(diag.InvariantIgnoresTrigger, pos, "invariant %s: its check never reads %s, the %s it is checked for, so every %s its trigger selects gets the same verdict",
				inv.Name, inv.Var.Name, inv.Entity.Name, inv.Entity.Name)
		}
	}
}

// Money literals (W031): a literal amount of money has at most as many
// decimals as the world currency's minor unit.

// decimals is the number of decimals a number literal as written needs:
// its digits after the point, trailing zeros aside (12.50 needs 1).
func decimals(text string) int {
	_, frac, ok := strings.Cut(text, ".")
	if !ok {
		return 0
	}
	return len(strings.TrimRight(frac, "0"))
}

// checkMoneyText reports a money literal, written as text, finer than
// the currency's minor unit.
func (c *checker) checkMoneyText(text string, pos, end dsl.Pos) {
	units, ok := c.minorUnits()
	if !ok {
		return
	}
	if n := decimals(text); n > units {
		c.errorf(diag.MoneyPrecision, pos, end, "the amount %s has %s; an amount of %s has at most %s (its minor unit in ISO 4217)", text, count(n, "decimal"), c.w.Currency, count(units, "decimal"))
	}
}

// count writes n and a noun, in the plural unless n is 1.
func count(n int, noun string) string {
	return fmt.Sprintf("%d %s%s", n, noun, plural(n))
}

// checkMoneyExprs is W031 for the literals of expressions: a number
// literal where an amount of money is expected (compared with, added to
// or subtracted from money, written to a money field or local, a money
// element of a list or the default of coalesce). A literal multiplying or
// dividing money is a rate or a factor, not an amount, and is not checked.
func (c *checker) checkMoneyExprs() {
	if _, ok := c.minorUnits(); !ok {
		return
	}
	isMoney := func(t *ir.Type) bool { return t != nil && t.Kind == ir.KindMoney }
	var checkLit func(e ir.Expr)
	checkLit = func(e ir.Expr) {
		if x, ok := e.(*ir.Cond); ok {
			// Where a conditional is an amount, its branches are.
			checkLit(x.Then)
			checkLit(x.Else)
			return
		}
		neg := ""
		if u, ok := e.(*ir.Unary); ok && u.Op == "-" {
			e, neg = u.X, "-"
		}
		if l, ok := e.(*ir.Lit); ok {
			if text, ok := c.numberText[l]; ok {
				c.checkMoneyText(neg+text, dsl.Pos(l.Pos), dsl.Pos(l.Pos))
			}
		}
	}
	checkInits := func(fs []*ir.FieldInit) {
		for _, fi := range fs {
			if fi.Field != nil && isMoney(fi.Field.Type) {
				checkLit(fi.Value)
			}
		}
	}
	expr := func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Binary:
			switch x.Op {
			case "==", "!=", "<", "<=", ">", ">=", "+", "-":
				if isMoney(x.L.Type()) {
					checkLit(x.R)
				}
				if isMoney(x.R.Type()) {
					checkLit(x.L)
				}
			case "in", "notin":
				if list, ok := x.R.(*ir.ListLit); ok && isMoney(x.L.Type()) {
					for _, el := range list.Elems {
						checkLit(el)
					}
				}
			}
		case *ir.ListLit:
			if t := x.Type(); t != nil && t.Kind == ir.KindList && isMoney(t.Elem) {
				for _, el := range x.Elems {
					checkLit(el)
				}
			}
		case *ir.MapLit:
			if t := x.Type(); t != nil && t.Kind == ir.KindMap && isMoney(t.Elem) {
				for _, en := range x.Entries {
					checkLit(en.Value)
				}
			}
		case *ir.StructLit:
			checkInits(x.Fields)
		case *ir.Match:
			checkInits(x.Fields)
		case *ir.Call:
			if x.Func == "coalesce" && isMoney(x.Type()) {
				for _, a := range x.Args {
					checkLit(a)
				}
			}
		}
		return true
	}
	stmt := func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Set:
			if isMoney(s.Field.Type) {
				checkLit(s.Value)
			}
		case *ir.Insert:
			checkInits(s.Fields)
		case *ir.Let:
			if isMoney(s.Var.Type) {
				checkLit(s.Value)
			}
		case *ir.VarDecl:
			if isMoney(s.Var.Type) {
				checkLit(s.Value)
			}
		case *ir.Assign:
			if n := len(s.Path); n > 0 && s.Path[n-1].Field != nil && isMoney(s.Path[n-1].Field.Type) {
				checkLit(s.Value)
			} else if n == 0 && isMoney(s.Root.Type()) {
				checkLit(s.Value)
			}
		}
	}
	for _, t := range c.w.Tools {
		ir.WalkStmts(t.Body, stmt, expr)
	}
	for _, inv := range c.w.Invariants {
		ir.WalkExpr(inv.Where, expr)
		ir.WalkExpr(inv.Check, expr)
	}
	for _, t := range c.w.Tasks {
		for _, a := range t.Assertions {
			ir.WalkExpr(a.Expr, expr)
		}
	}
}

// Dead triggers (W013): the values a field can ever hold.

// maxFieldValues bounds the distinct values a field's value set tracks;
// beyond it the field may hold anything, as far as triggers go.
const maxFieldValues = 64

// valueSet is the values a field of an entity can hold: any, or the
// values listed (its default, the constants inserts and sets write, the
// seed's values).
type valueSet struct {
	any  bool
	vals []*ir.Value
	seen map[string]bool
}

func (s *valueSet) add(v *ir.Value) {
	if s.any {
		return
	}
	k := fmt.Sprintf("%d:%s", v.Kind, formatValue(v))
	if v.Kind.Numeric() {
		k = "n:" + strconv.FormatFloat(numOf(v), 'g', -1, 64)
	}
	if s.seen[k] {
		return
	}
	if len(s.vals) == maxFieldValues {
		s.any, s.vals, s.seen = true, nil, nil
		return
	}
	s.seen[k] = true
	s.vals = append(s.vals, v)
}

func numOf(v *ir.Value) float64 {
	if v.Kind == ir.KindInt {
		return float64(v.Int)
	}
	return v.Num
}

// fieldValues computes the value set of an entity field: what the seed
// records (the world's and the tasks') hold, what inserts give it (its
// default or null when they leave it out), and what sets write. A write
// of anything but a constant, a standard create or update tool, or a
// write inside the field's value makes it any.
func (c *checker) fieldValues(f *ir.Field) *valueSet {
	s := &valueSet{seen: map[string]bool{}}
	i := slices.Index(f.Entity.Fields, f)
	if i < 0 {
		return &valueSet{any: true}
	}
	seed := func(recs []*ir.Record) {
		for _, r := range recs {
			if r.Entity == f.Entity && i < len(r.Values) && r.Values[i] != nil {
				s.add(r.Values[i])
				if s.any {
					return
				}
			}
		}
	}
	seed(c.w.Seed)
	for _, t := range c.w.Tasks {
		seed(t.Seed)
	}
	write := func(e ir.Expr) {
		if v, ok := constValue(e); ok {
			s.add(v)
		} else {
			s.any = true
		}
	}
	for _, t := range c.w.Tools {
		if s.any {
			return s
		}
		if (t.Kind == ir.ToolCreate || t.Kind == ir.ToolUpdate) && t.Entity == f.Entity {
			s.any = true
			break
		}
		ir.WalkStmts(t.Body, func(st ir.Stmt) {
			switch st := st.(type) {
			case *ir.Set:
				if st.Field == f {
					write(st.Value)
				}
			case *ir.Assign:
				if len(st.Path) > 0 && st.Path[0].Field == f {
					s.any = true
				}
			case *ir.Insert:
				if st.Entity != f.Entity {
					return
				}
				for _, fi := range st.Fields {
					if fi.Field == f {
						write(fi.Value)
						return
					}
				}
				if f.Default != nil {
					s.add(f.Default)
				} else {
					s.add(&ir.Value{Kind: ir.KindNull})
				}
			}
		}, nil)
	}
	return s
}

// deadTrigger returns why an invariant's trigger can never hold because it
// tests a field of the trigger record for values the field never holds,
// or "".
func (c *checker) deadTrigger(inv *ir.Invariant) string {
	if inv.Where == nil {
		return ""
	}
	byField := map[*ir.Field][]atom{}
	var order []*ir.Field
	for _, cj := range conjuncts(inv.Where, nil) {
		a, ok := parseAtom(cj)
		if !ok {
			continue
		}
		subj := a.subject
		if cv, ok := subj.(*ir.Convert); ok {
			subj = cv.X
		}
		fr, ok := subj.(*ir.FieldRef)
		if !ok || fr.Field == nil || fr.Field.Entity != inv.Entity {
			continue
		}
		if v, ok := fr.X.(*ir.VarRef); !ok || v.Var != inv.Var {
			continue
		}
		if byField[fr.Field] == nil {
			order = append(order, fr.Field)
		}
		byField[fr.Field] = append(byField[fr.Field], a)
	}
	for _, f := range order {
		vs := c.fieldValues(f)
		if vs.any {
			continue
		}
		atoms := byField[f]
		if slices.ContainsFunc(vs.vals, func(v *ir.Value) bool {
			for _, a := range atoms {
				if !a.mayHold(v) {
					return false
				}
			}
			return true
		}) {
			continue
		}
		tests := make([]string, len(atoms))
		for i, a := range atoms {
			tests[i] = a.text()
		}
		if len(vs.vals) == 0 {
			return fmt.Sprintf("its where clause tests %s, but no record of %s is ever created (no seed record, no insert)", strings.Join(tests, " and "), inv.Entity.Name)
		}
		held := make([]string, len(vs.vals))
		for i, v := range vs.vals {
			held[i] = valueText(v)
		}
		slices.Sort(held)
		return fmt.Sprintf("its where clause needs %s, but %s.%s only ever holds %s (its default, the constants tools insert and set, and the seed's values)",
			strings.Join(tests, " and "), inv.Entity.Name, f.Name, strings.Join(held, ", "))
	}
	return ""
}
