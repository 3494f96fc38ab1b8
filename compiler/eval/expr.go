package eval

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// evalError is an error raised while evaluating: a missing record
// (CodeNotFound), a failed require, a constraint, or an evaluation problem.
type evalError struct {
	code string
	msg  string
	// limit marks an evaluation stopped by Limits or by its Budget, not
	// by the world's rules.
	limit bool
}

func (e *evalError) Error() string { return e.msg }

func errorf(code, format string, args ...any) *evalError {
	return &evalError{code: code, msg: fmt.Sprintf(format, args...)}
}

func notFound(e *ir.Entity, id string) *evalError {
	name := "record"
	if e != nil {
		name = e.Name
	}
	return errorf(CodeNotFound, runtime.MsgNotFound, name, id)
}

// evaluator evaluates expressions and statements against a state.
type evaluator struct {
	s *State
	// vars are the bound variables, innermost last. A loop pushes its
	// variable and pops it (and the lets of its body) when it ends; a let
	// executed again (in a loop body) rebinds its slot.
	vars  []binding
	depth int
	steps int64
	// budget, when not nil, is charged one unit per step (see Budget).
	budget *Budget
	// writing is set while a tool runs: rows of the tables it may write
	// are handed out as the state's own copies (table.mine).
	writing bool
	// indexes, in a read-only evaluation (an invariant, a rubric
	// assertion), are the indexes by entity and field its aggregates may
	// read, as the generated checks do (ir.CollectIndexes); each is built
	// on first use. Nil while a tool runs.
	indexes map[ir.IndexKey]map[string][]*row
	// lists are the rows of the partial tables a read-only evaluation
	// scanned (see rows).
	lists map[*table][]*row
	// exact is set in a world of exact numbers: decimals and money are
	// runtime.Decimal, not float64.
	exact bool
	// track, when set, makes the evaluator note in reads the entities
	// whose tables it reads (records looked up by id, scans, indexes):
	// what an invariant's outcome on a record depends on beyond the
	// record itself (see invMemo).
	track bool
	reads []*ir.Entity
}

type binding struct {
	v   *ir.Var
	val value
}

func (s *State) evaluator() *evaluator {
	return &evaluator{s: s, budget: s.budget, exact: !s.w.FloatNumbers}
}

// table is the state's table of e, noted in reads when the evaluator
// tracks its reads.
func (ev *evaluator) table(e *ir.Entity) *table {
	if ev.track && !slices.Contains(ev.reads, e) {
		ev.reads = append(ev.reads, e)
	}
	return ev.s.table(e)
}

// bind binds v, rebinding it when it is bound already.
func (ev *evaluator) bind(v *ir.Var, val value) {
	for i := len(ev.vars) - 1; i >= 0; i-- {
		if ev.vars[i].v == v {
			ev.vars[i].val = val
			return
		}
	}
	ev.vars = append(ev.vars, binding{v, val})
}

// lookup reads v.
func (ev *evaluator) lookup(v *ir.Var) (value, bool) {
	if i := ev.slot(v); i >= 0 {
		return ev.vars[i].val, true
	}
	return nil, false
}

// slot is the position of v's innermost binding in ev.vars, or -1.
func (ev *evaluator) slot(v *ir.Var) int {
	for i := len(ev.vars) - 1; i >= 0; i-- {
		if ev.vars[i].v == v {
			return i
		}
	}
	return -1
}

// enter accounts for one node of work and one level of nesting; the caller
// decrements ev.depth when done. (No defer: the hot paths return in many
// places, which would disable open-coded defers.)
func (ev *evaluator) enter() *evalError {
	ev.steps++
	ev.depth++
	if ev.depth > ev.s.Limits.MaxDepth {
		return &evalError{code: CodeInternal, msg: fmt.Sprintf("evaluation nested deeper than %d levels", ev.s.Limits.MaxDepth), limit: true}
	}
	if ev.steps > ev.s.Limits.MaxSteps {
		return ev.exceeded()
	}
	if b := ev.budget; b != nil {
		if b.left--; b.left < 0 {
			return b.exceeded()
		}
	}
	return nil
}

// tick accounts for one loop iteration.
func (ev *evaluator) tick() *evalError {
	ev.steps++
	if ev.steps > ev.s.Limits.MaxSteps {
		return ev.exceeded()
	}
	if b := ev.budget; b != nil {
		if b.left--; b.left < 0 {
			return b.exceeded()
		}
	}
	return nil
}

// charge accounts for n steps of work at once: the copying or comparing
// of a large value, which takes time with its size.
func (ev *evaluator) charge(n int64) *evalError {
	if n <= 0 {
		return nil
	}
	ev.steps += n
	if ev.steps > ev.s.Limits.MaxSteps {
		return ev.exceeded()
	}
	if b := ev.budget; b != nil {
		if b.left -= n; b.left < 0 {
			return b.exceeded()
		}
	}
	return nil
}

// MaxStringBytes bounds the strings evaluation builds: a string doubled in
// a loop would otherwise exhaust memory in a few dozen iterations.
const MaxStringBytes = 1 << 20

// cost is the work of copying or comparing v, in steps: its elements for a
// list, a map or a record value, a step per 64 bytes for a string.
func cost(v value) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x) / 64)
	case []value:
		return int64(len(x))
	case *mapValue:
		return int64(len(x.keys))
	case *structValue:
		return int64(len(x.vals))
	}
	return 0
}

func (ev *evaluator) exceeded() *evalError {
	return &evalError{code: CodeInternal, msg: fmt.Sprintf("evaluation exceeded %d steps", ev.s.Limits.MaxSteps), limit: true}
}

