package compiler

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/runtime"
)

// scope is a lexical scope of an expression: locals, and, in rubrics, seed
// handles.
type scope struct {
	parent  *scope
	vars    map[string]*ir.Var
	handles map[string]*ir.Record // non-nil where seed handles are names (rubrics)
	// taskHandles are a task's own seed handles, looked up before handles
	// (the world's), without copying those for every task.
	taskHandles map[string]*ir.Record
	tool        *ir.Tool // the tool whose body this is, if any
	// facts are the optional paths known not to be null here (narrow.go).
	facts facts
}

func (s *scope) child() *scope {
	return &scope{parent: s, vars: map[string]*ir.Var{}, handles: s.handles, taskHandles: s.taskHandles, tool: s.tool, facts: s.facts}
}

func (s *scope) lookup(name string) *ir.Var {
	for ; s != nil; s = s.parent {
		if v := s.vars[name]; v != nil {
			return v
		}
	}
	return nil
}

// declare adds a local, reporting a redeclaration of a visible name.
func (c *checker) declare(s *scope, what, name string, t *ir.Type, pos, end dsl.Pos) *ir.Var {
	if prev := s.lookup(name); prev != nil {
		c.errorf(diag.DuplicateName, pos, end, "%q is already declared at %s", name, short(prev.Pos))
	}
	c.checkIdent(name, what, ir.Pos(pos), ir.Pos(end))
	c.checkShadow(what, name, pos, end)
	v := &ir.Var{Name: name, Type: t, Pos: ir.Pos(pos)}
	s.vars[name] = v
	return v
}

var (
	invalidT = &ir.Type{Kind: ir.KindInvalid}
	boolT    = &ir.Type{Kind: ir.KindBool}
	intT     = &ir.Type{Kind: ir.KindInt}
	stringT  = &ir.Type{Kind: ir.KindString}
	dateT    = &ir.Type{Kind: ir.KindDate}
	nullT    = &ir.Type{Kind: ir.KindNull, Optional: true}
)

func base[P srcPos](t *ir.Type, pos P) ir.ExprBase { return ir.ExprBase{T: t, Pos: ir.Pos(pos)} }

func invalid[P srcPos](pos P) ir.Expr {
	return &ir.Lit{ExprBase: base(invalidT, pos), Value: &ir.Value{}}
}

func isInvalid(e ir.Expr) bool { return e.Type().Kind == ir.KindInvalid }

// untypedEnum is a bare name that may still turn out to be an enum value
// once the expected type is known.
func untypedEnum(e ir.Expr) (string, bool) {
	if l, ok := e.(*ir.Lit); ok && l.T.Kind == ir.KindEnum && l.T.Enum == nil {
		return l.Value.Str, true
	}
	return "", false
}

// settle reports a bare name that no context resolved.
func (c *checker) settle(e ir.Expr, end dsl.Pos) ir.Expr {
	if name, ok := untypedEnum(e); ok {
		c.errorf(diag.UnresolvedName, dsl.Pos(e.Position()), end, "unknown name %q", name)
		return invalid(e.Position())
	}
	if e.Type().Kind == ir.KindSet {
		c.errorf(diag.TypeMismatch, dsl.Pos(e.Position()), end, "%s is an entity, not a value; use %s[id], or count/exists/sum(… in %s …)", e.Type().Entity.Name, e.Type().Entity.Name, e.Type().Entity.Name)
		return invalid(e.Position())
	}
	if x, ok := e.(*ir.Cond); ok && untypedCond(x) {
		return c.settleCond(x, end)
	}
	if untypedComposite(e) {
		return c.inferComposite(e, end)
	}
	return e
}

// coerce converts e to type want, or reports why it cannot.
func (c *checker) coerce(e ir.Expr, want *ir.Type, end dsl.Pos, what string) ir.Expr {
	if isInvalid(e) || want.Kind == ir.KindInvalid {
		return e
	}
	pos := e.Position()
	if name, ok := untypedEnum(e); ok {
		if want.Kind != ir.KindEnum {
			if (want.Kind == ir.KindRef || want.Kind == ir.KindRecord) && c.ids != nil && c.ids.byID(want.Entity, name) != nil {
				// A record loaded from a data file has an id but no handle.
				c.errorHint(diag.UnresolvedName, fmt.Sprintf("A handle names a record written out in a seed; a loaded record is named by its id, as a string: \"%s\".", name),
					dsl.Pos(pos), end, "unknown name %q: the %s whose id is %q has no handle (it is loaded from a data file); write its id as a string, \"%s\"", name, want.Entity.Name, name, name)
				return invalid(pos)
			}
			c.errorf(diag.UnresolvedName, dsl.Pos(pos), end, "unknown name %q", name)
			return invalid(pos)
		}
		return c.enumLit(name, want, dsl.Pos(pos), end)
	}
	if x, ok := e.(*ir.Cond); ok && untypedCond(x) {
		return c.coerceCond(x, want, end, what)
	}
	if untypedComposite(e) {
		return c.typeComposite(e, want, end, what)
	}
	got := e.Type()
	if l, ok := e.(*ir.Lit); ok && want.Kind == ir.KindEnum && l.Value.Kind == ir.KindString {
		return c.enumLit(l.Value.Str, want, dsl.Pos(pos), end)
	}
	if l, ok := e.(*ir.Lit); ok && want.Kind == ir.KindRef && l.Value.Kind == ir.KindString {
		// A string literal is a record id: `"#W2378156"` for a ref Order.
		return &ir.Lit{ExprBase: base(&ir.Type{Kind: ir.KindRef, Entity: want.Entity}, pos), Value: &ir.Value{Kind: ir.KindRef, Str: l.Value.Str}}
	}
	if got.Kind == ir.KindNull {
		if !want.Optional {
			c.errorf(diag.TypeMismatch, dsl.Pos(pos), end, "%s cannot be null: expected %s", what, want)
			return invalid(pos)
		}
		return e
	}
	if got.Optional && !want.Optional {
		c.errorf(diag.TypeMismatch, dsl.Pos(pos), end, "%s may be null but %s is expected; check it first (if x != null { … }, require x != null, x != null and …) or use coalesce(x, default)", what, want)
		return invalid(pos)
	}
	switch {
	case got.Kind == want.Kind:
		switch got.Kind {
		case ir.KindEnum:
			if got.Enum != want.Enum {
				break
			}
			return e
		case ir.KindRef, ir.KindRecord, ir.KindSet:
			if got.Entity != want.Entity {
				break
			}
			return e
		case ir.KindList, ir.KindMap:
			if !sameType(got.Elem, want.Elem) {
				break
			}
			return e
		case ir.KindStruct:
			if got.Struct != want.Struct {
				break
			}
			return e
		default:
			return e
		}
	case got.Kind.Textual() && want.Kind.Textual():
		return e
	case got.Kind == ir.KindInt && (want.Kind == ir.KindDecimal || want.Kind == ir.KindMoney):
		return &ir.Convert{ExprBase: base(&ir.Type{Kind: want.Kind, Optional: got.Optional}, pos), X: e}
	case (got.Kind == ir.KindDecimal || got.Kind == ir.KindMoney) && (want.Kind == ir.KindDecimal || want.Kind == ir.KindMoney):
		return e
	case got.Kind == ir.KindRecord && want.Kind == ir.KindRef && got.Entity == want.Entity:
		return &ir.IDOf{ExprBase: base(&ir.Type{Kind: ir.KindRef, Entity: got.Entity, Optional: got.Optional}, pos), X: e}
	case got.Kind == ir.KindRef && want.Kind == ir.KindRecord && got.Entity == want.Entity:
		return &ir.Deref{ExprBase: base(&ir.Type{Kind: ir.KindRecord, Entity: got.Entity, Optional: got.Optional}, pos), X: e}
	}
	if shadow, hint, ok := c.hiddenEnumValue(e, want); ok {
		c.errorHint(diag.TypeMismatch, hint, dsl.Pos(pos), end, "%s: expected %s, got %s: %s", what, want, got, shadow)
		return invalid(pos)
	}
	c.errorf(diag.TypeMismatch, dsl.Pos(pos), end, "%s: expected %s, got %s", what, want, got)
	return invalid(pos)
}

