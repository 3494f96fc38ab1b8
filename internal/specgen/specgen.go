// Package specgen generates random world specs that are valid by
// construction: grammar-directed and type-correct, they check clean, and
// their generated Go packages must type-check and pass go vet. They use
// the constructs the code generator compiles: entities with fields of every
// type (optional or not, bounded, defaulted), value records and variants,
// lists and maps, standard and custom tools whose bodies have requires,
// locals, ifs, loops over entities and lists that write, inserts and
// returns; expressions with aggregates with and without where, comparisons
// of optional values and reads of them where a check says they are not
// null (narrowing), conditional expressions, membership, date parts and
// arithmetic; invariants,
// a seed and tasks with golden solutions.
//
// Every tool is meant to succeed on some arguments the conformance search
// tries: a custom tool's conditions are written `force or …` with a bool
// parameter force, its writes respect the fields' bounds, and nothing in
// it can fault (no index out of range, no first without a match, no
// division).
//
// Spec(seed) is deterministic: a seed names one spec. It is used by the
// property tests of gen (and can feed a corpus generator).
package specgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/dsl"
)

// Spec returns the spec of seed, in the canonical layout (worldc fmt).
//
// Random conditions joined by `and` can contradict each other (x == a and
// x == b), which the checker refuses (W028: a condition that can never
// hold). The generator does not track what each chain already says;
// instead a draw whose spec the checker refuses is drawn again, from the
// same seed and the next attempt, so that every spec returned checks
// clean and a seed still names one spec.
func Spec(seed uint64) string {
	var last string
	for attempt := uint64(0); attempt < maxAttempts; attempt++ {
		src := draw(seed, attempt)
		_, diags := compiler.CheckSource(fmt.Sprintf("random_%d.world", seed), []byte(src))
		if !diags.HasErrors() {
			return src
		}
		last = diags.Text()
	}
	panic(fmt.Sprintf("specgen: seed %d: no draw in %d checks clean; the last:\n%s", seed, maxAttempts, last))
}

// maxAttempts bounds the draws of one seed: a generator whose draws the
// checker refuses that often has a bug.
const maxAttempts = 64

// draw is one attempt at the spec of seed.
func draw(seed, attempt uint64) string {
	g := &generator{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15^(attempt*0x2545f4914f6cdd1d))), name: fmt.Sprintf("random_%d", seed)}
	src := g.world()
	out, err := dsl.FormatSource(g.name+".world", []byte(src))
	if err != nil {
		// The generator writes only what the grammar accepts: a spec that
		// does not parse is a bug of the generator.
		panic(fmt.Sprintf("specgen: seed %d: %v\n%s", seed, err, src))
	}
	return string(out)
}

// kind is a spec type's kind.
type kind int

const (
	kString kind = iota
	kText
	kInt
	kDecimal
	kMoney
	kBool
	kDate
	kDateTime
	kEnum
	kRef
	kList
	kMap
	kRecord // a value record (Addr) or a variant (Pay)
)

// typ is a spec type.
type typ struct {
	k    kind
	opt  bool
	elem *typ   // of a list or map
	enum *enum  // of an enum
	ent  *ent   // of a ref (or a record of an entity, in a variable)
	rec  *vrec  // of a value record
	row  bool   // a record of an entity (a loop variable, a ref parameter): fields can be read and set
	name string // how an enum type is named outside its field: Entity.field
}

func (t *typ) nonOpt() *typ   { c := *t; c.opt = false; return &c }
func (t *typ) optional() *typ { c := *t; c.opt = true; return &c }

func (t *typ) numeric() bool { return t.k == kInt || t.k == kDecimal || t.k == kMoney }
func (t *typ) textual() bool { return t.k == kString || t.k == kText }
func (t *typ) ordered() bool { return t.numeric() || t.textual() || t.k == kDate || t.k == kDateTime }

// same reports whether values of a and b compare with == (optionality
// aside).
func same(a, b *typ) bool {
	switch {
	case a.k != b.k:
		return false
	case a.k == kEnum:
		return a.enum == b.enum
	case a.k == kRef:
		return a.ent == b.ent
	case a.k == kList, a.k == kMap:
		return a.elem.k == b.elem.k && same(a.elem, b.elem)
	case a.k == kRecord:
		return a.rec == b.rec
	}
	return true
}

// spec renders the type as a field or parameter type.
func (t *typ) spec() string {
	var s string
	switch t.k {
	case kString:
		s = "string"
	case kText:
		s = "text"
	case kInt:
		s = "int"
	case kDecimal:
		s = "decimal"
	case kMoney:
		s = "money"
	case kBool:
		s = "bool"
	case kDate:
		s = "date"
	case kDateTime:
		s = "datetime"
	case kEnum:
		s = t.name
	case kRef:
		s = "ref " + t.ent.qual
	case kList:
		s = "list<" + t.elem.spec() + ">"
	case kMap:
		s = "map<string, " + t.elem.spec() + ">"
	case kRecord:
		s = t.rec.name
	}
	if t.opt {
		s += "?"
	}
	return s
}

type enum struct {
	values []string
}

// vrec is a value record or a variant.
type vrec struct {
	name   string
	fields []*field // common fields
	tag    string   // the variant's tag field, "" for a plain record
	cases  []vcase
}

type vcase struct {
	name   string
	fields []*field
}

type field struct {
	name  string
	t     *typ
	lower string // a bound `>= lower`, "" for none
	def   string // a default, "" for none
}

// required reports whether a literal must give the field.
func (f *field) required() bool { return !f.t.opt && f.def == "" }

type ent struct {
	name   string
	svc    *service
	qual   string // svc.Name
	fields []*field
	status *field   // an enum field every entity has, for tasks and invariants
	seeds  []string // the handles of its seed records
}

type service struct {
	name string
	ents []*ent
}

// variable is a name in scope.
type variable struct {
	name    string
	t       *typ
	mutable bool // a var local
}

type scope struct {
	vars []variable
	svc  *service // the service of the tool (which entities it may write)
}

func (s *scope) with(v variable) *scope {
	c := *s
	c.vars = append(slices.Clone(s.vars), v)
	return &c
}