func (ev *evaluator) eval(x ir.Expr) (value, *evalError) {
	if err := ev.enter(); err != nil {
		return nil, err
	}
	v, err := ev.node(x)
	ev.depth--
	return v, err
}

func (ev *evaluator) node(x ir.Expr) (value, *evalError) {
	if x == nil {
		return nil, errorf(CodeInternal, "missing expression")
	}
	switch x := x.(type) {
	case *ir.Lit:
		v, err := fromIR(x.Value, x.T, ev.exact)
		if err != nil {
			return nil, errorf(CodeInternal, "%v", err)
		}
		return v, nil
	case *ir.VarRef:
		v, ok := ev.lookup(x.Var)
		if !ok {
			return nil, errorf(CodeInternal, "variable %s is not bound", varName(x.Var))
		}
		return v, nil
	case *ir.Today:
		if x.Now {
			return ev.s.now, nil
		}
		return ev.s.today, nil
	case *ir.FieldRef:
		return ev.field(x)
	case *ir.Deref:
		v, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		var e *ir.Entity
		if x.T != nil {
			e = x.T.Entity
		}
		return ev.record(v, e)
	case *ir.IDOf:
		v, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		if r, ok := v.(*row); ok {
			return r.id, nil
		}
		return v, nil // already an id, or null
	case *ir.Lookup:
		k, err := ev.eval(x.Key)
		if err != nil {
			return nil, err
		}
		return ev.record(k, x.Entity)
	case *ir.Handle:
		if x.T != nil && x.T.Kind == ir.KindRecord {
			return ev.record(x.ID, x.Entity)
		}
		return x.ID, nil
	case *ir.KeyIn:
		k, err := ev.eval(x.Key)
		if err != nil {
			return nil, err
		}
		id, ok := k.(string)
		if !ok {
			return nil, errorf(CodeInternal, "in %s: the id is %s, not a string", entityName(x.Entity), typeName(k))
		}
		t := ev.table(x.Entity)
		if t == nil {
			return nil, errorf(CodeInternal, "entity not in the world")
		}
		return (t.get(id) != nil) != x.Not, nil
	case *ir.Cast:
		v, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		str, ok := v.(string)
		if !ok {
			return nil, errorf(CodeInternal, "as %s: cannot convert %s", x.T, typeName(v))
		}
		if x.T == nil || x.T.Enum == nil {
			return nil, errorf(CodeInternal, "as: not an enum type")
		}
		if !x.T.Enum.Has(str) {
			return nil, fromToolError(runtime.NotInEnum(str, x.T.String(), strings.Join(x.T.Enum.Values, ", ")))
		}
		return str, nil
	case *ir.Binary:
		return ev.binary(x)
	case *ir.Unary:
		return ev.unary(x)
	case *ir.Convert:
		v, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		if i, ok := v.(int64); ok {
			return intToNum(i, ev.exact), nil
		}
		return v, nil
	case *ir.Cond:
		// Only the branch the condition selects is evaluated: a fault in
		// the other never happens.
		ok, err := ev.cond(x.Cond)
		if err != nil {
			return nil, err
		}
		if ok {
			return ev.eval(x.Then)
		}
		return ev.eval(x.Else)
	case *ir.NotNull:
		v, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, errorf(CodeInternal, "%s", ir.MsgNotNull)
		}
		return v, nil
	case *ir.Call:
		return ev.call(x)
	case *ir.Aggregate:
		return ev.aggregate(x)
	case *ir.ListLit:
		var elem *ir.Type
		if x.T != nil && x.T.Kind == ir.KindList {
			elem = x.T.Elem
		}
		out := make([]value, 0, len(x.Elems))
		for _, e := range x.Elems {
			v, err := ev.eval(e)
			if err != nil {
				return nil, err
			}
			out = append(out, conform(elem, v, ev.exact))
		}
		return out, nil
	case *ir.Index:
		c, err := ev.eval(x.X)
		if err != nil {
			return nil, err
		}
		k, err := ev.eval(x.Key)
		if err != nil {
			return nil, err
		}
		v, err := indexValue(c, k)
		if err != nil {
			return nil, err
		}
		return coerce(v, x.T, ev.exact), nil
	case *ir.StructLit:
		return ev.structLit(x)
	case *ir.Match:
		return ev.match(x)
	case *ir.MapLit:
		var elem *ir.Type
		if x.T != nil && x.T.Kind == ir.KindMap {
			elem = x.T.Elem
		}
		keys := make([]string, len(x.Entries))
		vals := make([]value, len(x.Entries))
		for i, e := range x.Entries {
			v, err := ev.eval(e.Value)
			if err != nil {
				return nil, err
			}
			keys[i], vals[i] = e.Key, conform(elem, v, ev.exact)
		}
		return newMap(keys, vals), nil
	}
	return nil, errorf(CodeInternal, "unsupported expression %T", x)
}

