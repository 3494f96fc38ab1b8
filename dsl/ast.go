// Package dsl is the world language: its grammar, syntax tree, parser,
// canonical formatter and grammar export.
//
// A world spec is one file holding a world header, services with entities and
// tools, invariants, a seed and tasks. The syntax tree mirrors the grammar
// closely and carries the source position of every node (Pos, EndPos); it is
// consumed by the compiler, which resolves names and types into an IR.
//
// One parser reads the language. The structs of the declarations double as
// participle's grammar: each field's tag is the grammar fragment that fills
// it. Where a tag reaches a statement block, a field, a parameter, a type,
// an expression, a dotted name or a constant, participle calls that node's
// Parse method (participle.Parseable), written in exprparse.go: a small
// precedence-climbing parser that reads participle's own lexer. Grammar
// exports the EBNF participle derives from the tags, with the productions
// of exprparse.go merged in.
package dsl

import "github.com/alecthomas/participle/v2/lexer"

// Pos is a source position: file name, byte offset, 1-based line and column.
type Pos = lexer.Position

// File is one parsed spec file.
type File struct {
	Pos    Pos
	EndPos Pos

	Decls []*Decl `parser:"@@*"`

	// Comments holds every comment of the file in source order. The parser
	// fills it; the formatter re-attaches comments to the nearest line.
	Comments []*Comment `parser:""`

	// tokens holds the position of every token other than comments, in
	// source order. Parse fills it; Format uses it to place comments next to
	// keywords that have no node of their own (a block's opening brace, a
	// task's persona line).
	tokens []tokenPos
}

// Comment is a `//` comment, text included.
type Comment struct {
	Pos  Pos
	Text string
}

// Decl is one top-level declaration. Exactly one field is set.
type Decl struct {
	Pos    Pos
	EndPos Pos

	World     *World      `parser:"  @@"`
	Service   *Service    `parser:"| @@"`
	Record    *RecordDecl `parser:"| @@"`
	Invariant *Invariant  `parser:"| @@"`
	Rule      *Rule       `parser:"| @@"`
	Seed      *Seed       `parser:"| @@"`
	Task      *Task       `parser:"| @@"`
}

// World is the world header: identity, clock and, optionally, the policy
// document the agent reads.
//
//	world northwind { title "Northwind" industry "logistics" country "DE" currency "EUR" today 2026-03-14 }
//	world tau2_retail { title "tau2-bench retail" today 2026-01-01 policy from "tau2_retail/policy.md" }
type World struct {
	Pos    Pos
	EndPos Pos

	Name  string  `parser:"'world':Ident @Ident '{':Op"`
	Props []*Prop `parser:"@@* '}':Op"`
}

// Prop is a `key value` pair of the world header, or `key from "file"`
// for a value read from a file next to the spec (`policy from
// "policy.md"`): then From is set and Value is nil.
type Prop struct {
	Pos    Pos
	EndPos Pos

	Key   string   `parser:"@Ident"`
	From  *string  `parser:"( 'from':Ident @String"`
	Value *Literal `parser:"| @@ )"`
}

// Service groups entities and the tools that may write them.
type Service struct {
	Pos    Pos
	EndPos Pos

	Name    string    `parser:"'service':Ident @Ident"`
	Doc     *string   `parser:"@String?"`
	Members []*Member `parser:"'{':Op @@* '}':Op"`
}

// Member is an entity, a value record or a tool of a service. Exactly one
// field is set.
type Member struct {
	Pos    Pos
	EndPos Pos

	Entity *Entity     `parser:"  @@"`
	Record *RecordDecl `parser:"| @@"`
	Tool   *Tool       `parser:"| @@"`
}

// Entity is a record type stored in a table of the world state. Every entity
// has an implicit string field `id`, unless `key f` makes its string field f
// the id: `entity Order key order_id { order_id string … }`.
type Entity struct {
	Pos    Pos
	EndPos Pos

	Name   string   `parser:"'entity':Ident @Ident"`
	Key    *string  `parser:"('key':Ident @Ident)?"`
	Doc    *string  `parser:"@String?"`
	Fields []*Field `parser:"'{':Op @@* '}':Op"`
}

// RecordDecl is a value record type, stored inside entities and compared
// by value: `record Address "A postal address" { city string … }`. With
// `by tag` it is a variant: the implicit enum field tag holds the name of
// one of its cases, and each case adds fields.
//
//	record PaymentMethod by source { id string  case gift_card { balance decimal } case paypal {} }
type RecordDecl struct {
	Pos    Pos
	EndPos Pos

	Name  string        `parser:"'record':Ident @Ident"`
	By    *string       `parser:"('by':Ident @Ident)?"`
	Doc   *string       `parser:"@String?"`
	Items []*RecordItem `parser:"'{':Op @@* '}':Op"`
}

