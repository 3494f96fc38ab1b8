package runtime

// The messages of failed tool calls, as fmt formats (the comments name the
// operands). Generated tools say them (worldc's generator writes the
// formats into their code), this package says those of its own checks, and
// worldc's compile-time evaluator (compiler/eval) says them all: the
// differential tests compare the two implementations' observations byte
// for byte, and the formats are defined here once so that they agree by
// construction.
const (
	// MsgNotFound: entity, id.
	MsgNotFound = "%s %q not found"
	// MsgMissingField: the field's name.
	MsgMissingField = "missing required field %q"
	// MsgIndexOutOfRange: index, length.
	MsgIndexOutOfRange = "list index %d out of range (length %d)"
	// MsgToolPanicked: the tool's name, the panic's value.
	MsgToolPanicked = "tool %q panicked: %v"
	// MsgUnencodable: the tool's name, the encoder's error.
	MsgUnencodable = "tool %q returned data that cannot be encoded as JSON: %v"

	// MsgNotUnique: Entity.field, the value (ValueText), the entity of the
	// record that holds it, that record's id.
	MsgNotUnique = "%s must be unique: %s is already used by %s %q"
	// MsgOutOfBounds: the field, the bound's operator, the bound, the value
	// (ValueText).
	MsgOutOfBounds = "%s must be %s %s, got %s"
	// MsgKeyChanged: entity, key field, entity, id.
	MsgKeyChanged = "%s.%s cannot be changed: it is the key of %s %q"
	// MsgStillReferenced: entity, id, the referring entity, its record's
	// id, the referring field.
	MsgStillReferenced = "%s %q is still referenced by %s %q (field %s)"

	// MsgNullArgument: the function, the argument's 1-based position.
	MsgNullArgument = "%s: argument %d is null"
	// MsgFieldOfNull: the field.
	MsgFieldOfNull = "cannot read field %s of null"
	// MsgIndexNull has no operands.
	MsgIndexNull = "cannot index null"
	// MsgIterateNull has no operands.
	MsgIterateNull = "cannot iterate over null"
	// MsgModuloByZero has no operands.
	MsgModuloByZero = "integer modulo by zero"
	// MsgDivisionByZero has no operands: an exact decimal divided by zero.
	MsgDivisionByZero = "division by zero"
	// MsgDecimalOverflow has no operands: exact decimal arithmetic whose
	// result is beyond the range of a decimal (about 1.7e20).
	MsgDecimalOverflow = "decimal overflow: the result is beyond ±170141183460469231731.687303715884105727"
	// MsgRangeTooLong: the start, the end, the bound.
	MsgRangeTooLong = "range %d..%d has more than %d ints"
	// MsgWorkingDaysRange: n, the bound.
	MsgWorkingDaysRange = "add_working_days: %d working days is beyond ±%d"
	// MsgRoundToStep: the step (as the DSL writes it).
	MsgRoundToStep = "round_to: the step must be positive, got %s"
	// MsgRoundToRange: the int, the step.
	MsgRoundToRange = "round_to(%d, %d) is beyond the int range"
	// MsgInvalidDate: year, month, day, the error.
	MsgInvalidDate = "date(%d, %d, %d): %v"
)
