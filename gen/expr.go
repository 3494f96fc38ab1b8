package gen

import (
	"math"
	"strconv"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// Go operator precedences (higher binds tighter); primary expressions are
// precPrimary.
const (
	precOr = 1 + iota
	precAnd
	precCmp
	precAdd
	precMul
	precUnary
	precPrimary
)

// code is a compiled Go expression and the precedence of its top operator.
type code struct {
	c    *jen.Statement
	prec int
	// terms are the operands of a chain of && or || (prec precAnd or
	// precOr) built by chain; cmp describes a comparison with a constant.
	terms []code
	cmp   *cmpConst
}

func primary(c *jen.Statement) code { return code{c: c, prec: precPrimary} }

// at renders c as an operand needing precedence min, parenthesised if it
// binds less tightly.
func (c code) at(min int) *jen.Statement {
	if c.prec < min {
		return jen.Parens(c.c)
	}
	return jen.Add(c.c)
}

// scope compiles expressions and statements of one Go function: it knows the
// Go expression of every variable in scope and hands out local names.
type scope struct {
	g     *generator
	ns    *namespace
	vars  map[*ir.Var]func() *jen.Statement
	names map[*ir.Var]string // local Go names of bound variables
	// readOnly is set in invariant checks and rubric graders: nothing is
	// written while they run, so aggregates may use indexes built up front,
	// and large constants may be shared values (constPrefix names them
	// after the grader, constOwner says whose they are).
	readOnly bool
	// budget is set in tool bodies: their loops and aggregates count
	// their iterations and their concatenations the bytes they copy
	// (runtime.Journal.Tick and Cat), so that no arguments make a call
	// run unbounded.
	budget bool
	// indexes name the indexes aggregates read: maps of the records by a
	// field's value, or, with indexCalls, functions returning them.
	indexes     map[indexKey]string
	indexCalls  bool
	constPrefix string
	constOwner  string
}

func (g *generator) newScope(reserved ...string) *scope {
	base := []string{"s", "args", "err", "ok", "runtime", "json", "strings", "math", "fmt", "utf8", "slices", "sync", "bytes", "embed", "today"}
	return &scope{g: g, ns: newNamespace(append(base, reserved...)...), vars: map[*ir.Var]func() *jen.Statement{}, names: map[*ir.Var]string{}, indexes: map[indexKey]string{}}
}

// bind gives v a fresh local Go name and returns it.
func (sc *scope) bind(v *ir.Var) string {
	n := sc.ns.name(v, unexported(v.Name))
	sc.vars[v] = func() *jen.Statement { return jen.Id(n) }
	sc.names[v] = n
	return n
}

// temp returns a fresh local name.
func (sc *scope) temp(want string) string { return sc.ns.name(new(int), want) }

// canFault reports whether evaluating e may record a fault (a missing
// record behind a ref or lookup, an integer modulo by zero, a calc that
// fails, a string outside the enum it is converted to, a first that
// matches nothing), so the caller must check s.fault after it.
func canFault(e ir.Expr) bool {
	found := false
	ir.WalkExpr(e, func(x ir.Expr) bool {
		switch x := x.(type) {
		case *ir.Deref, *ir.Lookup:
			found = true
		case *ir.Handle:
			if x.T != nil && x.T.Kind == ir.KindRecord {
				found = true
			}
		case *ir.Binary:
			if x.Op == "%" && x.T.Kind == ir.KindInt {
				found = true
			}
			// An exact decimal division by zero is a fault (a float's
			// division never faults, but a check after it costs nothing).
			if x.Op == "/" && !nonZeroConst(x.R) {
				found = true
			}
		case *ir.Call:
			if x.Func == "calc" || x.Func == "pow" || x.Func == "add_working_days" || x.Func == "range" || x.Func == "round_to" || faultsNull(x) {
				found = true
			}
			if _, isConst := constDate(x); x.Func == "date" && !isConst {
				found = true
			}
		case *ir.Cast, *ir.NotNull:
			found = true
		case *ir.Aggregate:
			if x.Op == "first" || faultsNull(x) {
				found = true
			}
		default:
			if faultsNull(x) {
				found = true
			}
		}
		return !found
	})
	return found
}

// untypedConst reports whether e compiles to an untyped Go constant (a
// literal, or + - * on literals): a Go declaration with := would give it
// a type of its own (int, float64) instead of the spec's, so it is
// declared with its type.
func untypedConst(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Lit:
		return true
	case *ir.Binary:
		switch x.Op {
		case "+", "-", "*":
			return untypedConst(x.L) && untypedConst(x.R)
		}
	}
	return false
}

// constDate is the value of date(y, m, d) with constant parts (which the
// checker has found to make a date).
func constDate(x *ir.Call) (runtime.Date, bool) {
	if x.Func != "date" || len(x.Args) != 3 {
		return 0, false
	}
	var parts [3]int
	for i, a := range x.Args {
		l, isLit := a.(*ir.Lit)
		if !isLit || l.Value == nil || l.Value.Kind != ir.KindInt {
			return 0, false
		}
		parts[i] = int(l.Value.Int)
	}
	d, err := runtime.NewDate(parts[0], parts[1], parts[2])
	return d, err == nil
}

// simple reports whether e is cheap and pure enough to evaluate twice.
func simple(e ir.Expr) bool {
	switch x := e.(type) {
	case *ir.Lit, *ir.VarRef, *ir.Today, *ir.Handle:
		return true
	case *ir.FieldRef:
		return simple(x.X)
	case *ir.IDOf:
		return simple(x.X)
	}
	return false
}

func isNull(e ir.Expr) bool {
	l, ok := e.(*ir.Lit)
	return ok && (l.Value == nil || l.Value.Kind == ir.KindNull)
}

// optional reports whether values of t are Go pointers that may be nil
// because the spec type is optional.
func optional(t *ir.Type) bool { return t != nil && t.Optional }

