package runtime

import "encoding/json"

// TaskData is one task as a generated package embeds it (tasks.json): its
// description and its rubric, as data rather than code. A world's tasks
// are many and alike (a synthesis writes hundreds), and as Go composite
// literals and one function per assertion they were most of what the Go
// compiler spent on a world; as data they cost a decode, once. Only the
// assertions that are expressions of their own are code (Grader).
type TaskData struct {
	TaskInfo
	Rubric []AssertionData `json:"rubric"`
}

// AssertionData is one rubric assertion of a TaskData: its kind and text
// (as AssertionResult reports them) and how it is graded — by exactly one
// of Grader, Record, Except or Invariant, or, when none is set, by its
// kind alone (`unchanged`: the state equals the start state; a rule on
// actions: graded along the episode).
type AssertionData struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
	// Always names the always-invariant or the rule on actions the
	// assertion is about, which must have held along the episode.
	Always string `json:"always,omitempty"`
	// Grader names the generated function that grades the assertion: an
	// expression compiled to Go (or, for `answer EXPR`, the function that
	// computes the value the answer must state).
	Grader string `json:"grader,omitempty"`
	// Record is `E[id] == E { … }`: the record equals a constant record.
	Record *RecordData `json:"record,omitempty"`
	// Except is `unchanged except E[id], …`: the ids, by entity name, of
	// the records that may change.
	Except map[string][]string `json:"except,omitempty"`
	// Invariant is `invariant NAME`: the invariant holds.
	Invariant string `json:"invariant,omitempty"`
}

// RecordData is the record an assertion compares with: the entity, the
// id of the record, and the whole record as JSON (its encoding in
// observations and snapshots), decoded on first use.
type RecordData struct {
	Entity string          `json:"entity"`
	ID     string          `json:"id"`
	Value  json.RawMessage `json:"value"`
}

// DecodeTasks decodes a generated package's tasks.json. data comes from
// the generator and always decodes; a failure panics, as a generated
// constant's does (see Constant).
func DecodeTasks(data string) []TaskData {
	var out []TaskData
	if err := json.Unmarshal([]byte(data), &out); err != nil {
		panic("runtime: the generated tasks do not decode: " + err.Error())
	}
	return out
}

// ExceptSet is an assertion's Except as the set unchanged-except grading
// reads: entity name → id → true.
func ExceptSet(except map[string][]string) map[string]map[string]bool {
	out := make(map[string]map[string]bool, len(except))
	for e, ids := range except {
		set := make(map[string]bool, len(ids))
		for _, id := range ids {
			set[id] = true
		}
		out[e] = set
	}
	return out
}
