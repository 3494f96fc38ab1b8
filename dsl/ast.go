// Package dsl is the world language: its grammar, syntax tree, parser,
// canonical formatter and grammar export.
//
// A world spec is one file holding a world header, services with entities and
// tools, invariants, a seed and tasks. The syntax tree mirrors the grammar
// closely and carries the source position of every node (Pos, EndPos); it is
// consumed by the compiler, which resolves names and types into an IR. The
// structs double as the participle grammar: each field's tag is the grammar
// fragment that fills it.
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

	World     *World     `parser:"  @@"`
	Service   *Service   `parser:"| @@"`
	Invariant *Invariant `parser:"| @@"`
	Seed      *Seed      `parser:"| @@"`
	Task      *Task      `parser:"| @@"`
}

// World is the world header: identity and clock.
//
//	world northwind { title "Northwind" industry "logistics" country "DE" currency "EUR" today 2026-03-14 }
type World struct {
	Pos    Pos
	EndPos Pos

	Name  string  `parser:"'world' @Ident '{'"`
	Props []*Prop `parser:"@@* '}'"`
}

// Prop is a `key value` pair of the world header.
type Prop struct {
	Pos    Pos
	EndPos Pos

	Key   string   `parser:"@Ident"`
	Value *Literal `parser:"@@"`
}

// Service groups entities and the tools that may write them.
type Service struct {
	Pos    Pos
	EndPos Pos

	Name    string    `parser:"'service' @Ident"`
	Doc     *string   `parser:"@String?"`
	Members []*Member `parser:"'{' @@* '}'"`
}

// Member is an entity or a tool of a service. Exactly one field is set.
type Member struct {
	Pos    Pos
	EndPos Pos

	Entity *Entity `parser:"  @@"`
	Tool   *Tool   `parser:"| @@"`
}

// Entity is a record type stored in a table of the world state. Every entity
// has an implicit string field `id`.
type Entity struct {
	Pos    Pos
	EndPos Pos

	Name   string   `parser:"'entity' @Ident"`
	Doc    *string  `parser:"@String?"`
	Fields []*Field `parser:"'{' @@* '}'"`
}

// Field is a typed field of an entity with its constraints.
//
//	credit_limit money >= 0 "Maximum open balance"
type Field struct {
	Pos    Pos
	EndPos Pos

	Name        string        `parser:"@Ident"`
	Type        *Type         `parser:"@@"`
	Constraints []*Constraint `parser:"@@*"`
	Doc         *string       `parser:"@String?"`
}

// Constraint is `unique`, a default `= value`, or a bound `>= value`.
type Constraint struct {
	Pos    Pos
	EndPos Pos

	Unique  bool     `parser:"  @'unique'"`
	Default *Literal `parser:"| '=' @@"`
	Op      string   `parser:"| @('>=' | '<=' | '>' | '<')"`
	Bound   *Literal `parser:"  @@"`
}

// Type is a field or parameter type: a scalar name (string, text, int,
// decimal, money, bool, date, datetime), an inline enum, a reference to an
// entity, or the type of an enum field (`Customer.tier`); `?` makes it
// optional.
type Type struct {
	Pos    Pos
	EndPos Pos

	Enum     *EnumType `parser:"(  @@"`
	Ref      *QualName `parser:" | 'ref' @@"`
	Named    *QualName `parser:" | @@ )"`
	Optional bool      `parser:"@'?'?"`
}

// EnumType is `enum { a b "c d" }`.
type EnumType struct {
	Pos    Pos
	EndPos Pos

	Values []*EnumValue `parser:"'enum' '{' (@@ ','?)+ '}'"`
}

// EnumValue is one enum member: an identifier or a quoted string.
type EnumValue struct {
	Pos    Pos
	EndPos Pos

	Name string `parser:"@Ident | @String"`
}

// QualName is a dotted name: `Customer`, `crm.Customer`, `Customer.tier`.
type QualName struct {
	Pos    Pos
	EndPos Pos

	Parts []string `parser:"@Ident ('.' @Ident)*"`
}

