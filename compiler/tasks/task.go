package tasks

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// The origins of tasks.
const (
	OriginDAG      = "dag"      // a chain of dependent calls
	OriginProgram  = "program"  // a loop over the records a condition selects
	OriginRefusal  = "refusal"  // a request the world or its policy forbids
	OriginSolver   = "solver"   // a choice among candidates under the rules and constraints
	OriginQuestion = "question" // a question answered from reads, graded by the final message
)

// task is a synthesised task before it is written.
type task struct {
	name    string
	origin  string
	persona string
	// instruction is the words; facts the user-known values they give.
	instruction string
	facts       []string
	// llm marks words an LLM wrote (Result.SetWords); else a template.
	llm        bool
	calls      []*call // the golden solution, lookups included
	assertions []string
	// profile is the measured difficulty.
	profile Profile
	// records are the records the writes act on, for the near-duplicate
	// key.
	records []string
	start   *eval.State
	end     *eval.State
	// answer marks a question: the rubric grades the final message;
	// needs are the values its answer is computed from, which the
	// observations must show.
	answer bool
	needs  []string
	// seed are the records the task adds to the world seed (distract.go);
	// seedSeen how many of them its lookups returned as distractors.
	seed     []seedRec
	seedSeen int
}

// call is one call of a golden solution.
type call struct {
	tool *ir.Tool
	args []arg
	// bind names the call's result, when a later call passes its id.
	bind string
	// fails is the message a call expected to fail fails with.
	fails string
	// lookup marks a read that finds a record the task needs; implied a
	// write the policy requires without the words asking for it.
	lookup  bool
	implied bool
	// spell marks an implied write the words ask for all the same: one
	// of the several a repair takes (a payment of those a closed loan
	// needs), which other calls could replace, so the rubric's would be
	// a guess.
	spell bool
	// obs is the call's observation data, decoded (nil for a failure).
	obs any
	// id is the id of the record the call returned ("" when none).
	id string
	// deps are the indexes of the earlier calls this one depends on: a
	// value it passes came from their observations, or a field a require
	// reads was written by them.
	deps []int
}

// arg is one argument: a JSON value, or the result of a bound call.
type arg struct {
	p     *ir.Param
	v     any
	bound string
}

func jsonNumber(s string) json.Number { return json.Number(s) }

// argsJSON is the JSON object of a call's arguments.
func argsJSON(args []arg) []byte {
	m := map[string]any{}
	for _, a := range args {
		m[a.p.Name] = a.v
	}
	return toJSON(m)
}

// source is how the words were written: "llm" or "template".
func (t *task) source() string {
	if t.llm {
		return "llm"
	}
	return "template"
}

// writeTools are the tools of the task's successful calls that are not
// lookups, in call order, each once.
func (t *task) writeTools() []*ir.Tool {
	var out []*ir.Tool
	for _, c := range t.calls {
		if !c.lookup && c.fails == "" && !slices.Contains(out, c.tool) {
			out = append(out, c.tool)
		}
	}
	return out
}

// canonical is the task's canonical form: its solution and rubric, which
// decide what it asks.
func (t *task) canonical() string {
	var b strings.Builder
	for _, c := range t.calls {
		b.WriteString(c.tool.Name)
		b.Write(argsJSON(c.args))
		b.WriteString(c.fails)
		b.WriteByte('\n')
	}
	for _, a := range t.assertions {
		b.WriteString(a)
		b.WriteByte('\n')
	}
	return b.String()
}

// nearKey is what near-duplicates share: the origin, the sequence of tools
// that write (or are refused) and the records they act on.
func (t *task) nearKey() string {
	var tools []string
	for _, c := range t.calls {
		if !c.lookup {
			tools = append(tools, c.tool.Name)
		}
	}
	recs := slices.Clone(t.records)
	slices.Sort(recs)
	recs = slices.Compact(recs)
	return t.origin + "|" + strings.Join(tools, ",") + "|" + strings.Join(recs, ",")
}