func (c *checker) enumLit(name string, want *ir.Type, pos, end dsl.Pos) ir.Expr {
	if !want.Enum.Has(name) {
		c.errorf(diag.UnknownEnumValue, pos, end, "%q is not a value of %s; values: %s", name, want, strings.Join(want.Enum.Values, ", "))
		return invalid(pos)
	}
	t := &ir.Type{Kind: ir.KindEnum, Enum: want.Enum}
	return &ir.Lit{ExprBase: base(t, pos), Value: &ir.Value{Kind: ir.KindEnum, Str: name}}
}

// boolExpr checks a condition.
func (c *checker) boolExpr(e *dsl.Expr, s *scope, what string) ir.Expr {
	return c.coerce(c.expr(e, s), boolT, e.EndPos, what)
}

// expr checks an or-chain or a conditional expression. The right operand
// of `or` knows what the left being false says of null values
// (narrow.go).
func (c *checker) expr(e *dsl.Expr, s *scope) ir.Expr {
	if e.If != nil {
		return c.condExpr(e.If, s)
	}
	out := c.andExpr(e.Left, s)
	for _, r := range e.Right {
		l := c.coerce(out, boolT, e.EndPos, "left operand of or")
		rr := c.coerce(c.andExpr(r, s.knowing(narrowedBy(l, false))), boolT, r.EndPos, "right operand of or")
		out = &ir.Binary{ExprBase: base(boolT, e.Pos), Op: "or", L: l, R: rr}
	}
	return out
}

// andExpr checks an and-chain: the right operand knows what the left
// being true says of null values.
func (c *checker) andExpr(e *dsl.AndExpr, s *scope) ir.Expr {
	out := c.notExpr(e.Left, s)
	for _, r := range e.Right {
		l := c.coerce(out, boolT, e.EndPos, "left operand of and")
		rr := c.coerce(c.notExpr(r, s.knowing(narrowedBy(l, true))), boolT, r.EndPos, "right operand of and")
		out = &ir.Binary{ExprBase: base(boolT, e.Pos), Op: "and", L: l, R: rr}
	}
	return out
}

func (c *checker) notExpr(e *dsl.NotExpr, s *scope) ir.Expr {
	if e.Not != nil {
		x := c.coerce(c.notExpr(e.Not, s), boolT, e.EndPos, "operand of not")
		return &ir.Unary{ExprBase: base(boolT, e.Pos), Op: "not", X: x}
	}
	return c.cmpExpr(e.Cmp, s)
}

func (c *checker) cmpExpr(e *dsl.CmpExpr, s *scope) ir.Expr {
	if (e.Op == "==" || e.Op == "!=") && (c.entityLiteral(e.Left) != nil || c.entityLiteral(e.Right) != nil) {
		return c.recordEquality(e, s)
	}
	l := c.addExpr(e.Left, s)
	if e.Op == "" {
		return l
	}
	r := c.addExpr(e.Right, s)
	op := e.Op
	if op == "notin" {
		op = "notin"
	}
	switch op {
	case "in", "notin":
		list, ok := r.(*ir.ListLit)
		if !ok || !untypedComposite(r) {
			return c.membership(op, l, r, e)
		}
		l = c.settle(l, e.Left.EndPos)
		if isInvalid(l) {
			return invalid(e.Pos)
		}
		want := *l.Type()
		want.Optional = false
		elems := make([]ir.Expr, len(list.Elems))
		for i, el := range list.Elems {
			elems[i] = c.coerce(el, &want, e.Right.EndPos, "list element")
		}
		lt := &ir.Type{Kind: ir.KindList, Elem: &want}
		return &ir.Binary{ExprBase: base(boolT, e.Pos), Op: op, L: l, R: &ir.ListLit{ExprBase: base(lt, list.Pos), Elems: elems}}
	}
	l, r, ok := c.unify(l, r, e)
	if !ok {
		return invalid(e.Pos)
	}
	if op != "==" && op != "!=" {
		k := l.Type().Kind
		if k == ir.KindNull {
			k = r.Type().Kind
		}
		if !k.Numeric() && !k.Textual() && k != ir.KindDate && k != ir.KindDateTime {
			c.errorf(diag.TypeMismatch, e.Pos, e.EndPos, "cannot order values of type %s with %s", l.Type(), op)
			return invalid(e.Pos)
		}
	}
	return &ir.Binary{ExprBase: base(boolT, e.Pos), Op: op, L: l, R: r}
}

