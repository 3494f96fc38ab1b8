package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// A ConformanceError is one failed conformance check. Its message names the
// world, and where they apply the task, step, tool and assertion.
type ConformanceError struct {
	World string // the world's name
	Check string // "tools", "tasks", "solutions", "determinism", "isolation", "bad-arguments"
	Task  string // "" when not about a task
	Step  int    // 1-based solution step; 0 when not about a step
	Tool  string // "" when not about a tool
	Msg   string // what is wrong, naming the assertion or argument involved
}

// Error reads `world "w": task "t": step 2: tool "x": check: message`,
// leaving out the parts that do not apply.
func (e *ConformanceError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "world %q", e.World)
	if e.Task != "" {
		fmt.Fprintf(&b, ": task %q", e.Task)
	}
	if e.Step > 0 {
		fmt.Fprintf(&b, ": step %d", e.Step)
	}
	if e.Tool != "" {
		fmt.Fprintf(&b, ": tool %q", e.Tool)
	}
	fmt.Fprintf(&b, ": %s: %s", e.Check, e.Msg)
	return b.String()
}

type checker struct {
	world string
	check string
	errs  []error
}

func (c *checker) fail(task string, step int, tool string, format string, args ...any) {
	c.errs = append(c.errs, &ConformanceError{World: c.world, Check: c.check, Task: task, Step: step, Tool: tool, Msg: fmt.Sprintf(format, args...)})
}

// run runs f, turning a panic (a bug of the world) into an error so that one
// binary can check many worlds.
func runCheck(w World, check string, f func(c *checker, w World)) (errs []error) {
	c := &checker{check: check, world: "?"}
	defer func() {
		if v := recover(); v != nil {
			c.fail("", 0, "", "panic: %v", v)
			errs = c.errs
		}
	}()
	c.world = w.Info().Name
	f(c, w)
	return c.errs
}

// Conformance runs every check below on w and returns all failures. A
// generated package's test is a thin wrapper:
//
//	func TestConformance(t *testing.T) {
//		for _, err := range runtime.Conformance(World) {
//			t.Error(err)
//		}
//	}
func Conformance(w World) []error {
	var errs []error
	for _, check := range []func(World) []error{CheckTools, CheckTasks, CheckSolutions, CheckDeterminism, CheckIsolation, CheckBadArguments} {
		errs = append(errs, check(w)...)
	}
	return errs
}

// CheckTools checks the tool descriptions: unique names matching
// ^[a-zA-Z0-9_-]{1,64}$, a service and a description, and a parameter
// schema that is a JSON object schema usable in OpenAI strict mode
// ("type":"object", "additionalProperties":false, every property listed in
// "required"; optional parameters are nullable), nested objects included;
// maps (objects whose additionalProperties is a schema) are allowed but
// make the tool non-strict (see [ToolInfo.OpenAI]).
func CheckTools(w World) []error {
	return runCheck(w, "tools", func(c *checker, w World) {
		seen := map[string]bool{}
		for _, t := range w.Tools() {
			if !toolNameRE.MatchString(t.Name) {
				c.fail("", 0, t.Name, "invalid tool name (want ^[a-zA-Z0-9_-]{1,64}$)")
			}
			if seen[t.Name] {
				c.fail("", 0, t.Name, "duplicate tool name")
			}
			seen[t.Name] = true
			if strings.TrimSpace(t.Description) == "" {
				c.fail("", 0, t.Name, "empty description")
			}
			if t.Service == "" {
				c.fail("", 0, t.Name, "no service")
			}
			s, err := parseSchema(t.Parameters)
			if err != nil {
				c.fail("", 0, t.Name, "parameters: %v", err)
				continue
			}
			if !s.closed {
				c.fail("", 0, t.Name, `parameters: want "additionalProperties": false (OpenAI strict mode)`)
			}
			for _, p := range s.props {
				if !p.listed {
					c.fail("", 0, t.Name, "parameters: property %q is not listed in \"required\" (OpenAI strict mode lists every property; make optional ones nullable)", p.name)
				}
			}
			for _, r := range s.requiredList {
				if !slices.ContainsFunc(s.props, func(p propInfo) bool { return p.name == r }) {
					c.fail("", 0, t.Name, "parameters: required %q is not a property", r)
				}
			}
			for _, err := range nestedSchemaProblems(t.Parameters) {
				c.fail("", 0, t.Name, "parameters: %v", err)
			}
			if !json.Valid(t.OpenAI()) {
				c.fail("", 0, t.Name, "OpenAI form is not valid JSON")
			}
		}
	})
}

