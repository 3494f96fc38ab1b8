package runtime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A Step is one tool call of a trajectory with what came of it: the
// observation and the state hash after the call. A trajectory is stored as
// JSON Lines, one step per line:
//
//	{"tool":"mark_paid","args":{"invoice":"inv1"},"observation":{"ok":true,"data":{…}},"state_hash":"3f…"}
type Step struct {
	Tool        string          `json:"tool"`                 // the tool called
	Args        json.RawMessage `json:"args"`                 // its JSON arguments, as sent
	Observation Observation     `json:"observation"`          // what the agent saw
	StateHash   string          `json:"state_hash,omitempty"` // "" when not recorded: Replay does not compare it
	// Given marks a step the agent did not take: one of the golden
	// solution's first steps that an episode started after (a prefix
	// start, the rollback curriculum's). Replay runs it as any other.
	Given bool `json:"given,omitempty"`
}

// WriteTrajectory writes steps as JSON Lines.
func WriteTrajectory(w io.Writer, steps []Step) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i := range steps {
		s := steps[i]
		if len(bytes.TrimSpace(s.Args)) == 0 {
			s.Args = json.RawMessage("{}")
		}
		if err := enc.Encode(s); err != nil {
			return fmt.Errorf("trajectory step %d: %w", i+1, err)
		}
	}
	return bw.Flush()
}

// maxLine bounds one trajectory line.
const maxLine = 64 << 20

// ReadTrajectory reads JSON Lines written by WriteTrajectory. Blank lines
// are skipped; errors name the line: `trajectory line 3: …`.
func ReadTrajectory(r io.Reader) ([]Step, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var steps []Step
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		var s Step
		if err := d.Decode(&s); err != nil {
			return nil, fmt.Errorf("trajectory line %d: %s", line, strings.TrimPrefix(err.Error(), "json: "))
		}
		if d.More() {
			return nil, fmt.Errorf("trajectory line %d: more than one JSON value on the line", line)
		}
		if s.Tool == "" {
			return nil, fmt.Errorf("trajectory line %d: step without a tool", line)
		}
		if !s.Observation.OK && s.Observation.Error == nil {
			return nil, fmt.Errorf("trajectory line %d: failed observation without an error", line)
		}
		steps = append(steps, s)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("trajectory line %d: line longer than %d bytes", line+1, maxLine)
		}
		return nil, fmt.Errorf("trajectory line %d: %w", line+1, err)
	}
	return steps, nil
}

// A ReplayError reports the first step of a replay whose outcome differs
// from the recording.
type ReplayError struct {
	Step int    // 1-based
	Tool string // the step's tool
	What string // "observation" or "state hash"
	Want string // as recorded
	Got  string // as replayed
}

// Error reads "replay step N (tool): observation differs:" followed by the
// recorded and replayed values.
func (e *ReplayError) Error() string {
	return fmt.Sprintf("replay step %d (%s): %s differs:\n  recorded: %s\n  replayed: %s", e.Step, e.Tool, e.What, e.Want, e.Got)
}

// Replay re-executes the recorded steps in ep (normally a fresh episode of
// the same task) and returns a *ReplayError for the first step whose
// observation (compared as JSON values) or state hash (when recorded)
// differs, or nil.
func Replay(ep Episode, steps []Step) error {
	for i, s := range steps {
		obs := ep.Call(s.Tool, s.Args)
		if !obs.Equal(s.Observation) {
			return &ReplayError{Step: i + 1, Tool: s.Tool, What: "observation",
				Want: obsText(s.Observation), Got: obsText(obs)}
		}
		if s.StateHash != "" {
			if h := ep.StateHash(); h != s.StateHash {
				return &ReplayError{Step: i + 1, Tool: s.Tool, What: "state hash", Want: s.StateHash, Got: h}
			}
		}
	}
	return nil
}

func obsText(o Observation) string {
	b, err := o.MarshalJSON()
	if err != nil {
		return fmt.Sprintf("<unencodable observation: %v>", err)
	}
	const limit = 2000
	if len(b) > limit {
		return string(b[:limit]) + "…"
	}
	return string(b)
}

// Run executes calls in ep, resolving bound IDs (see [Call]), and records
// every step with its observation and the state hash after it. Failed calls
// are recorded, not errors. The error reports a call whose arguments cannot
// be resolved (an unknown bound name, a bound call that failed or returned
// no id); the steps before it are returned with it.
func Run(ep Episode, calls []Call) ([]Step, error) {
	bound := map[string]string{}
	steps := make([]Step, 0, len(calls))
	for i, c := range calls {
		args, err := ResolveArgs(c, bound)
		if err != nil {
			return steps, fmt.Errorf("call %d (%s): %w", i+1, c.Tool, err)
		}
		obs := ep.Call(c.Tool, args)
		steps = append(steps, Step{Tool: c.Tool, Args: args, Observation: obs, StateHash: ep.StateHash()})
		if c.Bind != "" {
			id, ok := resultID(obs, c.BindKey)
			if !ok {
				if !obs.OK {
					continue // a later use reports it
				}
				key := c.BindKey
				if key == "" {
					key = "id"
				}
				return steps, fmt.Errorf("call %d (%s): binds %q but its result has no string %q: %s", i+1, c.Tool, c.Bind, key, obsText(obs))
			}
			bound[c.Bind] = id
		}
	}
	return steps, nil
}

// resultID is the string member key ("id" when empty) of a successful
// observation's data.
func resultID(obs Observation, key string) (string, bool) {
	if !obs.OK {
		return "", false
	}
	if key == "" {
		key = "id"
	}
	var r map[string]json.RawMessage
	var id string
	if json.Unmarshal(obs.Data, &r) != nil || json.Unmarshal(r[key], &id) != nil || r[key] == nil {
		return "", false
	}
	return id, true
}

// ResolveArgs returns the call's arguments with its Uses applied: each
// argument named in Uses is set (replaced in place, or appended) to the ID
// bound to its name.
func ResolveArgs(c Call, bound map[string]string) (json.RawMessage, error) {
	args := trimJSONSpace(c.Args)
	if len(c.Uses) == 0 {
		if len(args) == 0 {
			return json.RawMessage("{}"), nil
		}
		return c.Args, nil
	}
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if !json.Valid(args) || args[0] != '{' {
		return nil, fmt.Errorf("arguments are not a JSON object: %s", args)
	}
	vals := make(map[string][]byte, len(c.Uses))
	for _, u := range c.Uses {
		id, ok := bound[u.Name]
		if !ok {
			return nil, fmt.Errorf("argument %q uses %q, which no earlier successful call bound", u.Arg, u.Name)
		}
		v, _ := json.Marshal(id)
		vals[u.Arg] = v
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	write := func(key, val []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(key)
		b.WriteByte(':')
		b.Write(val)
	}
	done := map[string]bool{}
	eachMember(args, func(key, val []byte) {
		k := unquoteKey(key)
		if v, ok := vals[k]; ok {
			if !done[k] {
				write(key, v)
				done[k] = true
			}
			return
		}
		write(key, val)
	})
	for _, u := range c.Uses { // in Uses order: deterministic
		if !done[u.Arg] {
			k, _ := json.Marshal(u.Arg)
			write(k, vals[u.Arg])
			done[u.Arg] = true
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