type generator struct {
	r        *rand.Rand
	name     string
	svcs     []*service
	ents     []*ent
	addr     *vrec
	pay      *vrec
	n        int // counter for fresh names
	b        strings.Builder
	markTool map[*ent]string
	// wrote marks a custom tool whose body has a write at its top level
	// (outside every if and loop): a call that succeeds can change the
	// state, as an LLM-written tool's does.
	wrote bool
}

func (g *generator) intn(n int) int    { return g.r.IntN(n) }
func (g *generator) chance(p int) bool { return g.r.IntN(100) < p }

func pick[T any](g *generator, xs []T) T { return xs[g.r.IntN(len(xs))] }

func (g *generator) fresh(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

func (g *generator) printf(format string, args ...any) { fmt.Fprintf(&g.b, format, args...) }

var (
	fieldWords = []string{"label", "note", "qty", "price", "rate", "flag", "opened", "stamp", "level", "tags", "extras", "place", "method", "owner", "memo", "score", "limit_at", "size", "weight", "code"}
	enumWords  = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	entWords   = []string{"Account", "Ticket", "Order", "Device", "Booking", "Invoice", "Parcel", "Member", "Asset", "Claim"}
	strWords   = []string{"north", "south", "red", "blue", "A-1", "b 2", "Zürich", "x\"y", ""}
)

// world writes the whole spec.
func (g *generator) world() string {
	g.markTool = map[*ent]string{}
	g.printf("world %s {\n title \"Random world %s\"\n industry \"testing\"\n country \"DE\"\n currency \"EUR\"\n today 2026-03-14\n}\n\n", g.name, g.name)
	g.records()
	g.declare()
	for _, s := range g.svcs {
		g.service(s)
	}
	g.invariants()
	g.seed()
	g.tasks()
	return g.b.String()
}

// records declares the value record Addr and the variant Pay.
func (g *generator) records() {
	g.addr = &vrec{name: "Addr", fields: []*field{
		{name: "city", t: &typ{k: kString}},
		{name: "zip", t: &typ{k: kString, opt: true}},
	}}
	g.pay = &vrec{name: "Pay", tag: "kind",
		fields: []*field{{name: "ref_no", t: &typ{k: kString}}},
		cases: []vcase{
			{name: "card", fields: []*field{{name: "last4", t: &typ{k: kString}}}},
			{name: "cash"},
			{name: "voucher", fields: []*field{{name: "balance", t: &typ{k: kDecimal}, lower: "0"}}},
		}}
	g.printf("record Addr \"A postal address\" {\n city string\n zip string?\n}\n\n")
	g.printf("record Pay by kind \"How a bill is paid\" {\n ref_no string\n case card { last4 string }\n case cash {}\n case voucher { balance decimal >= 0 }\n}\n\n")
}

// declare chooses the services, entities and fields.
func (g *generator) declare() {
	g.svcs = []*service{{name: "core"}, {name: "ops"}}
	words := slices.Clone(entWords)
	g.r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	counts := []int{2 + g.intn(2), 1 + g.intn(2)}
	for si, s := range g.svcs {
		for i := 0; i < counts[si]; i++ {
			e := &ent{name: words[0], svc: s}
			words = words[1:]
			e.qual = s.name + "." + e.name
			s.ents = append(s.ents, e)
			g.ents = append(g.ents, e)
		}
	}
	for i, e := range g.ents {
		vals := slices.Clone(enumWords)
		g.r.Shuffle(len(vals), func(i, j int) { vals[i], vals[j] = vals[j], vals[i] })
		st := &typ{k: kEnum, enum: &enum{values: vals[:3+g.intn(2)]}, name: e.name + ".status"}
		e.status = &field{name: "status", t: st, def: st.enum.values[0]}
		e.fields = append(e.fields, e.status)
		words := slices.Clone(fieldWords)
		g.r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
		n := 3 + g.intn(5)
		for j := 0; j < n; j++ {
			f := &field{name: words[j], t: g.fieldType(e, i)}
			switch {
			case f.t.numeric() && !f.t.opt && g.chance(50):
				f.lower = "0"
			case f.t.k == kInt && !f.t.opt && g.chance(30):
				f.def = "1"
			case f.t.k == kBool && g.chance(50):
				f.def = "false"
			}
			e.fields = append(e.fields, f)
		}
		// An entity of ops refers to one of core, so that no service is
		// isolated.
		if e.svc.name == "ops" && !slices.ContainsFunc(e.fields, func(f *field) bool { return f.t.k == kRef && f.t.ent.svc.name == "core" }) {
			e.fields = append(e.fields, &field{name: "origin", t: &typ{k: kRef, ent: g.svcs[0].ents[0]}})
		}
	}
}

// fieldType is a random type for a field of the i-th entity (refs point to
// earlier entities, so that seed records can be written in order).
func (g *generator) fieldType(e *ent, i int) *typ {
	var t *typ
	switch g.intn(16) {
	case 0:
		t = &typ{k: kString}
	case 1:
		t = &typ{k: kText}
	case 2:
		t = &typ{k: kInt}
	case 3:
		t = &typ{k: kDecimal}
	case 4:
		t = &typ{k: kMoney}
	case 5:
		t = &typ{k: kBool}
	case 6:
		t = &typ{k: kDate}
	case 7:
		t = &typ{k: kDateTime}
	case 8:
		if i == 0 {
			t = &typ{k: kDate}
			break
		}
		t = &typ{k: kRef, ent: g.ents[g.intn(i)]}
	case 9:
		t = &typ{k: kList, elem: pick(g, []*typ{{k: kString}, {k: kInt}, {k: kDate}, {k: kRecord, rec: g.addr}})}
	case 10:
		t = &typ{k: kMap, elem: pick(g, []*typ{{k: kInt}, {k: kDecimal}, {k: kString}})}
	case 11:
		t = &typ{k: kRecord, rec: g.addr}
	case 12:
		t = &typ{k: kRecord, rec: g.pay}
	case 13:
		t = &typ{k: kInt}
	case 14:
		t = &typ{k: kDate}
	default:
		t = &typ{k: kString}
	}
	if t.k != kList && t.k != kMap && g.chance(35) {
		t.opt = true
	}
	return t
}

func (g *generator) service(s *service) {
	g.printf("service %s \"The %s service\" {\n", s.name, s.name)
	for _, e := range s.ents {
		g.printf(" entity %s \"A %s\" {\n", e.name, strings.ToLower(e.name))
		for _, f := range e.fields {
			t := f.t.spec()
			if f == e.status {
				t = "enum { " + strings.Join(f.t.enum.values, " ") + " }"
			}
			g.printf("  %s %s", f.name, t)
			if f.def != "" {
				g.printf(" = %s", f.def)
			}
			if f.lower != "" {
				g.printf(" >= %s", f.lower)
			}
			g.printf("\n")
		}
		g.printf(" }\n\n")
	}
	for _, e := range s.ents {
		g.printf(" tool get_%s: get %s\n", strings.ToLower(e.name), e.name)
		if g.chance(50) {
			g.printf(" tool list_%s: list %s\n", strings.ToLower(e.name), e.name)
		}
		if g.chance(30) {
			var by []string
			for _, f := range e.fields {
				if f.t.k == kString || f.t.k == kInt || f.t.k == kEnum {
					by = append(by, f.name)
				}
			}
			if len(by) > 0 {
				g.printf(" tool search_%s: search %s by %s\n", strings.ToLower(e.name), e.name, strings.Join(by[:1+g.intn(len(by))], ", "))
			}
		}
		if g.chance(25) {
			g.printf(" tool update_%s: update %s\n", strings.ToLower(e.name), e.name)
		}
		mark := "mark_" + strings.ToLower(e.name)
		g.markTool[e] = mark
		g.printf(" tool %s(rec: ref %s, to: %s) \"Move a %s to another status\" {\n  set rec.status = to\n  return rec\n }\n\n", mark, e.name, e.status.t.name, strings.ToLower(e.name))
	}
	n := 2 + g.intn(3)
	for i := 0; i < n; i++ {
		g.customTool(s)
	}
	g.printf("}\n\n")
}

// customTool writes a tool with random parameters and body.
func (g *generator) customTool(s *service) {
	name := g.fresh("act_")
	sc := &scope{svc: s}
	var params []string
	sc = sc.with(variable{name: "force", t: &typ{k: kBool}})
	params = append(params, "force: bool")
	n := 1 + g.intn(3)
	for i := 0; i < n; i++ {
		pname := fmt.Sprintf("arg_%s", fieldWords[g.intn(len(fieldWords))])
		if slices.ContainsFunc(sc.vars, func(v variable) bool { return v.name == pname }) {
			continue
		}
		t := g.paramType(s)
		sc = sc.with(variable{name: pname, t: t})
		params = append(params, pname+": "+t.spec())
	}
	g.printf(" tool %s(%s) \"A random tool\" {\n", name, strings.Join(params, ", "))
	// A ref parameter is a record inside the body.
	for i, v := range sc.vars {
		if v.t.k == kRef {
			rt := *v.t
			rt.row = true
			sc.vars[i].t = &rt
		}
	}
	g.wrote = false
	body := g.stmts(sc, 2+g.intn(4), toolDepth)
	if !g.wrote {
		// A tool that writes: a set of a record it takes, or an insert.
		w := ""
		if ws := sc.writable(); len(ws) > 0 && g.chance(50) {
			w = g.setField(sc, pick(g, ws))
		}
		if w == "" {
			w = g.insert(sc)
		}
		body += w
	}
	g.b.WriteString(body)
	g.printf("  return %s\n }\n\n", g.expr(sc, g.returnType(), 2))
}

func (g *generator) paramType(s *service) *typ {
	switch g.intn(9) {
	case 0, 1:
		e := pick(g, g.ents)
		return &typ{k: kRef, ent: e, opt: g.chance(20)}
	case 2:
		return &typ{k: kInt, opt: g.chance(30)}
	case 3:
		return &typ{k: kString, opt: g.chance(30)}
	case 4:
		return &typ{k: kDate, opt: g.chance(30)}
	case 5:
		return &typ{k: kList, elem: &typ{k: kString}}
	case 6:
		e := pick(g, g.ents)
		return &typ{k: kEnum, enum: e.status.t.enum, name: e.status.t.name}
	case 7:
		return &typ{k: kRecord, rec: g.addr}
	}
	return &typ{k: kMoney}
}

func (g *generator) returnType() *typ {
	return pick(g, []*typ{{k: kInt}, {k: kString}, {k: kBool}, {k: kDecimal}, {k: kDate}})
}

// toolDepth is the nesting depth a custom tool's body starts at.
const toolDepth = 2

// stmts writes n statements (depth bounds nesting).
func (g *generator) stmts(sc *scope, n, depth int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		var st string
		st, sc = g.stmt(sc, depth)
		b.WriteString(st)
	}
	return b.String()
}