// structLit builds a value record: the tag set to the literal's case, then
// the given fields evaluated in the order listed (AllFields order) and
// conformed to their types, then the default of every field not given that
// belongs in the record's case (common fields and the case's own); every
// other field is null.
func (ev *evaluator) structLit(x *ir.StructLit) (value, *evalError) {
	d := x.Struct
	if d == nil {
		return nil, errorf(CodeInternal, "record literal without its record type")
	}
	vals := make([]value, numFields(d))
	given := make([]bool, len(vals))
	if d.Tag != nil && x.Case != nil {
		vals[0] = x.Case.Name
	}
	for _, fi := range x.Fields {
		if fi == nil || fi.Field == nil {
			return nil, errorf(CodeInternal, "%s literal: malformed field", d.Name)
		}
		i := structFieldIndex(d, fi.Field)
		if i < 0 {
			return nil, errorf(CodeInternal, "%s has no field %s", d.Name, fi.Field.Name)
		}
		v, err := ev.eval(fi.Value)
		if err != nil {
			return nil, err
		}
		vals[i], given[i] = conform(fi.Field.Type, v, ev.exact), true
	}
	sv := &structValue{def: d, vals: vals}
	c := sv.caseOf()
	var err *evalError
	eachField(d, func(i int, f *ir.Field) bool {
		if given[i] || f.Default == nil || f == d.Tag || !inCase(d, f, c) {
			return true
		}
		v, ferr := fromIR(f.Default, f.Type, ev.exact)
		if ferr != nil {
			err = errorf(CodeInternal, "%s.%s: default: %v", d.Name, f.Name, ferr)
			return false
		}
		vals[i] = v
		return true
	})
	if err != nil {
		return nil, err
	}
	return sv, nil
}

// fromToolError is the evaluation error of a runtime error: the same code
// and message, so that both sides agree by construction.
func fromToolError(err error) *evalError {
	te := runtime.AsToolError(err)
	return &evalError{code: te.Code, msg: te.Message}
}

func entityName(e *ir.Entity) string {
	if e == nil {
		return "record"
	}
	return e.Name
}

func varName(v *ir.Var) string {
	if v == nil {
		return "<nil>"
	}
	return v.Name
}

// record resolves v (a record, or the id of a record of e) to its live row.
// A missing id is a CodeNotFound error; null is an evaluation error.
func (ev *evaluator) record(v value, e *ir.Entity) (*row, *evalError) {
	switch x := v.(type) {
	case *row:
		return x, nil
	case string:
		t := ev.table(e)
		if t == nil {
			return nil, errorf(CodeInternal, "no table for the record %q", x)
		}
		r := t.get(x)
		if r == nil {
			return nil, notFound(e, x)
		}
		if ev.writing && t.base != nil && !t.shared {
			r = t.mine(r)
		}
		return r, nil
	case nil:
		return nil, errorf(CodeInternal, "null is not a record")
	}
	return nil, errorf(CodeInternal, "%s is not a record", typeName(v))
}

func (ev *evaluator) field(x *ir.FieldRef) (value, *evalError) {
	v, err := ev.eval(x.X)
	if err != nil {
		return nil, err
	}
	if sv, ok := v.(*structValue); ok {
		if x.Field == nil {
			return nil, errorf(CodeInternal, "a %s value has no id", sv.def.Name)
		}
		return readField(sv, x.Field)
	}
	if v == nil && x.Field != nil && x.Field.Entity == nil {
		return nil, errorf(CodeInternal, runtime.MsgFieldOfNull, x.Field.Name)
	}
	var e *ir.Entity
	if t := x.X.Type(); t != nil {
		e = t.Entity
	}
	if x.Field != nil && e == nil {
		e = x.Field.Entity
	}
	if x.Field == nil {
		if r, ok := v.(*row); ok {
			return r.id, nil
		}
		if s, ok := v.(string); ok {
			return s, nil
		}
	}
	r, err := ev.record(v, e)
	if err != nil {
		return nil, err
	}
	if x.Field == nil {
		return r.id, nil
	}
	i := fieldIndex(r.ent, x.Field)
	if i < 0 {
		return nil, errorf(CodeInternal, "%s has no field %s", r.ent.Name, x.Field.Name)
	}
	return r.vals[i], nil
}

// fieldIndex is the position of f among e's fields, or -1.
func fieldIndex(e *ir.Entity, f *ir.Field) int {
	for i, g := range e.Fields {
		if g == f {
			return i
		}
	}
	return -1
}

func (ev *evaluator) cond(x ir.Expr) (bool, *evalError) {
	v, err := ev.eval(x)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, errorf(CodeInternal, "condition is %s, not bool", typeName(v))
	}
	return b, nil
}

func (ev *evaluator) binary(x *ir.Binary) (value, *evalError) {
	switch x.Op {
	case "and", "or":
		l, err := ev.cond(x.L)
		if err != nil {
			return nil, err
		}
		if l == (x.Op == "or") {
			return l, nil
		}
		return ev.cond(x.R)
	case "in", "notin":
		l, err := ev.eval(x.L)
		if err != nil {
			return nil, err
		}
		found, err := ev.member(l, x.R)
		if err != nil {
			return nil, err
		}
		return found == (x.Op == "in"), nil
	}
	l, err := ev.eval(x.L)
	if err != nil {
		return nil, err
	}
	r, err := ev.eval(x.R)
	if err != nil {
		return nil, err
	}
	if err := ev.charge(cost(l) + cost(r)); err != nil {
		return nil, err
	}
	if ls, ok := l.(string); ok && x.Op == "+" {
		if rs, ok := r.(string); ok && len(ls)+len(rs) > MaxStringBytes {
			return nil, &evalError{code: CodeInternal, msg: fmt.Sprintf("evaluation built a string of more than %d bytes", MaxStringBytes), limit: true}
		}
	}
	switch x.Op {
	case "==", "!=", "<", "<=", ">", ">=":
		res, err := compare(x.Op, l, r)
		if err != nil {
			return nil, err
		}
		return res, nil
	case "+", "-", "*", "/", "%":
		v, err := arith(x.Op, l, r, ev.exact)
		if err != nil {
			return nil, err
		}
		return coerce(v, x.T, ev.exact), nil
	}
	return nil, errorf(CodeInternal, "unknown operator %q", x.Op)
}