// CheckTasks checks the task list and episodes: unique, non-empty task IDs;
// NewEpisode works for "" and every task and fails for an unknown task;
// each fresh episode has a hash and a JSON snapshot; every task has a rubric
// and its solution calls only known tools.
func CheckTasks(w World) []error {
	return runCheck(w, "tasks", func(c *checker, w World) {
		tools := map[string]bool{}
		for _, t := range w.Tools() {
			tools[t.Name] = true
		}
		if _, err := w.NewEpisode(""); err != nil {
			c.fail("", 0, "", "NewEpisode(\"\") (the world seed): %v", err)
		}
		if _, err := w.NewEpisode("no_such_task_xyzzy"); err == nil {
			c.fail("", 0, "", "NewEpisode of an unknown task succeeded; want an error")
		}
		seen := map[string]bool{}
		valid := map[string]bool{} // start states whose snapshot is valid JSON, by hash
		for _, t := range w.Tasks() {
			if t.ID == "" {
				c.fail("", 0, "", "a task has an empty ID")
				continue
			}
			if seen[t.ID] {
				c.fail(t.ID, 0, "", "duplicate task ID")
			}
			seen[t.ID] = true
			ep, err := w.NewEpisode(t.ID)
			if err != nil {
				c.fail(t.ID, 0, "", "NewEpisode: %v", err)
				continue
			}
			h := ep.StateHash()
			if len(h) != 64 {
				c.fail(t.ID, 0, "", "state hash %q is not a hex SHA-256", h)
			}
			if !valid[h] {
				if json.Valid(ep.Snapshot()) {
					valid[h] = true // tasks sharing a start state are checked once
				} else {
					c.fail(t.ID, 0, "", "snapshot is not valid JSON")
				}
			}
			if len(ep.Grade().Assertions) == 0 {
				c.fail(t.ID, 0, "", "the task has no rubric assertions")
			}
			for i, call := range t.Solution {
				if !tools[call.Tool] {
					c.fail(t.ID, i+1, call.Tool, "solution calls an unknown tool")
				}
			}
		}
	})
}