// clock compiles today or now (x.Now): the constants of the world's
// clock, or in a world where a task sets its own, the state's.
func (sc *scope) clock(x *ir.Today) code {
	g := sc.g
	switch {
	case g.taskClocks && x.Now:
		return primary(jen.Id("s").Dot("now"))
	case g.taskClocks:
		return primary(jen.Id("s").Dot("today"))
	case x.Now:
		return sc.lit(&ir.Value{Kind: ir.KindDateTime, Str: g.worldNow()}, x.T)
	}
	return primary(jen.Id("today"))
}

// expr compiles e to a Go expression of Go type g.goType(e.Type()).
func (sc *scope) expr(e ir.Expr) code {
	g := sc.g
	switch x := e.(type) {
	case *ir.Lit:
		return sc.lit(x.Value, x.T)
	case *ir.VarRef:
		if f, ok := sc.vars[x.Var]; ok {
			return primary(f())
		}
		return primary(jen.Id(unexported(x.Var.Name)))
	case *ir.Today:
		return sc.clock(x)
	case *ir.FieldRef:
		if x.Field != nil && x.Field.Entity == nil {
			return sc.structField(x)
		}
		rec := sc.record(x.X)
		if x.Field == nil {
			return primary(rec.at(precPrimary).Dot(g.idField(x.X.Type())))
		}
		return primary(rec.at(precPrimary).Dot(g.ents[x.Field.Entity].fields[x.Field]))
	case *ir.Deref:
		return sc.recordAt(x.T.Entity, sc.expr(x.X))
	case *ir.IDOf:
		if t := x.X.Type(); t.Kind == ir.KindRecord {
			if t.Optional {
				return sc.optionalID(sc.expr(x.X), t)
			}
			return primary(sc.expr(x.X).at(precPrimary).Dot(g.idField(t)))
		}
		return sc.expr(x.X)
	case *ir.Lookup:
		return sc.recordAt(x.Entity, sc.asString(x.Key))
	case *ir.Handle:
		if x.T != nil && x.T.Kind == ir.KindRecord {
			return sc.recordAt(x.Entity, primary(jen.Lit(x.ID)))
		}
		return primary(jen.Lit(x.ID))
	case *ir.KeyIn:
		// A lookup in the table's index of ids, not a scan.
		has := jen.Id("s").Dot(g.ents[x.Entity].table).Dot("Has").Call(sc.asString(x.Key).c)
		if x.Not {
			return code{c: jen.Op("!").Add(has), prec: precUnary}
		}
		return primary(has)
	case *ir.Cast:
		return sc.cast(x)
	case *ir.Binary:
		return sc.binary(x)
	case *ir.Unary:
		v := sc.expr(x.X)
		if x.Op == "not" {
			return code{c: jen.Op("!").Add(v.at(precUnary)), prec: precUnary}
		}
		if isDec(x.T) && sc.g.exact() {
			return primary(jen.Add(v.at(precPrimary)).Dot("Neg").Call())
		}
		return code{c: jen.Op("-").Add(v.at(precUnary)), prec: precUnary}
	case *ir.Convert:
		return sc.convert(sc.expr(x.X), x.X.Type(), x.T)
	case *ir.Cond:
		return sc.condExpr(x)
	case *ir.NotNull:
		return sc.notNull(x)
	case *ir.Call:
		return sc.call(x)
	case *ir.Aggregate:
		return sc.aggregate(x)
	case *ir.ListLit:
		if c, ok := sc.constant(x); ok {
			return c
		}
		elems := make([]jen.Code, len(x.Elems))
		for i, el := range x.Elems {
			elems[i] = sc.elemValue(el, x.T.Elem).c
		}
		return primary(jen.Add(g.goType(x.T)).Values(elems...))
	case *ir.Index:
		return sc.index(x)
	case *ir.StructLit:
		if c, ok := sc.constant(x); ok {
			return c
		}
		return sc.structLit(x)
	case *ir.MapLit:
		if c, ok := sc.constant(x); ok {
			return c
		}
		return sc.mapLit(x)
	case *ir.Match:
		return sc.match(x)
	}
	panic(unexpectedAt(e.Position(), "unsupported expression %T", e))
}

// record compiles an expression whose value is a record; a ref (an id) is
// followed.
func (sc *scope) record(e ir.Expr) code {
	if t := e.Type(); t.Kind == ir.KindRef {
		return sc.recordAt(t.Entity, sc.expr(e))
	}
	return sc.expr(e)
}

// recordAt is s.<entity>At(id): the record, or a fault and an empty record.
func (sc *scope) recordAt(e *ir.Entity, id code) code {
	sc.g.needAt[e] = true
	return primary(jen.Id("s").Dot(sc.g.atName(e)).Call(id.c))
}

func (g *generator) atName(e *ir.Entity) string { return g.ents[e].lower + "At" }

// asString compiles e as a Go string (enums converted).
func (sc *scope) asString(e ir.Expr) code {
	c := sc.expr(e)
	if e.Type().Kind == ir.KindEnum {
		return primary(jen.String().Call(c.c))
	}
	return c
}

// lit is a constant of type t.
func (sc *scope) lit(v *ir.Value, t *ir.Type) code {
	if v == nil || v.Kind == ir.KindNull {
		return primary(jen.Nil())
	}
	kind := v.Kind
	if t != nil && t.Kind != ir.KindInvalid && t.Kind != ir.KindNull {
		kind = t.Kind
	}
	switch kind {
	case ir.KindEnum:
		if t != nil && t.Enum != nil {
			if ei := sc.g.enums[t.Enum]; ei != nil {
				if c, ok := ei.consts[v.Str]; ok {
					return primary(jen.Id(c))
				}
				return primary(jen.Id(ei.typ).Call(jen.Lit(v.Str)))
			}
		}
		return primary(jen.Lit(v.Str))
	case ir.KindString, ir.KindText, ir.KindRef:
		return primary(jen.Lit(v.Str))
	case ir.KindInt:
		if v.Kind == ir.KindInt {
			return intLit(v.Int)
		}
		return intLit(int64(v.Num))
	case ir.KindDecimal, ir.KindMoney:
		if sc.g.exact() {
			if v.Kind == ir.KindInt {
				return primary(decimalLit(strconv.FormatInt(v.Int, 10)))
			}
			if v.Dec == "" {
				panic(unexpectedAt(ir.Pos{}, "a decimal constant without its exact value in a world of exact numbers"))
			}
			return primary(decimalLit(v.Dec))
		}
		if v.Kind == ir.KindInt {
			return floatLit(float64(v.Int))
		}
		return floatLit(v.Num)
	case ir.KindBool:
		return primary(jen.Lit(v.Bool))
	case ir.KindDate:
		return dateLit(v.Str)
	case ir.KindDateTime:
		return dateTimeLit(v.Str)
	case ir.KindList, ir.KindMap, ir.KindStruct:
		return sc.compositeLit(v, t)
	}
	panic(unexpectedAt(ir.Pos{}, "constant of kind %s", kind))
}