// compare applies a comparison operator: == != by equal, the others by
// order.
func compare(op string, l, r value) (bool, *evalError) {
	switch op {
	case "==":
		return equal(l, r), nil
	case "!=":
		return !equal(l, r), nil
	}
	res, ok := order(op, l, r)
	if !ok {
		return false, errorf(CodeInternal, "cannot compare %s %s %s", typeName(l), op, typeName(r))
	}
	return res, nil
}

// member reports whether l equals an element of the list r, evaluating the
// elements of a list literal left to right and stopping at the first equal
// one, or, when r is a map, whether l is one of its keys.
func (ev *evaluator) member(l value, r ir.Expr) (bool, *evalError) {
	if lit, ok := r.(*ir.ListLit); ok {
		for _, e := range lit.Elems {
			v, err := ev.eval(e)
			if err != nil {
				return false, err
			}
			if equal(l, v) {
				return true, nil
			}
		}
		return false, nil
	}
	v, err := ev.eval(r)
	if err != nil {
		return false, err
	}
	if m, ok := v.(*mapValue); ok {
		k, ok := l.(string)
		if !ok {
			return false, nil
		}
		_, found := m.get(k)
		return found, nil
	}
	list, ok := v.([]value)
	if !ok {
		return false, errorf(CodeInternal, "in: %s is not a list or a map", typeName(v))
	}
	// A scan: a step per element, as the generated code counts it
	// (runtime.Counted).
	if err := ev.charge(int64(len(list))); err != nil {
		return false, err
	}
	for _, e := range list {
		if equal(l, e) {
			return true, nil
		}
	}
	return false, nil
}

// arith applies + - * / %: int with int stays int (wrapping on overflow, as
// Go does) except `/`, which always divides as float64; any float operand
// makes the operation float64 (IEEE: division by zero gives ±Inf or NaN);
// `%` on ints is Go's (truncated, the sign of the dividend) and fails on a
// zero divisor, on floats math.Mod; `+` concatenates strings; a date plus or
// minus an int moves by days; a date minus a date is the int number of days.
func arith(op string, l, r value, exact bool) (value, *evalError) {
	if l == nil || r == nil {
		return nil, errorf(CodeInternal, "null operand of %s", op)
	}
	switch a := l.(type) {
	case int64:
		switch b := r.(type) {
		case int64:
			if op == "/" && exact {
				return decimalArith(op, runtime.DecimalFromInt(a), runtime.DecimalFromInt(b))
			}
			switch op {
			case "+":
				return a + b, nil
			case "-":
				return a - b, nil
			case "*":
				return a * b, nil
			case "/":
				return float64(a) / float64(b), nil
			case "%":
				if b == 0 {
					return nil, errorf(CodeInternal, runtime.MsgModuloByZero)
				}
				return a % b, nil
			}
		case float64:
			return floatArith(op, float64(a), b), nil
		case decimal:
			return decimalArith(op, runtime.DecimalFromInt(a), b)
		case date:
			if op == "+" {
				return b + date(a), nil
			}
		}
	case float64:
		switch b := r.(type) {
		case int64:
			return floatArith(op, a, float64(b)), nil
		case float64:
			return floatArith(op, a, b), nil
		}
	case decimal:
		switch b := r.(type) {
		case int64:
			return decimalArith(op, a, runtime.DecimalFromInt(b))
		case decimal:
			return decimalArith(op, a, b)
		}
	case string:
		if b, ok := r.(string); ok && op == "+" {
			return a + b, nil
		}
	case date:
		switch b := r.(type) {
		case int64:
			switch op {
			case "+":
				return a + date(b), nil
			case "-":
				return a - date(b), nil
			}
		case date:
			if op == "-" {
				return int64(a - b), nil
			}
		}
	}
	return nil, errorf(CodeInternal, "cannot apply %s to %s and %s", op, typeName(l), typeName(r))
}

// decimalArith applies + - * / to exact decimals (runtime.Decimal): a
// result beyond the range, or a division by zero, fails the call as the
// generated code does (code internal).
func decimalArith(op string, a, b decimal) (value, *evalError) {
	switch op {
	case "+":
		return decimalOp(a.Add, b)
	case "-":
		return decimalOp(a.Sub, b)
	case "*":
		return decimalOp(a.Mul, b)
	case "/":
		var q decimal
		var ok bool
		if _, err := decimalOp(func(decimal) decimal { q, ok = a.Div(b); return q }, b); err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(CodeInternal, runtime.MsgDivisionByZero)
		}
		return q, nil
	}
	return nil, errorf(CodeInternal, "cannot apply %s to decimal and decimal", op)
}

// decimalOp is f(b), or the internal error of a result beyond the range.
func decimalOp(f func(decimal) decimal, b decimal) (d decimal, err *evalError) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(*runtime.DecimalError); !ok {
				panic(v)
			}
			err = errorf(CodeInternal, runtime.MsgDecimalOverflow)
		}
	}()
	return f(b), nil
}

func floatArith(op string, a, b float64) float64 {
	switch op {
	case "+":
		return a + b
	case "-":
		return a - b
	case "*":
		return a * b
	case "/":
		return a / b
	case "%":
		return math.Mod(a, b)
	}
	return math.NaN()
}

func (ev *evaluator) unary(x *ir.Unary) (value, *evalError) {
	v, err := ev.eval(x.X)
	if err != nil {
		return nil, err
	}
	switch x.Op {
	case "not":
		if b, ok := v.(bool); ok {
			return !b, nil
		}
	case "-":
		switch n := v.(type) {
		case int64:
			return -n, nil
		case float64:
			return -n, nil
		case decimal:
			return n.Neg(), nil
		}
	}
	return nil, errorf(CodeInternal, "cannot apply %s to %s", x.Op, typeName(v))
}