// unify makes the operands of a comparison comparable.
func (c *checker) unify(l, r ir.Expr, e *dsl.CmpExpr) (ir.Expr, ir.Expr, bool) {
	if isInvalid(l) || isInvalid(r) {
		return l, r, false
	}
	_, lu := untypedEnum(l)
	_, ru := untypedEnum(r)
	switch {
	case lu && ru:
		c.settle(l, e.Left.EndPos)
		return l, r, false
	case lu:
		r = c.settle(r, e.Right.EndPos)
		l = c.coerce(l, nonOptional(r.Type()), e.Left.EndPos, "left operand")
		return l, r, !isInvalid(l) && !isInvalid(r)
	case ru:
		l = c.settle(l, e.Left.EndPos)
		r = c.coerce(r, nonOptional(l.Type()), e.Right.EndPos, "right operand")
		return l, r, !isInvalid(l) && !isInvalid(r)
	}
	// A conditional of bare names (or empty literals) takes the type of
	// the other side.
	if untypedCond(r) && !untypedBranch(l) {
		l = c.settle(l, e.Left.EndPos)
		if isInvalid(l) {
			return l, r, false
		}
		r = c.coerce(r, nonOptional(l.Type()), e.Right.EndPos, "right operand")
		return l, r, !isInvalid(r)
	}
	if untypedCond(l) && !untypedBranch(r) {
		r = c.settle(r, e.Right.EndPos)
		if isInvalid(r) {
			return l, r, false
		}
		l = c.coerce(l, nonOptional(r.Type()), e.Left.EndPos, "left operand")
		return l, r, !isInvalid(l)
	}
	// An untyped list or map literal takes the type of the other side.
	if untypedComposite(r) && !untypedComposite(l) {
		l = c.settle(l, e.Left.EndPos)
		if isInvalid(l) {
			return l, r, false
		}
		r = c.coerce(r, nonOptional(l.Type()), e.Right.EndPos, "right operand")
		return l, r, !isInvalid(r)
	}
	if untypedComposite(l) && !untypedComposite(r) {
		r = c.settle(r, e.Right.EndPos)
		if isInvalid(r) {
			return l, r, false
		}
		l = c.coerce(l, nonOptional(r.Type()), e.Left.EndPos, "left operand")
		return l, r, !isInvalid(l)
	}
	l, r = c.settle(l, e.Left.EndPos), c.settle(r, e.Right.EndPos)
	if isInvalid(l) || isInvalid(r) {
		return l, r, false
	}
	// A comparison takes optional values (null equals only null, and
	// orders false): a narrowed operand is compared as the optional value
	// it is, as it was before it was known not to be null.
	l, r = unNarrow(l), unNarrow(r)
	lt, rt := l.Type(), r.Type()
	if lt.Kind == ir.KindNull || rt.Kind == ir.KindNull {
		other := rt
		if rt.Kind == ir.KindNull {
			other = lt
		}
		if other.Kind != ir.KindNull && !other.Optional {
			c.errorf(diag.TypeMismatch, e.Pos, e.EndPos, "a %s is never null; only optional values compare with null", other)
			return l, r, false
		}
		return l, r, true
	}
	// A string literal meets an enum: check it is a value.
	if lt.Kind == ir.KindEnum && rt.Kind.Textual() {
		if _, isLit := r.(*ir.Lit); isLit {
			r = c.coerce(r, nonOptional(lt), e.Right.EndPos, "right operand")
			return l, r, !isInvalid(r)
		}
	}
	if rt.Kind == ir.KindEnum && lt.Kind.Textual() {
		if _, isLit := l.(*ir.Lit); isLit {
			l = c.coerce(l, nonOptional(rt), e.Left.EndPos, "left operand")
			return l, r, !isInvalid(l)
		}
	}
	// Lists, maps and value records compare by value.
	if composite(lt) || composite(rt) {
		if !sameType(nonOptional(lt), nonOptional(rt)) {
			c.errorf(diag.TypeMismatch, e.Pos, e.EndPos, "cannot compare %s with %s", lt, rt)
			return l, r, false
		}
		return l, r, true
	}
	// A string literal meets a record or a ref: it is an id.
	if (lt.Kind == ir.KindRecord || lt.Kind == ir.KindRef) && rt.Kind.Textual() {
		if _, isLit := r.(*ir.Lit); isLit {
			r = c.coerce(r, &ir.Type{Kind: ir.KindRef, Entity: lt.Entity}, e.Right.EndPos, "right operand")
			return toRef(l), r, !isInvalid(r)
		}
	}
	if (rt.Kind == ir.KindRecord || rt.Kind == ir.KindRef) && lt.Kind.Textual() {
		if _, isLit := l.(*ir.Lit); isLit {
			l = c.coerce(l, &ir.Type{Kind: ir.KindRef, Entity: rt.Entity}, e.Left.EndPos, "left operand")
			return l, toRef(r), !isInvalid(l)
		}
	}
	// Records and refs compare by id.
	if (lt.Kind == ir.KindRecord || lt.Kind == ir.KindRef) && (rt.Kind == ir.KindRecord || rt.Kind == ir.KindRef) {
		if lt.Entity != rt.Entity {
			c.errorHint(diag.TypeMismatch, "Compare records of one entity (a record or ref with a record or ref), or the ids they hold as strings: a.id == b.other_id.",
				e.Pos, e.EndPos, "cannot compare a %s with a %s", lt.Entity.Name, rt.Entity.Name)
			return l, r, false
		}
		return toRef(l), toRef(r), true
	}
	if lt.Kind.Numeric() && rt.Kind.Numeric() {
		if lt.Kind == ir.KindInt && rt.Kind != ir.KindInt {
			l = &ir.Convert{ExprBase: base(&ir.Type{Kind: rt.Kind, Optional: lt.Optional}, l.Position()), X: l}
		} else if rt.Kind == ir.KindInt && lt.Kind != ir.KindInt {
			r = &ir.Convert{ExprBase: base(&ir.Type{Kind: lt.Kind, Optional: rt.Optional}, r.Position()), X: r}
		}
		return l, r, true
	}
	if lt.Kind.Textual() && rt.Kind.Textual() {
		return l, r, true
	}
	if lt.Kind == rt.Kind && lt.Kind != ir.KindSet && lt.Kind != ir.KindList && !(lt.Kind == ir.KindEnum && lt.Enum != rt.Enum) {
		return l, r, true
	}
	msg, hint := c.compareMismatch(l, r)
	c.errorHint(diag.TypeMismatch, hint, e.Pos, e.EndPos, "%s", msg)
	return l, r, false
}

// hiddenEnumValue explains an expression e of the wrong type where a value
// of type want is expected when e is a parameter or local named like a
// value of want's enum, which it hides: the explanation and a hint.
func (c *checker) hiddenEnumValue(e ir.Expr, want *ir.Type) (msg, hint string, ok bool) {
	v, isVar := e.(*ir.VarRef)
	if !isVar || want.Kind != ir.KindEnum || want.Enum == nil || !slices.Contains(want.Enum.Values, v.Var.Name) {
		return "", "", false
	}
	what := "local"
	if c.isParam(v.Var) {
		what = "parameter"
	}
	msg = fmt.Sprintf("%s here is the %s %s (%s), which hides the value %s of %s", v.Var.Name, what, v.Var.Name, typeString(v.Var.Type), v.Var.Name, typeString(nonOptional(want)))
	hint = fmt.Sprintf("A %s named like an enum value hides that value (names are looked up before enum values): rename the %s (e.g. %s_%s), or write the value as a string, \"%s\".",
		what, what, v.Var.Name, strings.ToLower(nonOptionalEntityName(v.Var.Type)), v.Var.Name)
	return msg, hint, true
}

// compareMismatch explains why l and r cannot be compared, with a hint
// for that cause: a parameter or local hiding an enum value, two distinct
// enum types, a string (an id) against a record or ref.
func (c *checker) compareMismatch(l, r ir.Expr) (msg, hint string) {
	lt, rt := l.Type(), r.Type()
	msg = fmt.Sprintf("cannot compare %s with %s", typeString(lt), typeString(rt))
	hint = mustValidator(diag.TypeMismatch).Hint
	for _, side := range [][2]ir.Expr{{l, r}, {r, l}} {
		if shadow, h, ok := c.hiddenEnumValue(side[0], side[1].Type()); ok {
			return msg + ": " + shadow, h
		}
	}
	switch {
	case lt.Kind == ir.KindEnum && rt.Kind == ir.KindEnum:
		hint = fmt.Sprintf("Two enum types are distinct even when they share values: convert one by its name with `as` (x as %s), or declare the fields with one enum type (a field typed %s).",
			typeString(nonOptional(lt)), typeString(nonOptional(lt)))
	case (lt.Kind == ir.KindRecord || lt.Kind == ir.KindRef) && rt.Kind.Textual(),
		(rt.Kind == ir.KindRecord || rt.Kind == ir.KindRef) && lt.Kind.Textual():
		hint = "A record or ref compares with a record or ref of its entity (p.lead == owner), by id; a string compares with an id: compare ids on both sides (p.lead.id == owner.id)."
	}
	return msg, hint
}