// writable lists the record variables of entities of the tool's service.
func (sc *scope) writable() []variable {
	var out []variable
	for _, v := range sc.vars {
		if v.t.k == kRef && v.t.row && !v.t.opt && v.t.ent.svc == sc.svc {
			out = append(out, v)
		}
	}
	return out
}

func (g *generator) stmt(sc *scope, depth int) (string, *scope) {
	switch g.intn(10) {
	case 9:
		if s, ok := g.narrowedSet(sc); ok {
			return s, sc
		}
	case 0, 1:
		return fmt.Sprintf("  require force or %s else %q\n", g.paren(g.boolExpr(sc, 2)), "random condition "+g.fresh("")), sc
	case 2:
		t := g.valueType()
		name := g.fresh("loc")
		return fmt.Sprintf("  let %s = %s\n", name, g.expr(sc, t, 2)), sc.with(variable{name: name, t: t})
	case 3:
		t := pick(g, []*typ{{k: kInt}, {k: kString}, {k: kDecimal}, {k: kBool}})
		name := g.fresh("acc")
		s := fmt.Sprintf("  var %s = %s\n", name, g.expr(sc, t, 1))
		sc = sc.with(variable{name: name, t: t, mutable: true})
		s += fmt.Sprintf("  set %s = %s\n", name, g.expr(sc, t, 2))
		return s, sc
	case 4:
		if depth == 0 {
			break
		}
		s := fmt.Sprintf("  if %s {\n%s  }", g.boolExpr(sc, 2), g.stmts(sc, 1+g.intn(2), depth-1))
		if g.chance(50) {
			s += fmt.Sprintf(" else {\n%s  }", g.stmts(sc, 1, depth-1))
		}
		return s + "\n", sc
	case 5:
		// A loop over an entity of the service that writes its records.
		if depth == 0 {
			break
		}
		e := pick(g, sc.svc.ents)
		v := g.fresh("it")
		inner := sc.with(variable{name: v, t: &typ{k: kRef, ent: e, row: true}})
		s := fmt.Sprintf("  for %s in %s", v, e.name)
		if g.chance(60) {
			s += " where " + g.boolExpr(inner, 2)
		}
		set := g.setField(inner, variable{name: v, t: inner.vars[len(inner.vars)-1].t})
		if set == "" {
			break
		}
		s += " {\n" + set
		if g.chance(40) {
			s += g.stmts(inner, 1, depth-1)
		}
		return s + "  }\n", sc
	case 6:
		if ws := sc.writable(); len(ws) > 0 {
			if set := g.setField(sc, pick(g, ws)); set != "" {
				g.wrote = g.wrote || depth == toolDepth
				return set, sc
			}
		}
	case 7:
		g.wrote = g.wrote || depth == toolDepth
		return g.insert(sc), sc
	case 8:
		// A loop over a list.
		if depth == 0 {
			break
		}
		src := g.expr(sc, &typ{k: kList, elem: &typ{k: kString}}, 1)
		v := g.fresh("el")
		inner := sc.with(variable{name: v, t: &typ{k: kString}})
		acc := g.fresh("acc")
		s := fmt.Sprintf("  var %s = 0\n  for %s in %s {\n", acc, v, src)
		inner = inner.with(variable{name: acc, t: &typ{k: kInt}, mutable: true})
		s += fmt.Sprintf("   if %s {\n    set %s = %s + 1\n   }\n  }\n", g.boolExpr(inner, 1), acc, acc)
		return s, sc.with(variable{name: acc, t: &typ{k: kInt}, mutable: true})
	}
	return fmt.Sprintf("  require force or %s else %q\n", g.paren(g.boolExpr(sc, 1)), "random condition "+g.fresh("")), sc
}