func (ev *evaluator) call(x *ir.Call) (value, *evalError) {
	args := make([]value, len(x.Args))
	for i, a := range x.Args {
		v, err := ev.eval(a)
		if err != nil {
			return nil, err
		}
		args[i] = v
	}
	var work int64
	for _, a := range args {
		work += cost(a)
	}
	if x.Func == "sorted" {
		work *= 20 // n log n
	}
	if err := ev.charge(work); err != nil {
		return nil, err
	}
	if x.Func == "coalesce" {
		if len(args) != 2 {
			return nil, errorf(CodeInternal, "coalesce takes 2 arguments, got %d", len(args))
		}
		if args[0] != nil {
			return coerce(args[0], x.T, ev.exact), nil
		}
		return coerce(args[1], x.T, ev.exact), nil
	}
	for i, a := range args {
		if a == nil && (x.Func != "append" || i != 1) {
			return nil, errorf(CodeInternal, runtime.MsgNullArgument, x.Func, i+1)
		}
	}
	if x.Func == "append" {
		if len(args) != 2 {
			return nil, errorf(CodeInternal, "append takes 2 arguments, got %d", len(args))
		}
		xs, ok := args[0].([]value)
		if !ok {
			return nil, errorf(CodeInternal, "append(%s, %s): unsupported argument types", typeName(args[0]), typeName(args[1]))
		}
		var elem *ir.Type
		if x.T != nil && x.T.Kind == ir.KindList {
			elem = x.T.Elem
		}
		out := make([]value, len(xs), len(xs)+1)
		copy(out, xs)
		return append(out, conform(elem, args[1], ev.exact)), nil
	}
	if x.Func == "pow" {
		return power(args, ev.exact)
	}
	if c, ok := ev.calendar(x.Func, args); ok {
		return c.v, c.err
	}
	v, err := builtin(x.Func, args)
	if err != nil {
		return nil, err
	}
	return toKind(v, x.T, ev.exact), nil
}

// toKind converts a numeric result to the call's declared type: an int
// result where decimal is declared becomes float64; a float result where int
// is declared becomes int64 by runtime.FloatToInt.
func toKind(v value, t *ir.Type, exact bool) value {
	if t == nil {
		return v
	}
	if f, ok := v.(float64); ok && t.Kind == ir.KindInt {
		return runtime.FloatToInt(f)
	}
	if d, ok := v.(decimal); ok && t.Kind == ir.KindInt {
		return d.Int64()
	}
	return coerce(v, t, exact)
}