// isParam reports whether v is a parameter of a tool.
func (c *checker) isParam(v *ir.Var) bool {
	for _, t := range c.w.Tools {
		for _, p := range t.Params {
			if p.Var == v {
				return true
			}
		}
	}
	return false
}

// nonOptionalEntityName names what a value of t is, for a suggested name:
// its entity for a record or ref, else its kind.
func nonOptionalEntityName(t *ir.Type) string {
	if t.Entity != nil {
		return t.Entity.Name
	}
	return t.Kind.String()
}

func nonOptional(t *ir.Type) *ir.Type {
	if !t.Optional {
		return t
	}
	cp := *t
	cp.Optional = false
	return &cp
}

// toRef turns a record into its id so records and refs compare alike.
func toRef(e ir.Expr) ir.Expr {
	t := e.Type()
	if t.Kind != ir.KindRecord {
		return e
	}
	return &ir.IDOf{ExprBase: base(&ir.Type{Kind: ir.KindRef, Entity: t.Entity, Optional: t.Optional}, e.Position()), X: e}
}

func (c *checker) addExpr(e *dsl.AddExpr, s *scope) ir.Expr {
	out := c.mulExpr(e.Left, s)
	for _, op := range e.Right {
		out = c.arith(op.Op, out, c.mulExpr(op.Operand, s), e.Pos, op.EndPos)
	}
	return out
}

func (c *checker) mulExpr(e *dsl.MulExpr, s *scope) ir.Expr {
	out := c.unary(e.Left, s)
	for _, op := range e.Right {
		out = c.arith(op.Op, out, c.unary(op.Operand, s), e.Pos, op.EndPos)
	}
	return out
}

// arith types a binary arithmetic operation.
func (c *checker) arith(op string, l, r ir.Expr, pos, end dsl.Pos) ir.Expr {
	l, r = c.settle(l, end), c.settle(r, end)
	if isInvalid(l) || isInvalid(r) {
		return invalid(pos)
	}
	lt, rt := l.Type(), r.Type()
	if lt.Optional || rt.Optional {
		c.errorf(diag.TypeMismatch, pos, end, "arithmetic on an optional value; check it first (if x != null { … }, require x != null, x != null and …) or use coalesce(x, default)")
		return invalid(pos)
	}
	mk := func(k ir.Kind) ir.Expr {
		return &ir.Binary{ExprBase: base(&ir.Type{Kind: k}, pos), Op: op, L: l, R: r}
	}
	lk, rk := lt.Kind, rt.Kind
	switch {
	case op == "+" && lk.Textual() && rk.Textual():
		return mk(ir.KindString)
	case (op == "+" || op == "-") && lk == ir.KindDate && rk == ir.KindInt:
		return mk(ir.KindDate)
	case op == "+" && lk == ir.KindInt && rk == ir.KindDate:
		l, r = r, l
		return mk(ir.KindDate)
	case op == "-" && lk == ir.KindDate && rk == ir.KindDate:
		return mk(ir.KindInt)
	case op == "%":
		if lk == ir.KindInt && rk == ir.KindInt {
			return mk(ir.KindInt)
		}
	case lk.Numeric() && rk.Numeric():
		k := numericResult(lk, rk)
		if op == "/" && k == ir.KindInt {
			k = ir.KindDecimal
		}
		if lk == ir.KindInt && k != ir.KindInt {
			l = &ir.Convert{ExprBase: base(&ir.Type{Kind: k}, l.Position()), X: l}
		}
		if rk == ir.KindInt && k != ir.KindInt {
			r = &ir.Convert{ExprBase: base(&ir.Type{Kind: k}, r.Position()), X: r}
		}
		return mk(k)
	}
	c.errorf(diag.TypeMismatch, pos, end, "operator %s does not apply to %s and %s", op, lt, rt)
	return invalid(pos)
}

// numericResult is the kind of an arithmetic result: money wins, then
// decimal, then int.
func numericResult(a, b ir.Kind) ir.Kind {
	switch {
	case a == ir.KindMoney || b == ir.KindMoney:
		return ir.KindMoney
	case a == ir.KindDecimal || b == ir.KindDecimal:
		return ir.KindDecimal
	}
	return ir.KindInt
}

func (c *checker) unary(e *dsl.Unary, s *scope) ir.Expr {
	if e.Neg != nil {
		x := c.settle(c.unary(e.Neg, s), e.EndPos)
		if isInvalid(x) {
			return x
		}
		if !x.Type().Kind.Numeric() || x.Type().Optional {
			c.errorf(diag.TypeMismatch, e.Pos, e.EndPos, "cannot negate a %s", x.Type())
			return invalid(e.Pos)
		}
		// Fold negative literals so that bounds and arguments stay constants.
		if l, ok := x.(*ir.Lit); ok {
			v := *l.Value
			v.Int, v.Num, v.Dec = -v.Int, -v.Num, ir.NegDec(v.Dec)
			return &ir.Lit{ExprBase: base(l.T, e.Pos), Value: &v}
		}
		return &ir.Unary{ExprBase: base(x.Type(), e.Pos), Op: "-", X: x}
	}
	x := c.postfix(e.Postfix, s)
	if e.As != nil {
		return c.cast(x, e.As, e.Pos, e.EndPos)
	}
	return x
}

// cast types `x as T`: a string (or an enum value, by name) converted to
// the enum type T. A constant is checked here; any other value when the
// call runs.
func (c *checker) cast(x ir.Expr, td *dsl.Type, pos, end dsl.Pos) ir.Expr {
	want := c.resolveType(td, nil)
	if want.Kind == ir.KindInvalid || isInvalid(x) {
		return invalid(pos)
	}
	if want.Kind != ir.KindEnum || want.Optional {
		c.errorf(diag.TypeMismatch, td.Pos, td.EndPos, "`as` converts a string to an enum type (Entity.field or Record.field of an enum field), not to %s", want)
		return invalid(pos)
	}
	if name, ok := untypedEnum(x); ok {
		return c.enumLit(name, want, pos, end)
	}
	x = c.settle(x, end)
	if isInvalid(x) {
		return x
	}
	t := x.Type()
	switch {
	case t.Optional:
		c.errorf(diag.TypeMismatch, dsl.Pos(x.Position()), end, "the value converted with `as` may be null; compare it with null first, or use coalesce(x, default)")
		return invalid(pos)
	case !t.Kind.Textual() && t.Kind != ir.KindEnum:
		c.errorf(diag.TypeMismatch, dsl.Pos(x.Position()), end, "`as %s` converts a string, got %s", want, t)
		return invalid(pos)
	}
	if l, ok := x.(*ir.Lit); ok {
		return c.enumLit(l.Value.Str, want, pos, end)
	}
	return &ir.Cast{ExprBase: base(want, pos), X: x}
}