// RecordItem is a field or a case of a value record. Exactly one field is
// set.
type RecordItem struct {
	Pos    Pos
	EndPos Pos

	Case  *Case  `parser:"  @@"`
	Field *Field `parser:"| (?! 'case':Ident) @@"`
}

// Case is one case of a variant record: `case gift_card { balance decimal }`.
type Case struct {
	Pos    Pos
	EndPos Pos

	Name   string   `parser:"'case':Ident @Ident"`
	Fields []*Field `parser:"'{':Op @@* '}':Op"`
}

// Field is a typed field of an entity with its constraints.
//
//	credit_limit money >= 0 "Maximum open balance"
type Field struct {
	Pos    Pos
	EndPos Pos

	Name        string
	Type        *Type
	Constraints []*Constraint
	Doc         *string
}

// Constraint is `unique`, a default `= value`, or a bound `>= value`.
type Constraint struct {
	Pos    Pos
	EndPos Pos

	Unique  bool
	Default *Literal
	Op      string
	Bound   *Literal
}

// Type is a field or parameter type: a scalar name (string, text, int,
// decimal, money, bool, date, datetime), an inline enum, a reference to an
// entity, a list `list<T>`, a map `map<string, T>`, a value record's name,
// or the type of an enum field (`Customer.tier`); `?` makes it optional.
type Type struct {
	Pos    Pos
	EndPos Pos

	Enum     *EnumType
	Ref      *QualName
	List     *Type
	Map      *MapType
	Named    *QualName
	Optional bool
}

// MapType is `map<string, T>`. Key is the key type as written; only string
// is valid.
type MapType struct {
	Pos    Pos
	EndPos Pos

	Key   string
	Value *Type
}

// EnumType is `enum { a b "c d" }`.
type EnumType struct {
	Pos    Pos
	EndPos Pos

	Values []*EnumValue
}

// EnumValue is one enum member: an identifier or a quoted string.
type EnumValue struct {
	Pos    Pos
	EndPos Pos

	Name string
}

// QualName is a dotted name: `Customer`, `crm.Customer`, `Customer.tier`.
type QualName struct {
	Pos    Pos
	EndPos Pos

	Parts []string
}

// Tool is an agent-callable operation: a standard tool over one entity or a
// custom tool with parameters and a body.
type Tool struct {
	Pos    Pos
	EndPos Pos

	Name   string      `parser:"'tool':Ident @Ident"`
	Std    *StdTool    `parser:"( ':':Op @@"`
	Custom *CustomTool `parser:"| @@ )"`
}

// StdTool is `search E by f, g`, `list E`, `get E`, `create E`, `update E` or
// `delete E`.
type StdTool struct {
	Pos    Pos
	EndPos Pos

	Kind   string    `parser:"@('search':Ident | 'list':Ident | 'get':Ident | 'create':Ident | 'update':Ident | 'delete':Ident)"`
	Entity *QualName `parser:"@@"`
	By     []string  `parser:"('by':Ident @Ident (',':Op @Ident)*)?"`
	Doc    *string   `parser:"@String?"`
}

// CustomTool is `(params) "doc" { statements }`.
type CustomTool struct {
	Pos    Pos
	EndPos Pos

	Params []*Param `parser:"'(':Op (@@ (',':Op @@)* ',':Op?)? ')':Op"`
	Doc    *string  `parser:"@String?"`
	Body   *Block   `parser:"@@"`
}

// Param is a typed tool parameter.
type Param struct {
	Pos    Pos
	EndPos Pos

	Name string
	Type *Type
	Doc  *string
}

// Block is a braced statement list.
type Block struct {
	Pos    Pos
	EndPos Pos

	Stmts []*Stmt
}

// Stmt is one statement of a tool body. Exactly one field is set.
type Stmt struct {
	Pos    Pos
	EndPos Pos

	Require *Require
	Let     *Let
	Var     *Var
	Set     *Set
	Insert  *Insert
	Delete  *Delete
	Return  *Return
	If      *If
	For     *For
	Fail    *Fail
}

