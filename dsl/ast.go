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

	Decls []*Decl `@@*`

	// Comments holds every comment of the file in source order. The parser
	// fills it; the formatter re-attaches comments to the nearest line.
	Comments []*Comment `parser:""`
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

	World     *World     `  @@`
	Service   *Service   `| @@`
	Invariant *Invariant `| @@`
	Seed      *Seed      `| @@`
	Task      *Task      `| @@`
}

// World is the world header: identity and clock.
//
//	world northwind { title "Northwind" industry "logistics" country "DE" currency "EUR" today 2026-03-14 }
type World struct {
	Pos    Pos
	EndPos Pos

	Name  string  `"world" @Ident "{"`
	Props []*Prop `@@* "}"`
}

// Prop is a `key value` pair of the world header.
type Prop struct {
	Pos    Pos
	EndPos Pos

	Key   string   `@Ident`
	Value *Literal `@@`
}

// Service groups entities and the tools that may write them.
type Service struct {
	Pos    Pos
	EndPos Pos

	Name    string    `"service" @Ident`
	Doc     *string   `@String?`
	Members []*Member `"{" @@* "}"`
}

// Member is an entity or a tool of a service. Exactly one field is set.
type Member struct {
	Pos    Pos
	EndPos Pos

	Entity *Entity `  @@`
	Tool   *Tool   `| @@`
}

// Entity is a record type stored in a table of the world state. Every entity
// has an implicit string field `id`.
type Entity struct {
	Pos    Pos
	EndPos Pos

	Name   string   `"entity" @Ident`
	Doc    *string  `@String?`
	Fields []*Field `"{" @@* "}"`
}

// Field is a typed field of an entity with its constraints.
//
//	credit_limit money >= 0 "Maximum open balance"
type Field struct {
	Pos    Pos
	EndPos Pos

	Name        string        `@Ident`
	Type        *Type         `@@`
	Constraints []*Constraint `@@*`
	Doc         *string       `@String?`
}

// Constraint is `unique`, a default `= value`, or a bound `>= value`.
type Constraint struct {
	Pos    Pos
	EndPos Pos

	Unique  bool     `  @"unique"`
	Default *Literal `| "=" @@`
	Op      string   `| @(">=" | "<=" | ">" | "<")`
	Bound   *Literal `  @@`
}

// Type is a field or parameter type: a scalar name (string, text, int,
// decimal, money, bool, date, datetime), an inline enum, a reference to an
// entity, or the type of an enum field (`Customer.tier`); `?` makes it
// optional.
type Type struct {
	Pos    Pos
	EndPos Pos

	Enum     *EnumType `(  @@`
	Ref      *QualName ` | "ref" @@`
	Named    *QualName ` | @@ )`
	Optional bool      `@"?"?`
}

// EnumType is `enum { a b "c d" }`.
type EnumType struct {
	Pos    Pos
	EndPos Pos

	Values []*EnumValue `"enum" "{" (@@ ","?)+ "}"`
}

// EnumValue is one enum member: an identifier or a quoted string.
type EnumValue struct {
	Pos    Pos
	EndPos Pos

	Name string `@Ident | @String`
}

// QualName is a dotted name: `Customer`, `crm.Customer`, `Customer.tier`.
type QualName struct {
	Pos    Pos
	EndPos Pos

	Parts []string `@Ident ("." @Ident)*`
}

// Tool is an agent-callable operation: a standard tool over one entity or a
// custom tool with parameters and a body.
type Tool struct {
	Pos    Pos
	EndPos Pos

	Name   string      `"tool" @Ident`
	Std    *StdTool    `( ":" @@`
	Custom *CustomTool `| @@ )`
}

// StdTool is `search E by f, g`, `list E`, `get E`, `create E`, `update E` or
// `delete E`.
type StdTool struct {
	Pos    Pos
	EndPos Pos

	Kind   string    `@("search" | "list" | "get" | "create" | "update" | "delete")`
	Entity *QualName `@@`
	By     []string  `("by" @Ident ("," @Ident)*)?`
	Doc    *string   `@String?`
}

// CustomTool is `(params) "doc" { statements }`.
type CustomTool struct {
	Pos    Pos
	EndPos Pos

	Params []*Param `"(" (@@ ("," @@)* ","?)? ")"`
	Doc    *string  `@String?`
	Body   *Block   `@@`
}

// Param is a typed tool parameter.
type Param struct {
	Pos    Pos
	EndPos Pos

	Name string  `@Ident ":"`
	Type *Type   `@@`
	Doc  *string `@String?`
}

// Block is a braced statement list.
type Block struct {
	Pos    Pos
	EndPos Pos

	Stmts []*Stmt `"{" @@* "}"`
}