// narrowedSet writes an optional value into a required field where a
// check says it is not null: `if x != null { set v.f = x }`, or the else
// block of `if x == null`.
func (g *generator) narrowedSet(sc *scope) (string, bool) {
	ws := sc.writable()
	if len(ws) == 0 {
		return "", false
	}
	w := pick(g, ws)
	for _, f := range w.t.ent.fields {
		if f == w.t.ent.status || f.t.opt || f.t.k == kRef || f.t.k == kList || f.t.k == kMap || f.t.k == kRecord || f.t.k == kEnum {
			continue
		}
		opts := g.optionals(sc, f.t)
		if len(opts) == 0 {
			continue
		}
		x := pick(g, opts)
		val := x
		if f.lower != "" {
			val = fmt.Sprintf("max_of(%s, 0)", x)
		}
		if g.chance(50) {
			return fmt.Sprintf("  if %s != null {\n   set %s.%s = %s\n  }\n", x, w.name, f.name, val), true
		}
		return fmt.Sprintf("  if %s == null {\n   set %s.%s = %s\n  } else {\n   set %s.%s = %s\n  }\n", x, w.name, f.name, g.literalIn(f), w.name, f.name, val), true
	}
	return "", false
}

// literalIn is a constant for the field f, within its bound.
func (g *generator) literalIn(f *field) string {
	x := g.literal(f.t.nonOpt())
	if f.lower != "" {
		x = fmt.Sprintf("max_of(%s, 0)", x)
	}
	return x
}

// setField writes `set v.f = …` for a field of v's entity (not its status,
// which the mark tools and the tasks own), never of its own value (`set
// v.f = v.f` writes nothing); "" when it finds no other value.
func (g *generator) setField(sc *scope, v variable) string {
	var fs []*field
	for _, f := range v.t.ent.fields {
		if f != v.t.ent.status {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		return ""
	}
	f := pick(g, fs)
	self := v.name + "." + f.name
	for range 4 {
		if val := g.fieldValue(sc, f); !selfValue(val, self) {
			return fmt.Sprintf("   set %s = %s\n", self, val)
		}
	}
	return ""
}

// selfValue reports whether the expression val is self's own value: self,
// a conditional of self either way, or self kept within its bound
// (max_of(self, 0) of a field >= 0).
func selfValue(val, self string) bool {
	switch {
	case val == self:
		return true
	case strings.HasPrefix(val, "max_of(") && strings.HasSuffix(val, ", 0)"):
		return selfValue(strings.TrimSuffix(strings.TrimPrefix(val, "max_of("), ", 0)"), self)
	case strings.HasPrefix(val, "(if ") && strings.HasSuffix(val, ")"):
		// (if c then a else b), a and b self's own value, however
		// deeply nested.
		_, then, els, ok := splitCond(val[len("(if ") : len(val)-1])
		return ok && selfValue(then, self) && selfValue(els, self)
	}
	return false
}

// splitCond splits the inside of a conditional, `c then a else b`, at its
// " then " and " else " outside every bracket and string literal.
func splitCond(s string) (c, then, els string, ok bool) {
	depth, thenAt, elseAt := 0, -1, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			continue
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if depth != 0 {
			continue
		}
		switch {
		case thenAt < 0 && strings.HasPrefix(s[i:], " then "):
			thenAt = i
		case thenAt >= 0 && elseAt < 0 && strings.HasPrefix(s[i:], " else "):
			elseAt = i
		}
	}
	if thenAt < 0 || elseAt < 0 {
		return "", "", "", false
	}
	return s[:thenAt], s[thenAt+len(" then ") : elseAt], s[elseAt+len(" else "):], true
}

// fieldValue is an expression to store in f: within its bound, possibly
// null when f is optional.
func (g *generator) fieldValue(sc *scope, f *field) string {
	if f.t.opt && g.chance(20) {
		return "null"
	}
	t := f.t.nonOpt()
	if f.t.opt && g.chance(40) {
		t = f.t // an optional value of the field's type
	}
	x := g.expr(sc, t, 2)
	if f.lower != "" {
		x = fmt.Sprintf("max_of(%s, 0)", x)
	}
	return x
}

