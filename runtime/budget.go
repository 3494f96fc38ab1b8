package runtime

// The work of one tool call is bounded as compiler/eval bounds it when it
// checks a spec, so that no arguments an agent sends make a call run for
// hours or build a string that exhausts memory: a loop over a list of a
// million elements inside another, or a string doubled in a loop. Generated
// tool bodies count a step for every iteration of a loop or an aggregate
// ([Journal.Tick]), a step per 64 bytes of the strings they concatenate
// ([Journal.Cat]) and a step per element of the lists and maps they copy,
// sort or scan ([Counted]); compiler/eval counts those and more, so a call that
// checks within its budget runs within this one. A call beyond a limit
// fails with code internal and compiler/eval's message, its writes undone.
const (
	// MaxCallSteps is the steps one tool call may take
	// (compiler/eval.DefaultLimits.MaxSteps).
	MaxCallSteps = 50_000_000
	// MaxStringBytes is the longest string a tool call may build by
	// concatenation (compiler/eval.MaxStringBytes).
	MaxStringBytes = 1 << 20
)

// limitExceeded is the panic of a call beyond a limit; the registry turns it
// into the call's error.
type limitExceeded struct{ err *ToolError }

// Tick counts one iteration of a loop or an aggregate of the tool call
// running, and ends the call when it has taken more than MaxCallSteps.
func (j *Journal) Tick() { j.charge(1) }

// Cat is a + b, counted a step per 64 bytes of each, and ends the call when
// the string would be longer than MaxStringBytes.
func (j *Journal) Cat(a, b string) string {
	j.charge(len(a)/64 + len(b)/64)
	if len(a)+len(b) > MaxStringBytes {
		panic(limitExceeded{Internal("evaluation built a string of more than %d bytes", MaxStringBytes)})
	}
	return a + b
}

// charge counts n steps of the tool call running (small enough to be
// inlined in the loops of tool bodies).
func (j *Journal) charge(n int) {
	j.steps += int64(n)
	if j.steps > MaxCallSteps {
		stepsExceeded()
	}
}

// stepsExceeded ends the call beyond MaxCallSteps; out of line, so that
// charge and Tick are inlined.
//
//go:noinline
func stepsExceeded() {
	panic(limitExceeded{Internal("evaluation exceeded %d steps", MaxCallSteps)})
}

// Counted returns s, counting a step per element for the operation it is
// the operand of in a tool body: a copy (append), a sort, a scan (x in s).
func Counted[S ~[]E, E any](j *Journal, s S) S {
	j.charge(len(s))
	return s
}

// CountedMap returns m, counting a step per entry for the operation it is
// the operand of in a tool body (keys).
func CountedMap[M ~map[string]V, V any](j *Journal, m M) M {
	j.charge(len(m))
	return m
}