// Stmt is one statement of a tool body. Exactly one field is set.
type Stmt struct {
	Pos    Pos
	EndPos Pos

	Require *Require `  @@`
	Let     *Let     `| @@`
	Set     *Set     `| @@`
	Insert  *Insert  `| @@`
	Delete  *Delete  `| @@`
	Return  *Return  `| @@`
	If      *If      `| @@`
	For     *For     `| @@`
}

// Require is `require cond else "message"`: the tool fails with the message
// when cond is false.
type Require struct {
	Pos    Pos
	EndPos Pos

	Cond    *Expr  `"require" @@`
	Message string `"else" @String`
}

// Let binds a name to a value or to a newly inserted record.
type Let struct {
	Pos    Pos
	EndPos Pos

	Name   string  `"let" @Ident "="`
	Insert *Insert `(  @@`
	Value  *Expr   ` | @@ )`
}

// Set assigns a field of a record: `set invoice.status = paid`.
type Set struct {
	Pos    Pos
	EndPos Pos

	Target *Postfix `"set" @@`
	Value  *Expr    `"=" @@`
}

// Insert creates a record: `insert Entry { invoice: inv, amount: 10 }`.
type Insert struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName    `"insert" @@`
	Fields []*FieldInit `"{" (@@ ","?)* "}"`
}

// FieldInit is `name: value` inside an insert.
type FieldInit struct {
	Pos    Pos
	EndPos Pos

	Name  string `@Ident ":"`
	Value *Expr  `@@`
}

// Delete removes a record.
type Delete struct {
	Pos    Pos
	EndPos Pos

	Target *Expr `"delete" @@`
}

// Return ends the tool with a value the agent observes.
type Return struct {
	Pos    Pos
	EndPos Pos

	Value *Expr `"return" @@`
}

// If is a conditional with optional else / else-if.
type If struct {
	Pos    Pos
	EndPos Pos

	Cond   *Expr  `"if" @@`
	Then   *Block `@@`
	ElseIf *If    `( "else" ( @@`
	Else   *Block `          | @@ ) )?`
}

// For runs its body for every element of a source (an entity's records or a
// list), optionally filtered.
type For struct {
	Pos    Pos
	EndPos Pos

	Var    string   `"for" @Ident "in"`
	Source *Postfix `@@`
	Where  *Expr    `("where" @@)?`
	Body   *Block   `@@`
}

// Invariant is a world rule. Policy is the visible text the agent reads;
// the `for … where` clause is the trigger and `require` the hidden check.
type Invariant struct {
	Pos    Pos
	EndPos Pos

	Name   string   `"invariant" @Ident "{"`
	Policy string   `"policy" @String`
	Var    string   `"for" @Ident "in"`
	Source *Postfix `@@`
	Where  *Expr    `("where" @@)?`
	Check  *Expr    `"require" @@ "}"`
}

// Seed lists the records of the initial state (of the world or of a task).
type Seed struct {
	Pos    Pos
	EndPos Pos

	Records []*Record `"seed" "{" @@* "}"`
}

// Record is a seed record with a handle: `crm.Customer acme { name: "Acme" }`.
type Record struct {
	Pos    Pos
	EndPos Pos

	Entity *QualName     `@@`
	Handle string        `@Ident`
	Fields []*FieldValue `"{" (@@ ","?)* "}"`
}

// FieldValue is `name: literal` inside a seed record.
type FieldValue struct {
	Pos    Pos
	EndPos Pos

	Name  string   `@Ident ":"`
	Value *Literal `@@`
}

// Task is a job for the agent with its rubric and golden solution.
type Task struct {
	Pos    Pos
	EndPos Pos

	Name        string    `"task" @Ident "{"`
	Persona     string    `"persona" @String`
	Instruction string    `"instruction" @String`
	Tags        *Tags     `("tags" @@)?`
	Seed        *Seed     `@@?`
	Expect      *Expect   `"expect" @@`
	Solution    *Solution `("solution" @@)? "}"`
}

// Tags is the task taxonomy: a domain path, capabilities and difficulty atoms.
type Tags struct {
	Pos    Pos
	EndPos Pos

	Domain       *string  `"{" ("domain" @String)?`
	Capabilities []string `("capabilities" "[" (@Ident ","?)* "]")?`
	Difficulty   []string `("difficulty" "[" (@Ident ","?)* "]")? "}"`
}

// Expect is the rubric: one assertion per entry.
type Expect struct {
	Pos    Pos
	EndPos Pos

	Assertions []*Assertion `"{" @@* "}"`
}

// Assertion is `invariant name`, `unchanged` (the state equals the task's
// start state) or a boolean expression.
type Assertion struct {
	Pos    Pos
	EndPos Pos

	Invariant *string `  "invariant" @Ident`
	Unchanged bool    `| @"unchanged"`
	Expr      *Expr   `| @@`
}