// CheckSolutions replays every golden solution in a fresh episode and
// checks that the fresh episode is not already at full reward (unless the
// rubric has an "unchanged" assertion), every call returns ok except those
// expected to fail (Call.Fails), which must fail with exactly their
// message, no always-invariant was violated after any call
// (Grade.StepViolations), and the final state has reward 1, no invariant
// violations and a different state hash (unless no call was meant to
// succeed).
func CheckSolutions(w World) []error {
	return runCheck(w, "solutions", func(c *checker, w World) {
		for _, t := range w.Tasks() {
			if t.Solution == nil {
				continue
			}
			ep, err := w.NewEpisode(t.ID)
			if err != nil {
				c.fail(t.ID, 0, "", "NewEpisode: %v", err)
				continue
			}
			g0 := ep.Grade()
			unchanged := slices.ContainsFunc(g0.Assertions, func(a AssertionResult) bool { return a.Kind == AssertUnchanged })
			if len(g0.Assertions) > 0 && g0.Reward >= 1 && !unchanged {
				c.fail(t.ID, 0, "", "the rubric already holds before any call (reward %v): assertions %s", g0.Reward, assertionList(g0.Assertions))
			}
			h0 := ep.StateHash()
			steps, err := Run(ep, t.Solution)
			failed, succeeded := false, false
			for i, s := range steps {
				want := t.Solution[i].Fails
				switch {
				case want != "" && s.Observation.OK:
					c.fail(t.ID, i+1, s.Tool, "solution call succeeded, but it is expected to fail with %q (args %s)", want, s.Args)
					failed = true
				case want != "" && s.Observation.Error.Message != want:
					c.fail(t.ID, i+1, s.Tool, "solution call failed with %v, but it is expected to fail with %q (args %s)", s.Observation.Err(), want, s.Args)
					failed = true
				case want == "" && !s.Observation.OK:
					c.fail(t.ID, i+1, s.Tool, "solution call failed: %v (args %s)", s.Observation.Err(), s.Args)
					failed = true
				case want == "":
					succeeded = true
				}
			}
			if err != nil {
				c.fail(t.ID, len(steps)+1, "", "%v", err)
				continue
			}
			g := GradeGolden(ep)
			if g.Reward != 1 {
				c.fail(t.ID, 0, "", "after the solution the reward is %v, want 1; failing assertions: %s", g.Reward, assertionList(g.Failed()))
			}
			if vs := ep.Violations(); len(vs) > 0 {
				c.fail(t.ID, 0, "", "after the solution invariants are violated: %s", violationList(vs))
			} else if len(g.Violations) > 0 {
				c.fail(t.ID, 0, "", "Grade reports violations that Violations does not: %s", violationList(g.Violations))
			}
			for _, v := range g.StepViolations {
				c.fail(t.ID, v.Step, v.Tool, "after this call the always-invariant %s is violated by %s %q: %s", v.Invariant, v.Entity, v.ID, v.Message)
			}
			if !failed && !unchanged && succeeded && ep.StateHash() == h0 {
				c.fail(t.ID, 0, "", "the solution succeeded but the state hash did not change: the hash does not cover the state")
			}
		}
	})
}

func assertionList(as []AssertionResult) string {
	if len(as) == 0 {
		return "(none)"
	}
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = fmt.Sprintf("%q", a.Text)
		if a.Detail != "" {
			parts[i] += " (" + a.Detail + ")"
		}
	}
	return strings.Join(parts, "; ")
}

