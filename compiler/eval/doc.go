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
//	eval.RunSolution(world, task)         // replay + grade
//	st.JSON(), st.Hash(), st.Clone()
//
// # Values
//
// string and text are Go strings; int is int64 (overflow wraps, as in Go);
// decimal and money are float64 with IEEE arithmetic; bool; date is an
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
// # Expressions
//
//   - Operands are evaluated left to right. `and` and `or` short-circuit.
//   - `==` and `!=`: records and refs compare by id (a record equals its id);
//     an enum equals its value name as a string; int against decimal
//     numerically; floats as IEEE (NaN unequal to everything); null equals
//     only null.
//   - `<`, `<=`, `>`, `>=` on numbers (IEEE), days, instants and strings (Go
//     byte-wise order). Any ordering with a null operand is false.
//   - `x in [a, b, …]` evaluates x, then the elements left to right, and is
//     true at the first element equal to x (the remaining elements are not
//     evaluated); `not in` is its negation.
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
//   - Unary `-` negates (int wraps); `not` negates a bool.
//
// Functions: lower, upper (strings.ToLower/ToUpper); trim
// (strings.TrimSpace); len (Unicode code points, not bytes); contains,
// starts_with, ends_with (case-sensitive, strings.Contains/HasPrefix/
// HasSuffix); abs (int stays int, math.Abs on floats); round(x, d) is
// math.Round(x*10^d)/10^d with 10^d = math.Pow10(d) (half away from zero;
// an int x with d >= 0 is returned unchanged; d is clamped to [-400, 400]);
// floor, ceil (math.Floor/Ceil); min_of, max_of (Go's built-in min and max:
// NaN if either side is NaN); days_between(d1, d2) = d2 - d1; coalesce(x, y)
// is x unless x is null. A float result where the checker typed the call as
// int (e.g. floor of a decimal typed int) truncates toward zero, saturating
// at the int64 range, NaN giving 0. A null argument to any function but
// coalesce is an evaluation error.
//
// Aggregates run over the records of the entity in insertion order, with
// the optional where: count is an int; exists stops at the first match;
// forall stops at the first record whose where holds and whose condition
// does not; sum adds in insertion order, as int64 when every value is an int
// (converted to float64 at the end when the aggregate is typed decimal or
// money), else as float64; min and max use min_of/max_of's rules; sum, min
// and max are 0 over no records; null values are skipped.
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
// Argument problems fail the call with invalid_arguments, checked in this
// order: an unknown argument name (the first in sorted order) — `unknown
// argument "x"`; then each parameter in declaration order: `missing required
// argument "x"`, `argument "x": expected T, got J`, `argument "x": "v" is not
// one of a, b, c`, `argument "x": expected a date "YYYY-MM-DD", got …`,
// `argument "x": must be a finite number`; then each ref parameter in
// declaration order is looked up: `<Entity> "<id>" not found` (not_found).
// This holds for every tool kind, standard tools included (a search filter
// naming a missing record is not_found, not an empty result). Only the
// codes are meant to agree with the generated code here: runtime.DecodeArgs
// words invalid_arguments differently and reports all problems at once.
//
// A custom tool runs its body: `require` failing gives precondition_failed
// with the spec's message; `let` binds; `set`, `insert` and `delete` write;
// `return` ends the call with the observation data (a tool that ends without
// return answers null); `if` picks a branch; `for x in E where c` visits a
// snapshot of E's records taken when the loop starts, in insertion order —
// records the body inserts are not visited, records deleted before their
// turn are skipped, and where is evaluated on each record when its turn
// comes.
//
// Every write checks the written field's constraints against the state at
// that moment (not at the end of the call), failing the call with
// constraint_violation. For each field, in this order: required — null in a
// non-optional field (`<E>.<f> is required`); finite — NaN or ±Inf
// (`<E>.<f> must be a finite number, got NaN`); type — a value of another
// type, which only malformed IR can produce (`<E>.<f> must be int, got
// string`); enum — (`<E>.<f> must be one of a, b, got "x"`); bounds in
// declaration order (`<E>.<f> must be >= 0,
// got -5`); unique — another record with an equal non-null value (`<E>.<f>
// must be unique: "x" is already used by <E> "<id>"`). `insert` (and
// create) checks every field in declaration order. Values in messages are
// rendered as JSON.
//
// `delete` is refused while another record (not the record itself) has a
// ref field holding its id: constraint_violation `<E> "<id>" is still
// referenced by <E2> "<id2>" (field <f>)`, naming the first such record in
// entity order, then field order, then insertion order.
//
// Evaluation errors in a tool that are not one of the above (integer modulo
// by zero, a null where a value is needed, the evaluator's limits) fail the
// call with code internal (runtime.CodeInternal: the world's fault, not the
// agent's). So does a successful body whose returned data holds a NaN or
// an infinity, which JSON cannot carry: `tool "<name>" returned data that
// cannot be encoded as JSON: json: unsupported value: NaN`, with the state
// rolled back, as runtime.Registry does.
//
// Every call is atomic: a failed call leaves the state exactly unchanged
// (same records, same order, same values, same hash).
//
// Standard tools (MaxResults = 50):
//
//   - get: the record with the given id, or not_found.
//   - list: records from offset (default 0; negative is invalid_arguments)
//     in insertion order, at most 50; an array, empty past the end.
//   - search: records (insertion order, at most 50) matching every given
//     filter: string and text fields when strings.ToLower(value) contains
//     strings.ToLower(filter); other fields by equality (refs by id). An
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
// then every field in declaration order; lists as arrays; dates as
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
// compares state hashes, which include them). The reward is passed/total,
// 1 for an empty rubric; every invariant's violations are reported beside
// it. Details of failed assertions are for people and need not agree with
// the generated code's.
//
// A golden solution is replayed from the task's start state; an argument
// bound to an earlier step's name passes the id of the record that step
// returned. Replay stops at the first failing step.
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