// Tool is an agent-callable operation: a standard tool over one entity or a
// custom tool with parameters and a body.
type Tool struct {
	Pos    Pos
	EndPos Pos

	Name   string      `parser:"'tool' @Ident"`
	Std    *StdTool    `parser:"( ':' @@"`
	Custom *CustomTool `parser:"| @@ )"`
}

// StdTool is `search E by f, g`, `list E`, `get E`, `create E`, `update E` or
// `delete E`.
type StdTool struct {
	Pos    Pos
	EndPos Pos

	Kind   string    `parser:"@('search' | 'list' | 'get' | 'create' | 'update' | 'delete')"`
	Entity *QualName `parser:"@@"`
	By     []string  `parser:"('by' @Ident (',' @Ident)*)?"`
	Doc    *string   `parser:"@String?"`
}

// CustomTool is `(params) "doc" { statements }`.
type CustomTool struct {
	Pos    Pos
	EndPos Pos

	Params []*Param `parser:"'(' (@@ (',' @@)* ','?)? ')'"`
	Doc    *string  `parser:"@String?"`
	Body   *Block   `parser:"@@"`
}

// Param is a typed tool parameter.
type Param struct {
	Pos    Pos
	EndPos Pos

	Name string  `parser:"@Ident ':'"`
	Type *Type   `parser:"@@"`
	Doc  *string `parser:"@String?"`
}

// Block is a braced statement list.
type Block struct {
	Pos    Pos
	EndPos Pos

	Stmts []*Stmt `parser:"'{' @@* '}'"`
}

// Stmt is one statement of a tool body. Exactly one field is set.
type Stmt struct {
	Pos    Pos
	EndPos Pos

	Require *Require `parser:"  @@"`
	Let     *Let     `parser:"| @@"`
	Set     *Set     `parser:"| @@"`
	Insert  *Insert  `parser:"| @@"`
	Delete  *Delete  `parser:"| @@"`
	Return  *Return  `parser:"| @@"`
	If      *If      `parser:"| @@"`
	For     *For     `parser:"| @@"`
}

// Require is `require cond else "message"`: the tool fails with the message
// when cond is false.
type Require struct {
	Pos    Pos
	EndPos Pos

	Cond    *Expr  `parser:"'require' @@"`
	Message string `parser:"'else' @String"`
}

// Let binds a name to a value or to a newly inserted record.
type Let struct {
	Pos    Pos
	EndPos Pos

	Name   string  `parser:"'let' @Ident '='"`
	Insert *Insert `parser:"(  @@"`
	Value  *Expr   `parser:" | @@ )"`
}

// Set assigns a field of a record: `set invoice.status = paid`.
type Set struct {
	Pos    Pos
	EndPos Pos

	Target *Postfix `parser:"'set' @@"`
	Value  *Expr    `parser:"'=' @@"`
}

// Insert creates a record: `insert Entry { invoice: inv, amount: 10 }`.
type Insert struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName    `parser:"'insert' @@"`
	Fields []*FieldInit `parser:"'{' (@@ ','?)* '}'"`
}

// FieldInit is `name: value` inside an insert.
type FieldInit struct {
	Pos    Pos
	EndPos Pos

	Name  string `parser:"@Ident ':'"`
	Value *Expr  `parser:"@@"`
}

// Delete removes a record.
type Delete struct {
	Pos    Pos
	EndPos Pos

	Target *Expr `parser:"'delete' @@"`
}

// Return ends the tool with a value the agent observes.
type Return struct {
	Pos    Pos
	EndPos Pos

	Value *Expr `parser:"'return' @@"`
}

// If is a conditional with optional else / else-if.
type If struct {
	Pos    Pos
	EndPos Pos

	Cond   *Expr  `parser:"'if' @@"`
	Then   *Block `parser:"@@"`
	ElseIf *If    `parser:"( 'else' ( @@"`
	Else   *Block `parser:"          | @@ ) )?"`
}

// For runs its body for every element of a source (an entity's records or a
// list), optionally filtered.
type For struct {
	Pos    Pos
	EndPos Pos

	Var    string   `parser:"'for' @Ident 'in'"`
	Source *Postfix `parser:"@@"`
	Where  *Expr    `parser:"('where' @@)?"`
	Body   *Block   `parser:"@@"`
}