func violationList(vs []Violation) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// CheckDeterminism runs every golden solution in one fresh episode and
// replays the recording in another: the start hashes, every observation and
// state hash, and the final grade and snapshot must be identical.
func CheckDeterminism(w World) []error {
	return runCheck(w, "determinism", func(c *checker, w World) {
		for _, t := range w.Tasks() {
			if t.Solution == nil {
				continue
			}
			e1, err1 := w.NewEpisode(t.ID)
			e2, err2 := w.NewEpisode(t.ID)
			if err1 != nil || err2 != nil {
				c.fail(t.ID, 0, "", "NewEpisode: %v", cmpErr(err1, err2))
				continue
			}
			if h1, h2 := e1.StateHash(), e2.StateHash(); h1 != h2 {
				c.fail(t.ID, 0, "", "two fresh episodes have different state hashes: %s and %s", h1, h2)
				continue
			}
			steps, err := Run(e1, t.Solution)
			if err != nil {
				c.fail(t.ID, 0, "", "%v", err)
				continue
			}
			if err := Replay(e2, steps); err != nil {
				if re, ok := err.(*ReplayError); ok {
					c.fail(t.ID, re.Step, re.Tool, "replaying the solution gives a different %s:\n  first run: %s\n  replay:    %s", re.What, re.Want, re.Got)
				} else {
					c.fail(t.ID, 0, "", "%v", err)
				}
				continue
			}
			g1, _ := marshalJSON(e1.Grade())
			g2, _ := marshalJSON(e2.Grade())
			if !bytes.Equal(g1, g2) {
				c.fail(t.ID, 0, "", "same calls, different grades:\n  %s\n  %s", g1, g2)
			}
			if !jsonEqual(e1.Snapshot(), e2.Snapshot()) {
				c.fail(t.ID, 0, "", "same calls and state hash, different snapshots")
			}
		}
	})
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// CheckIsolation checks that episodes do not share state: running a task's
// solution in one episode changes neither another episode of the same task
// (its state hash and snapshot) nor the start state of later episodes, nor
// the world seed.
func CheckIsolation(w World) []error {
	return runCheck(w, "isolation", func(c *checker, w World) {
		seed, err := w.NewEpisode("")
		if err != nil {
			c.fail("", 0, "", "NewEpisode(\"\"): %v", err)
			return
		}
		seedHash := seed.StateHash()
		for _, t := range w.Tasks() {
			if t.Solution == nil {
				continue
			}
			e1, err1 := w.NewEpisode(t.ID)
			e2, err2 := w.NewEpisode(t.ID)
			if err1 != nil || err2 != nil {
				c.fail(t.ID, 0, "", "NewEpisode: %v", cmpErr(err1, err2))
				continue
			}
			h2, s2 := e2.StateHash(), e2.Snapshot()
			if _, err := Run(e1, t.Solution); err != nil {
				c.fail(t.ID, 0, "", "%v", err)
				continue
			}
			if e1.StateHash() == h2 {
				continue // the solution changed nothing: CheckSolutions reports it
			}
			if h := e2.StateHash(); h != h2 {
				c.fail(t.ID, 0, "", "running the solution in one episode changed the state hash of another episode")
			} else if !jsonEqual(e2.Snapshot(), s2) {
				c.fail(t.ID, 0, "", "running the solution in one episode changed the snapshot of another episode")
			}
			e3, err := w.NewEpisode(t.ID)
			if err != nil {
				c.fail(t.ID, 0, "", "NewEpisode: %v", err)
				continue
			}
			if e3.StateHash() != h2 {
				c.fail(t.ID, 0, "", "running the solution changed the start state of later episodes (the seed is shared, not cloned)")
			}
			if !jsonEqual(e3.Snapshot(), s2) {
				c.fail(t.ID, 0, "", "running the solution changed the start snapshot of later episodes")
			}
		}
		if h := seed.StateHash(); h != seedHash {
			c.fail("", 0, "", "running solutions changed an episode of the world seed")
		}
		if fresh, err := w.NewEpisode(""); err == nil && fresh.StateHash() != seedHash {
			c.fail("", 0, "", "running solutions changed the world seed")
		}
	})
}

// CheckBadArguments calls every tool, in an episode of the world seed, with
// arguments an agent might get wrong — an unknown argument, JSON that is not
// an object, malformed or trailing JSON, {} when arguments are required, a
// value of the wrong JSON type or an invalid enum value or date for each
// parameter — and checks that each answers ok:false with code
// invalid_arguments (or not_found for {}), names the offending argument,
// never panics and leaves the state unchanged.
func CheckBadArguments(w World) []error {
	return runCheck(w, "bad-arguments", func(c *checker, w World) {
		ep, err := w.NewEpisode("")
		if err != nil {
			c.fail("", 0, "", "NewEpisode(\"\"): %v", err)
			return
		}
		h0 := ep.StateHash()
		try := func(tool string, args string, codes []string, mention string) {
			obs := ep.Call(tool, json.RawMessage(args))
			switch {
			case obs.OK:
				c.fail("", 0, tool, "args %s: want ok:false with code %s, got %s", args, strings.Join(codes, " or "), obsText(obs))
			case obs.Error == nil || !slices.Contains(codes, obs.Error.Code):
				c.fail("", 0, tool, "args %s: want code %s, got %s", args, strings.Join(codes, " or "), obsText(obs))
			case mention != "" && !strings.Contains(obs.Error.Message, mention):
				c.fail("", 0, tool, "args %s: the message does not name %s: %q", args, mention, obs.Error.Message)
			}
			if h := ep.StateHash(); h != h0 {
				c.fail("", 0, tool, "args %s: a failed call changed the state", args)
				h0 = h
			}
		}
		invalid := []string{CodeInvalidArguments}
		for _, t := range w.Tools() {
			try(t.Name, `{"no_such_argument_xyzzy":1}`, invalid, `"no_such_argument_xyzzy"`)
			for _, a := range []string{`[]`, `"text"`, `42`, `true`, `{"a":`, `{} {}`, `{"a":1,}`} {
				try(t.Name, a, invalid, "")
			}
			s, err := parseSchema(t.Parameters)
			if err != nil {
				continue // CheckTools reports it
			}
			if len(s.required()) > 0 {
				try(t.Name, `{}`, []string{CodeInvalidArguments, CodeNotFound}, "")
			}
			for _, p := range s.props {
				for _, v := range p.wrongValues() {
					args, _ := json.Marshal(map[string]json.RawMessage{p.name: json.RawMessage(v)})
					try(t.Name, string(args), invalid, fmt.Sprintf("%q", p.name))
				}
			}
		}
	})
}

// schemaInfo is what the checks need of a tool's parameter schema.
type schemaInfo struct {
	props        []propInfo // sorted by name
	requiredList []string
	closed       bool // additionalProperties: false
}

type propInfo struct {
	name     string
	types    []string // JSON schema types; "null" for nullable
	enum     bool
	format   string
	listed   bool // in "required"
	nullable bool
}

func (s *schemaInfo) required() []string {
	var r []string
	for _, p := range s.props {
		if p.listed && !p.nullable {
			r = append(r, p.name)
		}
	}
	return r
}

func parseSchema(raw json.RawMessage) (*schemaInfo, error) {
	var s struct {
		Type                 any                        `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties *bool                      `json:"additionalProperties"`
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, fmt.Errorf("missing")
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("not a JSON object schema: %v", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf(`want "type": "object", got %v`, s.Type)
	}
	info := &schemaInfo{requiredList: s.Required, closed: s.AdditionalProperties != nil && !*s.AdditionalProperties}
	for name, pr := range s.Properties {
		var p struct {
			Type   any    `json:"type"`
			Enum   []any  `json:"enum"`
			Format string `json:"format"`
		}
		if err := json.Unmarshal(pr, &p); err != nil {
			return nil, fmt.Errorf("property %q: %v", name, err)
		}
		pi := propInfo{name: name, enum: len(p.Enum) > 0, format: p.Format, listed: slices.Contains(s.Required, name)}
		switch t := p.Type.(type) {
		case string:
			pi.types = []string{t}
		case []any:
			for _, x := range t {
				if xs, ok := x.(string); ok {
					pi.types = append(pi.types, xs)
				}
			}
		}
		pi.nullable = slices.Contains(pi.types, "null") || slices.Contains(p.Enum, nil)
		info.props = append(info.props, pi)
	}
	slices.SortFunc(info.props, func(a, b propInfo) int { return strings.Compare(a.name, b.name) })
	return info, nil
}

// wrongValues are JSON values the property must reject as invalid_arguments.
func (p propInfo) wrongValues() []string {
	var t string
	for _, x := range p.types {
		if x != "null" {
			t = x
			break
		}
	}
	switch t {
	case "string":
		vs := []string{`12345`, `{"a":1}`}
		if p.enum {
			vs = append(vs, `"__not_a_valid_value__"`)
		}
		switch p.format {
		case "date", "date-time":
			vs = append(vs, `"not-a-date"`)
		}
		return vs
	case "integer":
		return []string{`"abc"`, `1.5`, `true`}
	case "number":
		return []string{`"abc"`, `true`}
	case "boolean":
		return []string{`"yes"`, `1`}
	case "array":
		return []string{`"abc"`, `{"a":1}`}
	case "object":
		return []string{`"abc"`, `[1]`}
	}
	return nil
}
