package compiler

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/worldc/worldc/compiler/diag"
)

// Validator describes one structural check: a stable code, a short name, a
// one-line doc and a hint a repairing LLM can act on. Each has a failing
// example in testdata/validators/<code>.world that triggers exactly it.
type Validator struct {
	Code diag.Code `json:"code"`
	Name string    `json:"name"`
	Doc  string    `json:"doc"`
	Hint string    `json:"hint"`
}

// validators is the registry, in code order. Codes are stable: never reuse
// or renumber one.
var validators = []Validator{
	{diag.Syntax, "syntax", "The spec does not parse.",
		"Fix the syntax at the position given; compare with the grammar (worldc grammar)."},
	{diag.DuplicateName, "duplicate-name", "A name is declared twice in the same scope.",
		"Rename or remove one of the two declarations."},
	{diag.UnresolvedName, "unresolved-name", "A name does not refer to anything declared.",
		"Declare the name, fix its spelling, or qualify it (service.Entity)."},
	{diag.TypeMismatch, "type-mismatch", "An expression, value or argument has the wrong type.",
		"Use a value of the expected type; an optional value is one where a check says it is not null (if x != null { … }, require x != null, x != null and …), else use coalesce(x, default)."},
	{diag.UnknownEnumValue, "unknown-enum-value", "A value is not one of its enum's values.",
		"Use one of the listed enum values, or add the value to the enum."},
	{diag.MissingRequired, "missing-required", "A required field or argument is not given.",
		"Give a value for the field, or make the field optional (`?`) or give it a default (`= value`)."},
	{diag.SeedNotUnique, "seed-not-unique", "Two seed records share a value of a `unique` field.",
		"Give each record a distinct value for the unique field."},
	{diag.OutOfRange, "out-of-range", "A value breaks a field's range constraint.",
		"Change the value to respect the bound, or change the bound."},
	{diag.DanglingRef, "dangling-ref", "A ref value names no record of the referenced entity.",
		"Refer to the handle of an existing seed record of the right entity."},
	{diag.WriteOutsideService, "write-outside-service", "A tool writes an entity of another service.",
		"Move the tool to the service that owns the entity, or write only your own service's entities; reading others is fine."},
	{diag.InvariantSameService, "invariant-same-service", "An invariant's trigger and target are in the same service.",
		"For a rule across services, make `require` read an entity of another service than the one the invariant iterates; for a rule inside one system, write `local invariant NAME { … }`. Keep it out of the tools' requires: a rule a tool enforces can never be broken, so the agent learns nothing from it."},
	{diag.SeedViolatesInvariant, "seed-violates-invariant", "The world seed breaks an invariant.",
		"Fix the world seed records named in the message so every invariant holds at the start; a task's seed may break one (a repair task)."},
	{diag.DeadInvariant, "dead-invariant", "No tool, insert or seed record can make an invariant's trigger true: nothing changes what its where clause reads, or a field it tests only ever holds values that fail the test.",
		"Add a tool that creates the trigger entity or sets a field its `where` clause reads to a value that makes the trigger true (or a seed record that triggers it), fix the trigger, or drop the invariant."},
	{diag.RubricAlreadySatisfied, "rubric-already-satisfied", "A task's rubric holds before the agent acts.",
		"Change the task seed or the assertions so that the rubric needs the agent's work, or add `unchanged` if doing nothing is the right answer."},
	{diag.UnobservableRubric, "unobservable-rubric", "A rubric reads an entity no tool lets the agent observe.",
		"Add a get/search/list tool for the entity, or a custom tool that returns its records."},
	{diag.IsolatedService, "isolated-service", "A service has no link to any other service.",
		"Connect the service: a ref to or from another service's entity, a tool reading another service, or a cross-service invariant."},
	{diag.UnsafeIdentifier, "unsafe-identifier", "A name is a Go keyword or otherwise unusable in generated Go.",
		"Rename it: avoid Go keywords, `_`, `init`, `main` and leading or doubled underscores."},
	{diag.IdentifierCollision, "identifier-collision", "Two names become the same Go identifier.",
		"Rename one of them so that their CamelCase forms differ."},
	{diag.SizeLimit, "size-limit", "The spec exceeds a size limit.",
		"Split the world or shorten the named element."},
	{diag.WorldHeader, "world-header", "The world header is missing or malformed.",
		"Write exactly one `world name { title \"…\" industry \"…\" country \"DE\" currency \"EUR\" today 2026-01-31 }`."},
	{diag.SolutionFails, "solution-fails", "A golden solution does not reach a full score with every invariant holding (an always-invariant after each of its calls, too).",
		"Fix the failing call or its arguments, or the rubric, as the message says; for an always-invariant broken after a step, reorder the calls so the rule holds after each (record the receipt before marking the order paid)."},
	{diag.InvalidLiteral, "invalid-literal", "A literal is malformed (a date that does not exist, a number out of range).",
		"Write the literal in its valid form: dates YYYY-MM-DD, date-times YYYY-MM-DDTHH:MM[:SS]Z, 64-bit integers."},
	{diag.DataFile, "data-file", "A data file of a `load` or `holidays from`, or the policy document, cannot be read: its path leaves the spec's directory, it is missing, or it is not well-formed (JSON, CSV, UTF-8 text).",
		"Put the file inside the spec's directory and name it relative to it with / (no .., no absolute path): a .json file (at names the object key of the records) or a .csv file with a header row for a load, UTF-8 text for `policy from`."},
	{diag.PolicyTextNotInDocument, "policy-text-not-in-document", "An invariant's policy text does not occur in the world's policy document (`policy from`).",
		"Copy the rule's sentences from the policy document exactly (line breaks and runs of spaces count as one space; case and punctuation count), or correct the document."},
	{diag.UnreachableTool, "unreachable-tool", "A tool never succeeds on the arguments the conformance search tries, from the seed, the task start states and the states along golden solutions.",
		"Give the search a state and arguments on which the tool succeeds: a seed record (or a task seed record) that meets its requires, or a golden solution that calls it (the search also starts from the states after each call of a golden solution)."},
	{diag.EvaluationBudget, "evaluation-budget", "Evaluating the spec at check time exceeds its budget: an invariant on the seed, or everything the checker evaluates in all.",
		"Make the invariant cheaper: look records up (E[k], k in E, or an aggregate whose where clause says x.field == value, which reads an index) instead of nesting scans of a table in one another; or use fewer, smaller tasks. The budgets are in docs/limits.md."},
	{diag.ExpressionTooLarge, "expression-too-large", "An expression is nested too deeply (a long operator chain), or a declaration holds too many expression nodes and statements.",
		"Split it: bind parts to `let` locals, use several `require`s or assertions, or an aggregate (sum, count, forall) over a list instead of a chain of operators; the limits are in docs/limits.md."},
	{diag.UnsatisfiableCondition, "unsatisfiable-condition", "A condition can never hold: it joins with `and` tests of one value against constants that no value passes (`s == a and s == b`, `x > 5 and x < 3`).",
		"Each value has one value at a time: to accept either constant write `or` (or `s in [a, b]`), and check that the bounds of a range overlap; if one test is a typo, fix its operand or constant."},
	{diag.InvariantIgnoresTrigger, "invariant-ignores-trigger", "An invariant's check never reads its trigger record (the variable of `for x in E where …`), so every triggering record gets the same verdict.",
		"Make the check about the record: compare its fields or its id (`exists(r in Receipt where r.order == o)`), or fix a misspelt variable in the check."},
	{diag.UnknownCountryOrCurrency, "unknown-country-or-currency", "The world's country is not an assigned ISO 3166-1 alpha-2 code, or its currency is not a current ISO 4217 code.",
		"Use the ISO code: a country such as \"DE\", \"GB\" (not \"UK\") or \"US\", a currency such as \"EUR\", \"GBP\" or \"JPY\" (not a withdrawn one such as \"HRK\")."},
	{diag.MoneyPrecision, "money-precision", "A money literal has more decimals than the minor unit of the world's currency (ISO 4217: 2 for EUR, 0 for JPY, 3 for BHD).",
		"Round the amount to the currency's minor unit; for a rate or a unit price finer than that (fuel per litre, an interest rate), use a decimal field or parameter, not money."},
	{diag.ShadowedName, "shadowed-name", "A parameter, local, loop or aggregate variable has the name of a service, an entity or an enum value, which it hides where it is in scope (a warning).",
		"Rename it (confirmed → is_confirmed, billing → billing_account): locals are looked up first, so the service, entity or value it hides cannot be named where it is in scope."},
}

// Validators returns the registry, in code order.
func Validators() []Validator {
	out := make([]Validator, len(validators))
	copy(out, validators)
	return out
}

// LookupValidator returns the validator with the given code.
func LookupValidator(code diag.Code) (Validator, bool) {
	for _, v := range validators {
		if v.Code == code {
			return v, true
		}
	}
	return Validator{}, false
}

func mustValidator(code diag.Code) Validator {
	v, ok := LookupValidator(code)
	if !ok {
		panic(fmt.Sprintf("compiler: unregistered validator %s", code))
	}
	return v
}

//go:embed testdata/validators/*.world testdata/validators/*.md
var examples embed.FS

// ExampleFiles holds the files the validators' examples read (W024's
// policy document): check an example with WithData(ExampleFiles()).
func ExampleFiles() fs.FS {
	sub, err := fs.Sub(examples, "testdata/validators")
	if err != nil {
		panic(err) // unreachable: a valid, embedded directory
	}
	return sub
}

// Example returns the failing example spec of a validator.
func Example(code diag.Code) (string, error) {
	b, err := examples.ReadFile("testdata/validators/" + string(code) + ".world")
	if err != nil {
		return "", fmt.Errorf("no example for %s", code)
	}
	return string(b), nil
}