func builtin(name string, args []value) (value, *evalError) {
	str := func(i int) (string, bool) {
		if i >= len(args) {
			return "", false
		}
		s, ok := args[i].(string)
		return s, ok
	}
	want := func(n int) *evalError {
		if len(args) != n {
			return errorf(CodeInternal, "%s takes %d arguments, got %d", name, n, len(args))
		}
		return nil
	}
	bad := func() (value, *evalError) {
		types := make([]string, len(args))
		for i, a := range args {
			types[i] = typeName(a)
		}
		return nil, errorf(CodeInternal, "%s(%s): unsupported argument types", name, strings.Join(types, ", "))
	}
	switch name {
	case "len", "keys", "sorted":
		if err := want(1); err != nil {
			return nil, err
		}
		switch c := args[0].(type) {
		case []value:
			switch name {
			case "len":
				return int64(len(c)), nil
			case "sorted":
				return sortedList(c)
			}
		case *mapValue:
			switch name {
			case "len":
				return int64(len(c.keys)), nil
			case "keys":
				out := make([]value, len(c.keys))
				for i, k := range c.keys {
					out[i] = k
				}
				return out, nil
			}
		case string:
			if name == "len" {
				return int64(utf8.RuneCountInString(c)), nil
			}
		}
		return bad()
	case "lower", "upper", "trim":
		if err := want(1); err != nil {
			return nil, err
		}
		s, ok := str(0)
		if !ok {
			return bad()
		}
		switch name {
		case "lower":
			return runtime.PyLower(s), nil
		case "upper":
			return runtime.PyUpper(s), nil
		}
		return strings.TrimSpace(s), nil
	case "contains", "starts_with", "ends_with":
		if err := want(2); err != nil {
			return nil, err
		}
		s, ok1 := str(0)
		p, ok2 := str(1)
		if !ok1 || !ok2 {
			return bad()
		}
		switch name {
		case "contains":
			return strings.Contains(s, p), nil
		case "starts_with":
			return strings.HasPrefix(s, p), nil
		}
		return strings.HasSuffix(s, p), nil
	case "abs", "floor", "ceil":
		if err := want(1); err != nil {
			return nil, err
		}
		switch n := args[0].(type) {
		case int64:
			if name == "abs" && n < 0 {
				return -n, nil
			}
			return n, nil
		case float64:
			switch name {
			case "abs":
				return math.Abs(n), nil
			case "floor":
				return math.Floor(n), nil
			}
			return math.Ceil(n), nil
		case decimal:
			switch name {
			case "abs":
				return n.Abs(), nil
			case "floor":
				return n.Floor(), nil
			}
			return n.Ceil(), nil
		}
		return bad()
	case "calc":
		if err := want(1); err != nil {
			return nil, err
		}
		s, ok := str(0)
		if !ok {
			return bad()
		}
		f, err := runtime.Calc(s)
		if err != nil {
			return nil, errorf(CodePreconditionFailed, "%s", runtime.AsToolError(err).Message)
		}
		return f, nil
	case "str":
		if err := want(1); err != nil {
			return nil, err
		}
		switch n := args[0].(type) {
		case int64:
			return strconv.FormatInt(n, 10), nil
		case float64:
			return runtime.FloatString(n), nil
		case decimal:
			return n.String(), nil
		}
		return bad()
	case "round":
		if len(args) != 1 && len(args) != 2 {
			return nil, errorf(CodeInternal, "round takes 1 or 2 arguments, got %d", len(args))
		}
		var digits int64
		if len(args) == 2 {
			d, ok := args[1].(int64)
			if !ok {
				return bad()
			}
			digits = d
		}
		var x float64
		switch n := args[0].(type) {
		case int64:
			// Python rounds an int exactly, to an int, as the generated
			// code does.
			return runtime.RoundInt(n, digits), nil
		case float64:
			x = n
		case decimal:
			var r decimal
			if _, err := decimalOp(func(decimal) decimal { r = n.Round(digits); return r }, n); err != nil {
				return nil, err
			}
			return r, nil
		default:
			return bad()
		}
		return runtime.RoundDigits(x, digits), nil
	case "round_to":
		if err := want(2); err != nil {
			return nil, err
		}
		return roundTo(args[0], args[1])
	case "end_of_month":
		if err := want(1); err != nil {
			return nil, err
		}
		switch d := args[0].(type) {
		case date:
			return d.EndOfMonth(), nil
		case dateTime:
			return d.Date().EndOfMonth(), nil
		}
		return bad()
	case "min_of", "max_of":
		if err := want(2); err != nil {
			return nil, err
		}
		return minMax(name == "min_of", args[0], args[1])
	case "add_days", "add_months", "add_hours", "add_minutes":
		if err := want(2); err != nil {
			return nil, err
		}
		n, ok := args[1].(int64)
		if !ok {
			return bad()
		}
		switch d := args[0].(type) {
		case date:
			switch name {
			case "add_days":
				return d.AddDays(int(n)), nil
			case "add_months":
				return d.AddMonths(int(n)), nil
			}
		case dateTime:
			switch name {
			case "add_days":
				return d + dateTime(n*86400), nil
			case "add_hours":
				return d + dateTime(n*3600), nil
			case "add_minutes":
				return d + dateTime(n*60), nil
			}
		}
		return bad()
	case "range":
		if err := want(2); err != nil {
			return nil, err
		}
		a, ok1 := args[0].(int64)
		b, ok2 := args[1].(int64)
		if !ok1 || !ok2 {
			return bad()
		}
		ints, err := runtime.IntRange(a, b)
		if err != nil {
			return nil, errorf(CodeInternal, "%s", err.Error())
		}
		out := make([]value, len(ints))
		for i, n := range ints {
			out[i] = n
		}
		return out, nil
	case "hours_between":
		if err := want(2); err != nil {
			return nil, err
		}
		a, ok1 := args[0].(dateTime)
		b, ok2 := args[1].(dateTime)
		if !ok1 || !ok2 {
			return bad()
		}
		return int64(b-a) / 3600, nil
	case "days_between":
		if err := want(2); err != nil {
			return nil, err
		}
		a, ok1 := args[0].(date)
		b, ok2 := args[1].(date)
		if !ok1 || !ok2 {
			return bad()
		}
		return int64(b - a), nil
	case "year", "month", "day", "weekday":
		if err := want(1); err != nil {
			return nil, err
		}
		var d date
		switch x := args[0].(type) {
		case date:
			d = x
		case dateTime:
			d = x.Date()
		default:
			return bad()
		}
		switch name {
		case "year":
			return int64(d.Year()), nil
		case "month":
			return int64(d.Month()), nil
		case "day":
			return int64(d.Day()), nil
		}
		return int64(d.Weekday()+6)%7 + 1, nil // ISO 8601: Monday is 1, Sunday 7
	case "date":
		if err := want(3); err != nil {
			return nil, err
		}
		y, ok1 := args[0].(int64)
		m, ok2 := args[1].(int64)
		d, ok3 := args[2].(int64)
		if !ok1 || !ok2 || !ok3 {
			return bad()
		}
		v, err := runtime.NewDate(int(y), int(m), int(d))
		if err != nil {
			return nil, errorf(CodeInternal, runtime.MsgInvalidDate, y, m, d, err)
		}
		return v, nil
	}
	return nil, errorf(CodeInternal, "unknown function %s", name)
}

type calResult struct {
	v   value
	err *evalError
}

// calendar evaluates the functions of the world's working days
// (runtime.Calendar); ok is false for another function.
func (ev *evaluator) calendar(name string, args []value) (res calResult, ok bool) {
	switch name {
	case "add_working_days", "working_days_between", "is_working_day":
	default:
		return res, false
	}
	bad := func() (calResult, bool) {
		return calResult{err: errorf(CodeInternal, "%s: unsupported argument types", name)}, true
	}
	d, isDate := args[0].(date)
	if !isDate {
		return bad()
	}
	switch name {
	case "is_working_day":
		return calResult{v: ev.s.cal.IsWorkingDay(d)}, true
	case "working_days_between":
		e, ok := args[1].(date)
		if !ok {
			return bad()
		}
		return calResult{v: ev.s.cal.WorkingDaysBetween(d, e)}, true
	}
	n, isInt := args[1].(int64)
	if !isInt {
		return bad()
	}
	r, err := ev.s.cal.AddWorkingDays(d, n)
	if err != nil {
		return calResult{err: errorf(CodeInternal, "%s", err.Error())}, true
	}
	return calResult{v: r}, true
}

