package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Meta is one line of OUT/<world>.tasks.jsonl: a synthesised task as a
// trainer sorts and samples it.
type Meta struct {
	ID     string `json:"id"`
	World  string `json:"world"`
	Origin string `json:"origin"`
	// InstructionSource is how the words were written: "template", or
	// "llm" when a model wrote them and they passed the check
	// (Result.SetWords).
	InstructionSource string   `json:"instruction_source"`
	Persona           string   `json:"persona"`
	Instruction       string   `json:"instruction"`
	Tools             []string `json:"tools"`       // every tool called, in first-call order
	WriteTools        []string `json:"write_tools"` // those that write (or are refused)
	Services          []string `json:"services"`
	Calls             int      `json:"calls"`
	Difficulty        Profile  `json:"difficulty"`
	Factors           []string `json:"factors"`
	Tags              Tags     `json:"tags"`
	// SeedRecords counts the records the task adds to the world seed
	// (its `seed { … }`: distractors).
	SeedRecords int `json:"seed_records,omitempty"`
	// Answer marks a question: the agent's final message is graded
	// (`expect { answer … }`), as the bundle's tasks.jsonl marks it.
	Answer bool `json:"answer,omitempty"`
}

// Tags are the task's taxonomy tags, as its spec block writes them.
type Tags struct {
	Domain       string   `json:"domain"`
	Capabilities []string `json:"capabilities"`
	Difficulty   []string `json:"difficulty"`
}

