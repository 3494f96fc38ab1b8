// Package eval evaluates a checked world (compiler/ir) at compile time: it
// runs tools on a state, checks invariants and field constraints, grades
// rubrics and replays golden solutions. The checker uses it to validate the
// seed, to reject rubrics that hold before the agent acts and to prove that
// every golden solution reaches a full score.
//
// The generated Go code evaluates the same things at run time, and a
// differential test compares both. This comment is therefore the
// specification of every choice docs/language.md leaves open; the code
// generator must match it.
//
// # Entry points
//
//	st, err := eval.NewState(world, task) // world seed + task seed (task may be nil)
//	data, terr := st.Call(tool, args)     // or st.CallJSON(name, []byte(`{...}`))
//	eval.ObservationJSON(data, terr)      // {"ok":…} as the runtime renders it
//	st.Violations()                       // invariants
//	st.CheckConstraints()                 // required, type, enum, bounds, unique, refs
//	st.Grade(task, start)                 // rubric
//	tr.After(st, tool, ok)                // after each call (var tr eval.Trace)
//	st.GradeEpisode(task, start, &tr)     // rubric, always-invariants along the calls
//	eval.RunSolution(world, task)         // replay + grade, with state hashes
//	eval.CheckSolution(task, start)       // replay + grade, without them
//	st.JSON(), st.Hash(), st.Clone()
//
// # Values
//
// string and text are Go strings; int is int64 (overflow wraps, as in Go);
// decimal and money are runtime.Decimal (exact, 18 digits after the point;
// see "Exact numbers" below), or float64 with IEEE arithmetic in a world
// that declares numbers "float"; bool; date is an
// int32 day number (days since 1970-01-01, proleptic Gregorian), exactly
// runtime.Date; datetime is an instant at second precision (int64 seconds
// since 1970-01-01T00:00:00Z, exactly runtime.DateTime) that is only
// compared; an enum value is its name (a string); a ref is the record's id
// (a string); null is the absence of a value.
//
// A record is an id plus one value per field in declaration order. A record
// value in a tool body is live: after `set r.f = x`, reading r.f gives x. A
// record deleted earlier in the call keeps its last values for reading, but
// `set` or `delete` on it fails with not_found.
//
// Composite values (issue 4) are values, never handles:
//
//   - a list<T> is a sequence of T (never null itself unless its type is
//     optional; an empty list is [], not null);
//   - a map<string, T> is a set of distinct string keys, each with a T,
//     always kept and visited in Go byte-wise key order (sort.Strings);
//   - a value record (ir.StructDef) holds one value per field in
//     StructDef.AllFields() order: the tag of a variant, the common fields,
//     then every case's fields in case order. The fields of a case other
//     than the one the tag names are null.
//
// Nothing aliases: binding a composite value (let, var, a loop variable,
// an argument), storing it in a field, returning it or appending it copies
// it, as far as anyone can observe. After `let a = order.items` and `set
// order.items[0].price = 1`, a[0].price is the old price; so is the price
// in an observation returned before, in a clone of the state and in the
// start state. (The evaluator gets this by never changing a composite
// value in place: every write builds new values along its path.)
//
// # Tables and ids
//
// A table keeps records in insertion order (the world seed in order, then
// the task seed in order, then inserts in call order); every iteration —
// for, aggregates, list, search, invariants, snapshots — is in that order.
// Deleting a record removes it from the order; a failed call restores it at
// its old position.
//
// A new record's id is `<prefix>_<n>`, as runtime.Table.NextID makes it.
// The prefix is ir.SnakeName of the entity name (LineItem → line_item). n
// comes from the table's id sequence, which is part of the state: n is the
// first number after the sequence whose id is not in the table, and becomes
// the sequence; numbers are never handed out twice, even after a delete.
// The sequence of a start state (NewState) is the largest n among its ids of
// the form `<anything>_<n>`, n being 1 to 9 ASCII digits (0 when there is
// none): a seed holding invoice_7 continues at invoice_8. A failed call
// restores the sequence.
//
// An entity with a key field (`entity Order key order_id`, ir.Entity.Key)
// has no generated ids: a record's id is the value of its key field (a
// string), `r.id` and IDOf read it, E[k] and handles look it up, and the
// table's id sequence is never advanced (it stays what NewState computed,
// by the rule above, from the keys). A seed record's key field must hold
// its ir.Record.ID, else NewState fails (`eval: seed record Order "#W1":
// its key order_id is "#W2"`). Inserting takes the id from the key field,
// which is checked as a required, unique field (`Order.order_id must be
// unique: "#W1" is already used by Order "#W1"`). Writing the key field
// with a value not equal to the current one fails with
// constraint_violation `Order.order_id cannot be changed: it is the key of
// Order "#W1"`, checked before the field's other constraints; writing the
// same value is allowed. The standard get, update and delete tools name
// the record by their parameter "id" (or one named after the key field)
// that sets no field, else by the parameter of the key field; update does
// not write that parameter's field.
//
// # Expressions
//
//   - Operands are evaluated left to right. `and` and `or` short-circuit.
//   - `==` and `!=`: records and refs compare by id (a record equals its id);
//     an enum equals its value name as a string; int against decimal
//     numerically; floats as IEEE (NaN unequal to everything); null equals
//     only null. Lists are equal when they have the same length and equal
//     elements in order; maps when they have the same keys with equal
//     values; value records when they are of the same record type with
//     equal fields (all of AllFields, so the tags agree). A list never
//     equals a map or a record.
//   - `<`, `<=`, `>`, `>=` on numbers (IEEE), days, instants and strings (Go
//     byte-wise order). Any ordering with a null operand is false. Ordering
//     composite values is an evaluation error ("cannot compare list <
//     list").
//   - `x in [a, b, …]` evaluates x, then the elements left to right, and is
//     true at the first element equal to x (the remaining elements are not
//     evaluated); `not in` is its negation. `x in xs` for any other list
//     expression evaluates xs and compares the same way; `k in m` for a map
//     is true when k is one of its keys (a non-string k, null included, is
//     in no map). A null list or map is an evaluation error ("in: null is
//     not a list or a map").
//   - Exact numbers: with runtime.Decimal, + - * and a negation are its
//     methods, `/` is Div (rounded half away from zero to 18 decimals; a
//     zero divisor is an evaluation error, "division by zero"), an int
//     operand is converted first, and a result beyond the range is an
//     evaluation error (runtime.MsgDecimalOverflow), as the generated code
//     fails the call. round, floor, ceil, abs, min_of, max_of and str are
//     the methods and functions of runtime.Decimal. The rest of this list
//     describes a world of float numbers.
//   - int op int stays int for + - * %; `/` always converts both sides to
//     float64 and divides (IEEE: x/0 is ±Inf, 0/0 is NaN). `%` on ints is
//     Go's (truncated toward zero, the sign of the dividend); `x % 0` is an
//     evaluation error ("integer modulo by zero"). Any float operand makes
//     the operation float64 (`%` as math.Mod). `+` on strings concatenates.
//   - date ± int moves by days; int + date too; date - date is an int.
//     Day numbers are int32: the int is converted to int32 (truncating) and
//     the sum wraps, as runtime.Date arithmetic does.
//   - `E[key]` and following a ref (Deref) look the record up; a missing id
//     is an error "<Entity> "<id>" not found" (code not_found in a tool).
//   - `k in E` (ir.KeyIn) evaluates k and is true when E has a record whose
//     id is k (byte-wise equal: the key field's value for an entity with a
//     key, the implicit id otherwise); `k not in E` is its negation. It
//     reads the table's index: the records are not visited. The checker
//     also gives `exists(x in E where x.k == v)`, k being E's key field
//     (or id) and v a local or a string constant, as `v in E`: the same
//     result, since v cannot fail to evaluate.
//   - `x as T` (ir.Cast) evaluates x, a string or an enum value (its
//     name), and is that value of the enum type T when T has it (exactly,
//     case-sensitive); otherwise it is an error of code
//     constraint_violation, `"x" is not a value of Order.status; values:
//     pending, cancelled` (runtime.NotInEnum: the value quoted as Go's %q,
//     T as the spec names it, the values in declaration order joined with
//     ", "). A constant is checked by the checker instead.
//   - `xs[i]` (ir.Index on a list) is element i, 0-based; i outside [0,
//     len) (negative indexes included: there is no counting from the end)
//     is an evaluation error "list index 5 out of range (length 2)". `m[k]`
//     on a map is the value at k; a missing key is an evaluation error
//     `map has no key "k"` (Go %q). Indexing null is "cannot index null".
//     These are code internal in a tool: an index or key is the spec's
//     responsibility, so a tool that takes one from the agent checks it
//     first (`require k in m else "…"`, `require i < len(xs) else "…"`),
//     which is the failure the agent should see.
//   - `v.f` on a value record reads field f; a field of a case other than
//     the value's reads as null. `v.f` on a null value record is an
//     evaluation error "cannot read field f of null".
//   - A record literal `D { f: x, … }` (ir.StructLit): the tag is set to
//     the literal's case, then the given fields are evaluated in the order
//     listed (AllFields order) and converted to their field types (an int
//     to decimal, a record to its id for a ref), then every field not
//     given that belongs in the value's case (common fields and its own
//     case's) takes its default; all other fields are null. No constraint
//     is checked until the value is stored in a record.
//   - A whole-record comparison `x == E { … }` and `matches(x, { f: v, …
//     })` (ir.Match; `!=` is not of it) evaluate x (a record of an entity,
//     a ref having been followed, or a value record), then the expected
//     id (when given), then every expected value in field order, each
//     converted to its field's type as a record literal's is, and only
//     then compare: an error in any of them is the result, even when a
//     field evaluated earlier already differs. The match holds when the
//     id and every listed field equal their values under ==. The whole
//     form lists every field of the entity (the checker fills in the
//     defaults and nulls of absent fields) and the id; matches lists only
//     the given fields. A value record's field of another case reads as
//     null. A failed match in a rubric reports the fields that differ, in
//     that order, the id first: `status is "pending", want "cancelled";
//     total is 10, want 12` (values as JSON).
//   - A list literal `[a, b]` (ir.ListLit) evaluates its elements left to
//     right and converts them to its element type; a map literal (ir.MapLit)
//     evaluates its values in key order, converting them likewise.
//   - Unary `-` negates (int wraps); `not` negates a bool.
//
// Functions: lower, upper (Python's str.lower/str.upper: runtime.PyLower,
// runtime.PyUpper, full case mappings and the final sigma); trim
// (strings.TrimSpace); len (Unicode code points, not bytes); contains,
// starts_with, ends_with (case-sensitive, strings.Contains/HasPrefix/
// HasSuffix); abs (int stays int, math.Abs on floats); round(x, d) is
// Python's round (runtime.RoundDigits): the exact binary value rounded to
// d decimal digits, ties to even, so round(2.675, 2) = 2.67 and
// round(0.125, 2) = 0.12; an int x is unchanged when d >= 0 and otherwise
// rounded to a multiple of 10^-d, ties to even (runtime.RoundInt);
// floor, ceil (math.Floor/Ceil); min_of, max_of (Go's built-in min and max:
// NaN if either side is NaN); days_between(d1, d2) = d2 - d1; coalesce(x, y)
// is x unless x is null (any types, composite ones included); calc(s) is
// runtime.Calc: Python's float(eval(s)) on the arithmetic of
// runtime/pycalc, whose failure (Python's message, or calc's limits) is an
// evaluation error of code precondition_failed, in a tool too; str(x) is
// strconv.FormatInt(x, 10) for an int and runtime.FloatString (Python's
// repr of a float: 4.0, 1e+16, -0.0, inf, nan) for a decimal; year, month,
// day and weekday (ISO 8601: Monday 1 to Sunday 7) are the parts of a date,
// or of a date-time's UTC date, as ints; date(y, m, d) is runtime.NewDate,
// whose error (no such day, a year outside 1..9999) is an evaluation error
// of code internal, `date(2026, 2, 29): 2026-02 has no day 29`. A float
// result where the checker typed the call as int (e.g. floor of a decimal
// typed int) truncates toward zero, saturating at the int64 range, NaN
// giving 0. A null argument to any function but coalesce is an evaluation
// error, except append's second.
//
// On lists and maps: len(xs) and len(m) are the number of elements and
// keys; keys(m) is a new list<string> of the keys in sorted order;
// append(xs, x) is a new list, xs followed by x converted to the element
// type (x may be null); sorted(xs) is a new list in ascending order,
// stable, as slices.SortStableFunc with cmp.Compare: strings byte-wise,
// numbers numerically (an int against a decimal as float64; NaN before
// every other number; 0 and -0 are equal and keep their order), dates,
// date-times. sorted of a list holding null ("sorted: the list holds
// null") or values of other kinds ("sorted: cannot order bool values") is
// an evaluation error.
//
// Aggregates run over the records of the entity in insertion order, or,
// with a source (ir.Aggregate.Source), over the elements of a list in
// order or the values of a map in key order (the source is evaluated once,
// first; null is an evaluation error "cannot iterate over null"), with the
// optional where: count is an int; exists stops at the first match; forall
// stops at the first item whose where holds and whose condition does not;
// first is the first item (record, element or map value) whose where
// holds, or else an evaluation error "first: no <Entity> matches" for an
// entity, "first: no element matches" for a list or map (code internal,
// runtime.NoMatch: like an index out of range, the spec must make sure
// there is one, e.g. with a `require exists(…)` before); a record it gives
// is live, like E[key]. index (over a list only) is the int position of
// the first element whose where holds, or -1 when none does; list is a
// new list of the value (ir.Aggregate.Value: a record's ref, an element,
// or v in list(v for …)) of every item whose where holds, in that order,
// [] when none does, a step per element kept beside the iteration's;
// sum adds from left to right starting at 0, as int64 when every value is
// an int (converted to float64 at the end when the aggregate is typed
// decimal or money), else as float64 (0 + v1 + v2 + … in IEEE arithmetic,
// as Python's sum()); min and max use min_of/max_of's rules; sum, min and
// max are 0 over no items; null values are skipped.
//
// # Tool calls
//
// Arguments are JSON values (ArgsFromJSON; State.Call takes them as
// *ir.Value): string, text, enum, ref, date and datetime parameters take a
// JSON string; int takes a JSON integer (a number written without fraction
// or exponent that fits int64 — `5.0` is rejected, as encoding/json rejects
// it for an int64 field); decimal and money take any finite JSON number;
// bool takes true/false. A date is strictly YYYY-MM-DD with a year in
// 1..9999 (runtime.ParseDate); a datetime is RFC 3339 at second precision,
// converted to UTC, whose seconds and zone (then UTC) may be left out and
// whose T and Z may be lower case; fractions of a second are rejected
// (runtime.ParseDateTime). An absent argument and a null argument are the
// same: not given. A name given twice is invalid.
//
// Composite parameters: a list<T> takes a JSON array whose elements are
// decoded as T (null only when T is optional); a map<string, T> takes a
// JSON object whose member values are decoded as T; a value record takes a
// JSON object whose member names are its field names, matched exactly (no
// case folding). Inside an argument, of a member name given twice the last
// wins (as encoding/json decides); only a top-level argument name given
// twice is invalid. A value record's members are checked in this order:
// an unknown member (the first in key order); the tag of a variant
// (missing, or not a case name); then each field in AllFields order: a
// non-null member for a field of another case, a missing or null required
// field (one that is not optional and has no default), the member's value
// decoded as the field's type. Absent and null members take the field's
// default, or null. Solution steps may pass record constants
// (ir.Value.Fields, in AllFields order) and list and map constants.
//
// Argument problems fail the call with invalid_arguments, checked in this
// order: an unknown argument name (the first in sorted order) — `unknown
// argument "x"`; then each parameter in declaration order: `missing required
// argument "x"`, `argument "x": expected T, got J`, `argument "x": "v" is not
// one of a, b, c`, `argument "x": expected a date "YYYY-MM-DD", got …`,
// `argument "x": must be a finite number`; inside a composite argument the
// same messages carry the path to the value after the name, and value
// records add three: `argument "items": [0].price: expected decimal, got
// string`, `argument "tags": [1]: expected enum, got null`, `argument
// "opts": ["k"]: expected string, got int`, `argument "address": unknown
// field "zipp"`, `argument "address": missing required field "zip"`,
// `argument "pm": field "balance" belongs to case gift_card, not paypal`
// (J is one of string, int, decimal, bool, array, object, null); then each
// parameter in declaration order is looked up: a ref parameter's record,
// and every ref inside a composite parameter, depth first in JSON order:
// `<Entity> "<id>" not found` (not_found).
// This holds for every tool kind, standard tools included (a search filter
// naming a missing record is not_found, not an empty result). Only the
// codes are meant to agree with the generated code here: runtime.DecodeArgs
// words invalid_arguments differently and reports all problems at once.
//
// A custom tool runs its body: `require` failing gives precondition_failed
// with the spec's message, or with the value of its message expression
// (ir.Require.MessageExpr, a string evaluated only when the condition is
// false); `fail` always gives precondition_failed with its message or
// message expression; an error while evaluating a message is that error;
// `let` binds; `var` (ir.VarDecl) binds a mutable local, its value
// converted to the local's type; `set`, `insert` and `delete` write;
// `return` ends the call with the observation data (a tool that ends
// without return answers null); `if` picks a branch; `for x in E where c`
// visits a snapshot of E's records taken when the loop starts, in
// insertion order — records the body inserts are not visited, records
// deleted before their turn are skipped, and where is evaluated on each
// record when its turn comes. `for x in xs` and `for i, x in xs` visit the
// elements of the list xs in order, i being the int index; `for k, v in m`
// the map's values in key order, k being the key. The list or map is
// evaluated once, when the loop starts, and the loop visits that value
// (a snapshot): writes of the body, to the field it came from included,
// do not change what is visited, while expressions in the body read the
// current state, earlier writes of the same call included. A null source
// is an evaluation error "cannot iterate over null". A let or var in a
// loop body is bound afresh in each iteration.
//
// `set` through a path (ir.Assign) evaluates the root, then the path's
// index expressions left to right, then the value, then follows the path
// and writes. A root that is a local (a variable not of a record or ref
// type, or any variable with an empty path) rebinds the local to its value
// with the path replaced; the locals are not checked against constraints.
// Otherwise the root is a record and the path starts with one of its
// fields: the field's new value is its old one with the path replaced, and
// it is written like `set r.f = v` (constraints below). Each step reads a
// field of a value record, an element of a list (an index out of range is
// "list index 5 out of range (length 2)"), or a map's value; a missing map
// key is `map has no key "k"` except at the last step, where it inserts
// the key (`set m[k] = v` adds or replaces). A null along the path is
// "cannot index null" / "cannot read field f of null". These are code
// internal. The value is converted to the type at the end of the path.
//
// Every write checks the written field's constraints against the state at
// that moment (not at the end of the call), failing the call with
// constraint_violation. For each field, in this order: required — null in a
// non-optional field (`<E>.<f> is required`); finite — NaN or ±Inf
// (`<E>.<f> must be a finite number, got NaN`); type — a value of another
// type, which only malformed IR can produce (`<E>.<f> must be int, got
// string`); enum — (`<E>.<f> must be one of a, b, got "x"`); bounds in
// declaration order (`<E>.<f> must be >= 0,
// got -5`); content — the inside of a composite value, below; unique —
// another record with an equal non-null value (`<E>.<f> must be unique:
// "x" is already used by <E> "<id>"`; composite values compare with ==).
// `insert` (and create) checks every field in declaration order. Values in
// messages are rendered as JSON.
//
// A composite field is checked as a whole on every write to it, also when
// a path changed only part of it: the elements of a list in order, the
// values of a map in key order, and the fields of a value record in
// AllFields order, recursively, each with the same checks (required,
// finite, type, enum, then a record field's bounds, then its own content).
// A variant's tag is checked first (an enum of the case names); then a
// field of another case must be null — `<path> belongs to case gift_card,
// not paypal` — and the value's own fields are checked as above (so
// changing the tag fails unless the fields fit the new case). Messages name
// the value by its path from the entity field: `Order.items[0].price must
// be >= 0, got -1`, `User.methods["gc_1"].balance is required` (map keys
// quoted as Go's %q).
//
// `delete` is refused while another record (not the record itself) has a
// ref field holding its id, or a ref holding it anywhere inside a
// composite field: constraint_violation `<E> "<id>" is still referenced by
// <E2> "<id2>" (field <f>)`, naming the first such record in entity order,
// then field order, then insertion order, and the entity field (not the
// path) that holds the ref. Writes do not look refs up (neither at the top
// level nor inside composite values); CheckConstraints reports dangling
// ones.
//
// Evaluation errors in a tool that are not one of the above nor a failed
// calc (integer modulo by zero, a null where a value is needed, an index
// out of range, a missing map key, the evaluator's limits) fail the call
// with code internal (runtime.CodeInternal: the world's fault, not the
// agent's). So does a successful body whose returned data holds a NaN or
// an infinity, which JSON cannot carry: `tool "<name>" returned data that
// cannot be encoded as JSON: json: unsupported value: NaN`, with the state
// rolled back, as runtime.Registry does.
//
// Every call is atomic: a failed call leaves the state exactly unchanged
// (same records, same order, same values, same hash).
//
// Standard tools (ir.PageSize = 50):
//
//   - get: the record with the given id, or not_found.
//   - list: records from offset (default 0; negative is invalid_arguments)
//     in insertion order, at most 50; an array, empty past the end.
//   - search: records (insertion order, at most 50) matching every given
//     filter: string and text fields when lower(value) contains
//     lower(filter), Python's str.lower() (runtime.ContainsLower); other
//     fields by equality (refs by id). An
//     unset (null) field value matches no filter. No filter: the first 50.
//   - create: a record from the given fields, defaults for the omitted ones
//     (null for omitted optionals); the new record.
//   - update: sets each given field, in parameter order, each write checked;
//     the updated record. Since null means not given, update cannot clear an
//     optional field.
//   - delete: removes the record (refused while referenced); the record as
//     it was.
//
// # Observation data and snapshots
//
// Data.JSON and State.JSON render records as objects with "id" first and
// then every field in declaration order — a record of an entity with a
// key field has no "id" member, its key field (at its place among the
// fields) being its id; lists as arrays; maps as objects with their keys
// in sorted order; value records as objects of the tag, the common fields
// and the fields of the value's own case, in AllFields order, leaving out
// the fields of the other cases (an unset optional field of the own case
// is null, not absent); dates as
// "YYYY-MM-DD" (a year outside 0000-9999, reachable only by day arithmetic,
// in full with its sign, as runtime.Date); date-times as
// "YYYY-MM-DDThh:mm:ssZ"; enums by value name; refs by id; unset optionals
// as null; numbers as encoding/json writes float64 and int64; strings as
// encoding/json writes them without HTML escaping (as the runtime does).
// The state snapshot is an object keyed by entity name in the world's
// entity order, each holding the array of its records in insertion order.
// State.Hash digests that snapshot and the id sequences.
//
// # Invariants, constraints and rubrics
//
// An invariant is checked on every record of its entity in insertion order:
// when the trigger (Where; absent means always) holds and the check does
// not, the record is a violation naming the invariant, the entity and the
// id. An evaluation error in the trigger or the check (e.g. a ref to a
// missing record) makes the record a violation, with the error as detail.
//
// A rubric assertion passes when its expression is true (an evaluation
// error fails it), when its invariant has no violation, or — `unchanged` —
// when the state equals the task's start state (same records in the same
// order with equal values, and the same id sequences: the generated code
// compares state hashes, which include them). `unchanged except E[k], …`
// (ir.Assertion.Except) evaluates each key (a record need not exist) and
// then compares, table by table, the records whose id is not excepted:
// the same ids in the same relative order with equal values on both
// sides; excepted records may change, be deleted or be inserted; a table
// none of whose records is excepted must also keep its id sequence (so a
// plain `unchanged` is `unchanged except` nothing). The reward is
// passed/total, 1 for an empty rubric; every invariant's violations are
// reported beside it. Details of failed assertions are for people and
// need not agree with the generated code's.
//
// A local invariant (ir.Invariant.Local) is checked like any other.
//
// An always-invariant (ir.Invariant.Always) is also checked along an
// episode (Trace): after every call that succeeds, on the whole state, as
// above. The calls are numbered from 1 in the order they were made, failed
// calls included (they change nothing and break nothing). The first step
// at which a record breaks an always-invariant is its violation, with the
// step and the tool, whatever happens to the record later; a record that
// breaks it in the task's start state counts at the first call that
// succeeds, unless that call repairs it. Violations are listed by step,
// then in invariant declaration order, then by id. GradeEpisode reports
// them beside the reward (Grade.StepViolations), and its `invariant NAME`
// assertion of an always-invariant passes only when the invariant has no
// violation along the episode and none now. A golden solution is replayed
// with a Trace: it is golden only when it breaks no always-invariant after
// any of its steps (SolutionResult.FirstBreak names the first that does).
// CheckConstraints applies the write checks above to every field of every
// record, composite contents included, and reports refs, at any depth,
// that name no record (`Order.items[0].product refers to Product "p9",
// which does not exist`): at most one problem per field of a record.
//
// A golden solution is replayed from the task's start state; an argument
// bound to an earlier step's name passes the id of the record that step
// returned. A step written `call(…) fails "msg"` (ir.Step.Fails) must fail
// with exactly that message (any code); it then leaves the state unchanged
// and the replay goes on, and its name, if bound, stays unbound. Replay
// stops at the first step that does not do what the solution says: a
// failure of a step not expected to fail, or an expected failure that
// succeeds or fails with another message (the solution is then not
// golden).
//
// # Limits
//
// Evaluation is bounded by State.Limits (nesting depth and a step budget per
// operation), exceeded limits being evaluation errors. They only guard the
// checker against pathological specs; generated code has no such limits.
// Panics are never expected; as a safety net Call, Grade and the invariant
// checks recover: a call fails with code internal, `tool "<name>" panicked:
// …`, and the state rolled back.
package eval