// insert writes an insert of an entity of the tool's service.
func (g *generator) insert(sc *scope) string {
	e := pick(g, sc.svc.ents)
	var inits []string
	for _, f := range e.fields {
		if f == e.status || (!f.required() && g.chance(50)) {
			continue
		}
		inits = append(inits, fmt.Sprintf("%s: %s", f.name, g.fieldValue(sc, f)))
	}
	if len(inits) == 0 {
		inits = append(inits, "status: "+e.status.t.enum.values[0])
	}
	return fmt.Sprintf("  insert %s { %s }\n", e.name, strings.Join(inits, ", "))
}

// valueType is a random type of a let.
func (g *generator) valueType() *typ {
	return pick(g, []*typ{{k: kInt}, {k: kString}, {k: kDecimal}, {k: kMoney}, {k: kBool}, {k: kDate},
		{k: kList, elem: &typ{k: kString}}, {k: kList, elem: &typ{k: kInt}}, {k: kMap, elem: &typ{k: kInt}}, {k: kRecord, rec: g.addr}})
}

func (g *generator) paren(s string) string { return "(" + s + ")" }

// vars lists the variables of scope usable as a value of t.
func (sc *scope) varsOf(t *typ) []string {
	var out []string
	for _, v := range sc.vars {
		if v.t.k == kRef && v.t.row && t.k == kRef && v.t.ent == t.ent && (t.opt || !v.t.opt) {
			// A record names its ref.
			if !v.t.opt {
				out = append(out, v.name)
			}
			continue
		}
		if v.t.row || v.t.k != t.k || !same(v.t, t) || v.t.opt && !t.opt {
			continue
		}
		if t.k == kList || t.k == kMap {
			if v.t.elem.k != t.elem.k {
				continue
			}
		}
		out = append(out, v.name)
	}
	return out
}

// fieldsOf lists the field reads (x.f) of scope's records usable as a
// value of t.
func (g *generator) fieldsOf(sc *scope, t *typ) []string {
	var out []string
	for _, v := range sc.vars {
		if !v.t.row || v.t.opt {
			continue
		}
		for _, f := range v.t.ent.fields {
			if f.t.k == t.k && same(f.t, t) && (t.opt || !f.t.opt) && (t.k != kList && t.k != kMap || f.t.elem.k == t.elem.k) {
				out = append(out, v.name+"."+f.name)
			}
		}
	}
	return out
}

// optionals lists the variables and fields of scope whose type is t made
// optional.
func (g *generator) optionals(sc *scope, t *typ) []string {
	var out []string
	for _, v := range sc.vars {
		if !v.t.row && v.t.opt && v.t.k == t.k && same(v.t, t) {
			out = append(out, v.name)
		}
		if !v.t.row || v.t.opt {
			continue
		}
		for _, f := range v.t.ent.fields {
			if f.t.opt && f.t.k == t.k && same(f.t, t) {
				out = append(out, v.name+"."+f.name)
			}
		}
	}
	return out
}

// expr is an expression of type t (an optional t may be null).
func (g *generator) expr(sc *scope, t *typ, depth int) string {
	if t.opt {
		cands := append(sc.varsOf(t), g.fieldsOf(sc, t)...)
		if len(cands) > 0 && g.chance(70) {
			return pick(g, cands)
		}
		return g.expr(sc, t.nonOpt(), depth)
	}
	cands := append(sc.varsOf(t), g.fieldsOf(sc, t)...)
	if len(cands) > 0 && g.chance(40) {
		return pick(g, cands)
	}
	// coalesce of an optional field of the type.
	if t.k != kRef && t.k != kRecord && t.k != kList && t.k != kMap && g.chance(15) {
		if opts := g.optionals(sc, t); len(opts) > 0 {
			return fmt.Sprintf("coalesce(%s, %s)", pick(g, opts), g.literal(t))
		}
	}
	if depth <= 0 {
		return g.leaf(sc, t)
	}
	if t.k != kRecord && g.chance(8) {
		return g.conditional(sc, t, depth)
	}
	switch t.k {
	case kBool:
		return g.boolExpr(sc, depth)
	case kInt:
		switch g.intn(8) {
		case 0:
			return g.aggregate(sc, "count", t, depth)
		case 1:
			return fmt.Sprintf("(%s + %s)", g.expr(sc, t, depth-1), g.expr(sc, t, depth-1))
		case 2:
			return fmt.Sprintf("len(%s)", g.expr(sc, &typ{k: kString}, depth-1))
		case 3:
			return fmt.Sprintf("%s(%s)", pick(g, []string{"year", "month", "day", "weekday"}), g.expr(sc, &typ{k: kDate}, depth-1))
		case 4:
			return g.aggregate(sc, "sum", t, depth)
		case 5:
			return fmt.Sprintf("(%s %% %d)", g.expr(sc, t, depth-1), 2+g.intn(5))
		case 6:
			return fmt.Sprintf("len(%s)", g.expr(sc, &typ{k: kList, elem: &typ{k: kString}}, depth-1))
		case 7:
			if depth >= 2 {
				return fmt.Sprintf("len(%s)", g.listAggregate(sc, &typ{k: kList, elem: &typ{k: kRef, ent: pick(g, g.ents)}}, depth))
			}
		}
	case kDecimal, kMoney:
		switch g.intn(5) {
		case 0:
			// round or round_to, chosen without a draw so that the rest of
			// the corpus stays as it was
			x := g.expr(sc, t, depth-1)
			if depth%2 == 0 {
				return fmt.Sprintf("round_to(%s, 0.05)", x)
			}
			return fmt.Sprintf("round(%s, 2)", x)
		case 1:
			return fmt.Sprintf("(%s * %s)", g.expr(sc, t, depth-1), g.literal(&typ{k: kInt}))
		case 2:
			return g.aggregate(sc, pick(g, []string{"sum", "min", "max"}), t, depth)
		case 3:
			return fmt.Sprintf("abs(%s - %s)", g.expr(sc, t, depth-1), g.expr(sc, t, depth-1))
		}
	case kString, kText:
		switch g.intn(5) {
		case 0:
			return fmt.Sprintf("(%s + %s)", g.expr(sc, t, depth-1), g.expr(sc, t, depth-1))
		case 1:
			return fmt.Sprintf("%s(%s)", pick(g, []string{"lower", "upper", "trim"}), g.expr(sc, t, depth-1))
		case 2:
			return fmt.Sprintf("str(%s)", g.expr(sc, &typ{k: kInt}, depth-1))
		}
	case kDate:
		switch g.intn(4) {
		case 0:
			return fmt.Sprintf("(%s %s %d)", g.expr(sc, t, depth-1), pick(g, []string{"+", "-"}), g.intn(40))
		case 1:
			// the first or the last of d's month, chosen without a draw
			d := g.expr(sc, t, depth-1)
			if len(d)%2 == 0 {
				return fmt.Sprintf("end_of_month(%s)", d)
			}
			return fmt.Sprintf("date(year(%s), month(%s), 1)", d, d)
		case 2:
			return fmt.Sprintf("date(2026, %d, %d)", 1+g.intn(12), 1+g.intn(28))
		}
	case kList:
		switch g.intn(3) {
		case 0:
			return fmt.Sprintf("append(%s, %s)", g.expr(sc, t, depth-1), g.expr(sc, t.elem, depth-1))
		case 1:
			if t.elem.k == kString || t.elem.k == kInt {
				return fmt.Sprintf("sorted(%s)", g.expr(sc, t, depth-1))
			}
		case 2:
			return g.listAggregate(sc, t, depth)
		}
	}
	return g.leaf(sc, t)
}