// Require is `require cond else "message"`: the tool fails with the message
// when cond is false. The message may be built from values (`else "Order "
// + id + " not found"`): then MessageExpr holds it and Message is empty. A
// message that is a single string literal is always in Message.
type Require struct {
	Pos    Pos
	EndPos Pos

	Cond        *Expr
	Message     string
	MessageExpr *Expr
}

// Fail fails the tool unconditionally: `fail "message"`, or a message
// built from values.
type Fail struct {
	Pos    Pos
	EndPos Pos

	Message *Expr
}

// Var declares a mutable local: `var total = 0.0`; `set total = …`
// changes it. Type, when given, is the local's type, for values whose
// type the value alone does not tell: `var seen: map<string, int> = {}`.
type Var struct {
	Pos    Pos
	EndPos Pos

	Name  string
	Type  *Type
	Value *Expr
}

// Let binds a name to a value or to a newly inserted record.
type Let struct {
	Pos    Pos
	EndPos Pos

	Name   string
	Insert *Insert
	Value  *Expr
}

// Set assigns a field of a record: `set invoice.status = paid`.
type Set struct {
	Pos    Pos
	EndPos Pos

	Target *Postfix
	Value  *Expr
}

// Insert creates a record: `insert Entry { invoice: inv, amount: 10 }`.
type Insert struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName
	Fields []*FieldInit
}

// FieldInit is `name: value` inside an insert.
type FieldInit struct {
	Pos    Pos
	EndPos Pos

	Name  string
	Value *Expr
}

// Delete removes a record.
type Delete struct {
	Pos    Pos
	EndPos Pos

	Target *Expr
}

// Return ends the tool with a value the agent observes.
type Return struct {
	Pos    Pos
	EndPos Pos

	Value *Expr
}

// If is a conditional with optional else / else-if.
type If struct {
	Pos    Pos
	EndPos Pos

	Cond   *Expr
	Then   *Block
	ElseIf *If
	Else   *Block
}

// For runs its body for every element of a source (an entity's records, a
// list or a map's values), optionally filtered. Key, when given (`for i, x
// in xs`, `for k, v in m`), names the index of a list element or the key of
// a map value.
type For struct {
	Pos    Pos
	EndPos Pos

	Key    string
	Var    string
	Source *Postfix
	// To is the end of a range of ints, `for i in 1..n` (Source is its
	// start): every int from Source to To, both included.
	To    *Postfix
	Where *Expr
	Body  *Block
}

// Invariant is a world rule. Policy is the visible text the agent reads;
// the `for … where` clause is the trigger and `require` the hidden check.
// A `local invariant` may keep its trigger and check in one service; an
// `always invariant` must hold after every successful tool call of an
// episode, not only at its end. The two combine as `local always
// invariant`.
type Invariant struct {
	Pos    Pos
	EndPos Pos

	// PolicyPos and PolicyEnd are where the policy string is written
	// (Parse fills them; zero on a tree built by hand).
	PolicyPos Pos `parser:""`
	PolicyEnd Pos `parser:""`

	Local  bool     `parser:"@'local':Ident?"`
	Always bool     `parser:"@'always':Ident?"`
	Name   string   `parser:"'invariant':Ident @Ident '{':Op"`
	Policy string   `parser:"'policy':Ident @String"`
	Var    string   `parser:"'for':Ident @Ident 'in':Ident"`
	Source *Postfix `parser:"@@"`
	Where  *Expr    `parser:"('where':Ident @@)?"`
	Check  *Expr    `parser:"'require':Ident @@ '}':Op"`
}

// Rule is a rule on an action: whenever the agent calls the tool, the
// check must hold on the state before the call, with the tool's
// parameters bound as in its body. The world does not enforce it (the
// tool runs all the same); graders report a call that breaks it.
//
//	rule no_dispatch_on_credit_hold {
//	  policy "We never dispatch a shipment for a shipper on credit hold."
//	  on operations.dispatch_shipment(shipment)
//	  require not shipment.customer.on_hold
//	}
type Rule struct {
	Pos    Pos
	EndPos Pos

	Name   string `parser:"'rule':Ident @Ident '{':Op"`
	Policy string `parser:"'policy':Ident @String"`
	// Tool is the tool's name, qualified by its service or not.
	Tool []string `parser:"'on':Ident @Ident ('.':Op @Ident)?"`
	// Params name the parameters the check reads (documentation: every
	// parameter is in scope); nil when the parentheses are left out.
	Params []string `parser:"( '(':Op (@Ident (',':Op @Ident)*)? ')':Op )?"`
	Check  *Expr    `parser:"'require':Ident @@ '}':Op"`
}