// Invariant is a world rule. Policy is the visible text the agent reads;
// the `for … where` clause is the trigger and `require` the hidden check.
type Invariant struct {
	Pos    Pos
	EndPos Pos

	Name   string   `parser:"'invariant' @Ident '{'"`
	Policy string   `parser:"'policy' @String"`
	Var    string   `parser:"'for' @Ident 'in'"`
	Source *Postfix `parser:"@@"`
	Where  *Expr    `parser:"('where' @@)?"`
	Check  *Expr    `parser:"'require' @@ '}'"`
}

// Seed lists the records of the initial state (of the world or of a task).
type Seed struct {
	Pos    Pos
	EndPos Pos

	Records []*Record `parser:"'seed' '{' @@* '}'"`
}

// Record is a seed record with a handle: `crm.Customer acme { name: "Acme" }`.
type Record struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName     `parser:"@@"`
	Handle string        `parser:"@Ident"`
	Fields []*FieldValue `parser:"'{' (@@ ','?)* '}'"`
}

// FieldValue is `name: literal` inside a seed record.
type FieldValue struct {
	Pos    Pos
	EndPos Pos

	Name  string   `parser:"@Ident ':'"`
	Value *Literal `parser:"@@"`
}

// Task is a job for the agent with its rubric and golden solution.
type Task struct {
	Pos    Pos
	EndPos Pos

	Name        string    `parser:"'task' @Ident '{'"`
	Persona     string    `parser:"'persona' @String"`
	Instruction string    `parser:"'instruction' @String"`
	Tags        *Tags     `parser:"('tags' @@)?"`
	Seed        *Seed     `parser:"@@?"`
	Expect      *Expect   `parser:"'expect' @@"`
	Solution    *Solution `parser:"('solution' @@)? '}'"`
}

// Tags is the task taxonomy: a domain path, capabilities and difficulty atoms.
type Tags struct {
	Pos    Pos
	EndPos Pos

	Domain       *string  `parser:"'{' ('domain' @String)?"`
	Capabilities []string `parser:"('capabilities' '[' (@Ident ','?)* ']')?"`
	Difficulty   []string `parser:"('difficulty' '[' (@Ident ','?)* ']')? '}'"`
}

// Expect is the rubric: one assertion per entry.
type Expect struct {
	Pos    Pos
	EndPos Pos

	Assertions []*Assertion `parser:"'{' @@* '}'"`
}

// Assertion is `invariant name`, `unchanged` (the state equals the task's
// start state) or a boolean expression.
type Assertion struct {
	Pos    Pos
	EndPos Pos

	Invariant *string `parser:"  'invariant' @Ident"`
	Unchanged bool    `parser:"| @'unchanged'"`
	Expr      *Expr   `parser:"| @@"`
}

// Solution is the golden trace: tool calls in order.
type Solution struct {
	Pos    Pos
	EndPos Pos

	Calls []*CallStep `parser:"'{' @@* '}'"`
}

// CallStep is one call of a solution: `tool(arg: value)`, optionally bound to
// a name (`o = create_order(...)`) whose id later calls may pass.
type CallStep struct {
	Pos    Pos
	EndPos Pos

	Bind *string `parser:"(@Ident '=')?"`
	Tool string  `parser:"@Ident '('"`
	Args []*Arg  `parser:"(@@ ','?)* ')'"`
}

// Arg is `name: value` in a call.
type Arg struct {
	Pos    Pos
	EndPos Pos

	Name  string   `parser:"@Ident ':'"`
	Value *Literal `parser:"@@"`
}

// Literal is a constant: number, string, date, datetime, boolean, null, or an
// identifier (an enum value, a seed handle or, in expressions, a name).
type Literal struct {
	Pos    Pos
	EndPos Pos

	DateTime *string `parser:"  @DateTime"`
	Date     *string `parser:"| @Date"`
	Number   *string `parser:"| @('-'? Number)"`
	String   *string `parser:"| @String"`
	Bool     *string `parser:"| @('true' | 'false')"`
	Null     bool    `parser:"| @'null'"`
	Ident    *string `parser:"| @Ident"`
}