// conditional is `if C then A else B` of type t: a random condition, or
// a check that an optional value of t (or an optional ref it is read
// through) is not null, whose branch then reads it without coalesce.
func (g *generator) conditional(sc *scope, t *typ, depth int) string {
	if g.chance(50) {
		if follows := g.refFollows(sc, t); len(follows) > 0 && g.chance(50) {
			f := pick(g, follows)
			return fmt.Sprintf("(if %s != null then %s.%s else %s)", f[0], f[0], f[1], g.expr(sc, t, depth-1))
		}
		if t.k != kRef && t.k != kList && t.k != kMap {
			if opts := g.optionals(sc, t); len(opts) > 0 {
				x := pick(g, opts)
				if g.chance(50) {
					return fmt.Sprintf("(if %s != null then %s else %s)", x, x, g.expr(sc, t, depth-1))
				}
				return fmt.Sprintf("(if %s == null then %s else %s)", x, g.expr(sc, t, depth-1), x)
			}
		}
		if follows := g.refFollows(sc, t); len(follows) > 0 {
			f := pick(g, follows)
			return fmt.Sprintf("(if %s != null then %s.%s else %s)", f[0], f[0], f[1], g.expr(sc, t, depth-1))
		}
	}
	other := g.expr(sc, t, depth-1)
	if (t.k == kDecimal || t.k == kMoney) && g.chance(30) {
		other = g.literal(&typ{k: kInt}) // an int branch: the mix is t
	}
	return fmt.Sprintf("(if %s then %s else %s)", g.boolExpr(sc, depth-1), g.expr(sc, t, depth-1), other)
}

// refFollows lists the optional refs of scope's records (v.f) whose entity
// has a required field g of type t, as pairs of v.f and g: `v.f.g` reads
// it where v.f is known not to be null.
func (g *generator) refFollows(sc *scope, t *typ) [][2]string {
	var out [][2]string
	for _, v := range sc.vars {
		if !v.t.row || v.t.opt {
			continue
		}
		for _, f := range v.t.ent.fields {
			if f.t.k != kRef || !f.t.opt {
				continue
			}
			for _, h := range f.t.ent.fields {
				if !h.t.opt && h.t.k == t.k && same(h.t, t) && (t.k != kList && t.k != kMap || h.t.elem.k == t.elem.k) {
					out = append(out, [2]string{v.name + "." + f.name, h.name})
				}
			}
		}
	}
	return out
}

// narrowedUse is a condition that reads x, an optional value of type b
// checked not null just before, as a value of b (arithmetic, len), which
// type-checks only where x is narrowed.
func (g *generator) narrowedUse(x string, b *typ) string {
	switch b.k {
	case kInt:
		return fmt.Sprintf("%s + 1 > %s", x, g.literal(b))
	case kDecimal, kMoney:
		return fmt.Sprintf("%s * 2 >= %s", x, g.literal(b))
	case kDate:
		return fmt.Sprintf("%s + 1 > %s", x, g.literal(b))
	}
	return fmt.Sprintf("len(%s) > %d", x, g.intn(4))
}

// leaf is a variable, a field or a literal of type t.
func (g *generator) leaf(sc *scope, t *typ) string {
	cands := append(sc.varsOf(t), g.fieldsOf(sc, t)...)
	if len(cands) > 0 && g.chance(50) {
		return pick(g, cands)
	}
	if t.k == kRef {
		if len(cands) > 0 {
			return pick(g, cands)
		}
		// Tables are never empty (every entity has seed records, and no
		// tool deletes): first cannot fail.
		return fmt.Sprintf("first(%s in %s)", g.fresh("ag"), t.ent.qual)
	}
	return g.literal(t)
}

// literal is a constant of type t.
func (g *generator) literal(t *typ) string {
	switch t.k {
	case kString, kText:
		return fmt.Sprintf("%q", pick(g, strWords))
	case kInt:
		return fmt.Sprint(g.intn(10))
	case kDecimal, kMoney:
		return pick(g, []string{"0.0", "1.5", "12.25", "100.0"})
	case kBool:
		return pick(g, []string{"true", "false"})
	case kDate:
		return fmt.Sprintf("2026-%02d-%02d", 1+g.intn(12), 1+g.intn(28))
	case kDateTime:
		return fmt.Sprintf("2026-%02d-%02dT%02d:30:00Z", 1+g.intn(12), 1+g.intn(28), g.intn(24))
	case kEnum:
		return pick(g, t.enum.values)
	case kList:
		n := 1 + g.intn(3)
		var xs []string
		for i := 0; i < n; i++ {
			xs = append(xs, g.literal(t.elem))
		}
		return "[" + strings.Join(xs, ", ") + "]"
	case kMap:
		return fmt.Sprintf("{ %q: %s }", pick(g, []string{"a", "b", "k 1"}), g.literal(t.elem))
	case kRecord:
		if t.rec == g.addr {
			if g.chance(50) {
				return fmt.Sprintf("Addr { city: %q }", pick(g, strWords))
			}
			return fmt.Sprintf("Addr { city: %q, zip: %q }", pick(g, strWords), "1000")
		}
		switch g.intn(3) {
		case 0:
			return fmt.Sprintf("Pay { kind: card, ref_no: %q, last4: %q }", "r1", "4242")
		case 1:
			return fmt.Sprintf("Pay { kind: cash, ref_no: %q }", "r2")
		}
		return fmt.Sprintf("Pay { kind: voucher, ref_no: %q, balance: 5 }", "r3")
	}
	panic(fmt.Sprintf("specgen: no literal of kind %d", t.k))
}

