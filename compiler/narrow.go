package compiler

import (
	"slices"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Flow-sensitive narrowing of optional values. Where a condition has
// established that an optional value X is not null, X reads as a value of
// its type without the `?` (an ir.NotNull around it), so that `X.field`,
// arithmetic on X and passing X where a non-optional is required
// type-check without coalesce:
//
//   - `if C { … } else { … }`: the then block knows what C being true
//     says, the else block what C being false says;
//   - `require C`: the rest of the block knows what C being true says;
//   - `if C { … fail or return }` without an else: the rest of the block
//     knows what C being false says (and alike for an else that ends so);
//   - `for x in S where C { … }` and the aggregates' `where C`: the body,
//     and the value of sum/min/max/forall, know what C says;
//   - `A and B`: B knows what A being true says; `A or B`: B knows what A
//     being false says; `if C then A else B`: as the if statement;
//   - an invariant's check knows what its trigger says.
//
// C says X is not null when it is true for `X != null`, when it is false
// for `X == null`, and through `not`, `and` (true: what either side says;
// false: what both say) and `or` (the converse).
//
// X is a path: a parameter, a local or a loop variable, and the fields it
// is followed through (`lease.renewal_of`, `a.b.c`). Expressions never
// write, so within one the facts always hold. Between statements they may
// not: a fact is forgotten from the statement on that may change it — a
// `set` of a field of that name (on any record, since two paths may reach
// one record) or of the local it starts from — and a loop's body, which
// runs again after itself, starts without the facts its own statements
// may change; after an if or a loop, the facts any of its statements may
// change are forgotten too.

// fact is a path known not to be null.
type fact struct {
	key    string   // pathKey of the path
	root   *ir.Var  // the local it starts from
	fields []string // the names of the fields it reads
}

// facts is an immutable set of facts: with and without return new sets.
type facts []fact

func (fs facts) has(key string) bool {
	return slices.ContainsFunc(fs, func(f fact) bool { return f.key == key })
}

// with is fs and more.
func (fs facts) with(more facts) facts {
	if len(more) == 0 {
		return fs
	}
	out := slices.Clip(fs)
	for _, f := range more {
		if !out.has(f.key) {
			out = append(out, f)
		}
	}
	return out
}

// without is fs less the facts w may change.
func (fs facts) without(w writes) facts {
	if w.empty() || len(fs) == 0 {
		return fs
	}
	var out facts
	for _, f := range fs {
		if !w.changes(f) {
			out = append(out, f)
		}
	}
	return out
}

// intersect is the facts of both.
func (fs facts) intersect(other facts) facts {
	var out facts
	for _, f := range fs {
		if other.has(f.key) {
			out = append(out, f)
		}
	}
	return out
}

// writes are what statements may change: fields by name, locals.
type writes struct {
	fields map[string]bool
	vars   map[*ir.Var]bool
}

func (w writes) empty() bool { return len(w.fields) == 0 && len(w.vars) == 0 }

func (w writes) changes(f fact) bool {
	if w.vars[f.root] {
		return true
	}
	return slices.ContainsFunc(f.fields, func(name string) bool { return w.fields[name] })
}

// writesOf collects what the statements may change, nested ones included:
// the fields their sets name and the locals they set, resolved in s.
func writesOf(stmts []*dsl.Stmt, s *scope) writes {
	w := writes{fields: map[string]bool{}, vars: map[*ir.Var]bool{}}
	var visit func(stmts []*dsl.Stmt)
	var visitIf func(i *dsl.If)
	visitIf = func(i *dsl.If) {
		for ; i != nil; i = i.ElseIf {
			if i.Then != nil {
				visit(i.Then.Stmts)
			}
			if i.Else != nil {
				visit(i.Else.Stmts)
			}
		}
	}
	visit = func(stmts []*dsl.Stmt) {
		for _, st := range stmts {
			switch {
			case st == nil:
			case st.Set != nil && st.Set.Target != nil:
				t := st.Set.Target
				for _, suf := range t.Suffixes {
					if suf.Field != nil {
						w.fields[*suf.Field] = true
					}
				}
				if t.Primary != nil && t.Primary.Lit != nil && t.Primary.Lit.Ident != nil {
					if v := s.lookup(*t.Primary.Lit.Ident); v != nil && len(t.Suffixes) == 0 {
						w.vars[v] = true
					}
				}
			case st.If != nil:
				visitIf(st.If)
			case st.For != nil && st.For.Body != nil:
				visit(st.For.Body.Stmts)
			}
		}
	}
	visit(stmts)
	return w
}

// pathFact is the fact that e is not null, when e is a path from a local.
func pathFact(e ir.Expr) (fact, bool) {
	key, ok := pathKey(e)
	if !ok {
		return fact{}, false
	}
	var fields []string
	for {
		switch x := e.(type) {
		case *ir.VarRef:
			slices.Reverse(fields)
			return fact{key: key, root: x.Var, fields: fields}, true
		case *ir.FieldRef:
			if x.Field == nil {
				return fact{}, false
			}
			fields = append(fields, x.Field.Name)
			e = x.X
		case *ir.Deref:
			e = x.X
		case *ir.NotNull:
			e = x.X
		default:
			return fact{}, false // a lookup, today: not narrowed
		}
	}
}

// narrowedBy is what e says of the paths that are not null when its value
// is truth.
func narrowedBy(e ir.Expr, truth bool) facts {
	switch x := e.(type) {
	case *ir.Binary:
		switch x.Op {
		case "==", "!=":
			if (x.Op == "!=") != truth {
				return nil
			}
			p := x.L
			if isNullLit(p) {
				p = x.R
			} else if !isNullLit(x.R) {
				return nil
			}
			if f, ok := pathFact(p); ok {
				return facts{f}
			}
		case "and":
			if truth {
				return narrowedBy(x.L, true).with(narrowedBy(x.R, true))
			}
			return narrowedBy(x.L, false).intersect(narrowedBy(x.R, false))
		case "or":
			if !truth {
				return narrowedBy(x.L, false).with(narrowedBy(x.R, false))
			}
			return narrowedBy(x.L, true).intersect(narrowedBy(x.R, true))
		}
	case *ir.Unary:
		if x.Op == "not" {
			return narrowedBy(x.X, !truth)
		}
	}
	return nil
}

func isNullLit(e ir.Expr) bool {
	l, ok := e.(*ir.Lit)
	return ok && l.Value != nil && l.Value.Kind == ir.KindNull
}

// knowing is s with the facts fs added: a scope for checking what comes
// after a condition within one expression (it declares nothing, so it
// shares s's names).
func (s *scope) knowing(fs facts) *scope {
	if len(fs) == 0 {
		return s
	}
	cp := *s
	cp.facts = s.facts.with(fs)
	return &cp
}

// narrow is x as a non-optional value where the facts of s say it is not
// null.
func (c *checker) narrow(x ir.Expr, s *scope) ir.Expr {
	t := x.Type()
	if t == nil || !t.Optional || t.Kind == ir.KindNull || len(s.facts) == 0 {
		return x
	}
	key, ok := pathKey(x)
	if !ok || !s.facts.has(key) {
		return x
	}
	return &ir.NotNull{ExprBase: ir.ExprBase{T: nonOptional(t), Pos: x.Position()}, X: x}
}

// unNarrow is x as it was before narrowing: for the forms that take an
// optional value (a comparison with null, coalesce), which read it alike.
func unNarrow(x ir.Expr) ir.Expr {
	if n, ok := x.(*ir.NotNull); ok {
		return n.X
	}
	return x
}

// endsBlock reports whether a block always ends the call: its last
// statement is a return or a fail.
func endsBlock(b *dsl.Block) bool {
	if b == nil || len(b.Stmts) == 0 {
		return false
	}
	last := b.Stmts[len(b.Stmts)-1]
	return last.Return != nil || last.Fail != nil
}

// pathName is how a message names the value x: its path as written, or x.
func pathName(x ir.Expr) string {
	if _, ok := pathKey(x); ok {
		return pathText(x)
	}
	return "x"
}
