package gen

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// The Go shapes of the composite types:
//
//	record Address { … }            type Address struct { … }, held by value
//	record PaymentMethod by source  a struct with the tag (an enum type of
//	                                the case names) and the case fields as
//	                                pointers (nil unless the record is of
//	                                that case; lists and maps: nil)
//	list<T>                         []T   (an optional list is nil when null)
//	map<string, T>                  map[string]T (likewise; iterated in key
//	                                order everywhere)
//	T? for a record or a scalar     *T
//
// A non-optional list or map is never nil: an empty one is a non-nil empty
// slice or map, which encoding/json writes as [] or {} (null for nil).
//
// Rows are copy-on-write: Table.Mut copies a row deeply (clone), so a path
// write (`set order.items[i].price = p`) goes into memory no other state,
// local or snapshot shares. To keep it so, every composite value stored
// into a row or a local is a deep copy unless it was just built (fresh):
// composite values are never aliased between two places that outlive an
// expression.

// eachEnum calls fn with the enum types declared inside t (an enum field,
// or the elements of a list or map of enums).
func eachEnum(t *ir.Type, fn func(*ir.EnumDef)) {
	for ; t != nil; t = t.Elem {
		if t.Kind == ir.KindEnum && t.Enum != nil {
			fn(t.Enum)
		}
	}
}

// isComposite reports whether t is a list, a map or a value record.
func isComposite(t *ir.Type) bool {
	return t != nil && (t.Kind == ir.KindList || t.Kind == ir.KindMap || t.Kind == ir.KindStruct)
}

// nilable reports whether the Go form of t has nil as a value without being
// a pointer to it: lists, maps and entity records.
func nilable(t *ir.Type) bool {
	return t.Kind == ir.KindList || t.Kind == ir.KindMap || t.Kind == ir.KindRecord
}

// pointerOpt reports whether an optional t is a pointer to its value.
func pointerOpt(t *ir.Type) bool { return t.Optional && !nilable(t) }

// newOf is new(v), a pointer to a new variable of Go type typ holding v:
// v is converted to typ first unless its text already has that type (an
// untyped constant would take its default type: new(7200) is an *int).
func newOf(typ, v *jen.Statement) *jen.Statement {
	t, x := goText(typ), goText(v)
	switch {
	case strings.HasPrefix(x, t+"(") || strings.HasPrefix(x, t+"{"),
		t == "string" && strings.HasPrefix(x, `"`),
		t == "bool" && (x == "true" || x == "false"),
		typedName.MatchString(x) && x != "true" && x != "false" && x != "nil":
		return jen.New(v)
	}
	return jen.New(typ.Call(v))
}

// typedName matches a name that stands for a typed value in generated code:
// an enum constant, today, a local variable.
var typedName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// mayBeNull reports whether the Go value of e may be nil because its type
// is optional: a literal other than null never is.
func mayBeNull(e ir.Expr) bool {
	if l, ok := e.(*ir.Lit); ok {
		return l.Value == nil || l.Value.Kind == ir.KindNull
	}
	return e.Type().Optional
}

// storedType is the type of a field as its Go struct holds it: a case field
// of a variant record is optional (nil when the record is of another case).
func (g *generator) storedType(f *ir.Field) *ir.Type {
	if f.Struct != nil && g.caseOf(f) != nil && !f.Type.Optional {
		t := *f.Type
		t.Optional = true
		return &t
	}
	return f.Type
}

// caseOf is the variant case that declares f, or nil.
func (g *generator) caseOf(f *ir.Field) *ir.Case {
	if f.Case != nil {
		return f.Case
	}
	if f.Struct != nil {
		if si := g.structs[f.Struct]; si != nil {
			return si.cases[f]
		}
	}
	return nil
}

// fieldGo is the Go name of a field of an entity or a value record.
func (g *generator) fieldGo(f *ir.Field) string {
	if f.Entity != nil {
		return g.ents[f.Entity].fields[f]
	}
	return g.structs[f.Struct].fields[f]
}

// owner names the record type that declares f, as the spec writes it.
func owner(f *ir.Field) string {
	if f.Entity != nil {
		return f.Entity.Name
	}
	if f.Struct != nil {
		return f.Struct.Name
	}
	return "?"
}

// deep reports whether a copy of a value of t must copy memory (a slice, a
// map, a record behind a pointer) for the copy to share nothing with it.
func (g *generator) deep(t *ir.Type) bool {
	switch t.Kind {
	case ir.KindList, ir.KindMap:
		return true
	case ir.KindStruct:
		return t.Optional || g.structDeep(t.Struct, map[*ir.StructDef]bool{})
	}
	return false
}