// aggregate is count/sum/min/max over an entity (with or without where),
// or over a list.
func (g *generator) aggregate(sc *scope, op string, t *typ, depth int) string {
	e := pick(g, g.ents)
	v := g.fresh("ag")
	inner := sc.with(variable{name: v, t: &typ{k: kRef, ent: e, row: true}})
	where := ""
	if g.chance(55) {
		where = " where " + g.boolExpr(inner, depth-1)
	}
	if op == "count" {
		if g.chance(25) {
			// Over a list.
			src := g.expr(sc, &typ{k: kList, elem: &typ{k: kString}}, depth-1)
			inner := sc.with(variable{name: v, t: &typ{k: kString}})
			if g.chance(50) {
				return fmt.Sprintf("count(%s in %s)", v, src)
			}
			return fmt.Sprintf("count(%s in %s where %s)", v, src, g.boolExpr(inner, depth-1))
		}
		return fmt.Sprintf("count(%s in %s%s)", v, e.qual, where)
	}
	var nums []string
	for _, f := range e.fields {
		if f.t.k == t.k && !f.t.opt {
			nums = append(nums, v+"."+f.name)
		}
	}
	val := g.literal(t)
	if len(nums) > 0 && g.chance(80) {
		val = pick(g, nums)
	}
	return fmt.Sprintf("%s(%s for %s in %s%s)", op, val, v, e.qual, where)
}

// listAggregate is list(…) of type t: the records of an entity as refs
// (list(x in E where c)), the elements of a list of strings that satisfy
// a condition, or a value of t's element for each record.
func (g *generator) listAggregate(sc *scope, t *typ, depth int) string {
	v := g.fresh("ag")
	if t.elem.k == kRef && t.elem.ent != nil {
		inner := sc.with(variable{name: v, t: &typ{k: kRef, ent: t.elem.ent, row: true}})
		if g.chance(40) {
			return fmt.Sprintf("list(%s in %s)", v, t.elem.ent.qual)
		}
		return fmt.Sprintf("list(%s in %s where %s)", v, t.elem.ent.qual, g.boolExpr(inner, depth-1))
	}
	if t.elem.k == kString && g.chance(30) {
		src := g.expr(sc, t, depth-1)
		inner := sc.with(variable{name: v, t: &typ{k: kString}})
		return fmt.Sprintf("list(%s in %s where %s)", v, src, g.boolExpr(inner, depth-1))
	}
	e := pick(g, g.ents)
	inner := sc.with(variable{name: v, t: &typ{k: kRef, ent: e, row: true}})
	where := ""
	if g.chance(55) {
		where = " where " + g.boolExpr(inner, depth-1)
	}
	return fmt.Sprintf("list(%s for %s in %s%s)", g.expr(inner, t.elem, depth-1), v, e.qual, where)
}

// boolExpr is a condition.
func (g *generator) boolExpr(sc *scope, depth int) string {
	if depth <= 0 {
		return g.compare(sc, 0)
	}
	switch g.intn(10) {
	case 0:
		return fmt.Sprintf("(%s and %s)", g.boolExpr(sc, depth-1), g.boolExpr(sc, depth-1))
	case 1:
		return fmt.Sprintf("(%s or %s)", g.boolExpr(sc, depth-1), g.boolExpr(sc, depth-1))
	case 2:
		return fmt.Sprintf("(not %s)", g.paren(g.boolExpr(sc, depth-1)))
	case 3:
		e := pick(g, g.ents)
		v := g.fresh("ag")
		inner := sc.with(variable{name: v, t: &typ{k: kRef, ent: e, row: true}})
		switch g.intn(3) {
		case 0:
			return fmt.Sprintf("exists(%s in %s)", v, e.qual)
		case 1:
			return fmt.Sprintf("exists(%s in %s where %s)", v, e.qual, g.boolExpr(inner, depth-1))
		}
		return fmt.Sprintf("forall(%s for %s in %s)", g.boolExpr(inner, depth-1), v, e.qual)
	case 4:
		// An optional value: the null check the docs recommend, and a
		// range test.
		for _, ot := range []*typ{{k: kDate, opt: true}, {k: kInt, opt: true}, {k: kMoney, opt: true}, {k: kString, opt: true}} {
			opts := g.optionals(sc, ot)
			if len(opts) == 0 {
				continue
			}
			x := pick(g, opts)
			b := ot.nonOpt()
			switch g.intn(6) {
			case 0:
				return fmt.Sprintf("(%s != null and %s <= %s)", x, x, g.expr(sc, b, depth-1))
			case 4:
				return fmt.Sprintf("(%s != null and %s)", x, g.narrowedUse(x, b))
			case 5:
				return fmt.Sprintf("(%s == null or %s)", x, g.narrowedUse(x, b))
			case 1:
				if b.k != kString {
					// A range that can hold (W028 refuses an empty one).
					lit := g.literal(b)
					return fmt.Sprintf("(%s >= %s and %s <= %s)", x, lit, x, lit)
				}
			case 2:
				return fmt.Sprintf("(%s == null or %s == %s)", x, x, g.literal(b))
			}
			return fmt.Sprintf("(%s == %s or %s == %s)", x, g.literal(b), x, g.literal(b))
		}
	case 5:
		// Membership.
		e := pick(g, g.ents)
		for _, v := range sc.vars {
			if v.t.row && v.t.ent == e && !v.t.opt {
				vals := e.status.t.enum.values
				if g.chance(50) {
					return fmt.Sprintf("(%s.status in [%s, %s])", v.name, pick(g, vals), pick(g, vals))
				}
				// One value left out: never all of them (W028).
				return fmt.Sprintf("(%s.status not in [%s])", v.name, pick(g, vals))
			}
		}
		return fmt.Sprintf("(%s in %s)", g.expr(sc, &typ{k: kString}, depth-1), g.expr(sc, &typ{k: kList, elem: &typ{k: kString}}, depth-1))
	case 6:
		return fmt.Sprintf("%s(%s, %s)", pick(g, []string{"contains", "starts_with", "ends_with"}), g.expr(sc, &typ{k: kString}, depth-1), g.literal(&typ{k: kString}))
	case 7:
		// Two equalities of one value with constants, either of which may
		// hold (both at once never can: W028).
		for _, v := range sc.vars {
			if v.t.row && !v.t.opt {
				vals := v.t.ent.status.t.enum.values
				return fmt.Sprintf("(%s.status == %s or %s.status == %s)", v.name, pick(g, vals), v.name, pick(g, vals))
			}
		}
	}
	return g.compare(sc, depth)
}