// JSONL renders the metadata, one task a line.
func JSONL(ms []Meta) []byte {
	var b bytes.Buffer
	for _, m := range ms {
		line, err := json.Marshal(m)
		if err != nil {
			panic(err) // strings, ints and bools only
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// name gives every candidate a task name no task of the world has:
// synth_<origin>_<n>, numbered in order.
func (x *synth) name(cands []*task, taken map[string]bool) {
	n := 0
	for _, t := range cands {
		for {
			n++
			name := fmt.Sprintf("synth_%s_%03d", t.origin, n)
			if !taken[name] {
				t.name = name
				break
			}
		}
	}
}

// tags are the task's taxonomy tags.
func (x *synth) tags(t *task) Tags {
	tg := Tags{Capabilities: []string{"tool_use"}}
	svc := x.w.Name
	for _, c := range t.calls {
		if !c.lookup {
			svc = c.tool.Service.Name
			break
		}
	}
	industry := x.w.Industry
	if industry == "" {
		industry = "general"
	}
	tg.Domain = "synth/" + industry + "/" + svc
	if t.profile.Writes > 0 || t.origin == OriginRefusal {
		tg.Capabilities = append(tg.Capabilities, "state_management")
	}
	if t.profile.Implied > 0 || t.profile.Refusal {
		tg.Capabilities = append(tg.Capabilities, "policy_following")
	}
	if t.profile.Branches > 0 || t.profile.Distractors > 0 {
		tg.Capabilities = append(tg.Capabilities, "reasoning")
	}
	switch t.origin {
	case OriginSolver:
		tg.Capabilities = append(tg.Capabilities, "optimization")
	case OriginQuestion:
		tg.Capabilities = append(tg.Capabilities, "information_retrieval")
	}
	tg.Difficulty = factors(t.profile, t.calls)
	return tg
}

// block writes a task in the language (formatted later with the spec).
func (x *synth) block(t *task) string {
	var b strings.Builder
	tg := x.tags(t)
	fmt.Fprintf(&b, "task %s {\n", t.name)
	fmt.Fprintf(&b, "  persona %s\n", strconv.Quote(t.persona))
	fmt.Fprintf(&b, "  instruction %s\n", strconv.Quote(t.instruction))
	fmt.Fprintf(&b, "  tags { domain %s capabilities [%s] difficulty [%s] }\n", strconv.Quote(tg.Domain), strings.Join(tg.Capabilities, " "), strings.Join(tg.Difficulty, " "))
	fmt.Fprintf(&b, "  meta { origin: %q, generator: \"worldc tasks\", instruction_source: %q, seed: %d, level: %q }\n", t.origin, t.source(), x.opts.Seed, t.profile.Level)
	b.WriteString(x.seedBlock(t))
	b.WriteString("  expect {\n")
	for _, a := range t.assertions {
		b.WriteString("    " + a + "\n")
	}
	b.WriteString("  }\n  solution {\n")
	for _, c := range t.calls {
		b.WriteString("    ")
		if c.bind != "" {
			b.WriteString(c.bind + " = ")
		}
		b.WriteString(c.tool.Name + "(")
		for i, a := range c.args {
			if i > 0 {
				b.WriteString(", ")
			}
			v := a.bound
			if v == "" {
				v, _ = x.lit(a.v, a.p.Type)
			}
			b.WriteString(a.p.Name + ": " + v)
		}
		b.WriteString(")")
		if c.fails != "" {
			b.WriteString(" fails " + strconv.Quote(c.fails))
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// emit is the spec with the candidates appended, in the canonical layout:
// the spec formatted (once per synthesis: it is the same in every round
// of the final check), a blank line, and the task blocks formatted. The
// formatter lays out declarations one after the other, a blank line
// apart, and places a comment by its position, so this is the layout of
// the whole (TestEmitIsTheLayoutOfTheWhole), without parsing the spec
// again in each round.
func (x *synth) emit(src []byte, cands []*task) ([]byte, error) {
	if x.formatted == nil {
		f, err := dsl.FormatSource(x.opts.Filename, src)
		if err != nil {
			return nil, fmt.Errorf("tasks: the spec does not parse: %v", err)
		}
		x.formatted = f
	}
	if len(cands) == 0 {
		return slices.Clone(x.formatted), nil
	}
	var b bytes.Buffer
	for i, t := range cands {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(x.block(t))
	}
	blocks, err := dsl.FormatSource(x.opts.Filename, b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("tasks: the written spec does not parse: %v", err)
	}
	out := make([]byte, 0, len(x.formatted)+1+len(blocks))
	out = append(out, x.formatted...)
	if len(x.formatted) > 0 {
		out = append(out, '\n')
	}
	return append(out, blocks...), nil
}

// blame maps the errors of the final check to the candidates they are
// in, by the lines of each task block; stray are the errors outside them.
func (x *synth) blame(out []byte, cands []*task, diags compiler.Diagnostics) (map[*task]string, string) {
	f, err := dsl.Parse(x.opts.Filename, out)
	if err != nil {
		return nil, err.Error()
	}
	byName := map[string]*task{}
	for _, t := range cands {
		byName[t.name] = t
	}
	type span struct {
		from, to int
		t        *task
	}
	var spans []span
	for _, d := range f.Decls {
		if d.Task != nil {
			if t := byName[d.Task.Name]; t != nil {
				spans = append(spans, span{d.Task.Pos.Line, d.Task.EndPos.Line, t})
			}
		}
	}
	bad := map[*task]string{}
	var stray strings.Builder
	for _, d := range diags {
		if d.Severity != compiler.SeverityError {
			continue
		}
		i := slices.IndexFunc(spans, func(s span) bool { return d.Line >= s.from && d.Line <= s.to })
		if i < 0 {
			stray.WriteString(d.String() + "\n")
			continue
		}
		if _, ok := bad[spans[i].t]; !ok {
			bad[spans[i].t] = string(d.Code)
		}
	}
	if stray.Len() > 0 {
		return nil, stray.String()
	}
	return bad, ""
}

// result assembles the result of the kept candidates.
func (x *synth) result(out []byte, cands []*task) *Result {
	r := &Result{Spec: out, x: x, kept: cands}
	s := Summary{
		World: x.w.Name, Wanted: x.opts.N, Kept: len(cands), Attempts: x.attempts,
		Dropped: x.dropped, Origins: map[string]int{}, Levels: map[string]int{}, Calls: map[int]int{},
	}
	covered := map[*ir.Tool]bool{}
	for _, t := range cands {
		m := Meta{
			ID: t.name, World: x.w.Name, Origin: t.origin, InstructionSource: t.source(),
			Persona: t.persona, Instruction: t.instruction, Calls: len(t.calls),
			Difficulty: t.profile, Factors: factors(t.profile, t.calls), Tags: x.tags(t),
			Answer: t.answer, SeedRecords: len(t.seed),
		}
		for _, c := range t.calls {
			if !slices.Contains(m.Tools, c.tool.Name) {
				m.Tools = append(m.Tools, c.tool.Name)
			}
			if !c.lookup && x.byTool[c.tool].writer() && !slices.Contains(m.WriteTools, c.tool.Name) {
				m.WriteTools = append(m.WriteTools, c.tool.Name)
			}
			if !slices.Contains(m.Services, c.tool.Service.Name) {
				m.Services = append(m.Services, c.tool.Service.Name)
			}
			if !c.lookup && c.fails == "" && x.byTool[c.tool].writer() {
				covered[c.tool] = true
			}
		}
		if m.Factors == nil {
			m.Factors = []string{}
		}
		r.Tasks = append(r.Tasks, m)
		s.Origins[t.origin]++
		s.Levels[t.profile.Level]++
		s.Calls[len(t.calls)]++
	}
	for _, f := range x.writers {
		s.WritingTools++
		if covered[f.tool] {
			s.Covered++
		} else {
			s.Uncovered = append(s.Uncovered, f.tool.Name)
			if s.Why == nil {
				s.Why = map[string]string{}
			}
			s.Why[f.tool.Name] = x.whyUncovered(f)
		}
	}
	if s.Kept < s.Wanted {
		s.Note = x.shortfall(s)
	}
	for _, o := range []string{OriginProgram, OriginSolver, OriginQuestion} {
		if 10*s.Origins[o] >= s.Kept {
			continue
		}
		if s.Few == nil {
			s.Few = map[string]string{}
		}
		s.Few[o] = x.few(o, s.Origins[o])
	}
	r.Summary = s
	return r
}

// whyUncovered says why no kept task calls the writing tool f.
func (x *synth) whyUncovered(f *toolFacts) string {
	if !x.succeeded[f.tool] {
		return "no call on arguments drawn from the state succeeded"
	}
	if !x.changed[f.tool] {
		return "its calls that succeed change nothing, and a rubric comes from a change"
	}
	if !x.safe[f.tool] {
		return "its calls that change the state break an always-invariant or a rule"
	}
	return "its calls made no task that passed the checks"
}

// fewWhy explains the reasons origins' candidates are dropped for.
var fewWhy = map[string]string{
	"no_program_shape":     "no writing tool takes one record of an entity that a search lists by a ref, enum or bool field",
	"no_solver_shape":      "no writing tool takes one record of an entity that a search lists by a ref, enum or bool field",
	"no_group":             "no search lists records by a ref, enum or bool field",
	"group_too_small":      "the searches' groups hold fewer than 2 (3 for a choice) or more than 49 records",
	"program_call_failed":  "the writes fail on some record of the groups drawn (their requires differ over the group)",
	"no_program_condition": "the records of the groups drawn share every number, date, enum and bool field",
	"solver_infeasible":    "no candidate of the groups drawn can take the write under the rules",
	"solver_tie":           "the feasible candidates tie on every number field",
	"no_question_shape":    "the records have no number, date or name field a question can ask",
	"question_tie":         "two records share the highest or lowest value",
	"duplicate":            "the world gives the same candidates again and again",
	"near_duplicate":       "the world gives the same candidates again and again",
}

// few says why an origin has few of the kept tasks: its most frequent
// reason for dropping a candidate.
func (x *synth) few(origin string, kept int) string {
	by := x.droppedBy[origin]
	top, best, total := "", 0, 0
	for _, k := range sortedCounts(by) {
		total += by[k]
		if by[k] > best {
			top, best = k, by[k]
		}
	}
	if top == "" {
		return fmt.Sprintf("%d kept; none drawn", kept)
	}
	why := fewWhy[top]
	if why == "" {
		why = "most candidates fail the checks"
	}
	return fmt.Sprintf("%d kept, %d dropped, most as %s (%d): %s", kept, total, top, best, why)
}

// shortfall says why fewer tasks than wanted were found.
func (x *synth) shortfall(s Summary) string {
	records := 0
	for _, e := range x.w.Entities {
		records += x.start.Len(e)
	}
	top := ""
	best := 0
	for _, k := range sortedCounts(s.Dropped) {
		if s.Dropped[k] > best {
			top, best = k, s.Dropped[k]
		}
	}
	when := fmt.Sprintf("in %d attempts", s.Attempts)
	if x.spentAll {
		when = fmt.Sprintf("in %d attempts, when no kind of task gave new ones any more (%d draws in a row of each made none)", s.Attempts, retired)
	}
	msg := fmt.Sprintf("%d distinct tasks %s: the world has %d writing tools and %d seed records, and most candidates were dropped as %s (%d)",
		s.Kept, when, s.WritingTools, records, top, best)
	why := shortWhy[top]
	if why == "" {
		why = fewWhy[top]
	}
	if why != "" {
		msg += ": " + why
	}
	return msg
}

// shortWhy explains, in a user's terms, the reasons a world gives fewer
// tasks than wanted for (fewWhy the others).
var shortWhy = map[string]string{
	"duplicate":            "the tools over these records make no other distinct task; drawing more gives tasks already made",
	"near_duplicate":       "the tools over these records make no other distinct task; drawing more gives the same writes on the same records",
	"writes_spent":         "every first write the records allow was drawn again and again and made no new task",
	"invariant_unrepaired": "most writes leave an invariant broken that no call drawn from the records repairs",
	"no_call_succeeded":    "the writing tools' requires refuse the calls drawn from the records",
}

func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