// power is pow(x, n): an exact decimal's Pow (0 to a negative power is
// an evaluation error, "division by zero"), or math.Pow on floats.
func power(args []value, exact bool) (value, *evalError) {
	if len(args) != 2 {
		return nil, errorf(CodeInternal, "pow takes 2 arguments, got %d", len(args))
	}
	n, ok := args[1].(int64)
	if !ok {
		return nil, errorf(CodeInternal, "pow: the exponent is %s", typeName(args[1]))
	}
	x := args[0]
	if i, isInt := x.(int64); isInt {
		x = intToNum(i, exact)
	}
	switch b := x.(type) {
	case decimal:
		var p decimal
		var ok bool
		if _, err := decimalOp(func(decimal) decimal { p, ok = b.Pow(n); return p }, b); err != nil {
			return nil, err
		}
		if !ok {
			return nil, errorf(CodeInternal, runtime.MsgDivisionByZero)
		}
		return p, nil
	case float64:
		return math.Pow(b, float64(n)), nil
	}
	return nil, errorf(CodeInternal, "pow of %s", typeName(x))
}

// roundTo is round_to(x, step) (runtime.Decimal.RoundTo, runtime.RoundToInt);
// a step that is not positive, or a result out of range, fails the call.
func roundTo(x, step value) (value, *evalError) {
	switch n := x.(type) {
	case int64:
		s, ok := step.(int64)
		if !ok {
			break
		}
		r, err := runtime.RoundToInt(n, s)
		if err != nil {
			return nil, errorf(CodeInternal, "%s", err.Error())
		}
		return r, nil
	case decimal:
		s, ok := step.(decimal)
		if !ok {
			break
		}
		var r decimal
		var err error
		if _, oerr := decimalOp(func(decimal) decimal { r, err = n.RoundTo(s); return r }, n); oerr != nil {
			return nil, oerr
		}
		if err != nil {
			return nil, errorf(CodeInternal, "%s", err.Error())
		}
		return r, nil
	}
	return nil, errorf(CodeInternal, "round_to of %s by %s", typeName(x), typeName(step))
}

// minMax is Go's built-in min or max on two numbers (NaN if either is NaN),
// days, instants or strings.
func minMax(isMin bool, a, b value) (value, *evalError) {
	pick := func(aFirst bool) value {
		if aFirst == isMin {
			return a
		}
		return b
	}
	if x, ok := a.(int64); ok {
		if y, ok := b.(decimal); ok {
			a = runtime.DecimalFromInt(x)
			_ = y
		}
	}
	if y, ok := b.(int64); ok {
		if _, ok := a.(decimal); ok {
			b = runtime.DecimalFromInt(y)
		}
	}
	switch x := a.(type) {
	case decimal:
		if y, ok := b.(decimal); ok {
			return pick(x.Cmp(y) <= 0), nil
		}
	case int64:
		switch y := b.(type) {
		case int64:
			if isMin {
				return min(x, y), nil
			}
			return max(x, y), nil
		case float64:
			a = float64(x)
		}
	case string:
		if y, ok := b.(string); ok {
			return pick(x <= y), nil
		}
	case date:
		if y, ok := b.(date); ok {
			return pick(x <= y), nil
		}
	case dateTime:
		if y, ok := b.(dateTime); ok {
			return pick(x <= y), nil
		}
	}
	fa, ok1 := a.(float64)
	var fb float64
	switch y := b.(type) {
	case float64:
		fb = y
	case int64:
		fb = float64(y)
	default:
		ok1 = false
	}
	if !ok1 {
		return nil, errorf(CodeInternal, "min_of/max_of: cannot order %s and %s", typeName(a), typeName(b))
	}
	if isMin {
		return min(fa, fb), nil
	}
	return max(fa, fb), nil
}

// rows returns the live records of e in insertion order. Callers that write
// while iterating (for) must copy the slice first.
func (ev *evaluator) rows(e *ir.Entity) ([]*row, *evalError) {
	t := ev.table(e)
	if t == nil {
		return nil, errorf(CodeInternal, "entity not in the world")
	}
	if ev.writing && t.base != nil && !t.shared {
		t.mineAll() // a scan by a tool: every row it hands out is the state's
	}
	if t.base == nil {
		return t.rows, nil
	}
	// A partial table's rows, listed once per evaluation: it reads, so
	// the table does not change while it runs.
	if rows, ok := ev.lists[t]; ok {
		return rows, nil
	}
	if ev.lists == nil {
		ev.lists = map[*table][]*row{}
	}
	rows := t.list()
	ev.lists[t] = rows
	return rows, nil
}

func (ev *evaluator) aggregate(x *ir.Aggregate) (value, *evalError) {
	if x.Source != nil {
		src, err := ev.eval(x.Source)
		if err != nil {
			return nil, err
		}
		_, elems, err := elements(src)
		if err != nil {
			return nil, err
		}
		n := len(ev.vars)
		ev.vars = append(ev.vars, binding{v: x.Var})
		v, err := aggregateItems(ev, x, x.Where, n, elems)
		ev.vars = ev.vars[:n]
		return v, err
	}
	rows, err := ev.rows(x.Entity)
	if err != nil {
		return nil, err
	}
	where := x.Where
	if ev.indexes != nil {
		if bucket, rest, ok, err := ev.indexed(x); err != nil {
			return nil, err
		} else if ok {
			rows, where = bucket, rest
		}
	}
	n := len(ev.vars)
	ev.vars = append(ev.vars, binding{v: x.Var})
	v, err := aggregateItems(ev, x, where, n, rows)
	ev.vars = ev.vars[:n]
	return v, err
}