func (g *generator) structDeep(s *ir.StructDef, seen map[*ir.StructDef]bool) bool {
	if seen[s] {
		return false
	}
	seen[s] = true
	for _, f := range s.AllFields() {
		t := g.storedType(f)
		switch t.Kind {
		case ir.KindList, ir.KindMap:
			return true
		case ir.KindStruct:
			if t.Optional || g.structDeep(t.Struct, seen) {
				return true
			}
		}
	}
	return false
}

// cloneOf is a deep copy of x, a value of type t.
func (g *generator) cloneOf(t *ir.Type, x *jen.Statement) *jen.Statement {
	if !g.deep(t) {
		return x
	}
	switch t.Kind {
	case ir.KindList:
		if !g.deep(t.Elem) {
			return jen.Qual("slices", "Clone").Call(x)
		}
		return jen.Qual(rt, "CloneSlice").Call(x, g.cloneFunc(t.Elem))
	case ir.KindMap:
		if !g.deep(t.Elem) {
			return jen.Qual("maps", "Clone").Call(x)
		}
		return jen.Qual(rt, "CloneMap").Call(x, g.cloneFunc(t.Elem))
	case ir.KindStruct:
		typ := g.structs[t.Struct].typ
		if t.Optional {
			return jen.Qual(rt, "ClonePtr").Call(x, jen.Id(typ).Dot("clone"))
		}
		return x.Dot("clone").Call()
	}
	return x
}

// cloneFunc is a function value copying values of t deeply.
func (g *generator) cloneFunc(t *ir.Type) *jen.Statement {
	if t.Kind == ir.KindStruct && !t.Optional {
		return jen.Id(g.structs[t.Struct].typ).Dot("clone")
	}
	return jen.Func().Params(jen.Id("x").Add(g.goType(t))).Add(g.goType(t)).Block(jen.Return(g.cloneOf(t, jen.Id("x"))))
}

// fresh reports whether the value of e was just built and shares no memory
// with a row, a local or another value, so that it may be stored without a
// copy: literals of fresh or scalar parts, keys(m), and sorted(xs) and
// append(xs, x) when the elements hold no memory of their own.
func (g *generator) fresh(e ir.Expr) bool {
	if !g.deep(e.Type()) {
		return true
	}
	switch x := e.(type) {
	case *ir.Lit:
		return true
	case *ir.ListLit:
		for _, el := range x.Elems {
			if !g.fresh(el) {
				return false
			}
		}
		return true
	case *ir.MapLit:
		for _, en := range x.Entries {
			if !g.fresh(en.Value) {
				return false
			}
		}
		return true
	case *ir.StructLit:
		for _, fi := range x.Fields {
			if !g.fresh(fi.Value) {
				return false
			}
		}
		return true
	case *ir.Call:
		switch x.Func {
		case "keys":
			return true
		case "sorted", "append":
			return !g.deep(x.T.Elem)
		}
	}
	return false
}

// eqOf is the language's == on two values of type t (deep for composite
// values; null equal only to null).
func (g *generator) eqOf(t *ir.Type, a, b *jen.Statement) *jen.Statement {
	switch t.Kind {
	case ir.KindList:
		if comparableElem(t.Elem) {
			return jen.Qual(rt, "EqualLists").Call(a, b)
		}
		return jen.Qual(rt, "EqualListsFunc").Call(a, b, g.eqFunc(t.Elem))
	case ir.KindMap:
		if comparableElem(t.Elem) {
			return jen.Qual(rt, "EqualMaps").Call(a, b)
		}
		return jen.Qual(rt, "EqualMapsFunc").Call(a, b, g.eqFunc(t.Elem))
	case ir.KindStruct:
		g.markEqual(t.Struct)
		typ := g.structs[t.Struct].typ
		if t.Optional {
			return jen.Qual(rt, "EqualPtrFunc").Call(a, b, jen.Id(typ).Dot("equal"))
		}
		return a.Dot("equal").Call(b)
	}
	if pointerOpt(t) {
		return jen.Qual(rt, "EqualPtr").Call(a, b)
	}
	return jen.Add(a).Op("==").Add(b)
}

// comparableElem reports whether Go's == on values of t is the language's.
func comparableElem(t *ir.Type) bool {
	return !t.Optional && !isComposite(t) && t.Kind != ir.KindRecord
}

// eqFunc is a function value comparing two values of t.
func (g *generator) eqFunc(t *ir.Type) *jen.Statement {
	if t.Kind == ir.KindStruct && !t.Optional {
		g.markEqual(t.Struct)
		return jen.Id(g.structs[t.Struct].typ).Dot("equal")
	}
	return jen.Func().Params(jen.List(jen.Id("x"), jen.Id("y")).Add(g.goType(t))).Bool().Block(jen.Return(g.eqOf(t, jen.Id("x"), jen.Id("y"))))
}