// Seed lists the records of the initial state (of the world or of a task):
// records written out, and records loaded from data files. Records and
// Loads keep their source order each; Format interleaves them by position.
type Seed struct {
	Pos    Pos
	EndPos Pos

	Records []*Record `parser:"'seed':Ident '{':Op ( @@"`
	Loads   []*Load   `parser:"        | @@ )* '}':Op"`
}

// Load reads seed records from a JSON or CSV file, relative to the spec's
// directory: `load retail.Order from "retail/db.json" at "orders"`, or
// `load crm.Customer from "customers.csv" { name: "Customer Name" }`. At
// is the path of object keys (separated by /) to the records in a JSON
// file; Fields maps entity fields to other source keys or columns.
type Load struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName    `parser:"'load':Ident @@"`
	From   string       `parser:"'from':Ident @String"`
	At     *string      `parser:"('at':Ident @String)?"`
	Fields []*LoadField `parser:"('{':Op (@@ ',':Op?)* '}':Op)?"`
}

// LoadField maps an entity field to a JSON key or CSV column: `name:
// "Customer Name"`.
type LoadField struct {
	Pos    Pos
	EndPos Pos

	Name   string `parser:"@Ident ':':Op"`
	Source string `parser:"@String"`
}

// Record is a seed record with a handle: `crm.Customer acme { name: "Acme" }`.
type Record struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName
	Handle string
	Fields []*FieldValue
}

// FieldValue is `name: value` inside a seed record or a record value: a
// literal, or a list, map or record constant (Composite).
type FieldValue struct {
	Pos    Pos
	EndPos Pos

	Name      string
	Value     *Literal
	Composite *Composite
}

// Value is a constant of a seed or a solution argument: a literal or a
// list, map or record constant. Exactly one field is set.
type Value struct {
	Pos    Pos
	EndPos Pos

	Composite *Composite
	Lit       *Literal
}

// Composite is a list `["a", "b"]`, a map `{ "k": 1 }` or a record
// `Address { city: "Paris" }` constant. Exactly one field is set.
type Composite struct {
	Pos    Pos
	EndPos Pos

	List   *ListValue
	Map    *MapValue
	Record *RecordValue
}

// ListValue is `[v, …]`.
type ListValue struct {
	Pos    Pos
	EndPos Pos

	Elems []*Value
}

// MapValue is `{ "key": v, … }`.
type MapValue struct {
	Pos    Pos
	EndPos Pos

	Entries []*MapValueEntry
}

// MapValueEntry is one `"key": v` of a MapValue.
type MapValueEntry struct {
	Pos    Pos
	EndPos Pos

	Key   string
	Value *Value
}

// RecordValue is `Name { field: v, … }`: a value record constant.
type RecordValue struct {
	Pos    Pos
	EndPos Pos

	Name   string
	Fields []*FieldValue
}

// Task is a job for the agent with its rubric and golden solution.
type Task struct {
	Pos    Pos
	EndPos Pos

	Name        string    `parser:"'task':Ident @Ident '{':Op"`
	Persona     string    `parser:"'persona':Ident @String"`
	Instruction string    `parser:"'instruction':Ident @String"`
	Clock       []*Clock  `parser:"@@*"`
	Tags        *Tags     `parser:"('tags':Ident @@)?"`
	Meta        *Meta     `parser:"@@?"`
	Seed        *Seed     `parser:"@@?"`
	Expect      *Expect   `parser:"'expect':Ident @@"`
	Solution    *Solution `parser:"('solution':Ident @@)? '}':Op"`
}

// Clock is a task's own clock, written as the world header's: `today
// 2026-03-16` (a date) or `now 2026-03-16T17:45:00Z` (a date-time), or
// both. The task's episodes see it as today and now.
type Clock struct {
	Pos    Pos
	EndPos Pos

	Key   string   `parser:"@('today':Ident | 'now':Ident)"`
	Value *Literal `parser:"@@"`
}

// Tags is the task taxonomy: a domain path, capabilities and difficulty atoms.
type Tags struct {
	Pos    Pos
	EndPos Pos

	Domain       *string  `parser:"'{':Op ('domain':Ident @String)?"`
	Capabilities []string `parser:"('capabilities':Ident '[':Op (@Ident ',':Op?)* ']':Op)?"`
	Difficulty   []string `parser:"('difficulty':Ident '[':Op (@Ident ',':Op?)* ']':Op)? '}':Op"`
}