// Solution is the golden trace: tool calls in order.
type Solution struct {
	Pos    Pos
	EndPos Pos

	Calls []*CallStep `"{" @@* "}"`
}

// CallStep is one call of a solution: `tool(arg: value)`, optionally bound to
// a name (`o = create_order(...)`) whose id later calls may pass.
type CallStep struct {
	Pos    Pos
	EndPos Pos

	Bind *string `(@Ident "=")?`
	Tool string  `@Ident "("`
	Args []*Arg  `(@@ ","?)* ")"`
}

// Arg is `name: value` in a call.
type Arg struct {
	Pos    Pos
	EndPos Pos

	Name  string   `@Ident ":"`
	Value *Literal `@@`
}

// Literal is a constant: number, string, date, datetime, boolean, null, or an
// identifier (an enum value, a seed handle or, in expressions, a name).
type Literal struct {
	Pos    Pos
	EndPos Pos

	DateTime *string `  @DateTime`
	Date     *string `| @Date`
	Number   *string `| @("-"? Number)`
	String   *string `| @String`
	Bool     *string `| @("true" | "false")`
	Null     bool    `| @"null"`
	Ident    *string `| @Ident`
}

// Expr is an `or` chain, the loosest-binding expression level.
type Expr struct {
	Pos    Pos
	EndPos Pos

	Left  *AndExpr   `@@`
	Right []*AndExpr `("or" @@)*`
}

// AndExpr is an `and` chain.
type AndExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *NotExpr   `@@`
	Right []*NotExpr `("and" @@)*`
}

// NotExpr is `not x` or a comparison.
type NotExpr struct {
	Pos    Pos
	EndPos Pos

	Not *NotExpr `  "not" @@`
	Cmp *CmpExpr `| @@`
}

// CmpExpr is an optional comparison or membership test between two sums.
// Op is one of == != < <= > >= in notin.
type CmpExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *AddExpr `@@`
	Op    string   `( @("==" | "!=" | "<=" | ">=" | "<" | ">" | "in" | "not" "in")`
	Right *AddExpr `  @@ )?`
}

// AddExpr is a chain of + and -.
type AddExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *MulExpr `@@`
	Right []*AddOp `@@*`
}

// AddOp is one `+ x` or `- x` of an AddExpr.
type AddOp struct {
	Pos    Pos
	EndPos Pos

	Op      string   `@("+" | "-")`
	Operand *MulExpr `@@`
}

// MulExpr is a chain of *, / and %.
type MulExpr struct {
	Pos    Pos
	EndPos Pos

	Left  *Unary   `@@`
	Right []*MulOp `@@*`
}

// MulOp is one `* x`, `/ x` or `% x` of a MulExpr.
type MulOp struct {
	Pos    Pos
	EndPos Pos

	Op      string `@("*" | "/" | "%")`
	Operand *Unary `@@`
}

// Unary is a negation or a postfix expression.
type Unary struct {
	Pos    Pos
	EndPos Pos

	Neg     *Unary   `  "-" @@`
	Postfix *Postfix `| @@`
}

// Postfix is a primary followed by field selections and indexes:
// `invoice.customer.name`, `billing.Invoice[inv1].status`.
type Postfix struct {
	Pos    Pos
	EndPos Pos

	Primary  *Primary  `@@`
	Suffixes []*Suffix `@@*`
}

// Suffix is `.name` or `[expr]`.
type Suffix struct {
	Pos    Pos
	EndPos Pos

	Field *string `  "." @Ident`
	Index *Expr   `| "[" @@ "]"`
}

// Primary is an aggregate, a function call, a literal or name, a list or a
// parenthesised expression.
type Primary struct {
	Pos    Pos
	EndPos Pos

	Agg   *Aggregate `  @@`
	Call  *Call      `| @@`
	Lit   *Literal   `| @@`
	List  *ListLit   `| @@`
	Paren *Expr      `| "(" @@ ")"`
}

// Aggregate is a comprehension over a source:
//
//	count(e in S where c)      exists(e in S where c)
//	sum(e.x for e in S where c) min(…) max(…) forall(cond for e in S where c)
type Aggregate struct {
	Pos    Pos
	EndPos Pos

	Kind      string   `(  @("count" | "exists") "("`
	ValueKind string   ` | @("sum" | "min" | "max" | "forall") "("`
	Value     *Expr    `   @@ "for" )`
	Var       string   `@Ident "in"`
	Source    *Postfix `@@`
	Where     *Expr    `("where" @@)? ")"`
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

	Func string  `@Ident "("`
	Args []*Expr `(@@ ("," @@)*)? ")"`
}

// ListLit is `[a, b, c]`.
type ListLit struct {
	Pos    Pos
	EndPos Pos

	Elems []*Expr `"[" (@@ ("," @@)* ","?)? "]"`
}