// markEqual records that the record type s (and those inside it) needs an
// equal method.
func (g *generator) markEqual(s *ir.StructDef) {
	if g.needEqual[s] {
		return
	}
	g.needEqual[s] = true
	for _, f := range s.AllFields() {
		for t := f.Type; t != nil; t = t.Elem {
			if t.Kind == ir.KindStruct {
				g.markEqual(t.Struct)
			}
		}
	}
}

// valueNeedsCheck reports whether a value of t stored in field f (nil for
// an element) can break a constraint that Go's types do not rule out: an
// enum value, a finite number, a bound, a variant's case, inside lists,
// maps and records.
func (g *generator) valueNeedsCheck(t *ir.Type, f *ir.Field) bool {
	return g.needsCheck(t, f, map[*ir.StructDef]bool{})
}

func (g *generator) needsCheck(t *ir.Type, f *ir.Field, seen map[*ir.StructDef]bool) bool {
	if f != nil && len(f.Bounds) > 0 {
		return true
	}
	switch t.Kind {
	case ir.KindEnum:
		return true
	case ir.KindDecimal, ir.KindMoney:
		return !g.exact() // a float may be NaN or infinite; a decimal is finite

	case ir.KindList, ir.KindMap:
		return g.needsCheck(t.Elem, nil, seen)
	case ir.KindStruct:
		return g.structNeedsCheck(t.Struct, seen)
	}
	return false
}

func (g *generator) structNeedsCheck(s *ir.StructDef, seen map[*ir.StructDef]bool) bool {
	if s.Tag != nil {
		return true
	}
	if seen[s] {
		return false
	}
	seen[s] = true
	for _, f := range s.Fields {
		if g.needsCheck(f.Type, f, seen) {
			return true
		}
	}
	return false
}

// checker builds the statements that check a value against its
// constraints, with compiler/eval's messages and order: for a value, its
// finiteness, enum and bounds; then the elements of a list in order, the
// values of a map in key order, the fields of a record in field order.
// path is a Go string expression naming the value (Order.items[2].price).
type checker struct {
	g    *generator
	fail func(err jen.Code) jen.Code // the statement returning an error
	n    int                         // loop variables handed out
}

func (c *checker) temp(base string) string {
	c.n++
	if c.n == 1 {
		return base
	}
	return fmt.Sprintf("%s%d", base, c.n)
}

// value checks x, a Go expression of t's Go type (addressable when t is a
// record held by value), stored in field f (nil for an element).
func (c *checker) value(t *ir.Type, f *ir.Field, x, path *jen.Statement) []jen.Code {
	g := c.g
	if !g.valueNeedsCheck(t, f) {
		return nil
	}
	if t.Optional {
		body := c.present(t, f, x, path)
		if len(body) == 0 {
			return nil
		}
		return []jen.Code{jen.If(jen.Add(x).Op("!=").Nil()).Block(body...)}
	}
	cv := func(format string, args ...jen.Code) jen.Code {
		return c.fail(jen.Qual(rt, "ConstraintViolation").Call(append([]jen.Code{jen.Lit(format)}, args...)...))
	}
	var out []jen.Code
	switch t.Kind {
	case ir.KindDecimal, ir.KindMoney:
		if c.g.exact() {
			break // a decimal is always finite
		}
		out = append(out, jen.If(jen.Qual("math", "IsNaN").Call(x).Op("||").Qual("math", "IsInf").Call(x, jen.Lit(0))).Block(
			cv("%s must be a finite number, got %v", path, x)))
	case ir.KindEnum:
		out = append(out, jen.If(jen.Op("!").Add(x).Dot("Valid").Call()).Block(
			cv("%s must be one of %s, got %q", path, jen.Lit(strings.Join(t.Enum.Values, ", ")), jen.String().Call(x))))
	}
	if f != nil {
		sc := g.newScope()
		for _, b := range f.Bounds {
			bound := sc.lit(b.Value, t)
			holds := jen.Add(x).Op(b.Op).Add(bound.c)
			if isDec(t) && g.exact() {
				recv := jen.Add(x)
				if strings.HasPrefix(goText(recv), "*") {
					recv = jen.Parens(x)
				}
				holds = recv.Dot("Cmp").Call(bound.c).Op(b.Op).Lit(0)
			}
			out = append(out, jen.If(jen.Op("!").Parens(holds)).Block(
				cv(runtime.MsgOutOfBounds, path, jen.Lit(b.Op), jen.Lit(valueText(b.Value, t)), jen.Qual(rt, "ValueText").Call(x))))
		}
	}
	switch t.Kind {
	case ir.KindList:
		if g.valueNeedsCheck(t.Elem, nil) {
			i := c.temp("i")
			elemPath := jen.Add(path).Op("+").Lit("[").Op("+").Qual("strconv", "Itoa").Call(jen.Id(i)).Op("+").Lit("]")
			out = append(out, jen.For(jen.Id(i).Op(":=").Range().Add(x)).Block(c.value(t.Elem, nil, jen.Add(x).Index(jen.Id(i)), elemPath)...))
		}
	case ir.KindMap:
		if g.valueNeedsCheck(t.Elem, nil) {
			k, v := c.temp("k"), c.temp("v")
			elemPath := jen.Add(path).Op("+").Lit("[").Op("+").Qual("strconv", "Quote").Call(jen.Id(k)).Op("+").Lit("]")
			out = append(out, jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Qual(rt, "InKeyOrder").Call(x)).Block(c.value(t.Elem, nil, jen.Id(v), elemPath)...))
		}
	case ir.KindStruct:
		out = append(out, jen.If(jen.Err().Op(":=").Add(x).Dot("check").Call(path), jen.Err().Op("!=").Nil()).Block(c.fail(jen.Err())))
	}
	return out
}