// compositeLit is a list, map or record constant of type t: a Go composite
// literal (a new value each time it is evaluated).
func (sc *scope) compositeLit(v *ir.Value, t *ir.Type) code {
	g := sc.g
	elem := func(x *ir.Value, et *ir.Type) *jen.Statement {
		if x == nil || x.Kind == ir.KindNull {
			return jen.Nil()
		}
		base := *et
		base.Optional = false
		c := sc.lit(x, &base).c
		if pointerOpt(et) {
			return newOf(g.baseGoType(&base), c)
		}
		return c
	}
	var lit *jen.Statement
	switch t.Kind {
	case ir.KindList:
		items := make([]jen.Code, len(v.List))
		for i, x := range v.List {
			items[i] = elem(x, t.Elem)
		}
		lit = jen.Add(g.baseGoType(t)).Values(items...)
	case ir.KindMap:
		items := make([]jen.Code, len(v.Entries))
		for i, e := range v.Entries {
			items[i] = jen.Lit(e.Key).Op(":").Add(elem(e.Value, t.Elem))
		}
		lit = jen.Add(g.baseGoType(t)).Values(items...)
	default:
		si := g.structs[t.Struct]
		var items []jen.Code
		for i, f := range t.Struct.AllFields() {
			if i >= len(v.Fields) || v.Fields[i] == nil || v.Fields[i].Kind == ir.KindNull {
				continue
			}
			items = append(items, jen.Id(si.fields[f]).Op(":").Add(elem(v.Fields[i], g.storedType(f))))
		}
		lit = jen.Id(si.typ).Values(items...)
	}
	if pointerOpt(t) {
		return primary(jen.Op("&").Add(lit))
	}
	return primary(lit)
}

func intLit(i int64) code {
	if i < 0 {
		return code{c: jen.Lit(int(i)), prec: precUnary}
	}
	return primary(jen.Lit(int(i)))
}

func floatLit(f float64) code {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return primary(jen.Qual("math", "NaN").Call())
	}
	if f < 0 || math.Signbit(f) {
		return code{c: jen.Lit(f), prec: precUnary}
	}
	return primary(jen.Lit(f))
}

// dateLit is runtime.Date(n) with the date as a comment: the compiler has
// checked the literal, so a bad one here is a bug.
func dateLit(s string) code {
	d, err := runtime.ParseDate(s)
	if err != nil {
		panic(unexpectedAt(ir.Pos{}, "date %q: %v", s, err))
	}
	return primary(jen.Qual(rt, "Date").Call(jen.Lit(int(d))).Comment("/* " + d.String() + " */"))
}

func dateTimeLit(s string) code {
	d, err := runtime.ParseDateTime(s)
	if err != nil {
		panic(unexpectedAt(ir.Pos{}, "datetime %q: %v", s, err))
	}
	return primary(jen.Qual(rt, "DateTime").Call(jen.Lit(int(d))).Comment("/* " + d.String() + " */"))
}

// convert converts c from type from to type to: int to float, float to int
// (truncating, saturating, NaN is 0: compiler/eval's rule), optional
// values wrapped.
func (sc *scope) convert(c code, from, to *ir.Type) code {
	if from == nil || to == nil {
		return c
	}
	fk, tk := from.Kind, to.Kind
	switch {
	case fk == ir.KindInt && (tk == ir.KindDecimal || tk == ir.KindMoney):
		if optional(from) {
			return sc.mapOptional(c, sc.g.numType(), sc.g.intToDecimal)
		}
		if sc.g.exact() {
			return primary(sc.g.intToDecimal(c.c))
		}
		if l, ok := c.c, true; ok && c.prec == precPrimary && isUntypedLit(from) {
			return primary(l)
		}
		return primary(jen.Float64().Call(c.c))
	case (fk == ir.KindDecimal || fk == ir.KindMoney) && tk == ir.KindInt:
		if sc.g.exact() {
			return primary(jen.Add(c.at(precPrimary)).Dot("Int64").Call())
		}
		return primary(jen.Qual(rt, "FloatToInt").Call(c.c))
	}
	return c
}

func isUntypedLit(t *ir.Type) bool { return false }

// isDec reports whether t is decimal or money.
func isDec(t *ir.Type) bool { return t != nil && (t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney) }

