// Package ir is the checked, resolved form of a world spec: what the code
// generator and the compile-time evaluator consume.
//
// Every name in the spec has been resolved to a pointer (a field access holds
// the *Field, a ref type the *Entity, a solution call the *Tool); every
// expression carries its type; implicit conversions are explicit nodes
// (Deref follows a ref to its record, IDOf takes a record's id). A World is
// produced only for specs without errors, so consumers may rely on its
// invariants instead of re-checking.
package ir

import "fmt"

// Pos is a position in a spec file: the file name the spec was parsed
// under, the byte offset and the 1-based line and column (in characters).
// The compiler converts the parser's positions when it lowers a spec, so
// that the IR and its consumers (gen, eval, the gate) do not depend on the
// parser.
type Pos struct {
	Filename string
	Offset   int
	Line     int
	Column   int
}

// String renders the position as `file:line:col`, or `line:col` without a
// file name, as the parser's positions print.
func (p Pos) String() string {
	if p.Filename == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Column)
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// World is a checked world spec.
type World struct {
	Name     string // lower snake case; the generated package name
	Title    string
	Industry string
	Country  string
	Currency string
	Today    string // YYYY-MM-DD
	// FloatNumbers is set by `numbers "float"`: decimal and money are
	// binary64 floats with Python's float semantics (an imported benchmark
	// that computes in floats, tau2 retail). Otherwise they are exact
	// decimals (runtime.Decimal: 18 digits after the point, rounding half
	// away from zero).
	FloatNumbers bool
	// Now is the world's clock with a time of day (`now
	// 2026-03-14T09:30:00Z`, RFC 3339 in UTC, on the date Today): `now` in
	// expressions. It is Today at 00:00:00Z when the header gives none.
	Now string
	// Holidays are the world's public holidays (`holidays "2026-04-03,
	// 2026-12-25"`), sorted YYYY-MM-DD dates: the days that are no working
	// days besides Saturdays and Sundays (runtime.Calendar).
	Holidays []string
	Pos      Pos

	// Policy is the policy document of `policy from "file"`, verbatim
	// (UTF-8 text), and PolicyFile its path below the spec's directory;
	// both empty when the world has none, and the policy shown to agents
	// is then made of the invariants' policy texts. Every invariant's text
	// occurs in the document (W024).
	Policy     string
	PolicyFile string

	Services   []*Service
	Structs    []*StructDef // value record types, in declaration order
	Entities   []*Entity    // all entities, in declaration order
	Tools      []*Tool      // all tools, in declaration order
	Invariants []*Invariant
	Rules      []*Rule // rules on actions, in declaration order
	Seed       []*Record
	Tasks      []*Task
}

// Service owns entities and the tools that may write them.
type Service struct {
	Name     string
	Doc      string
	Pos      Pos
	Entities []*Entity
	Tools    []*Tool
}

// Entity is a record type stored in a table.
type Entity struct {
	Name    string // UpperCamelCase as written
	Doc     string
	Service *Service
	Fields  []*Field // declared fields; the implicit id is not listed
	// Key is the string field that is the record's id (`entity Order key
	// order_id`); nil when the entity has the implicit field `id`.
	Key *Field
	Pos Pos
}

// IDName is the JSON name of the record's id: the key field or "id".
func (e *Entity) IDName() string {
	if e.Key != nil {
		return e.Key.Name
	}
	return "id"
}