// compare is a comparison of two values of one type.
func (g *generator) compare(sc *scope, depth int) string {
	types := []*typ{{k: kInt}, {k: kDecimal}, {k: kString}, {k: kDate}, {k: kBool}, {k: kMoney}, {k: kDateTime}}
	for _, v := range sc.vars {
		if v.t.row && !v.t.opt {
			types = append(types, v.t.ent.status.t, &typ{k: kRef, ent: v.t.ent})
		}
	}
	t := pick(g, types)
	lt := t
	if t.k != kRef && g.chance(30) {
		lt = t.optional()
	}
	l := g.expr(sc, lt, depth-1)
	if t.k == kRef {
		var refs []string
		for _, v := range sc.vars {
			if v.t.row && !v.t.opt && v.t.ent == t.ent {
				refs = append(refs, v.name)
			}
		}
		refs = append(refs, g.fieldsOf(sc, t)...)
		return fmt.Sprintf("(%s %s %s)", pick(g, refs), pick(g, []string{"==", "!="}), pick(g, refs))
	}
	if t.k == kEnum {
		// The typed side first: a bare value name takes its type.
		fs := g.fieldsOf(sc, t)
		return fmt.Sprintf("(%s %s %s)", pick(g, fs), pick(g, []string{"==", "!="}), g.literal(t))
	}
	ops := []string{"==", "!="}
	if t.ordered() {
		ops = append(ops, "<", "<=", ">", ">=")
	}
	r := g.expr(sc, t, depth-1)
	if t.k == kDateTime && !strings.Contains(l, ".") && !strings.Contains(r, ".") {
		// Two date-time constants: compare with a field instead, when
		// there is one.
		if fs := g.fieldsOf(sc, t); len(fs) > 0 {
			l = pick(g, fs)
		}
	}
	return fmt.Sprintf("(%s %s %s)", l, pick(g, ops), r)
}

// invariants writes local invariants whose trigger no seed record meets:
// the last status value, which only the mark tools set. Every other one is
// an always-invariant (chosen by position, not drawn, so that the rest of
// the spec is what it would be without it).
func (g *generator) invariants() {
	for i, e := range g.ents {
		if !g.chance(40) {
			continue
		}
		vals := e.status.t.enum.values
		v := fmt.Sprintf("x%d", i)
		sc := &scope{svc: e.svc}
		sc = sc.with(variable{name: v, t: &typ{k: kRef, ent: e, row: true}})
		// The check reads its trigger record (W029): the status the
		// trigger selects, and a random condition.
		last := vals[len(vals)-1]
		mode := "local"
		if i%2 == 1 {
			mode = "local always"
		}
		g.printf("%s invariant rule_%d {\n policy \"Rule %d of %s.\"\n for %s in %s where %s.status == %s\n require %s.status == %s and %s\n}\n\n",
			mode, i, i, e.name, v, e.qual, v, last, v, last, g.boolExpr(sc, 2))
	}
}

// seed writes two records of every entity.
func (g *generator) seed() {
	g.printf("seed {\n")
	for _, e := range g.ents {
		for j := 0; j < 2; j++ {
			h := fmt.Sprintf("%s_%d", strings.ToLower(e.name), j+1)
			var inits []string
			status := e.status.t.enum.values[0]
			if j == 1 {
				status = e.status.t.enum.values[1]
			}
			inits = append(inits, "status: "+status)
			for _, f := range e.fields {
				if f == e.status || !f.required() && g.chance(50) {
					continue
				}
				inits = append(inits, fmt.Sprintf("%s: %s", f.name, g.seedValue(f)))
			}
			g.printf(" %s %s { %s }\n", e.qual, h, strings.Join(inits, ", "))
			e.seeds = append(e.seeds, h)
		}
	}
	g.printf("}\n\n")
}

// seedValue is a constant for f in a seed record.
func (g *generator) seedValue(f *field) string {
	if f.t.opt && g.chance(30) {
		return "null"
	}
	switch f.t.k {
	case kRef:
		return pick(g, f.t.ent.seeds)
	case kInt:
		if f.lower != "" {
			return fmt.Sprint(g.intn(10))
		}
	}
	return g.literal(f.t.nonOpt())
}

// tasks writes a task per entity of one service: move a seed record to
// another status with the mark tool (never the status that triggers an
// invariant).
func (g *generator) tasks() {
	for i, e := range g.ents {
		if i > 0 && !g.chance(50) {
			continue
		}
		vals := e.status.t.enum.values
		to := vals[1+g.intn(len(vals)-2)] // neither the first (the seed's) nor the last
		h := e.seeds[0]
		g.printf("task move_%s {\n persona \"Clerk\"\n instruction \"Move %s to %s.\"\n tags { domain \"ToB/testing\" capabilities [tool_use] difficulty [single] }\n expect {\n  %s[%s].status == %s\n }\n solution {\n  %s(rec: %s, to: %s)\n }\n}\n\n",
			strings.ToLower(e.name), h, to, e.qual, h, to, g.markTool[e], h, to)
	}
}