// mapOptional applies f to the value of an optional c, keeping nil.
func (sc *scope) mapOptional(c code, elem *jen.Statement, f func(v *jen.Statement) *jen.Statement) code {
	p := sc.temp("p")
	v := sc.temp("v")
	return primary(jen.Func().Params().Op("*").Add(elem).Block(
		jen.Id(p).Op(":=").Add(c.c),
		jen.If(jen.Id(p).Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id(v).Op(":=").Add(f(jen.Op("*").Id(p))),
		jen.Return(jen.Op("&").Id(v)),
	).Call())
}

// valueAs compiles e for a destination of type to (a field, a parameter, a
// return value): ints become floats where needed, records their ids.
func (sc *scope) valueAs(e ir.Expr, to *ir.Type) code {
	from := e.Type()
	if isNull(e) {
		return primary(jen.Nil())
	}
	if from.Kind == ir.KindRecord && to.Kind == ir.KindRef {
		rec := sc.expr(e)
		if from.Optional || to.Optional {
			return sc.optionalID(rec, from)
		}
		return primary(rec.at(precPrimary).Dot(sc.g.idField(from)))
	}
	c := sc.expr(e)
	if from.Kind == ir.KindEnum && to.Kind != ir.KindEnum {
		c = primary(jen.String().Call(c.c))
	}
	if from.Kind != ir.KindEnum && to.Kind == ir.KindEnum && to.Enum != nil {
		c = primary(jen.Id(sc.g.enums[to.Enum].typ).Call(c.c))
	}
	if from.Kind == ir.KindEnum && to.Kind == ir.KindEnum && from.Enum != to.Enum && to.Enum != nil {
		c = primary(jen.Id(sc.g.enums[to.Enum].typ).Call(c.c))
	}
	return sc.convert(c, from, to)
}

// optionalID is the id of the record rec of type t as a *string: an
// optional record (a ref parameter left out) is null, and so is its id.
func (sc *scope) optionalID(rec code, t *ir.Type) code {
	r, v := sc.temp("r"), sc.temp("id")
	return primary(jen.Func().Params().Op("*").String().Block(
		jen.Id(r).Op(":=").Add(rec.c),
		jen.If(jen.Id(r).Op("==").Nil()).Block(jen.Return(jen.Nil())),
		jen.Id(v).Op(":=").Id(r).Dot(sc.g.idField(t)),
		jen.Return(jen.Op("&").Id(v)),
	).Call())
}

func (sc *scope) binary(x *ir.Binary) code {
	switch x.Op {
	case "and":
		return sc.chain("&&", sc.expr(x.L), sc.expr(x.R))
	case "or":
		return sc.chain("||", sc.expr(x.L), sc.expr(x.R))
	case "==", "!=":
		return sc.equality(x.L, x.R, x.Op == "!=")
	case "<", "<=", ">", ">=":
		return sc.ordering(x.Op, x.L, x.R)
	case "in", "notin":
		return sc.membership(x)
	case "+", "-", "*", "/", "%":
		return sc.arith(x)
	}
	panic(unexpectedAt(x.Pos, "unknown operator %s", x.Op))
}

// caseCall returns the function (lower or upper) and argument of e when e
// is a call of one of them.
func caseCall(e ir.Expr) (string, ir.Expr, bool) {
	if c, ok := e.(*ir.Call); ok && (c.Func == "lower" || c.Func == "upper") && len(c.Args) == 1 {
		return c.Func, c.Args[0], true
	}
	return "", nil, false
}

// caseEquality compiles lower(a) == lower(b) (upper alike) to
// runtime.EqualLower(a, b), and lower(a) == b to runtime.IsLower(a, b):
// comparisons that build no lowered string. It applies when neither side
// may be null; ok is false when it does not apply.
func (sc *scope) caseEquality(l, r ir.Expr, negate bool) (code, bool) {
	if optional(l.Type()) || optional(r.Type()) || !l.Type().Kind.Textual() || !r.Type().Kind.Textual() {
		return code{}, false
	}
	lf, la, lok := caseCall(l)
	rf, ra, rok := caseCall(r)
	var c *jen.Statement
	switch {
	case lok && rok && lf == rf:
		c = jen.Qual(rt, map[string]string{"lower": "EqualLower", "upper": "EqualUpper"}[lf]).Call(sc.asString(la).c, sc.asString(ra).c)
	case lok:
		c = jen.Qual(rt, map[string]string{"lower": "IsLower", "upper": "IsUpper"}[lf]).Call(sc.asString(la).c, sc.asString(r).c)
	case rok:
		c = jen.Qual(rt, map[string]string{"lower": "IsLower", "upper": "IsUpper"}[rf]).Call(sc.asString(ra).c, sc.asString(l).c)
	default:
		return code{}, false
	}
	if negate {
		return code{c: jen.Op("!").Add(c), prec: precUnary}, true
	}
	return primary(c), true
}

// comparable compiles both sides of a comparison to Go values of one type:
// records by id, enums against strings or other enums as strings, ints
// against floats as floats. Optional sides stay pointers; lv/rv give the
// dereferenced value.
func (sc *scope) operands(l, r ir.Expr) (lc, rc code) {
	lt, rt := l.Type(), r.Type()
	lc, rc = sc.expr(l), sc.expr(r)
	if lt.Kind == ir.KindRecord {
		lc = primary(lc.at(precPrimary).Dot(sc.g.idField(lt)))
	}
	if rt.Kind == ir.KindRecord {
		rc = primary(rc.at(precPrimary).Dot(sc.g.idField(rt)))
	}
	if lt.Kind == ir.KindEnum && (rt.Kind != ir.KindEnum || lt.Enum != rt.Enum) && !optional(lt) {
		if _, isLit := r.(*ir.Lit); !(isLit && rt.Kind != ir.KindEnum) {
			lc = primary(jen.String().Call(lc.c))
		}
	}
	if rt.Kind == ir.KindEnum && (lt.Kind != ir.KindEnum || lt.Enum != rt.Enum) && !optional(rt) {
		if _, isLit := l.(*ir.Lit); !(isLit && lt.Kind != ir.KindEnum) {
			rc = primary(jen.String().Call(rc.c))
		}
	}
	if lt.Kind == ir.KindInt && (rt.Kind == ir.KindDecimal || rt.Kind == ir.KindMoney) && !optional(lt) {
		lc = sc.convert(lc, lt, rt)
	}
	if rt.Kind == ir.KindInt && (lt.Kind == ir.KindDecimal || lt.Kind == ir.KindMoney) && !optional(rt) {
		rc = sc.convert(rc, rt, lt)
	}
	return lc, rc
}

// withValue evaluates c once into a fresh local when it is not simple, so
// that it may be used twice; body gets the (possibly local) expression.
func (sc *scope) withValue(e ir.Expr, c code, body func(v code) code) code {
	if simple(e) {
		return body(c)
	}
	v := sc.temp("v")
	res := body(primary(jen.Id(v)))
	return primary(jen.Func().Params().Bool().Block(
		jen.Id(v).Op(":=").Add(c.c),
		jen.Return(res.c),
	).Call())
}

// equality compiles l == r (or !=) with the language's null rule: null is
// equal only to null.
func (sc *scope) equality(l, r ir.Expr, negate bool) code {
	op := "=="
	if negate {
		op = "!="
	}
	if isNull(l) {
		l, r = r, l
	}
	if isNull(r) {
		if isNull(l) {
			return primary(jen.Lit(!negate))
		}
		return code{c: jen.Add(sc.expr(l).at(precCmp + 1)).Op(op).Nil(), prec: precCmp}
	}
	if isComposite(l.Type()) || isComposite(r.Type()) {
		return sc.compositeEquality(l, r, negate)
	}
	if c, ok := sc.caseEquality(l, r, negate); ok {
		return c
	}
	lc, rc := sc.operands(l, r)
	lo, ro := optional(l.Type()) && l.Type().Kind != ir.KindRecord, optional(r.Type()) && r.Type().Kind != ir.KindRecord
	switch {
	case !lo && !ro:
		return sc.compareConst(code{c: jen.Add(lc.at(precCmp + 1)).Op(op).Add(rc.at(precCmp + 1)), prec: precCmp}, op, l, r, lc, rc)
	case lo && ro:
		a, b := sc.temp("a"), sc.temp("b")
		same := jen.Id(a).Op("==").Nil().Op("&&").Id(b).Op("==").Nil().Op("||").
			Id(a).Op("!=").Nil().Op("&&").Id(b).Op("!=").Nil().Op("&&").Op("*").Id(a).Op("==").Op("*").Id(b)
		res := primary(jen.Func().Params().Bool().Block(
			jen.List(jen.Id(a), jen.Id(b)).Op(":=").List(lc.c, rc.c),
			jen.Return(same),
		).Call())
		if negate {
			return code{c: jen.Op("!").Add(res.c), prec: precUnary}
		}
		return res
	}
	// One side optional: compare the value when it is set.
	optE, optC, other := l, lc, rc
	if ro {
		optE, optC, other = r, rc, lc
	}
	otherE := r
	if ro {
		otherE = l
	}
	return sc.withValue(optE, optC, func(v code) code {
		val := sc.derefOpt(v, optE.Type(), other)
		cmp := code{c: jen.Add(val).Op(op).Add(other.at(precCmp + 1)), prec: precCmp}
		if k, ok := sc.constKey(otherE); ok {
			cmp.cmp = &cmpConst{op: op, x: val, key: k}
		}
		if negate {
			return sc.chain("||", code{c: jen.Add(v.at(precCmp + 1)).Op("==").Nil(), prec: precCmp}, cmp)
		}
		return sc.chain("&&", code{c: jen.Add(v.at(precCmp + 1)).Op("!=").Nil(), prec: precCmp}, cmp)
	})
}

// derefOpt is *v, converted to compare with other (enum as string where
// the other side is a string).
func (sc *scope) derefOpt(v code, t *ir.Type, other code) *jen.Statement {
	return jen.Op("*").Add(v.at(precUnary))
}

// ordering compiles l < r and friends; null orders false against anything.
func (sc *scope) ordering(op string, l, r ir.Expr) code {
	if isNull(l) || isNull(r) {
		return primary(jen.False())
	}
	lc, rc := sc.operands(l, r)
	lo, ro := optional(l.Type()), optional(r.Type())
	if lo {
		lc = code{c: jen.Op("*").Add(lc.at(precUnary)), prec: precUnary}
	}
	if ro {
		rc = code{c: jen.Op("*").Add(rc.at(precUnary)), prec: precUnary}
	}
	cmp := code{c: jen.Add(lc.at(precCmp + 1)).Op(op).Add(rc.at(precCmp + 1)), prec: precCmp}
	if sc.g.exact() && (isDec(l.Type()) || isDec(r.Type())) {
		cmp = code{c: jen.Add(lc.at(precPrimary)).Dot("Cmp").Call(rc.c).Op(op).Lit(0), prec: precCmp}
	}
	if !lo && !ro {
		return cmp
	}
	if (lo && !simple(l)) || (ro && !simple(r)) {
		// Evaluate once: bind both sides in a closure.
		a, b := sc.temp("a"), sc.temp("b")
		la, rb := sc.expr(l), sc.expr(r)
		// An int constant bound by := would be an int, not the int64 it
		// is compared with.
		if l.Type().Kind == ir.KindInt && !lo {
			la = primary(jen.Int64().Call(la.c))
		}
		if r.Type().Kind == ir.KindInt && !ro {
			rb = primary(jen.Int64().Call(rb.c))
		}
		lv, rv := jen.Id(a), jen.Id(b)
		conds := []*jen.Statement{}
		if lo {
			conds = append(conds, jen.Id(a).Op("!=").Nil())
			lv = jen.Op("*").Id(a)
		}
		if ro {
			conds = append(conds, jen.Id(b).Op("!=").Nil())
			rv = jen.Op("*").Id(b)
		}
		ret := jen.Null()
		for _, c := range conds {
			ret.Add(c).Op("&&")
		}
		if sc.g.exact() && (isDec(l.Type()) || isDec(r.Type())) {
			ret.Parens(lv).Dot("Cmp").Call(rv).Op(op).Lit(0)
		} else {
			ret.Add(lv).Op(op).Add(rv)
		}
		_ = lc
		return primary(jen.Func().Params().Bool().Block(
			jen.List(jen.Id(a), jen.Id(b)).Op(":=").List(la.c, rb.c),
			jen.Return(ret),
		).Call())
	}
	var guards []code
	if lo {
		guards = append(guards, code{c: jen.Add(sc.expr(l).at(precCmp + 1)).Op("!=").Nil(), prec: precCmp})
	}
	if ro {
		guards = append(guards, code{c: jen.Add(sc.expr(r).at(precCmp + 1)).Op("!=").Nil(), prec: precCmp})
	}
	return sc.chain("&&", append(guards, cmp)...)
}

// membership compiles x in [a, b] as x == a || x == b (and `not in` as
// x != a && x != b), evaluating x once.
func (sc *scope) membership(x *ir.Binary) code {
	list, ok := x.R.(*ir.ListLit)
	if !ok {
		return sc.containsOf(x)
	}
	negate := x.Op == "notin"
	if len(list.Elems) == 0 {
		return primary(jen.Lit(negate))
	}
	join := func(l, r code) code {
		if negate {
			return code{c: jen.Add(l.at(precAnd)).Op("&&").Add(r.at(precAnd + 1)), prec: precAnd}
		}
		return code{c: jen.Add(l.at(precOr)).Op("||").Add(r.at(precOr + 1)), prec: precOr}
	}
	// A chain of up to flatMembers comparisons is written flat (sc.chain,
	// which leaves out what vet would call redundant); a longer one is
	// split in halves, parenthesized, so that its nesting in Go grows with
	// the logarithm of its length (gofmt takes time quadratic in the
	// nesting). The order of evaluation and the short circuit are the same.
	const flatMembers = 16
	var chain func(lhs ir.Expr, elems []ir.Expr) code
	chain = func(lhs ir.Expr, elems []ir.Expr) code {
		if len(elems) > flatMembers {
			mid := len(elems) / 2
			return join(chain(lhs, elems[:mid]), chain(lhs, elems[mid:]))
		}
		var parts []code
		for _, el := range elems {
			parts = append(parts, sc.equality(lhs, el, negate))
		}
		if negate {
			return sc.chain("&&", parts...)
		}
		return sc.chain("||", parts...)
	}
	build := func(lhs ir.Expr) code { return chain(lhs, list.Elems) }
	if simple(x.L) {
		return build(x.L)
	}
	// Bind the left side to a local variable of the right type.
	v := &ir.Var{Name: "v", Type: x.L.Type()}
	name := sc.bind(v)
	lhs := sc.expr(x.L)
	body := build(&ir.VarRef{ExprBase: ir.ExprBase{T: x.L.Type()}, Var: v})
	return primary(jen.Func().Params().Bool().Block(
		jen.Id(name).Op(":=").Add(lhs.c),
		jen.Return(body.c),
	).Call())
}

// arith compiles + - * / % with compiler/eval's rules: int op int stays int
// except `/`; a float operand makes it float; dates move by days and a date
// minus a date is days; + concatenates strings; int % by zero is a fault.
func (sc *scope) arith(x *ir.Binary) code {
	lt, rt := x.L.Type(), x.R.Type()
	lc, rc := sc.expr(x.L), sc.expr(x.R)
	isFloat := func(t *ir.Type) bool { return t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney }
	prec := precAdd
	if x.Op == "*" || x.Op == "/" || x.Op == "%" {
		prec = precMul
	}
	bin := func(l, r code) code {
		return code{c: jen.Add(l.at(prec)).Op(x.Op).Add(r.at(prec + 1)), prec: prec}
	}
	switch {
	case lt.Kind == ir.KindDate && rt.Kind == ir.KindDate:
		return primary(jen.Int64().Call(bin(lc, rc).c))
	case lt.Kind == ir.KindDate:
		return bin(lc, primary(jen.Qual(rt0, "Date").Call(rc.c)))
	case rt.Kind == ir.KindDate:
		return bin(primary(jen.Qual(rt0, "Date").Call(lc.c)), rc)
	case lt.Kind == ir.KindDateTime || rt.Kind == ir.KindDateTime:
		return bin(lc, rc)
	}
	if sc.g.exact() && (isFloat(lt) || isFloat(rt) || x.Op == "/") {
		return sc.decimalArith(x, lc, rc)
	}
	if x.Op == "/" {
		if !isFloat(lt) {
			lc = primary(jen.Float64().Call(lc.c))
		}
		if !isFloat(rt) {
			rc = primary(jen.Float64().Call(rc.c))
		}
		return sc.convert(bin(lc, rc), &ir.Type{Kind: ir.KindDecimal}, x.T)
	}
	if isFloat(lt) != isFloat(rt) {
		if !isFloat(lt) {
			lc = primary(jen.Float64().Call(lc.c))
		} else {
			rc = primary(jen.Float64().Call(rc.c))
		}
	}
	if x.Op == "%" {
		if isFloat(lt) || isFloat(rt) {
			return primary(jen.Qual("math", "Mod").Call(lc.c, rc.c))
		}
		sc.g.needMod = true
		return primary(jen.Id("s").Dot("mod").Call(lc.c, rc.c))
	}
	if lt.Kind == ir.KindEnum || rt.Kind == ir.KindEnum {
		if lt.Kind == ir.KindEnum {
			lc = primary(jen.String().Call(lc.c))
		}
		if rt.Kind == ir.KindEnum {
			rc = primary(jen.String().Call(rc.c))
		}
	}
	if x.Op == "+" && x.T.Kind.Textual() && sc.budget {
		return primary(jen.Id("s").Dot("j").Dot("Cat").Call(lc.c, rc.c))
	}
	res := bin(lc, rc)
	if !isFloat(lt) && !isFloat(rt) && isFloat(x.T) {
		return primary(jen.Float64().Call(res.c))
	}
	return res
}

const rt0 = rt

// decimalArith compiles + - * / on exact decimals (runtime.Decimal), an
// int operand converted: methods, and `/` through the state's div, which
// records a division by zero as a fault (compiler/eval's error).
func (sc *scope) decimalArith(x *ir.Binary, lc, rc code) code {
	if !isDec(x.L.Type()) {
		lc = primary(sc.g.intToDecimal(lc.c))
	}
	if !isDec(x.R.Type()) {
		rc = primary(sc.g.intToDecimal(rc.c))
	}
	var res code
	switch x.Op {
	case "+":
		res = primary(jen.Add(lc.at(precPrimary)).Dot("Add").Call(rc.c))
	case "-":
		res = primary(jen.Add(lc.at(precPrimary)).Dot("Sub").Call(rc.c))
	case "*":
		res = primary(jen.Add(lc.at(precPrimary)).Dot("Mul").Call(rc.c))
	case "/":
		sc.g.needDiv = true
		res = primary(jen.Id("s").Dot("div").Call(lc.c, rc.c))
	default:
		panic(unexpectedAt(x.Pos, "operator %s on decimals", x.Op))
	}
	return sc.convert(res, &ir.Type{Kind: ir.KindDecimal}, x.T)
}

// call compiles a built-in function call with compiler/eval's semantics.
func (sc *scope) call(x *ir.Call) code {
	if c, ok := sc.compositeCall(x); ok {
		return c
	}
	arg := func(i int) code { return sc.expr(x.Args[i]) }
	str := func(i int) *jen.Statement { return sc.asString(x.Args[i]).c }
	isFloat := func(t *ir.Type) bool { return t.Kind == ir.KindDecimal || t.Kind == ir.KindMoney }
	var res code
	resFloat := false
	switch x.Func {
	case "coalesce":
		a, d := x.Args[0], x.Args[1]
		if !optional(a.Type()) || a.Type().Kind == ir.KindRecord {
			return sc.valueAs(a, x.T)
		}
		elem := *a.Type()
		elem.Optional = false
		p := sc.temp("p")
		inner := sc.convert(primary(jen.Op("*").Id(p)), &elem, x.T)
		return primary(jen.Func().Params().Add(sc.g.goType(x.T)).Block(
			jen.If(jen.Id(p).Op(":=").Add(sc.expr(a).c), jen.Id(p).Op("!=").Nil()).Block(jen.Return(inner.c)),
			jen.Return(sc.valueAs(d, x.T).c),
		).Call())
	case "lower":
		return primary(jen.Qual(rt, "PyLower").Call(str(0)))
	case "upper":
		return primary(jen.Qual(rt, "PyUpper").Call(str(0)))
	case "trim":
		return primary(jen.Qual("strings", "TrimSpace").Call(str(0)))
	case "len":
		return primary(jen.Int64().Call(jen.Qual("unicode/utf8", "RuneCountInString").Call(str(0))))
	case "contains":
		if f, a, ok := caseCall(x.Args[0]); ok {
			// contains(lower(a), sub): the lowered text searched without
			// building it
			return primary(jen.Qual(rt, map[string]string{"lower": "ContainsLower", "upper": "ContainsUpper"}[f]).Call(sc.asString(a).c, str(1)))
		}
		return primary(jen.Qual("strings", "Contains").Call(str(0), str(1)))
	case "starts_with":
		return primary(jen.Qual("strings", "HasPrefix").Call(str(0), str(1)))
	case "ends_with":
		return primary(jen.Qual("strings", "HasSuffix").Call(str(0), str(1)))
	case "abs", "floor", "ceil", "round", "min_of", "max_of", "str":
		if sc.g.exact() && (isFloat(x.Args[0].Type()) || len(x.Args) > 1 && isFloat(x.Args[1].Type()) && x.Func != "round") {
			return sc.decimalCall(x)
		}
	}
	switch x.Func {
	case "abs":
		if isFloat(x.Args[0].Type()) {
			res, resFloat = primary(jen.Qual("math", "Abs").Call(arg(0).c)), true
		} else {
			a := arg(0)
			if simple(x.Args[0]) {
				res = primary(jen.Max(a.c, jen.Op("-").Add(a.at(precUnary))))
			} else {
				res = primary(jen.Qual(rt, "AbsInt").Call(a.c))
			}
		}
	case "floor", "ceil":
		if isFloat(x.Args[0].Type()) {
			fn := "Floor"
			if x.Func == "ceil" {
				fn = "Ceil"
			}
			res, resFloat = primary(jen.Qual("math", fn).Call(arg(0).c)), true
		} else {
			res = arg(0)
		}
	case "round":
		digits := jen.Lit(0)
		if len(x.Args) > 1 {
			digits = arg(1).c
		}
		if isFloat(x.Args[0].Type()) {
			res, resFloat = primary(jen.Qual(rt, "RoundDigits").Call(arg(0).c, digits)), true
		} else {
			// An int rounds to itself unless digits are negative, and
			// stays an int (as in Python).
			res = primary(jen.Qual(rt, "RoundInt").Call(arg(0).c, digits))
		}
	case "min_of", "max_of":
		a, b := arg(0), arg(1)
		at, bt := x.Args[0].Type(), x.Args[1].Type()
		if isFloat(at) != isFloat(bt) && (at.Kind == ir.KindInt || bt.Kind == ir.KindInt) {
			if !isFloat(at) {
				a = primary(jen.Float64().Call(a.c))
			} else {
				b = primary(jen.Float64().Call(b.c))
			}
		}
		resFloat = isFloat(at) || isFloat(bt)
		if at.Kind == ir.KindEnum {
			a = primary(jen.String().Call(a.c))
		}
		if bt.Kind == ir.KindEnum {
			b = primary(jen.String().Call(b.c))
		}
		if x.Func == "min_of" {
			res = primary(jen.Min(a.c, b.c))
		} else {
			res = primary(jen.Max(a.c, b.c))
		}
	case "days_between":
		return primary(jen.Int64().Call(jen.Add(arg(1).at(precAdd)).Op("-").Add(arg(0).at(precAdd + 1))))
	case "add_days", "add_months":
		if x.Args[0].Type().Kind == ir.KindDate {
			fn := map[string]string{"add_days": "AddDays", "add_months": "AddMonths"}[x.Func]
			return primary(jen.Add(arg(0).at(precPrimary)).Dot(fn).Call(jen.Int().Call(arg(1).c)))
		}
		return code{c: jen.Add(arg(0).at(precAdd)).Op("+").Qual(rt, "DateTime").Call(jen.Add(arg(1).at(precMul)).Op("*").Lit(86400)), prec: precAdd}
	case "add_hours", "add_minutes":
		secs := map[string]int{"add_hours": 3600, "add_minutes": 60}[x.Func]
		return code{c: jen.Add(arg(0).at(precAdd)).Op("+").Qual(rt, "DateTime").Call(jen.Add(arg(1).at(precMul)).Op("*").Lit(secs)), prec: precAdd}
	case "hours_between":
		return code{c: jen.Int64().Call(jen.Add(arg(1).at(precAdd)).Op("-").Add(arg(0).at(precAdd + 1))).Op("/").Lit(3600), prec: precMul}
	case "range":
		sc.g.needRange = true
		return primary(jen.Id("s").Dot("intRange").Call(arg(0).c, arg(1).c))
	case "end_of_month":
		d := arg(0).at(precPrimary)
		if x.Args[0].Type().Kind == ir.KindDateTime {
			d = d.Dot("Date").Call()
		}
		return primary(d.Dot("EndOfMonth").Call())
	case "round_to":
		if x.T.Kind == ir.KindInt {
			sc.g.needRoundToInt = true
			return primary(jen.Id("s").Dot("roundToInt").Call(arg(0).c, arg(1).c))
		}
		sc.g.needRoundTo = true
		return primary(jen.Id("s").Dot("roundTo").Call(arg(0).c, arg(1).c))
	case "add_working_days":
		sc.g.needCalendar = true
		return primary(jen.Id("s").Dot("addWorkingDays").Call(arg(0).c, arg(1).c))
	case "working_days_between":
		sc.g.needCalendar = true
		return primary(jen.Id("calendar").Dot("WorkingDaysBetween").Call(arg(0).c, arg(1).c))
	case "is_working_day":
		sc.g.needCalendar = true
		return primary(jen.Id("calendar").Dot("IsWorkingDay").Call(arg(0).c))
	case "pow":
		base := arg(0)
		if !isFloat(x.Args[0].Type()) {
			base = primary(sc.g.intToDecimal(base.c))
		}
		if sc.g.exact() {
			sc.g.needPow = true
			return primary(jen.Id("s").Dot("pow").Call(base.c, arg(1).c))
		}
		return primary(jen.Qual("math", "Pow").Call(base.c, jen.Float64().Call(arg(1).c)))
	case "year", "month", "day", "weekday":
		d := arg(0).at(precPrimary)
		if x.Args[0].Type().Kind == ir.KindDateTime {
			d = d.Dot("Date").Call()
		}
		switch x.Func {
		case "year":
			return primary(jen.Int64().Call(d.Dot("Year").Call()))
		case "month":
			return primary(jen.Int64().Call(d.Dot("Month").Call()))
		case "day":
			return primary(jen.Int64().Call(d.Dot("Day").Call()))
		}
		// ISO 8601: Monday is 1, Sunday 7 (time.Weekday counts from Sunday, 0).
		return primary(jen.Int64().Call(jen.Parens(d.Dot("Weekday").Call().Op("+").Lit(6)).Op("%").Lit(7).Op("+").Lit(1)))
	case "date":
		if v, ok := constDate(x); ok {
			return dateLit(v.String())
		}
		sc.g.needDate = true
		return primary(jen.Id("s").Dot("date").Call(arg(0).c, arg(1).c, arg(2).c))
	case "calc":
		sc.g.needCalc = true
		return primary(jen.Id("s").Dot("calc").Call(str(0)))
	case "str":
		if isFloat(x.Args[0].Type()) {
			return primary(jen.Qual(rt, "FloatString").Call(arg(0).c))
		}
		return primary(jen.Qual("strconv", "FormatInt").Call(arg(0).c, jen.Lit(10)))
	default:
		panic(unexpectedAt(x.Pos, "unknown function %s", x.Func))
	}
	// The declared result type decides: eval's toKind.
	switch {
	case resFloat && x.T.Kind == ir.KindInt:
		return primary(jen.Qual(rt, "FloatToInt").Call(res.c))
	case !resFloat && isFloat(x.T) && x.Args[0].Type().Kind == ir.KindInt:
		return primary(jen.Float64().Call(res.c))
	}
	return res
}

// decimalCall compiles abs, floor, ceil, round, min_of, max_of and str of
// exact decimals (an int argument of min_of or max_of converted), then
// the declared result type as eval's toKind.
func (sc *scope) decimalCall(x *ir.Call) code {
	dec := func(i int) code {
		c := sc.expr(x.Args[i])
		if !isDec(x.Args[i].Type()) {
			c = primary(sc.g.intToDecimal(c.c))
		}
		return c
	}
	var res code
	switch x.Func {
	case "abs":
		res = primary(jen.Add(dec(0).at(precPrimary)).Dot("Abs").Call())
	case "floor":
		res = primary(jen.Add(dec(0).at(precPrimary)).Dot("Floor").Call())
	case "ceil":
		res = primary(jen.Add(dec(0).at(precPrimary)).Dot("Ceil").Call())
	case "round":
		digits := jen.Lit(0)
		if len(x.Args) > 1 {
			digits = sc.expr(x.Args[1]).c
		}
		res = primary(jen.Add(dec(0).at(precPrimary)).Dot("Round").Call(digits))
	case "min_of":
		res = primary(jen.Qual(rt, "MinDecimal").Call(dec(0).c, dec(1).c))
	case "max_of":
		res = primary(jen.Qual(rt, "MaxDecimal").Call(dec(0).c, dec(1).c))
	case "str":
		return primary(jen.Add(dec(0).at(precPrimary)).Dot("String").Call())
	default:
		panic(unexpectedAt(x.Pos, "function %s on decimals", x.Func))
	}
	return sc.convert(res, &ir.Type{Kind: ir.KindDecimal}, x.T)
}

// nonZeroConst reports whether e is a number constant other than 0 (or
// the conversion of one).
func nonZeroConst(e ir.Expr) bool {
	if c, ok := e.(*ir.Convert); ok {
		e = c.X
	}
	l, ok := e.(*ir.Lit)
	if !ok || l.Value == nil {
		return false
	}
	switch l.Value.Kind {
	case ir.KindInt:
		return l.Value.Int != 0
	case ir.KindDecimal, ir.KindMoney:
		if l.Value.Dec != "" {
			return l.Value.Dec != "0"
		}
		return l.Value.Num != 0
	}
	return false
}
