// Command tau2import writes the tasks of tau2-bench's retail domain into
// testdata/worlds/tau2_retail.world, from tau2's tasks.json,
// expected_final_states.json and split_tasks.json (../shared/peers/tau2-retail,
// MIT, © 2025 Sierra Research):
//
//	go run ./cmd/tau2import [-data DIR] [-world FILE]
//
// It keeps the spec up to and including the marker comment that opens its
// task section ("// Tasks: written by cmd/tau2import …"), replaces what
// follows with one task per tau2 task, in tasks.json order, and writes the
// spec back in canonical layout (worldc fmt). The output depends only on
// the inputs. For each task (docs/design/tau2-retail.md §9):
//
//   - name retail_<id>; persona user_scenario.persona, or "Customer of the
//     online store" when null; instruction the text tau2 gives its user
//     simulator, str(StructuredUserInstructions);
//   - tags: domain ToC/retail/tau2, capabilities tool_use,
//     state_management and policy_following, and difficulty read_only (no
//     write call that succeeds), single_write (one), multi_step (two or
//     more), and error_recovery when a gold call raises;
//   - the solution: every gold action, in order, its arguments as given; an
//     action listed in the task's expected errors is marked
//     `fails "<message>"`;
//   - the rubric: for every record that expected_final_states.json lists as
//     changed, one assertion comparing the whole record with its final
//     value, `store.Order["#W1"] == Order { order_id: "#W1", … }` (an unset
//     optional field is left out: absent is null), then `unchanged except`
//     those records; or `unchanged` when nothing changes;
//   - a meta block with what the state cannot grade, for the harness:
//     tau2_id (tau2's task id), split (the splits of split_tasks.json that
//     list the task, in that file's order), reward_basis, nl_assertions
//     and communicate_info (when not empty: null and [] both mean none),
//     description's purpose, relevant_policies and notes (when not null),
//     and issues ("<id>: <title>" per issue, when there are any).
//
// The spec's non-task part must check: its types tell how each value of
// the expected states is written.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/dsl"
)

// Marker is the first line of the spec's task section; everything after
// it is written by this program.
const Marker = "// Tasks: written by cmd/tau2import"

func main() {
	data := flag.String("data", filepath.Join("..", "shared", "peers", "tau2-retail"), "directory of tau2's tasks.json, expected_final_states.json and split_tasks.json")
	world := flag.String("world", filepath.Join("testdata", "worlds", "tau2_retail.world"), "the spec to write the tasks into")
	flag.Parse()
	in, err := ReadInputs(*data)
	if err == nil {
		var src, out []byte
		if src, err = os.ReadFile(*world); err == nil {
			if out, err = Convert(*world, src, in); err == nil {
				err = os.WriteFile(*world, out, 0o644)
			}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tau2import:", err)
		os.Exit(1)
	}
}

// Inputs are tau2's files, as read.
type Inputs struct {
	Tasks    []Task
	Expected map[string]Expected // by task id
	Split    map[string][]string // task id → the splits that list it, in split_tasks.json order
}

// Task is the part of a tau2 task the converter reads.
type Task struct {
	ID          string
	Description struct {
		Purpose          *string
		RelevantPolicies *string `json:"relevant_policies"`
		Notes            *string
	}
	Issues []struct {
		ID    string
		Title string
	}
	UserScenario struct {
		Persona      *string
		Instructions struct {
			Domain           string
			ReasonForCall    string  `json:"reason_for_call"`
			KnownInfo        *string `json:"known_info"`
			UnknownInfo      *string `json:"unknown_info"`
			TaskInstructions string  `json:"task_instructions"`
		}
	} `json:"user_scenario"`
	EvaluationCriteria struct {
		Actions []struct {
			Name      string
			Arguments json.RawMessage
		}
		NLAssertions    []string `json:"nl_assertions"`
		CommunicateInfo []string `json:"communicate_info"`
		RewardBasis     []string `json:"reward_basis"`
	} `json:"evaluation_criteria"`
}

// Expected is a task's entry in expected_final_states.json.
type Expected struct {
	Changed map[string]map[string]json.RawMessage // table → key → final record
	Errors  []struct {
		ActionIndex int `json:"action_index"`
		Name        string
		Message     string
	}
}

// ReadInputs reads tau2's files from dir.
func ReadInputs(dir string) (*Inputs, error) {
	in := &Inputs{Split: map[string][]string{}}
	var exp struct{ Tasks map[string]Expected }
	var split json.RawMessage
	for _, f := range []struct {
		name string
		dst  any
	}{{"tasks.json", &in.Tasks}, {"expected_final_states.json", &exp}, {"split_tasks.json", &split}} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, f.dst); err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
	}
	in.Expected = exp.Tasks
	names, lists, err := members(split)
	if err != nil {
		return nil, fmt.Errorf("split_tasks.json: %w", err)
	}
	for i, name := range names {
		var ids []string
		if err := json.Unmarshal(lists[i], &ids); err != nil {
			return nil, fmt.Errorf("split_tasks.json: %s: %w", name, err)
		}
		for _, id := range ids {
			in.Split[id] = append(in.Split[id], name)
		}
	}
	return in, nil
}