// present checks x, a Go expression of an optional t known not to be nil:
// its value (through the pointer, for a scalar) checked as non-optional.
func (c *checker) present(t *ir.Type, f *ir.Field, x, path *jen.Statement) []jen.Code {
	inner := *t
	inner.Optional = false
	v := x
	switch {
	case pointerOpt(t) && t.Kind == ir.KindEnum:
		v = jen.Parens(jen.Op("*").Add(x)) // (*x).Valid()
	case pointerOpt(t) && t.Kind != ir.KindStruct:
		v = jen.Op("*").Add(x)
	}
	return c.value(&inner, f, v, path)
}

// refsIn reports whether a value of t can hold a ref (to e, or to any
// entity when e is nil).
func refsIn(t *ir.Type, e *ir.Entity, seen map[*ir.StructDef]bool) bool {
	switch t.Kind {
	case ir.KindRef:
		return e == nil || t.Entity == e
	case ir.KindList, ir.KindMap:
		return refsIn(t.Elem, e, seen)
	case ir.KindStruct:
		if seen[t.Struct] {
			return false
		}
		seen[t.Struct] = true
		for _, f := range t.Struct.AllFields() {
			if refsIn(f.Type, e, seen) {
				return true
			}
		}
	}
	return false
}

// eachRef builds statements that visit every ref inside x, a value of t,
// in JSON order (list order, map key order, field order): visit gets the
// Go string expression of the id, the entity and a Go string expression of
// the path (when path is not nil), and returns the statements to run.
func (c *checker) eachRef(t *ir.Type, x, path *jen.Statement, visit func(id *jen.Statement, e *ir.Entity, path *jen.Statement) []jen.Code) []jen.Code {
	g := c.g
	if !refsIn(t, nil, map[*ir.StructDef]bool{}) {
		return nil
	}
	sub := func(p *jen.Statement, parts ...jen.Code) *jen.Statement {
		if path == nil {
			return nil
		}
		return jen.Add(p).Op("+").Add(parts...)
	}
	if t.Optional {
		inner := *t
		inner.Optional = false
		v := x
		if pointerOpt(t) && t.Kind != ir.KindStruct {
			v = jen.Parens(jen.Op("*").Add(x))
		}
		return []jen.Code{jen.If(jen.Add(x).Op("!=").Nil()).Block(c.eachRef(&inner, v, path, visit)...)}
	}
	switch t.Kind {
	case ir.KindRef:
		return visit(x, t.Entity, path)
	case ir.KindList:
		i := c.temp("i")
		return []jen.Code{jen.For(jen.Id(i).Op(":=").Range().Add(x)).Block(
			c.eachRef(t.Elem, jen.Add(x).Index(jen.Id(i)), sub(path, jen.Lit("["), jen.Op("+").Qual("strconv", "Itoa").Call(jen.Id(i)).Op("+").Lit("]")), visit)...)}
	case ir.KindMap:
		k, v := c.temp("k"), c.temp("v")
		return []jen.Code{jen.For(jen.List(jen.Id(k), jen.Id(v)).Op(":=").Range().Qual(rt, "InKeyOrder").Call(x)).Block(
			c.eachRef(t.Elem, jen.Id(v), sub(path, jen.Lit("["), jen.Op("+").Qual("strconv", "Quote").Call(jen.Id(k)).Op("+").Lit("]")), visit)...)}
	case ir.KindStruct:
		var out []jen.Code
		for _, f := range t.Struct.AllFields() {
			out = append(out, c.eachRef(g.storedType(f), jen.Add(x).Dot(g.fieldGo(f)), sub(path, jen.Lit("."+f.Name)), visit)...)
		}
		return out
	}
	return nil
}