// Expr is an `or` chain, the loosest-binding expression level.
type Expr struct {
	Pos    Pos
	EndPos Pos

	Left  *AndExpr   `parser:"@@"`
	Right []*AndExpr `parser:"('or' @@)*"`
}

// AndExpr is an `and` chain.
type AndExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *NotExpr   `parser:"@@"`
	Right []*NotExpr `parser:"('and' @@)*"`
}

// NotExpr is `not x` or a comparison.
type NotExpr struct {
	Pos    Pos
	EndPos Pos

	Not *NotExpr `parser:"  'not' @@"`
	Cmp *CmpExpr `parser:"| @@"`
}

// CmpExpr is an optional comparison or membership test between two sums.
// Op is one of == != < <= > >= in notin.
type CmpExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *AddExpr `parser:"@@"`
	Op    string   `parser:"( @('==' | '!=' | '<=' | '>=' | '<' | '>' | 'in' | 'not' 'in')"`
	Right *AddExpr `parser:"  @@ )?"`
}

// AddExpr is a chain of + and -.
type AddExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *MulExpr `parser:"@@"`
	Right []*AddOp `parser:"@@*"`
}

// AddOp is one `+ x` or `- x` of an AddExpr.
type AddOp struct {
	Pos    Pos
	EndPos Pos

	Op      string   `parser:"@('+' | '-')"`
	Operand *MulExpr `parser:"@@"`
}

// MulExpr is a chain of *, / and %.
type MulExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *Unary   `parser:"@@"`
	Right []*MulOp `parser:"@@*"`
}

// MulOp is one `* x`, `/ x` or `% x` of a MulExpr.
type MulOp struct {
	Pos    Pos
	EndPos Pos

	Op      string `parser:"@('*' | '/' | '%')"`
	Operand *Unary `parser:"@@"`
}

// Unary is a negation or a postfix expression.
type Unary struct {
	Pos    Pos
	EndPos Pos

	Neg     *Unary   `parser:"  '-' @@"`
	Postfix *Postfix `parser:"| @@"`
}

// Postfix is a primary followed by field selections and indexes:
// `invoice.customer.name`, `billing.Invoice[inv1].status`.
type Postfix struct {
	Pos    Pos
	EndPos Pos

	Primary  *Primary  `parser:"@@"`
	Suffixes []*Suffix `parser:"@@*"`
}

// Suffix is `.name` or `[expr]`.
type Suffix struct {
	Pos    Pos
	EndPos Pos

	Field *string `parser:"  '.' @Ident"`
	Index *Expr   `parser:"| '[' @@ ']'"`
}

// Primary is an aggregate, a function call, a literal or name, a list or a
// parenthesised expression.
type Primary struct {
	Pos    Pos
	EndPos Pos

	Agg   *Aggregate `parser:"  @@"`
	Call  *Call      `parser:"| @@"`
	Lit   *Literal   `parser:"| @@"`
	List  *ListLit   `parser:"| @@"`
	Paren *Expr      `parser:"| '(' @@ ')'"`
}

// Aggregate is a comprehension over a source:
//
//	count(e in S where c)      exists(e in S where c)
//	sum(e.x for e in S where c) min(…) max(…) forall(cond for e in S where c)
type Aggregate struct {
	Pos    Pos
	EndPos Pos

	Kind      string   `parser:"(  @('count' | 'exists') '('"`
	ValueKind string   `parser:" | @('sum' | 'min' | 'max' | 'forall') '('"`
	Value     *Expr    `parser:"   @@ 'for' )"`
	Var       string   `parser:"@Ident 'in'"`
	Source    *Postfix `parser:"@@"`
	Where     *Expr    `parser:"('where' @@)? ')'"`
}

// Op is the aggregate's operator: count, exists, sum, min, max or forall.
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

	Func string  `parser:"@Ident '('"`
	Args []*Expr `parser:"(@@ (',' @@)*)? ')'"`
}

// ListLit is `[a, b, c]`.
type ListLit struct {
	Pos    Pos
	EndPos Pos

	Elems []*Expr `parser:"'[' (@@ (',' @@)* ','?)? ']'"`
}