// tables maps tau2's table names to the world's entities.
var tables = map[string]string{"products": "Product", "users": "User", "orders": "Order"}

// Convert returns src with its task section rewritten from in. path names
// the spec, whose data files are read relative to it.
func Convert(path string, src []byte, in *Inputs) ([]byte, error) {
	i := bytes.Index(src, []byte(Marker))
	if i < 0 {
		return nil, fmt.Errorf("%s: no line %q", path, Marker)
	}
	j := bytes.IndexByte(src[i:], '\n')
	if j < 0 {
		j = len(src) - i
	}
	// The marker's comment block goes on up to the first blank line.
	end := i + j + 1
	for end < len(src) && bytes.HasPrefix(src[end:], []byte("//")) {
		k := bytes.IndexByte(src[end:], '\n')
		if k < 0 {
			end = len(src)
			break
		}
		end += k + 1
	}
	head := src[:min(end, len(src))]
	w, ds := compiler.CheckSource(path, head, compiler.WithoutReachability())
	if w == nil {
		return nil, fmt.Errorf("the spec before its tasks does not check:\n%s", ds.Text())
	}
	c := &converter{w: w, entities: map[string]*ir.Entity{}, tools: map[string]*ir.Tool{}}
	for _, e := range w.Entities {
		c.entities[e.Name] = e
	}
	for _, t := range w.Tools {
		c.tools[t.Name] = t
	}
	var b strings.Builder
	b.Write(head)
	for _, t := range in.Tasks {
		exp, ok := in.Expected[t.ID]
		if !ok {
			return nil, fmt.Errorf("task %s: not in expected_final_states.json", t.ID)
		}
		if err := c.task(&b, t, exp, in.Split[t.ID]); err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
	}
	return dsl.FormatSource(path, []byte(b.String()))
}

type converter struct {
	w        *ir.World
	entities map[string]*ir.Entity
	tools    map[string]*ir.Tool
}

// writes reports whether a tool writes: tau2's WRITE tools are the ones
// whose body sets a field of a record (not only `var` locals).
func writes(t *ir.Tool) bool {
	found := false
	ir.WalkStmts(t.Body, func(s ir.Stmt) {
		switch s := s.(type) {
		case *ir.Set:
			found = true
		case *ir.Assign:
			found = found || len(s.Path) > 0
		}
	}, nil)
	return found
}

func (c *converter) task(b *strings.Builder, t Task, exp Expected, split []string) error {
	fails := map[int]string{}
	for _, e := range exp.Errors {
		if e.ActionIndex < 0 || e.ActionIndex >= len(t.EvaluationCriteria.Actions) || t.EvaluationCriteria.Actions[e.ActionIndex].Name != e.Name {
			return fmt.Errorf("expected error %d %s names no gold action", e.ActionIndex, e.Name)
		}
		fails[e.ActionIndex] = e.Message
	}
	var steps []string
	nwrites := 0
	for i, a := range t.EvaluationCriteria.Actions {
		tool := c.tools[a.Name]
		if tool == nil {
			return fmt.Errorf("action %d: %s is not a tool of the world", i, a.Name)
		}
		call, err := c.call(tool, a.Arguments)
		if err != nil {
			return fmt.Errorf("action %d: %w", i, err)
		}
		if msg, ok := fails[i]; ok {
			call += " fails " + quote(msg)
		} else if writes(tool) {
			nwrites++
		}
		steps = append(steps, call)
	}
	var difficulty []string
	if nwrites == 0 {
		difficulty = append(difficulty, "read_only")
	}
	if nwrites == 1 {
		difficulty = append(difficulty, "single_write")
	}
	if nwrites > 1 {
		difficulty = append(difficulty, "multi_step")
	}
	if len(fails) > 0 {
		difficulty = append(difficulty, "error_recovery")
	}
	rubric, err := c.rubric(exp.Changed)
	if err != nil {
		return err
	}

	persona := "Customer of the online store"
	if p := t.UserScenario.Persona; p != nil {
		persona = *p
	}
	fmt.Fprintf(b, "task retail_%s {\n", t.ID)
	fmt.Fprintf(b, "  persona %s\n", quote(persona))
	fmt.Fprintf(b, "  instruction %s\n", quote(instruction(t)))
	fmt.Fprintf(b, "  tags { domain \"ToC/retail/tau2\" capabilities [tool_use state_management policy_following]")
	if len(difficulty) > 0 {
		fmt.Fprintf(b, " difficulty [%s]", strings.Join(difficulty, " "))
	}
	b.WriteString(" }\n  meta {\n")
	for _, e := range meta(t, split) {
		fmt.Fprintf(b, "    %s: %s\n", e[0], e[1])
	}
	b.WriteString("  }\n  expect {\n")
	for _, a := range rubric {
		fmt.Fprintf(b, "    %s\n", a)
	}
	b.WriteString("  }\n  solution {\n")
	for _, s := range steps {
		fmt.Fprintf(b, "    %s\n", s)
	}
	b.WriteString("  }\n}\n")
	return nil
}