// serviceMarker is the transient result of a bare service name, which must
// be followed by `.Entity`.
type serviceMarker struct {
	ir.ExprBase
	svc *ir.Service
}

func (c *checker) postfix(p *dsl.Postfix, s *scope) ir.Expr {
	chain := c.postfixChain(p, len(p.Suffixes), s)
	return chain[len(chain)-1]
}

// postfixChain types the primary of p and its first n suffixes. It returns
// the expression after each step: chain[0] is the primary, chain[i] the
// value after i suffixes. It stops at the first invalid step, which is
// then the last element.
func (c *checker) postfixChain(p *dsl.Postfix, n int, s *scope) []ir.Expr {
	x := c.primary(p.Primary, s)
	chain := make([]ir.Expr, 0, n+1)
	chain = append(chain, x)
	for _, suf := range p.Suffixes[:n] {
		if isInvalid(x) {
			return chain
		}
		if sm, ok := x.(*serviceMarker); ok {
			if suf.Field == nil {
				c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "service %s cannot be indexed; write %s.Entity[id]", sm.svc.Name, sm.svc.Name)
				return append(chain, invalid(p.Pos))
			}
			e := c.entities[*suf.Field]
			if e != nil && e.Service != sm.svc {
				c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "entity %s belongs to service %s, not %s", e.Name, e.Service.Name, sm.svc.Name)
				return append(chain, invalid(p.Pos))
			}
			if e == nil {
				c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "service %s has no entity %q%s", sm.svc.Name, *suf.Field, c.suggestEntity(*suf.Field))
				return append(chain, invalid(p.Pos))
			}
			x = &ir.Lit{ExprBase: base(&ir.Type{Kind: ir.KindSet, Entity: e}, p.Pos), Value: &ir.Value{}}
			chain = append(chain, x)
			continue
		}
		if suf.Field != nil {
			x = c.narrow(c.selectField(x, *suf.Field, suf, p.Pos, s), s)
		} else {
			x = c.index(x, suf, p.Pos, s)
		}
		chain = append(chain, x)
	}
	if sm, ok := x.(*serviceMarker); ok {
		c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "%s is a service, not a value; write %s.Entity", sm.svc.Name, sm.svc.Name)
		chain[len(chain)-1] = invalid(p.Pos)
	}
	return chain
}

// selectField types `x.name`.
func (c *checker) selectField(x ir.Expr, name string, suf *dsl.Suffix, pos dsl.Pos, s *scope) ir.Expr {
	if t := x.Type(); t.Kind == ir.KindSet {
		c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "%s is an entity, not a record: write %s[id].%s, or use an aggregate", t.Entity.Name, t.Entity.Name, name)
		return invalid(pos)
	}
	x = c.settle(x, suf.Pos)
	if isInvalid(x) {
		return x
	}
	t := x.Type()
	switch t.Kind {
	case ir.KindRef:
		if name == "id" {
			return &ir.Convert{ExprBase: base(&ir.Type{Kind: ir.KindString, Optional: t.Optional}, pos), X: x}
		}
		if t.Optional {
			c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "cannot follow an optional ref to .%s where it may be null; check it first: if %s != null { … }, require %s != null, or %s != null and …", name, pathName(x), pathName(x), pathName(x))
			return invalid(pos)
		}
		x = &ir.Deref{ExprBase: base(&ir.Type{Kind: ir.KindRecord, Entity: t.Entity}, pos), X: x}
		fallthrough
	case ir.KindRecord:
		e := t.Entity
		if name == "id" {
			return &ir.FieldRef{ExprBase: base(stringT, pos), X: x}
		}
		f := e.Field(name)
		if f == nil {
			c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "%s has no field %q%s", e.Name, name, suggestField(e, name))
			return invalid(pos)
		}
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			return invalid(pos)
		}
		return &ir.FieldRef{ExprBase: base(f.Type, pos), X: x, Field: f}
	case ir.KindStruct:
		st := t.Struct
		if t.Optional {
			c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "cannot read .%s of an optional %s; compare it with null first, or use coalesce(x, %s { … })", name, st.Name, st.Name)
			return invalid(pos)
		}
		f := st.Field(name)
		if f == nil {
			c.errorf(diag.UnresolvedName, suf.Pos, suf.EndPos, "%s has no field %q%s", st.Name, name, suggestName(fieldNames(st.AllFields()), name))
			return invalid(pos)
		}
		if f.Type == nil || f.Type.Kind == ir.KindInvalid {
			return invalid(pos)
		}
		ft := f.Type
		if f.Case != nil && !ft.Optional {
			// A case field is null unless the value is of its case.
			cp := *ft
			cp.Optional = true
			ft = &cp
		}
		return &ir.FieldRef{ExprBase: base(ft, pos), X: x, Field: f}
	default:
		c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "a %s has no field %q", t, name)
	}
	return invalid(pos)
}