// Meta is a task's free-form metadata, carried into the task's
// description for the harness and never graded:
//
//	meta { split: ["train", "base"], source_id: "17", weight: 2, reviewed: true }
//
// Values are strings, numbers, booleans and lists of strings; the checker
// refuses other constants.
type Meta struct {
	Pos    Pos
	EndPos Pos

	Entries []*MetaEntry `parser:"'meta':Ident '{':Op (@@ ',':Op?)* '}':Op"`
}

// MetaEntry is one `key: value` of a Meta.
type MetaEntry struct {
	Pos    Pos
	EndPos Pos

	Key   string `parser:"@Ident ':':Op"`
	Value *Value `parser:"@@"`
}

// Expect is the rubric: one assertion per entry.
type Expect struct {
	Pos    Pos
	EndPos Pos

	Assertions []*Assertion `parser:"'{':Op @@* '}':Op"`
}

// Assertion is `invariant name`, `unchanged` (the state equals the task's
// start state), `unchanged except E[k], …` (every record but those) or a
// boolean expression.
type Assertion struct {
	Pos    Pos
	EndPos Pos

	Invariant *string    `parser:"  'invariant':Ident @Ident"`
	Unchanged bool       `parser:"| @'unchanged':Ident"`
	Except    []*Postfix `parser:"  ('except':Ident @@ (',':Op @@)*)?"`
	// Answer is `answer EXPR`: the agent's final message states the value
	// of EXPR on the final state.
	Answer *Expr `parser:"| 'answer':Ident @@"`
	Expr   *Expr `parser:"| @@"`
}

// Solution is the golden trace: tool calls in order.
type Solution struct {
	Pos    Pos
	EndPos Pos

	Calls []*CallStep `parser:"'{':Op @@* '}':Op"`
}

// CallStep is one call of a solution: `tool(arg: value)`, optionally bound to
// a name (`o = create_order(...)`) whose id later calls may pass. `fails
// "message"` marks a call the solution expects to fail with that message.
type CallStep struct {
	Pos    Pos
	EndPos Pos

	Bind  *string `parser:"(@Ident '=':Op)?"`
	Tool  string  `parser:"(?! 'fails':Ident) @Ident '(':Op"`
	Args  []*Arg  `parser:"(@@ ',':Op?)* ')':Op"`
	Fails *string `parser:"('fails':Ident @String)?"`
}

// Arg is `name: value` in a call: a literal or a list, map or record
// constant (Composite).
type Arg struct {
	Pos    Pos
	EndPos Pos

	Name      string
	Value     *Literal
	Composite *Composite
}

// Literal is a constant: number, string, date, datetime, boolean, null, or an
// identifier (an enum value, a seed handle or, in expressions, a name).
type Literal struct {
	Pos    Pos
	EndPos Pos

	DateTime *string
	Date     *string
	Number   *string
	String   *string
	Bool     *string
	Null     bool
	Ident    *string
}

// Expr is an `or` chain, the loosest-binding expression level, or a
// conditional expression (If set, Left and Right empty).
type Expr struct {
	Pos    Pos
	EndPos Pos

	If    *CondExpr
	Left  *AndExpr
	Right []*AndExpr
}

// CondExpr is the conditional expression `if C then A else B`: A when C
// holds, else B. It is an expression level of its own, looser than `or`:
// it stands wherever an expression does (a let, an argument, a field
// value, inside brackets) but is not an operand of an operator without
// parentheses, and its else branch takes the rest of the expression
// (`if c then a else b + 1` is `if c then a else (b + 1)`).
type CondExpr struct {
	Pos    Pos
	EndPos Pos

	Cond *Expr
	Then *Expr
	Else *Expr
}

// AndExpr is an `and` chain.
type AndExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *NotExpr
	Right []*NotExpr
}

// NotExpr is `not x` or a comparison.
type NotExpr struct {
	Pos    Pos
	EndPos Pos

	Not *NotExpr
	Cmp *CmpExpr
}

// CmpExpr is an optional comparison or membership test between two sums.
// Op is one of == != < <= > >= in notin.
type CmpExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *AddExpr
	Op    string
	Right *AddExpr
}

// AddExpr is a chain of + and -.
type AddExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *MulExpr
	Right []*AddOp
}

// AddOp is one `+ x` or `- x` of an AddExpr.
type AddOp struct {
	Pos    Pos
	EndPos Pos

	Op      string
	Operand *MulExpr
}

// MulExpr is a chain of *, / and %.
type MulExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *Unary
	Right []*MulOp
}