// meta is the task's meta entries (key, value as written), in a fixed
// order: what tau2 grades or records beside the database state.
func meta(t Task, split []string) [][2]string {
	list := func(xs []string) string {
		q := make([]string, len(xs))
		for i, x := range xs {
			q[i] = quote(x)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	out := [][2]string{{"tau2_id", quote(t.ID)}, {"split", list(split)}, {"reward_basis", list(t.EvaluationCriteria.RewardBasis)}}
	if xs := t.EvaluationCriteria.NLAssertions; len(xs) > 0 {
		out = append(out, [2]string{"nl_assertions", list(xs)})
	}
	if xs := t.EvaluationCriteria.CommunicateInfo; len(xs) > 0 {
		out = append(out, [2]string{"communicate_info", list(xs)})
	}
	for _, d := range []struct {
		key string
		val *string
	}{{"purpose", t.Description.Purpose}, {"relevant_policies", t.Description.RelevantPolicies}, {"notes", t.Description.Notes}} {
		if d.val != nil {
			out = append(out, [2]string{d.key, quote(*d.val)})
		}
	}
	if len(t.Issues) > 0 {
		var xs []string
		for _, is := range t.Issues {
			xs = append(xs, is.ID+": "+is.Title)
		}
		out = append(out, [2]string{"issues", list(xs)})
	}
	return out
}

// instruction is str(StructuredUserInstructions) of tau2's data model:
// the domain, then each section's title and its text indented by a tab
// (textwrap.indent: every line that is not blank).
func instruction(t Task) string {
	in := t.UserScenario.Instructions
	lines := []string{"Domain: " + in.Domain, "Reason for call:\n" + indent(in.ReasonForCall)}
	if in.KnownInfo != nil {
		lines = append(lines, "Known info:\n"+indent(*in.KnownInfo))
	}
	if in.UnknownInfo != nil {
		lines = append(lines, "Unknown info:\n"+indent(*in.UnknownInfo))
	}
	lines = append(lines, "Task instructions:\n"+indent(in.TaskInstructions))
	return strings.Join(lines, "\n")
}

// indent is Python's textwrap.indent(s, "\t") on text whose only line
// break is "\n" (tasks.json has no other).
func indent(s string) string {
	var b strings.Builder
	for line := range strings.SplitAfterSeq(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteByte('\t')
		}
		b.WriteString(line)
	}
	return b.String()
}

// call writes a gold action as a solution step: its arguments in their
// order in tasks.json, each typed by the tool's parameter.
func (c *converter) call(t *ir.Tool, raw json.RawMessage) (string, error) {
	keys, vals, err := members(raw)
	if err != nil {
		return "", err
	}
	var args []string
	for i, k := range keys {
		var p *ir.Param
		for _, q := range t.Params {
			if q.Name == k {
				p = q
			}
		}
		if p == nil {
			return "", fmt.Errorf("%s has no parameter %s", t.Name, k)
		}
		v, err := literal(p.Type, vals[i])
		if err != nil {
			return "", fmt.Errorf("%s: %w", k, err)
		}
		args = append(args, k+": "+v)
	}
	return t.Name + "(" + strings.Join(args, ", ") + ")", nil
}

// rubric asserts each changed record as a whole, then that nothing else
// changed.
func (c *converter) rubric(changed map[string]map[string]json.RawMessage) ([]string, error) {
	var out, except []string
	for _, table := range []string{"products", "users", "orders"} {
		recs := changed[table]
		e := c.entities[tables[table]]
		if e == nil {
			return nil, fmt.Errorf("no entity for table %s", table)
		}
		for _, key := range slices.Sorted(maps.Keys(recs)) {
			ref := e.Service.Name + "." + e.Name + "[" + quote(key) + "]"
			fields := map[string]json.RawMessage{}
			if err := json.Unmarshal(recs[key], &fields); err != nil {
				return nil, fmt.Errorf("%s: %w", ref, err)
			}
			for name := range fields {
				if e.Field(name) == nil {
					return nil, fmt.Errorf("%s: %s is no field of %s", ref, name, e.Name)
				}
			}
			var parts []string
			for _, f := range e.Fields {
				if f == e.Key {
					if got := fields[f.Name]; got != nil && string(got) != strconv.Quote(key) {
						return nil, fmt.Errorf("%s: its key is %s", ref, got)
					}
					parts = append(parts, f.Name+": "+quote(key))
					continue
				}
				v, err := literal(f.Type, fields[f.Name])
				if err != nil {
					return nil, fmt.Errorf("%s.%s: %w", ref, f.Name, err)
				}
				if v == "null" {
					continue // an absent optional field is null
				}
				parts = append(parts, f.Name+": "+v)
			}
			out = append(out, ref+" == "+e.Name+" { "+strings.Join(parts, ", ")+" }")
			except = append(except, ref)
		}
	}
	for table := range changed {
		if tables[table] == "" {
			return nil, fmt.Errorf("unknown table %s", table)
		}
	}
	if len(except) == 0 {
		return []string{"unchanged"}, nil
	}
	return append(out, "unchanged except "+strings.Join(except, ", ")), nil
}

// literal writes the JSON value raw as a constant of type t: absent or
// null is null, numbers in their shortest round-trip form, enum values and
// variant tags as strings, value records and maps member by member.
func literal(t *ir.Type, raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		if !t.Optional {
			return "", fmt.Errorf("null for a required %s", t.Kind)
		}
		return "null", nil
	}
	switch t.Kind {
	case ir.KindString, ir.KindText, ir.KindRef, ir.KindEnum:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", err
		}
		if t.Kind == ir.KindEnum && !t.Enum.Has(s) {
			return "", fmt.Errorf("%q is not a value of the enum", s)
		}
		return quote(s), nil
	case ir.KindDecimal, ir.KindMoney:
		var f float64
		if err := json.Unmarshal(raw, &f); err != nil {
			return "", err
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return "", fmt.Errorf("%v has no literal", f)
		}
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	case ir.KindBool:
		var v bool
		if err := json.Unmarshal(raw, &v); err != nil {
			return "", err
		}
		return strconv.FormatBool(v), nil
	case ir.KindList:
		var xs []json.RawMessage
		if err := json.Unmarshal(raw, &xs); err != nil {
			return "", err
		}
		parts := make([]string, len(xs))
		for i, x := range xs {
			v, err := literal(t.Elem, x)
			if err != nil {
				return "", fmt.Errorf("[%d]: %w", i, err)
			}
			parts[i] = v
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	case ir.KindMap:
		keys, vals, err := members(raw)
		if err != nil {
			return "", err
		}
		parts := make([]string, len(keys))
		for i, k := range keys {
			v, err := literal(t.Elem, vals[i])
			if err != nil {
				return "", fmt.Errorf("[%q]: %w", k, err)
			}
			parts[i] = quote(k) + ": " + v
		}
		return "{" + strings.Join(parts, ", ") + "}", nil
	case ir.KindStruct:
		fields := map[string]json.RawMessage{}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return "", err
		}
		sd := t.Struct
		var kase string
		if sd.Tag != nil {
			if err := json.Unmarshal(fields[sd.Tag.Name], &kase); err != nil {
				return "", fmt.Errorf("%s: %w", sd.Tag.Name, err)
			}
		}
		var parts []string
		for _, f := range sd.AllFields() {
			if f.Case != nil && f.Case.Name != kase {
				continue
			}
			v, err := literal(f.Type, fields[f.Name])
			if err != nil {
				return "", fmt.Errorf("%s: %w", f.Name, err)
			}
			parts = append(parts, f.Name+": "+v)
			delete(fields, f.Name)
		}
		for name := range fields {
			return "", fmt.Errorf("%s has no field %s", sd.Name, name)
		}
		return sd.Name + " { " + strings.Join(parts, ", ") + " }", nil
	}
	return "", fmt.Errorf("no literal for a %s", t.Kind)
}

// members decodes a JSON object keeping its members in order.
func members(raw json.RawMessage) ([]string, []json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object: %.40s", raw)
	}
	var keys []string
	var vals []json.RawMessage
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, tok.(string))
		vals = append(vals, v)
	}
	return keys, vals, nil
}

// quote writes s as a string literal of the language: Go escapes for
// quotes, backslashes, newlines, tabs and other control characters;
// everything else as is.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