func suggestField(e *ir.Entity, name string) string {
	best, bestD := "", 3
	for _, f := range e.Fields {
		if d := editDistance(name, f.Name); d < bestD {
			best, bestD = f.Name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %s?", best)
}

// index types `E[key]`.
func (c *checker) index(x ir.Expr, suf *dsl.Suffix, pos dsl.Pos, s *scope) ir.Expr {
	t := x.Type()
	if t.Kind != ir.KindSet {
		x = c.settle(x, suf.Pos)
		if isInvalid(x) {
			return invalid(pos)
		}
		t = x.Type()
		if (t.Kind == ir.KindList || t.Kind == ir.KindMap) && !t.Optional {
			keyT, what := intT, "index of a list"
			if t.Kind == ir.KindMap {
				keyT, what = stringT, "key of a map"
			}
			key := c.coerce(c.expr(suf.Index, s), keyT, suf.Index.EndPos, what)
			if isInvalid(key) {
				return invalid(pos)
			}
			return &ir.Index{ExprBase: base(t.Elem, pos), X: x, Key: key}
		}
		if t.Kind == ir.KindList || t.Kind == ir.KindMap {
			c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "the %s may be null; compare it with null first, or use coalesce(x, [])", t.Kind)
			return invalid(pos)
		}
		c.errorf(diag.TypeMismatch, suf.Pos, suf.EndPos, "a %s cannot be indexed; only an entity (Entity[id]), a list (xs[i]) or a map (m[key]) can", t)
		return invalid(pos)
	}
	key := c.expr(suf.Index, s)
	if _, ok := untypedEnum(key); ok {
		// An unknown name: coerce says so, and which loaded record it names.
		key = c.coerce(key, &ir.Type{Kind: ir.KindRef, Entity: t.Entity}, suf.EndPos, "key of "+t.Entity.Name+"[…]")
	}
	key = c.settle(key, suf.EndPos)
	if isInvalid(key) {
		return invalid(pos)
	}
	kt := key.Type()
	switch {
	case kt.Kind == ir.KindRef && kt.Entity == t.Entity && !kt.Optional:
	case kt.Kind.Textual() && !kt.Optional:
	case kt.Kind == ir.KindRecord && kt.Entity == t.Entity:
		key = toRef(key)
	default:
		c.errorf(diag.TypeMismatch, suf.Index.Pos, suf.Index.EndPos, "the key of %s[…] must be an id (a string or a %s ref), got %s", t.Entity.Name, t.Entity.Name, kt)
		return invalid(pos)
	}
	return &ir.Lookup{ExprBase: base(&ir.Type{Kind: ir.KindRecord, Entity: t.Entity}, pos), Entity: t.Entity, Key: key}
}

func (c *checker) primary(p *dsl.Primary, s *scope) ir.Expr {
	switch {
	case p.Agg != nil:
		return c.aggregate(p.Agg, s)
	case p.Match != nil:
		return c.match(p.Match, s)
	case p.Call != nil:
		return c.call(p.Call, s)
	case p.Lit != nil:
		return c.exprLiteral(p.Lit, s)
	case p.List != nil:
		elems := make([]ir.Expr, len(p.List.Elems))
		for i, el := range p.List.Elems {
			elems[i] = c.expr(el, s)
		}
		return &ir.ListLit{ExprBase: base(untypedList(), p.Pos), Elems: elems}
	case p.Map != nil:
		return c.mapLit(p.Map, s)
	case p.Struct != nil:
		return c.structLit(p.Struct, s)
	case p.Paren != nil:
		return c.expr(p.Paren, s)
	}
	return invalid(p.Pos)
}

// isIntKind reports whether k is int.
func isIntKind(k ir.Kind) bool { return k == ir.KindInt }

// A param is a parameter of a builtin of fixed arity: what a message calls
// the argument it wants, and the kinds it takes.
type param struct {
	what string
	ok   func(ir.Kind) bool
}

func isDay(k ir.Kind) bool { return k == ir.KindDate || k == ir.KindDateTime }

var aDate = param{"a date", func(k ir.Kind) bool { return k == ir.KindDate }}

// fixed is a builtin taking exactly the params, each checked in order (the
// first wrong one reported), whose type is result of the arguments.
func fixed(result func(args []ir.Expr) *ir.Type, params ...param) builtin {
	return func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
		if !c.wantArgs(call, args, len(params)) {
			return nil
		}
		for i, p := range params {
			if !c.argKind(call, args, i, p.what, p.ok) {
				return nil
			}
		}
		return result(args)
	}
}

// always is the result of a builtin whose type does not depend on its
// arguments.
func always(t *ir.Type) func([]ir.Expr) *ir.Type { return func([]ir.Expr) *ir.Type { return t } }

// kindOfFirst is the result of a builtin of the kind of its first argument
// (a date shifted stays a date, a date-time a date-time).
func kindOfFirst(args []ir.Expr) *ir.Type { return &ir.Type{Kind: args[0].Type().Kind} }

// exprLiteral types a literal or a name in an expression.
func (c *checker) exprLiteral(l *dsl.Literal, s *scope) ir.Expr {
	lit := func(v *ir.Value) ir.Expr {
		return &ir.Lit{ExprBase: base(&ir.Type{Kind: v.Kind, Optional: v.Kind == ir.KindNull}, l.Pos), Value: v}
	}
	switch {
	case l.Number != nil:
		if strings.Contains(*l.Number, ".") {
			v, ok := c.numberValue(ir.KindDecimal, *l.Number)
			if !ok {
				c.errorf(diag.InvalidLiteral, l.Pos, l.EndPos, "number %s is out of range%s", *l.Number, c.numberRange())
				return invalid(l.Pos)
			}
			e := lit(v)
			c.numberText[e.(*ir.Lit)] = *l.Number
			return e
		}
		n, err := strconv.ParseInt(*l.Number, 10, 64)
		if err != nil {
			c.errorf(diag.InvalidLiteral, l.Pos, l.EndPos, "integer %s is out of the 64-bit range", *l.Number)
			return invalid(l.Pos)
		}
		return lit(&ir.Value{Kind: ir.KindInt, Int: n})
	case l.String != nil:
		return lit(&ir.Value{Kind: ir.KindString, Str: *l.String})
	case l.Bool != nil:
		return lit(&ir.Value{Kind: ir.KindBool, Bool: *l.Bool == "true"})
	case l.Null:
		return lit(&ir.Value{Kind: ir.KindNull})
	case l.Date != nil:
		v := c.literal(l, dateT, nil)
		if v == nil {
			return invalid(l.Pos)
		}
		return lit(v)
	case l.DateTime != nil:
		v := c.literal(l, &ir.Type{Kind: ir.KindDateTime}, nil)
		if v == nil {
			return invalid(l.Pos)
		}
		return lit(v)
	case l.Ident != nil:
		return c.name(*l.Ident, l, s)
	}
	return invalid(l.Pos)
}

// name resolves a bare identifier: a local, today, an entity, a service,
// a seed handle (rubrics), or else an enum value to be settled by context.
func (c *checker) name(n string, l *dsl.Literal, s *scope) ir.Expr {
	if v := s.lookup(n); v != nil {
		return c.narrow(&ir.VarRef{ExprBase: base(v.Type, l.Pos), Var: v}, s)
	}
	if n == "today" {
		return &ir.Today{ExprBase: base(dateT, l.Pos)}
	}
	if n == "now" {
		// The episode's clock: the world's, or its task's own.
		return &ir.Today{ExprBase: base(&ir.Type{Kind: ir.KindDateTime}, l.Pos), Now: true}
	}
	if e := c.entities[n]; e != nil {
		return &ir.Lit{ExprBase: base(&ir.Type{Kind: ir.KindSet, Entity: e}, l.Pos), Value: &ir.Value{}}
	}
	if svc := c.services[n]; svc != nil {
		return &serviceMarker{ExprBase: base(&ir.Type{Kind: ir.KindSet}, l.Pos), svc: svc}
	}
	if s.handles != nil {
		r := s.taskHandles[n]
		if r == nil {
			r = s.handles[n]
		}
		if r != nil {
			return &ir.Handle{ExprBase: base(&ir.Type{Kind: ir.KindRef, Entity: r.Entity}, l.Pos), Entity: r.Entity, ID: r.ID}
		}
	}
	return &ir.Lit{ExprBase: base(&ir.Type{Kind: ir.KindEnum}, l.Pos), Value: &ir.Value{Kind: ir.KindEnum, Str: n}}
}

// source types the source of a loop or aggregate: an entity.
func (c *checker) source(p *dsl.Postfix, s *scope) *ir.Entity {
	x := c.postfix(p, s)
	if isInvalid(x) {
		return nil
	}
	if x.Type().Kind != ir.KindSet {
		if name, ok := untypedEnum(x); ok {
			c.errorf(diag.UnresolvedName, p.Pos, p.EndPos, "unknown entity %q%s", name, c.suggestEntity(name))
			return nil
		}
		c.errorf(diag.TypeMismatch, p.Pos, p.EndPos, "expected an entity to range over, got %s", x.Type())
		return nil
	}
	return x.Type().Entity
}