// MulOp is one `* x`, `/ x` or `% x` of a MulExpr.
type MulOp struct {
	Pos    Pos
	EndPos Pos

	Op      string
	Operand *Unary
}

// Unary is a negation, or a postfix expression optionally converted to an
// enum type: `reason as Order.cancel_reason`. `as` binds tighter than the
// arithmetic operators and looser than `.` and `[…]`.
type Unary struct {
	Pos    Pos
	EndPos Pos

	Neg     *Unary
	Postfix *Postfix
	As      *Type
}

// Postfix is a primary followed by field selections and indexes:
// `invoice.customer.name`, `billing.Invoice[inv1].status`.
type Postfix struct {
	Pos    Pos
	EndPos Pos

	Primary  *Primary
	Suffixes []*Suffix
}

// Suffix is `.name` or `[expr]`.
type Suffix struct {
	Pos    Pos
	EndPos Pos

	Field *string
	Index *Expr
}

// Primary is an aggregate, a field match, a function call, a record
// literal, a literal or name, a list, a map or a parenthesised expression.
type Primary struct {
	Pos    Pos
	EndPos Pos

	Agg    *Aggregate
	Match  *Match
	Call   *Call
	Struct *StructLit
	Lit    *Literal
	List   *ListLit
	Map    *MapLit
	Paren  *Expr
}

// Aggregate is a comprehension over a source:
//
//	count(e in S where c)      exists(e in S where c)
//	first(e in S where c)      index(e in S where c)
//	sum(e.x for e in S where c) min(…) max(…) forall(cond for e in S where c)
//	list(e in S where c)       list(e.x for e in S where c)
type Aggregate struct {
	Pos    Pos
	EndPos Pos

	Kind      string
	ValueKind string
	Value     *Expr
	Var       string
	Source    *Postfix
	Where     *Expr
}

// Op is the aggregate's operator: count, exists, first, index, sum, min,
// max, forall or list.
func (a *Aggregate) Op() string {
	if a.Kind != "" {
		return a.Kind
	}
	return a.ValueKind
}

// Call is a built-in function call: `lower(x)`, `days_between(a, b)`.
type Call struct {
	Pos    Pos
	EndPos Pos

	Func string
	Args []*Expr
}

// ListLit is `[a, b, c]`.
type ListLit struct {
	Pos    Pos
	EndPos Pos

	Elems []*Expr
}

// StructLit is a value record, `Address { city: "Paris", zip: "75001" }`,
// or a whole record of an entity compared with a record,
// `store.Order["#W1"] == Order { order_id: "#W1", … }`. The name may be
// qualified by its service (`store.Order { … }`). It gives at least one
// field, so that `for x in E {}` stays a loop.
type StructLit struct {
	Pos    Pos
	EndPos Pos

	Service string
	Name    string
	Fields  []*FieldInit
}

// QualifiedName is the literal's name as written: `Order` or
// `store.Order`.
func (s *StructLit) QualifiedName() string {
	if s.Service != "" {
		return s.Service + "." + s.Name
	}
	return s.Name
}

// Match compares some fields of a record or a value record with values:
// `matches(store.Order["#W1"], { status: cancelled, cancel_reason: "no
// longer needed" })`. The fields are written as in a record literal.
type Match struct {
	Pos    Pos
	EndPos Pos

	X      *Expr
	Fields []*FieldInit
}

// MapLit is `{ "key": value, … }`.
type MapLit struct {
	Pos    Pos
	EndPos Pos

	Entries []*MapEntry
}

// MapEntry is one `"key": value` of a MapLit.
type MapEntry struct {
	Pos    Pos
	EndPos Pos

	Key   string
	Value *Expr
}

// StringLiteral reports whether e is a single string literal, without
// parentheses, and returns its value.
func StringLiteral(e *Expr) (string, bool) {
	if e == nil || len(e.Right) > 0 || e.Left == nil || len(e.Left.Right) > 0 {
		return "", false
	}
	n := e.Left.Left
	if n == nil || n.Not != nil || n.Cmp == nil || n.Cmp.Op != "" {
		return "", false
	}
	a := n.Cmp.Left
	if a == nil || len(a.Right) > 0 || a.Left == nil || len(a.Left.Right) > 0 {
		return "", false
	}
	u := a.Left.Left
	if u == nil || u.Neg != nil || u.Postfix == nil || len(u.Postfix.Suffixes) > 0 {
		return "", false
	}
	p := u.Postfix.Primary
	if p == nil || p.Lit == nil || p.Lit.String == nil {
		return "", false
	}
	return *p.Lit.String, true
}