// indexed looks up the candidates of an aggregate over an entity whose
// where clause holds `v.f == k` in the index by f, when the evaluation may
// read that index: the records whose f is k, in insertion order, and the
// rest of the where clause. Like the generated code, it evaluates k once
// (before any record), and the rest only on those records.
func (ev *evaluator) indexed(x *ir.Aggregate) (bucket []*row, rest ir.Expr, ok bool, err *evalError) {
	f, k, rest, ok := ir.IndexedAggregate(x)
	if !ok {
		return nil, nil, false, nil
	}
	key := ir.IndexKey{Entity: x.Entity, Field: f}
	idx, allowed := ev.indexes[key]
	if !allowed {
		return nil, nil, false, nil
	}
	kv, err := ev.eval(k)
	if err != nil {
		return nil, nil, false, err
	}
	if r, isRow := kv.(*row); isRow {
		kv = r.id
	}
	id, isString := kv.(string)
	if !isString {
		return nil, nil, false, errorf(CodeInternal, "index of %s by %s: the key is %s, not a string", x.Entity.Name, f.Name, typeName(kv))
	}
	if idx == nil {
		t := ev.table(x.Entity)
		fi := fieldIndex(x.Entity, f)
		if t == nil || fi < 0 {
			return nil, nil, false, errorf(CodeInternal, "no index of %s by %s", x.Entity.Name, f.Name)
		}
		idx = make(map[string][]*row)
		for r := range t.all() {
			if err := ev.tick(); err != nil {
				return nil, nil, false, err
			}
			if s, isStr := r.vals[fi].(string); isStr {
				idx[s] = append(idx[s], r)
			}
		}
		ev.indexes[key] = idx
	}
	return idx[id], rest, true, nil
}

// readIndexes makes ev read the indexes worth building for the
// expressions, as the generated code builds them (ir.CollectIndexes with
// inLoop: true for an invariant, false for a rubric assertion).
func (ev *evaluator) readIndexes(inLoop bool, xs ...ir.Expr) {
	var keys []ir.IndexKey
	seen := map[ir.IndexKey]bool{}
	for _, x := range xs {
		ir.CollectIndexes(x, inLoop, seen, &keys)
	}
	ev.indexes = make(map[ir.IndexKey]map[string][]*row, len(keys))
	for _, k := range keys {
		ev.indexes[k] = nil
	}
}

// aggregateItems runs the aggregate, binding each record or element in turn
// to the loop variable in ev.vars[slot]. (An index, not a pointer: nested
// aggregates append to ev.vars and may move it.)
func aggregateItems[T any](ev *evaluator, x *ir.Aggregate, where ir.Expr, slot int, rows []T) (value, *evalError) {
	var (
		count   int64
		isum    int64
		fsum    float64
		dsum    decimal
		best    value
		allInts = true
		list    []value
	)
	// Aggregates do not write, so the table cannot change while they run.
	for i, r := range rows {
		if err := ev.tick(); err != nil {
			return nil, err
		}
		ev.vars[slot].val = any(r)
		if where != nil {
			ok, err := ev.cond(where)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		switch x.Op {
		case "count":
			count++
		case "exists":
			return true, nil
		case "first":
			return any(r), nil
		case "index":
			return int64(i), nil
		case "list":
			// an element costs a step as it is kept, beside the iteration's:
			// the lists an evaluation builds are bounded by its steps
			if err := ev.tick(); err != nil {
				return nil, err
			}
			v, err := ev.eval(x.Value)
			if err != nil {
				return nil, err
			}
			list = append(list, conform(x.T.Elem, v, ev.exact))
		case "forall":
			ok, err := ev.cond(x.Value)
			if err != nil {
				return nil, err
			}
			if !ok {
				return false, nil
			}
		case "sum", "min", "max":
			v, err := ev.eval(x.Value)
			if err != nil {
				return nil, err
			}
			switch n := v.(type) {
			case nil:
				continue // an optional value that is unset does not count
			case int64:
				isum += n
				fsum += float64(n)
				if ev.exact {
					var err *evalError
					if dsum, err = decimalOp(dsum.Add, runtime.DecimalFromInt(n)); err != nil {
						return nil, err
					}
				}
			case float64:
				fsum += n
				allInts = false
			case decimal:
				var err *evalError
				if dsum, err = decimalOp(dsum.Add, n); err != nil {
					return nil, err
				}
				allInts = false
			default:
				return nil, errorf(CodeInternal, "%s over %s values", x.Op, typeName(v))
			}
			if x.Op == "sum" {
				continue
			}
			if best == nil {
				best = v
			} else {
				m, err := minMax(x.Op == "min", best, v)
				if err != nil {
					return nil, err
				}
				best = m
			}
		default:
			return nil, errorf(CodeInternal, "unknown aggregate %s", x.Op)
		}
	}
	switch x.Op {
	case "count":
		return count, nil
	case "exists":
		return false, nil
	case "first":
		what := "element"
		if x.Entity != nil {
			what = x.Entity.Name
		}
		return nil, fromToolError(runtime.NoMatch(what))
	case "index":
		return int64(-1), nil
	case "list":
		if list == nil {
			list = []value{}
		}
		return list, nil
	case "forall":
		return true, nil
	case "sum":
		if allInts {
			return toKind(isum, x.T, ev.exact), nil
		}
		if ev.exact {
			return toKind(dsum, x.T, ev.exact), nil
		}
		return toKind(fsum, x.T, ev.exact), nil
	case "min", "max":
		if best == nil {
			best = int64(0)
		}
		return toKind(best, x.T, ev.exact), nil
	}
	return nil, errorf(CodeInternal, "unknown aggregate %s", x.Op)
}