func (c *checker) aggregate(a *dsl.Aggregate, s *scope) ir.Expr {
	op := a.Op()
	e, src, elem, _ := c.rangeSource(a.Source, s)
	if elem == nil {
		return invalid(a.Pos)
	}
	inner := s.child()
	v := c.declare(inner, "variable", a.Var, elem, a.Pos, a.EndPos)
	agg := &ir.Aggregate{Op: op, Var: v, Entity: e, Source: src}
	agg.Pos = ir.Pos(a.Pos)
	if a.Where != nil {
		agg.Where = c.boolExpr(a.Where, inner, "where clause")
		inner = inner.knowing(narrowedBy(agg.Where, true))
	}
	switch op {
	case "count":
		agg.T = intT
	case "exists":
		agg.T = boolT
		if k := keyEquality(agg); k != nil {
			return &ir.KeyIn{ExprBase: base(boolT, a.Pos), Entity: e, Key: k}
		}
	case "first":
		agg.T = elem
	case "index":
		if src == nil || src.Type().Kind != ir.KindList {
			c.errorf(diag.TypeMismatch, a.Source.Pos, a.Source.EndPos, "index needs a list to range over, got %s; use first(…) for a record or a map value", sourceName(e, src))
			return invalid(a.Pos)
		}
		agg.T = intT
	case "forall":
		agg.T = boolT
		agg.Value = c.boolExpr(a.Value, inner, "forall condition")
	case "sum", "min", "max":
		val := c.settle(c.expr(a.Value, inner), a.Value.EndPos)
		if isInvalid(val) {
			return invalid(a.Pos)
		}
		vt := val.Type()
		if !vt.Kind.Numeric() || vt.Optional {
			c.errorf(diag.TypeMismatch, a.Value.Pos, a.Value.EndPos, "%s needs a number, got %s", op, vt)
			return invalid(a.Pos)
		}
		agg.Value = val
		agg.T = &ir.Type{Kind: vt.Kind}
	case "list":
		val := c.listElement(a, v, inner)
		if isInvalid(val) {
			return invalid(a.Pos)
		}
		agg.Value = val
		agg.T = &ir.Type{Kind: ir.KindList, Elem: val.Type()}
	}
	return agg
}

// listElement types what list(…) collects: the value of list(v for x in
// S), or x itself in list(x in S); a record is collected as its ref, so
// that list(x in E) is a list<ref E>. The elements of a list are never
// null.
func (c *checker) listElement(a *dsl.Aggregate, v *ir.Var, inner *scope) ir.Expr {
	var val ir.Expr
	pos, end := a.Pos, a.EndPos
	if a.Value == nil {
		val = c.narrow(&ir.VarRef{ExprBase: base(v.Type, a.Pos), Var: v}, inner)
	} else {
		pos, end = a.Value.Pos, a.Value.EndPos
		val = c.settle(c.expr(a.Value, inner), end)
	}
	if isInvalid(val) {
		return val
	}
	t := val.Type()
	switch {
	case t.Kind == ir.KindNull || t.Kind == ir.KindSet:
		c.errorf(diag.TypeMismatch, pos, end, "list needs a value to collect, got %s", t)
		return invalid(pos)
	case t.Optional:
		c.errorf(diag.TypeMismatch, pos, end, "the elements of a list cannot be optional, got %s; leave the missing ones out (where x.f != null) or use coalesce", t)
		return invalid(pos)
	case t.Kind == ir.KindRecord:
		return &ir.IDOf{ExprBase: base(&ir.Type{Kind: ir.KindRef, Entity: t.Entity}, val.Position()), X: val}
	}
	return val
}

// builtin describes a function's signature check.
type builtin func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type

var builtins map[string]builtin

func init() {
	str := func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
		if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a string", ir.Kind.Textual) {
			return stringT
		}
		return nil
	}
	pred := func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
		if c.wantArgs(call, args, 2) && c.argKind(call, args, 0, "a string", ir.Kind.Textual) && c.argKind(call, args, 1, "a string", ir.Kind.Textual) {
			return boolT
		}
		return nil
	}
	num1 := func(result func(ir.Kind) ir.Kind) builtin {
		return func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a number", ir.Kind.Numeric) {
				return &ir.Type{Kind: result(args[0].Type().Kind)}
			}
			return nil
		}
	}
	same := func(k ir.Kind) ir.Kind { return k }
	dateTimeShift := fixed(kindOfFirst, param{"a date-time", func(k ir.Kind) bool { return k == ir.KindDateTime }}, param{"an int", isIntKind})
	pair := func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
		if !c.wantArgs(call, args, 2) {
			return nil
		}
		a, b := args[0].Type(), args[1].Type()
		if a.Optional || b.Optional {
			c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "%s of an optional value; use coalesce first", call.Func)
			return nil
		}
		if a.Kind.Numeric() && b.Kind.Numeric() {
			k := numericResult(a.Kind, b.Kind)
			for i := range args {
				if args[i].Type().Kind == ir.KindInt && k != ir.KindInt {
					args[i] = &ir.Convert{ExprBase: base(&ir.Type{Kind: k}, args[i].Position()), X: args[i]}
				}
			}
			return &ir.Type{Kind: k}
		}
		if a.Kind == ir.KindDate && b.Kind == ir.KindDate {
			return dateT
		}
		c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "%s needs two numbers or two dates, got %s and %s", call.Func, a, b)
		return nil
	}
	builtins = map[string]builtin{
		"lower": str, "upper": str, "trim": str,
		"len":      builtinLen,
		"keys":     builtinKeys,
		"append":   builtinAppend,
		"sorted":   builtinSorted,
		"contains": pred, "starts_with": pred, "ends_with": pred,
		"abs":   num1(same),
		"floor": num1(same),
		"ceil":  num1(same),
		"round": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if c.wantArgs(call, args, 2) && c.argKind(call, args, 0, "a number", ir.Kind.Numeric) &&
				c.argKind(call, args, 1, "an int", func(k ir.Kind) bool { return k == ir.KindInt }) {
				return &ir.Type{Kind: args[0].Type().Kind}
			}
			return nil
		},
		"round_to": builtinRoundTo,
		"calc": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if !c.w.FloatNumbers {
				c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "calc(s) is Python's float arithmetic on a text, for a world whose numbers are floats (world { numbers \"float\" }); in a world of exact decimals compute with + - * / on numbers")
				return nil
			}
			if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a string", ir.Kind.Textual) {
				return &ir.Type{Kind: ir.KindDecimal}
			}
			return nil
		},
		"str": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a number", ir.Kind.Numeric) {
				return stringT
			}
			return nil
		},
		"min_of": pair, "max_of": pair,
		"days_between": fixed(always(intT), aDate, aDate),
		"add_days":     fixed(kindOfFirst, param{"a date or a date-time", isDay}, param{"an int (days)", isIntKind}),
		"add_months":   fixed(always(dateT), aDate, param{"an int (months)", isIntKind}),
		"end_of_month": fixed(always(dateT), param{"a date or a date-time", isDay}),
		"add_hours":    dateTimeShift, "add_minutes": dateTimeShift,
		"add_working_days":     fixed(always(dateT), aDate, param{"an int (working days)", isIntKind}),
		"working_days_between": fixed(always(intT), aDate, aDate),
		"is_working_day":       fixed(always(boolT), aDate),
		"hours_between": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			isDT := func(k ir.Kind) bool { return k == ir.KindDateTime }
			if c.wantArgs(call, args, 2) && c.argKind(call, args, 0, "a date-time", isDT) && c.argKind(call, args, 1, "a date-time", isDT) {
				return intT
			}
			return nil
		},
		"pow": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if c.wantArgs(call, args, 2) && c.argKind(call, args, 0, "a number", ir.Kind.Numeric) && c.argKind(call, args, 1, "an int (the exponent)", isIntKind) {
				return &ir.Type{Kind: ir.KindDecimal}
			}
			return nil
		},
		"year": datePart, "month": datePart, "day": datePart, "weekday": datePart,
		"date": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			isInt := func(k ir.Kind) bool { return k == ir.KindInt }
			if !c.wantArgs(call, args, 3) || !c.argKind(call, args, 0, "an int (the year)", isInt) ||
				!c.argKind(call, args, 1, "an int (the month, 1-12)", isInt) || !c.argKind(call, args, 2, "an int (the day of the month)", isInt) {
				return nil
			}
			// Constant parts must make a date; computed ones are checked
			// when the call runs.
			var parts [3]int64
			for i, a := range args {
				l, isLit := a.(*ir.Lit)
				if !isLit || l.Value == nil || l.Value.Kind != ir.KindInt {
					return dateT
				}
				parts[i] = l.Value.Int
			}
			if _, err := runtime.NewDate(int(parts[0]), int(parts[1]), int(parts[2])); err != nil {
				c.errorf(diag.InvalidLiteral, call.Pos, call.EndPos, "date(%d, %d, %d) does not exist: %v", parts[0], parts[1], parts[2], err)
				return nil
			}
			return dateT
		},
		"coalesce": func(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
			if !c.wantArgs(call, args, 2) {
				return nil
			}
			args[0] = unNarrow(args[0]) // a narrowed value is still the optional one
			t := args[0].Type()
			if !t.Optional || t.Kind == ir.KindNull {
				c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "coalesce needs an optional first argument, got %s", t)
				return nil
			}
			want := nonOptional(t)
			args[1] = c.coerce(args[1], want, call.EndPos, "default of coalesce")
			if isInvalid(args[1]) {
				return nil
			}
			return want
		},
	}
}