// Field looks up a declared field by name.
func (e *Entity) Field(name string) *Field {
	for _, f := range e.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Field is a declared field of an entity.
type Field struct {
	Name    string // snake case as written
	Doc     string
	Entity  *Entity    // the owner, for an entity field
	Struct  *StructDef // the owner, for a field of a value record
	Case    *Case      // the variant case that holds the field, if any
	Type    *Type
	Unique  bool
	Default *Value // nil when there is none
	Bounds  []Bound
	Pos     Pos
}

// OwnerName is the name of the entity or value record that declares f.
func (f *Field) OwnerName() string {
	switch {
	case f.Entity != nil:
		return f.Entity.Name
	case f.Struct != nil:
		return f.Struct.Name
	}
	return "?"
}

// Required reports whether a value must be given when a record is created.
func (f *Field) Required() bool { return !f.Type.Optional && f.Default == nil }

// Bound is a range constraint `Op Value`, with Op one of >= > <= <.
type Bound struct {
	Op    string
	Value *Value
}

// Kind classifies types.
type Kind int

// The kinds of types. Record and Set exist only in expressions: a Record is
// a record value (a tool parameter `ref E` inside the body, a loop
// variable), a Set is an entity used as the source of a loop or aggregate.
const (
	KindInvalid Kind = iota
	KindString
	KindText
	KindInt
	KindDecimal
	KindMoney
	KindBool
	KindDate
	KindDateTime
	KindEnum
	KindRef    // the id of a record of Entity
	KindRecord // a record of Entity
	KindSet    // all records of Entity
	KindList   // a list literal of Elem
	KindNull   // the type of the literal null
	KindStruct // a value record (Type.Struct), stored inside entities
	KindMap    // map<string, Elem>
)

var kindNames = [...]string{"invalid", "string", "text", "int", "decimal", "money", "bool", "date", "datetime", "enum", "ref", "record", "set", "list", "null", "struct", "map"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Type is a resolved type.
type Type struct {
	Kind     Kind
	Optional bool
	Enum     *EnumDef   // Kind == KindEnum
	Entity   *Entity    // Kind == KindRef, KindRecord, KindSet
	Elem     *Type      // Kind == KindList, KindMap (the values)
	Struct   *StructDef // Kind == KindStruct
}

// EnumDef is an enum type, declared inline on a field.
type EnumDef struct {
	Field  *Field // the field that declares it; names the Go type
	Values []string
}

// Has reports whether v is a value of the enum.
func (e *EnumDef) Has(v string) bool {
	for _, x := range e.Values {
		if x == v {
			return true
		}
	}
	return false
}

// StructDef is a value record type (`record Address { … }`), possibly a
// variant (`record PaymentMethod by source { … case gift_card { … } }`).
type StructDef struct {
	Name   string
	Doc    string
	Fields []*Field // common fields, in declaration order (the tag not included)
	// Tag is a variant's discriminator: an enum field whose values are the
	// case names, in order. nil for a plain record.
	Tag   *Field
	Cases []*Case
	Pos   Pos
}

// Case is one case of a variant record.
type Case struct {
	Name   string
	Fields []*Field
	Pos    Pos
}

// AllFields lists every field of the record in its canonical order: the
// tag, the common fields, then each case's fields in case order. Record
// values (Value.Fields) hold one value per field in this order.
func (s *StructDef) AllFields() []*Field {
	var out []*Field
	if s.Tag != nil {
		out = append(out, s.Tag)
	}
	out = append(out, s.Fields...)
	for _, c := range s.Cases {
		out = append(out, c.Fields...)
	}
	return out
}

// Field looks up a field of the record (any case) by name.
func (s *StructDef) Field(name string) *Field {
	for _, f := range s.AllFields() {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// String renders the type as the spec would write it.
func (t *Type) String() string {
	if t == nil {
		return "invalid"
	}
	var s string
	switch t.Kind {
	case KindEnum:
		if t.Enum != nil && t.Enum.Field != nil {
			s = t.Enum.Field.OwnerName() + "." + t.Enum.Field.Name
		} else {
			s = "enum"
		}
	case KindRef:
		s = "ref " + t.Entity.Name
	case KindRecord:
		s = t.Entity.Name
	case KindSet:
		s = "set of " + t.Entity.Name
	case KindList:
		s = "list<" + t.Elem.String() + ">"
	case KindMap:
		s = "map<string, " + t.Elem.String() + ">"
	case KindStruct:
		s = t.Struct.Name
	default:
		s = t.Kind.String()
	}
	if t.Optional {
		s += "?"
	}
	return s
}

// Numeric reports whether the kind is int, decimal or money.
func (k Kind) Numeric() bool { return k == KindInt || k == KindDecimal || k == KindMoney }

// Textual reports whether the kind is string or text.
func (k Kind) Textual() bool { return k == KindString || k == KindText }

// Value is a constant: a literal of the spec or a seed value.
type Value struct {
	Kind Kind    // String, Text, Int, Decimal, Money, Bool, Date, DateTime, Enum, Ref, Null
	Str  string  // String, Text, Enum value, Ref id, Date (YYYY-MM-DD), DateTime (RFC 3339, UTC)
	Int  int64   // Int
	Num  float64 // Decimal, Money: the value in a world of float numbers; the nearest float otherwise
	// Dec is a decimal or money constant of a world of exact numbers
	// (World.FloatNumbers false): its exact value as runtime.Decimal
	// writes it (canonical: "107.98", "-0.5", "1200"). It is empty in a
	// world of float numbers, whose constants are Num.
	Dec  string
	Bool bool // Bool

	List    []*Value   // List
	Entries []MapEntry // Map, sorted by key
	Fields  []*Value   // Struct: one per StructDef.AllFields(), Null for another case's fields
}

// NegDec is the negation of a constant's Dec ("" stays "", "0" stays "0").
func NegDec(dec string) string {
	switch {
	case dec == "" || dec == "0":
		return dec
	case dec[0] == '-':
		return dec[1:]
	}
	return "-" + dec
}

// MapEntry is one key and value of a map constant.
type MapEntry struct {
	Key   string
	Value *Value
}

// ToolKind is a standard tool kind or Custom.
type ToolKind string

// The tool kinds.
const (
	ToolCustom ToolKind = "custom"
	ToolGet    ToolKind = "get"
	ToolList   ToolKind = "list"
	ToolSearch ToolKind = "search"
	ToolCreate ToolKind = "create"
	ToolUpdate ToolKind = "update"
	ToolDelete ToolKind = "delete"
)

// PageSize is the most records a list or search tool returns: list pages
// through the rest with its offset argument. The generated tools and the
// evaluator (compiler/eval) both take it from here.
const PageSize = 50

// Tool is an agent-callable operation.
type Tool struct {
	Name    string
	Doc     string
	Service *Service
	Kind    ToolKind
	Entity  *Entity  // standard tools: the entity they work on
	By      []*Field // search: the filter fields
	Params  []*Param // the parameters the agent passes, standard tools included
	Body    []Stmt   // custom tools
	Returns *Type    // the type of the returned value; nil when the tool returns null
	Pos     Pos
}

// Param is a tool parameter. For a standard tool, Field is the entity field
// the parameter sets or filters (nil for id and offset).
type Param struct {
	Name  string
	Doc   string
	Type  *Type // as the agent passes it: a ref is an id
	Field *Field
	Var   *Var // custom tools: the variable in the body (a record for ref params)
	Pos   Pos
}

// Required reports whether the agent must pass the parameter.
func (p *Param) Required() bool { return !p.Type.Optional }

// Var is a local name: a parameter, a let binding or a loop variable.
type Var struct {
	Name string
	Type *Type
	Pos  Pos
}

// Stmt is a statement of a custom tool body.
type Stmt interface{ stmt() }

// Require fails the call with Message unless Cond holds. When the message
// is built from values (`else "Order " + id + " not found"`), MessageExpr
// holds it and Message is empty.
type Require struct {
	Cond        Expr
	Message     string
	MessageExpr Expr
	Pos         Pos
}

// Fail fails the call with a precondition_failed error: `fail "message"`.
type Fail struct {
	Message     string
	MessageExpr Expr // non-nil when the message is built from values
	Pos         Pos
}

// VarDecl declares a mutable local: `var total = 0.0`.
type VarDecl struct {
	Var   *Var
	Value Expr
	Pos   Pos
}

// Assign writes through a path: `set total = total + x` (Root a VarRef to
// a `var` local, no Path), `set order.items[i].item_id = id`,
// `set user.payment_methods[pm].balance = b`. Root is a record of the
// tool's own service or a local; each step selects a field of a record or
// value record, or an element of a list or map. A plain `set rec.field = v`
// is a Set, not an Assign.
type Assign struct {
	Root  Expr
	Path  []PathStep
	Value Expr
	Pos   Pos
}

// PathStep is one step of an Assign path: exactly one of Field and Index
// is set.
type PathStep struct {
	Field *Field
	Index Expr // an int for a list, a string for a map
}

// Let binds Var to Value.
type Let struct {
	Var   *Var
	Value Expr
	Pos   Pos
}

// Set assigns Field of the record Target.
type Set struct {
	Target Expr // of Kind Record
	Field  *Field
	Value  Expr
	Pos    Pos
}

// Insert creates a record of Entity; Var (may be nil) binds it.
type Insert struct {
	Entity *Entity
	Fields []*FieldInit // in the entity's field order; defaults not listed
	Var    *Var
	Pos    Pos
}

// FieldInit is one field value of an insert.
type FieldInit struct {
	Field *Field
	Value Expr
}

// Delete removes the record Target.
type Delete struct {
	Target Expr // of Kind Record
	Pos    Pos
}

// Return ends the call with Value as the observation's data.
type Return struct {
	Value Expr
	Pos   Pos
}

// If runs Then or Else.
type If struct {
	Cond Expr
	Then []Stmt
	Else []Stmt
	Pos  Pos
}

// For runs Body for each record of Entity (insertion order) satisfying
// Where (nil: all), or, when Source is set, for each element of a list
// (in order; Key is the int index) or value of a map (in key order; Key is
// the string key). Key may be nil. The elements are a snapshot taken when
// the loop starts.
type For struct {
	Var    *Var
	Key    *Var
	Entity *Entity
	Source Expr // a list or map; nil when iterating an entity
	Where  Expr
	Body   []Stmt
	Pos    Pos
}

func (*Require) stmt() {}
func (*Fail) stmt()    {}
func (*VarDecl) stmt() {}
func (*Assign) stmt()  {}
func (*Let) stmt()     {}
func (*Set) stmt()     {}
func (*Insert) stmt()  {}
func (*Delete) stmt()  {}
func (*Return) stmt()  {}
func (*If) stmt()      {}
func (*For) stmt()     {}

// Expr is a typed expression.
type Expr interface {
	Type() *Type
	Position() Pos
}

// ExprBase holds what every expression has.
type ExprBase struct {
	T   *Type
	Pos Pos
}

// Type is the expression's type.
func (b *ExprBase) Type() *Type { return b.T }

// Position is where the expression starts.
func (b *ExprBase) Position() Pos { return b.Pos }

// Lit is a constant.
type Lit struct {
	ExprBase
	Value *Value
}

// VarRef reads a local.
type VarRef struct {
	ExprBase
	Var *Var
}

// Today is the clock of the episode: `today`, its date, or with Now set
// `now`, its date-time. It is the world's clock (World.Today, World.Now),
// or in the episodes of a task that sets its own, the task's (Task.Today,
// Task.Now).
type Today struct {
	ExprBase
	Now bool
}

// FieldRef reads Field of the record X. When Field is nil it reads the id.
type FieldRef struct {
	ExprBase
	X     Expr // of Kind Record
	Field *Field
}

// Deref follows the ref X (an id) to its record. At run time a missing
// record is an error (never silently a zero value).
type Deref struct {
	ExprBase
	X Expr // of Kind Ref
}

// IDOf is the id of the record X, used where a record meets a ref.
type IDOf struct {
	ExprBase
	X Expr // of Kind Record
}

// Lookup is `E[key]`: the record of Entity with id Key.
type Lookup struct {
	ExprBase
	Entity *Entity
	Key    Expr // of Kind String
}

// KeyIn is `Key in E` (or `Key not in E`, Not): whether a record of
// Entity has the id Key, a string (the key field's value for an entity
// with a key). It is a lookup in the table's index, not a scan.
type KeyIn struct {
	ExprBase
	Entity *Entity
	Key    Expr // of a textual kind, never optional
	Not    bool
}

// Cast is `X as T`: the string X (or an enum value, by its name) as a
// value of the enum type T (ExprBase.T, Kind KindEnum). A string that is
// not one of the enum's values fails the call (constraint_violation).
type Cast struct {
	ExprBase
	X Expr
}

// Binary is `L Op R`. Op is one of: or and == != < <= > >= in notin + - * / %.
// For `in`/`notin`, R is a List. Numeric operands of mixed kinds are already
// converted (see Convert).
type Binary struct {
	ExprBase
	Op   string
	L, R Expr
}

// Unary is `not X` or `-X` (Op "not" or "-").
type Unary struct {
	ExprBase
	Op string
	X  Expr
}

// Convert changes X's type to T: an int to a decimal or money (the only
// implicit numeric conversion), or a ref to the string of its id (`r.id`).
type Convert struct {
	ExprBase
	X Expr
}

// Cond is the conditional expression `if Cond then Then else Else`: only
// the branch Cond selects is evaluated. Both branches have the type T
// (the checker converts them: an int branch to the other's decimal or
// money, a record to a ref when the other is a ref); T is optional when
// either branch is.
type Cond struct {
	ExprBase
	Cond, Then, Else Expr
}

// NotNull is the optional X where the checker has proved it is not null
// (narrowing: `if x != null { … x.f … }`): its type is X's without the
// `?`. A null X, which the proof rules out, is an evaluation fault
// (MsgNotNull), never a zero value.
type NotNull struct {
	ExprBase
	X Expr
}

// MsgNotNull is the fault of a NotNull whose value is null after all,
// shared by compiler/eval and the generated code.
const MsgNotNull = "a value checked to be non-null is null"

// Call is a built-in function call; Func is its name as written.
type Call struct {
	ExprBase
	Func string
	Args []Expr
}

// Aggregate is count/exists/forall/sum/min/max/first/index over the
// records of Entity, or over the elements of Source. first is the first
// record or element satisfying Where (none is an evaluation error); index
// is the position of the first element of the list Source satisfying
// Where, or -1.
type Aggregate struct {
	ExprBase
	Op     string // count exists forall sum min max first index list
	Var    *Var
	Entity *Entity // the records ranged over; nil when Source is set
	Source Expr    // a list (its elements) or a map (its values, in key order)
	Where  Expr    // nil: all records
	Value  Expr    // sum/min/max: the value; forall: the condition; list: the element (a record's as its ref, IDOf); nil otherwise
}

// ListLit is `[a, b]`, typed by its context (T.Elem).
type ListLit struct {
	ExprBase
	Elems []Expr
}

// Index is `X[Key]`: an element of a list (Key an int, 0-based) or the
// value at a key of a map (Key a string). Out of range or a missing key is
// an error.
type Index struct {
	ExprBase
	X   Expr
	Key Expr
}

// StructLit is a value record: `Address { city: "Paris", … }`. For a
// variant, Case is the case whose fields may be given (the tag is set to
// it). Fields lists the given fields in AllFields order; absent optional
// fields are null.
type StructLit struct {
	ExprBase
	Struct *StructDef
	Case   *Case
	Fields []*FieldInit
}

// Match compares a record of an entity or a value record with expected
// values, field by field. It is written two ways:
//
//   - `X == E { f: v, … }` (Whole): an entity literal compared with a
//     record; Fields lists every field of the entity in declaration order,
//     the checker filling in the literal's absent fields with their
//     defaults or null, and ID is the expected id of an entity without a
//     key (an entity with a key compares its key field among Fields).
//     `X != E { … }` is a Unary not of it.
//   - `matches(X, { f: v, … })`: only the listed fields, in declaration
//     order (AllFields order for a value record); ID is set when the
//     pattern gives `id`.
//
// X is never optional (a ref has been followed: a Deref). Each value is
// typed as its field (converted like a record literal's field value). The
// match holds when every listed field (and the id) of X equals its value
// under ==; X is evaluated first, then ID, then every value in order, and
// only then compared.
type Match struct {
	ExprBase
	X      Expr
	ID     Expr // the expected id (a string or ref), or nil
	Fields []*FieldInit
	Whole  bool
}

// Entity is the entity of a match on a record, nil for a value record.
func (m *Match) Entity() *Entity {
	if t := m.X.Type(); t != nil && t.Kind == KindRecord {
		return t.Entity
	}
	return nil
}

// Struct is the value record of a match on a value record, nil for a
// record of an entity.
func (m *Match) Struct() *StructDef {
	if t := m.X.Type(); t != nil && t.Kind == KindStruct {
		return t.Struct
	}
	return nil
}

// MapLit is `{ "key": value, … }`, typed by its context; keys are sorted.
type MapLit struct {
	ExprBase
	Entries []MapLitEntry
}

// MapLitEntry is one entry of a MapLit.
type MapLitEntry struct {
	Key   string
	Value Expr
}

// Handle names a seed record in a rubric or an argument: its value is the
// record's id.
type Handle struct {
	ExprBase
	Entity *Entity
	ID     string
}

// Invariant is a world rule: every record of Entity satisfying Where
// (the trigger) must satisfy Check (the target).
type Invariant struct {
	Name   string
	Policy string
	Var    *Var
	Entity *Entity
	Where  Expr // nil: every record
	Check  Expr
	// Local marks a rule written `local invariant`: its trigger and target
	// may be in one service (W011 does not apply), for domains whose rules
	// are not split along service lines.
	Local bool
	// Always marks a rule written `always invariant`: it must hold after
	// every successful tool call of an episode, not only in the final
	// state; a violation at any step counts.
	Always bool
	Pos    Pos
}

// Rule is a rule on an action (`rule NAME { policy … on tool(…) require
// … }`): whenever the agent calls Tool (a custom tool), Check must hold
// on the state before the call, with the tool's parameters bound as in
// its body (Param.Var: a ref parameter is its record). The world does not
// enforce it: the call runs all the same, and a call that succeeds while
// the check fails is a violation, graded as an always-invariant's is, at
// its step and tool. A call that fails breaks no rule.
type Rule struct {
	Name   string
	Policy string
	Tool   *Tool
	Check  Expr
	Pos    Pos
}

// Record is a seed record. Values holds every field of the entity in field
// order, defaults applied; an unset optional field holds a Null value.
type Record struct {
	Entity *Entity
	ID     string // the handle
	Values []*Value
	Pos    Pos
}

// Task is a job for the agent.
type Task struct {
	Name         string
	Persona      string
	Instruction  string
	Domain       string
	Capabilities []string
	Difficulty   []string
	Seed         []*Record // added to the world seed
	// Today and Now are the task's own clock (`today 2026-03-16` or `now
	// 2026-03-16T17:45:00Z` in the task): its episodes' today and now,
	// as World.Today and World.Now are the world's. Both are set when the
	// task gives either (Now on the date Today: 00:00:00Z when only today
	// is given), both empty when the task runs on the world's clock.
	Today, Now string
	Assertions []*Assertion
	Solution   []*Step // nil when there is no solution
	// Meta is the task's free-form metadata (`meta { key: value, … }`),
	// in source order, keys unique; nil when the task has none.
	Meta []MetaEntry
	Pos  Pos
	// Created lists the records the golden solution creates, in the order
	// it creates them (set by the checker, which replays the solution):
	// the conformance search tries their ids as arguments, from the
	// states along the solution.
	Created []Created
}

// Created is a record created at run time, by entity and id.
type Created struct {
	Entity *Entity
	ID     string
}

// MetaEntry is one `key: value` of a task's metadata. Value is a string,
// an int64 (a number written without a decimal point), a float64 (with
// one; never -0), a bool or a []string (never nil).
type MetaEntry struct {
	Key   string
	Value any
	Pos   Pos
}

// AssertionKind classifies rubric assertions.
type AssertionKind string

// The assertion kinds.
const (
	AssertExpr      AssertionKind = "expr"
	AssertInvariant AssertionKind = "invariant"
	AssertUnchanged AssertionKind = "unchanged"
	// AssertRule is `invariant NAME` of a rule on an action: no call of
	// the episode broke it.
	AssertRule AssertionKind = "rule"
	// AssertAnswer is `answer EXPR`: the agent's final message states the
	// value of Expr on the final state (runtime.AnswerMatches).
	AssertAnswer AssertionKind = "answer"
)

// Assertion is one rubric item.
type Assertion struct {
	Kind      AssertionKind
	Text      string // the assertion as written (canonical form), for reports
	Expr      Expr   // AssertExpr: a bool expression; AssertAnswer: the value the answer states
	Invariant *Invariant
	Rule      *Rule // AssertRule
	// Except lists, for `unchanged except E[k], …`, the records that may
	// change; every other record must equal the task's start state.
	Except []*Lookup
	Pos    Pos
}

// Step is one step of a golden solution.
type Step struct {
	Bind string // "" when unbound
	Tool *Tool
	Args []*Arg // in the tool's parameter order; omitted optionals not listed
	// Fails, when non-nil, says the call is expected to fail with this
	// message (`call(…) fails "msg"`); the replay goes on after it.
	Fails *string
	Pos   Pos
}

// Arg is one argument of a solution call.
type Arg struct {
	Param *Param
	Value *Value // a constant; for ref params a Ref value holding the id
	Bound string // non-empty: the id returned by the earlier call bound to this name
	Pos   Pos
}
