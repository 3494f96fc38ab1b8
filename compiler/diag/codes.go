package diag

// Code identifies the kind of a diagnostic. The checker's validators have
// stable codes, W001, W002, …, one constant each below (never reused or
// renumbered); the registry in package compiler gives each its name, doc
// line and hint (worldc validators, worldc explain) and a failing example,
// compiler/testdata/validators/<code>.world, that triggers it and only it.
// The gate's diagnostics have codes of the form gate-<stage>.
type Code string

// The validators' codes. Each constant's doc is its validator's name and doc
// line (TestCodes in package compiler holds the two together).
const (
	// Syntax (W001, syntax): the spec does not parse.
	Syntax Code = "W001"

	// DuplicateName (W002, duplicate-name): a name is declared twice in the
	// same scope.
	DuplicateName Code = "W002"

	// UnresolvedName (W003, unresolved-name): a name does not refer to
	// anything declared.
	UnresolvedName Code = "W003"

	// TypeMismatch (W004, type-mismatch): an expression, value or argument has
	// the wrong type.
	TypeMismatch Code = "W004"

	// UnknownEnumValue (W005, unknown-enum-value): a value is not one of its
	// enum's values.
	UnknownEnumValue Code = "W005"

	// MissingRequired (W006, missing-required): a required field or argument
	// is not given.
	MissingRequired Code = "W006"

	// SeedNotUnique (W007, seed-not-unique): two seed records share a value of
	// a `unique` field.
	SeedNotUnique Code = "W007"

	// OutOfRange (W008, out-of-range): a value breaks a field's range
	// constraint.
	OutOfRange Code = "W008"

	// DanglingRef (W009, dangling-ref): a ref value names no record of the
	// referenced entity.
	DanglingRef Code = "W009"

	// WriteOutsideService (W010, write-outside-service): a tool writes an
	// entity of another service.
	WriteOutsideService Code = "W010"

	// InvariantSameService (W011, invariant-same-service): an invariant's
	// trigger and target are in the same service.
	InvariantSameService Code = "W011"

	// SeedViolatesInvariant (W012, seed-violates-invariant): the world seed
	// breaks an invariant.
	SeedViolatesInvariant Code = "W012"

	// DeadInvariant (W013, dead-invariant): no tool, insert or seed record can
	// make an invariant's trigger true: nothing changes what its where clause
	// reads, or a field it tests only ever holds values that fail the test.
	DeadInvariant Code = "W013"

	// RubricAlreadySatisfied (W014, rubric-already-satisfied): a task's rubric
	// holds before the agent acts.
	RubricAlreadySatisfied Code = "W014"

	// UnobservableRubric (W015, unobservable-rubric): a rubric reads an entity
	// no tool lets the agent observe.
	UnobservableRubric Code = "W015"

	// IsolatedService (W016, isolated-service): a service has no link to any
	// other service.
	IsolatedService Code = "W016"

	// UnsafeIdentifier (W017, unsafe-identifier): a name is a Go keyword or
	// otherwise unusable in generated Go.
	UnsafeIdentifier Code = "W017"

	// IdentifierCollision (W018, identifier-collision): two names become the
	// same Go identifier.
	IdentifierCollision Code = "W018"

	// SizeLimit (W019, size-limit): the spec exceeds a size limit.
	SizeLimit Code = "W019"

	// WorldHeader (W020, world-header): the world header is missing or
	// malformed.
	WorldHeader Code = "W020"

	// SolutionFails (W021, solution-fails): a golden solution does not reach a
	// full score with every invariant holding (an always-invariant after each
	// of its calls, too).
	SolutionFails Code = "W021"

	// InvalidLiteral (W022, invalid-literal): a literal is malformed (a date
	// that does not exist, a number out of range).
	InvalidLiteral Code = "W022"

	// DataFile (W023, data-file): a data file of a `load` or `holidays
	// from`, or the policy document, cannot be read: its path leaves the
	// spec's directory, it is missing, or it is not well-formed (JSON, CSV,
	// UTF-8 text).
	DataFile Code = "W023"

	// PolicyTextNotInDocument (W024, policy-text-not-in-document): an
	// invariant's policy text does not occur in the world's policy document
	// (`policy from`).
	PolicyTextNotInDocument Code = "W024"

	// UnreachableTool (W025, unreachable-tool): a tool never succeeds on the
	// arguments the conformance search tries, from the seed, the task start
	// states and the states along golden solutions.
	UnreachableTool Code = "W025"

	// EvaluationBudget (W026, evaluation-budget): evaluating the spec at check
	// time exceeds its budget: an invariant on the seed, or everything the
	// checker evaluates in all.
	EvaluationBudget Code = "W026"

	// ExpressionTooLarge (W027, expression-too-large): an expression is nested
	// too deeply (a long operator chain), or a declaration holds too many
	// expression nodes and statements.
	ExpressionTooLarge Code = "W027"

	// UnsatisfiableCondition (W028, unsatisfiable-condition): a condition can
	// never hold: it joins with `and` tests of one value against constants
	// that no value passes (`s == a and s == b`, `x > 5 and x < 3`).
	UnsatisfiableCondition Code = "W028"

	// InvariantIgnoresTrigger (W029, invariant-ignores-trigger): an
	// invariant's check never reads its trigger record (the variable of `for x
	// in E where …`), so every triggering record gets the same verdict.
	InvariantIgnoresTrigger Code = "W029"

	// UnknownCountryOrCurrency (W030, unknown-country-or-currency): the
	// world's country is not an assigned ISO 3166-1 alpha-2 code, or its
	// currency is not a current ISO 4217 code.
	UnknownCountryOrCurrency Code = "W030"

	// MoneyPrecision (W031, money-precision): a money literal has more
	// decimals than the minor unit of the world's currency (ISO 4217: 2 for
	// EUR, 0 for JPY, 3 for BHD).
	MoneyPrecision Code = "W031"

	// ShadowedName (W032, shadowed-name): a parameter, local, loop or
	// aggregate variable has the name of a service, an entity or an enum
	// value, which it hides where it is in scope (a warning).
	ShadowedName Code = "W032"
)