// builtinRoundTo types round_to(x, step): x rounded to a multiple of
// step, of x's type. An int x takes an int step; a decimal or money x a
// number (an int converted to a decimal). A constant step must be
// positive (W022); a computed one is checked when the call runs. A
// world of float numbers has no exact multiples: it writes round(x /
// step, 0) * step.
func builtinRoundTo(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	if !c.wantArgs(call, args, 2) || !c.argKind(call, args, 0, "a number", ir.Kind.Numeric) {
		return nil
	}
	if c.w.FloatNumbers {
		c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "round_to rounds exact decimals; in a world whose numbers are floats write round(x / step, 0) * step")
		return nil
	}
	k := args[0].Type().Kind
	if k == ir.KindInt {
		if !c.argKind(call, args, 1, "an int (the step of an int)", isIntKind) {
			return nil
		}
	} else {
		if !c.argKind(call, args, 1, "a number (the step)", ir.Kind.Numeric) {
			return nil
		}
		if args[1].Type().Kind == ir.KindInt {
			args[1] = &ir.Convert{ExprBase: base(&ir.Type{Kind: ir.KindDecimal}, args[1].Position()), X: args[1]}
		}
	}
	if v, ok := constValue(args[1]); ok {
		positive := v.Int > 0
		if v.Kind != ir.KindInt {
			d, err := runtime.ParseDecimal(v.Dec)
			positive = err == nil && d.Sign() > 0
		}
		if !positive {
			c.errorf(diag.InvalidLiteral, call.Args[1].Pos, call.Args[1].EndPos, "the step of round_to must be positive")
			return nil
		}
	}
	return &ir.Type{Kind: k}
}

// datePart types year(d), month(d), day(d) and weekday(d): an int from a
// date or a date-time (its date, in UTC).
func datePart(c *checker, call *dsl.Call, args []ir.Expr) *ir.Type {
	isDate := func(k ir.Kind) bool { return k == ir.KindDate || k == ir.KindDateTime }
	if c.wantArgs(call, args, 1) && c.argKind(call, args, 0, "a date or a date-time", isDate) {
		return intT
	}
	return nil
}

func (c *checker) wantArgs(call *dsl.Call, args []ir.Expr, n int) bool {
	if len(args) != n {
		c.errorf(diag.TypeMismatch, call.Pos, call.EndPos, "%s takes %d argument%s, got %d", call.Func, n, plural(n), len(args))
		return false
	}
	for _, a := range args {
		if isInvalid(a) {
			return false
		}
	}
	return true
}

func (c *checker) argKind(call *dsl.Call, args []ir.Expr, i int, what string, ok func(ir.Kind) bool) bool {
	t := args[i].Type()
	if t.Optional {
		c.errorf(diag.TypeMismatch, call.Args[i].Pos, call.Args[i].EndPos, "argument %d of %s may be null; use coalesce(x, default)", i+1, call.Func)
		return false
	}
	if !ok(t.Kind) {
		c.errorf(diag.TypeMismatch, call.Args[i].Pos, call.Args[i].EndPos, "argument %d of %s must be %s, got %s", i+1, call.Func, what, t)
		return false
	}
	return true
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (c *checker) call(call *dsl.Call, s *scope) ir.Expr {
	fn := builtins[call.Func]
	if fn == nil && call.Func == "matches" {
		c.matchesCall(call)
		return invalid(call.Pos)
	}
	args := make([]ir.Expr, len(call.Args))
	for i, a := range call.Args {
		args[i] = c.expr(a, s)
		settle := true
		switch call.Func {
		case "coalesce":
			settle = i == 0 // the default is typed by the first argument
		case "append":
			settle = i == 0 && !untypedComposite(args[0]) // the element is typed by the list
		}
		if settle {
			args[i] = c.settle(args[i], a.EndPos)
		}
	}
	if fn == nil {
		c.errorf(diag.UnresolvedName, call.Pos, call.EndPos, "unknown function %q; functions: %s", call.Func, strings.Join(sortedKeys(builtins), ", "))
		return invalid(call.Pos)
	}
	t := fn(c, call, args)
	if t == nil {
		return invalid(call.Pos)
	}
	return &ir.Call{ExprBase: base(t, call.Pos), Func: call.Func, Args: args}
}

// sourceName names what an aggregate ranges over, for messages.
func sourceName(e *ir.Entity, src ir.Expr) string {
	if e != nil {
		return "the entity " + e.Name
	}
	return src.Type().String()
}
