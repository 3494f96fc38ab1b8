package eval

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// SummaryInfo is the run's settings, as the summary repeats them.
type SummaryInfo struct {
	Model     string            `json:"model"`
	User      string            `json:"user"`
	UserModel string            `json:"user_model,omitempty"`
	Prefix    int               `json:"prefix"`
	Trials    int               `json:"trials"`
	MaxTurns  int               `json:"max_turns"`
	Prompts   map[string]string `json:"prompts"`
}

// Summary is DIR/summary.json. Pass^k and rewards count the run's own
// episodes (those that started at its --prefix), not the curriculum's.
type Summary struct {
	SummaryInfo
	Group
	ByWorld      []Group        `json:"by_world"`
	ByOrigin     []Group        `json:"by_origin"`
	ByDifficulty []Group        `json:"by_difficulty"` // a task counts under each of its difficulty tags
	Ends         map[string]int `json:"ends"`
	Tokens       Tokens         `json:"tokens"`
	Seconds      float64        `json:"seconds"` // the episodes' wall time, summed
	ToolCalls    int            `json:"tool_calls"`
	ToolErrors   int            `json:"tool_errors"`
	Failures     Failures       `json:"failures"`
	Curriculum   []Curriculum   `json:"curriculum,omitempty"`
	PerTask      []TaskStats    `json:"tasks"`
}

// Group is pass^k and rewards over a set of tasks.
type Group struct {
	Name     string `json:"name,omitempty"`
	Tasks    int    `json:"task_count"`
	Episodes int    `json:"episodes"`
	// PassHatK is tau2-bench's pass^k for k = 1…K: the chance that k
	// trials of a task drawn from the n run all succeed, C(c,k)/C(n,k) for
	// a task with c successes in n trials, averaged over the tasks with at
	// least k trials. As JSON it is an object {"1": …, "2": …}.
	PassHatK   PassK   `json:"pass_hat_k"`
	MeanReward float64 `json:"mean_reward"`
	SolvedRate float64 `json:"solved_rate"` // solved episodes / episodes
}

// PassK holds pass^1, pass^2, … in order.
type PassK []float64

// MarshalJSON writes {"1": pass^1, "2": pass^2, …}, keys in order.
func (p PassK) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"%d":%s`, i+1, strconv.FormatFloat(v, 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *PassK) UnmarshalJSON(data []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	out := make(PassK, len(m))
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 1 || i > len(m) {
			return fmt.Errorf("pass_hat_k: key %q", k)
		}
		out[i-1] = v
	}
	*p = out
	return nil
}

// Failures is the failure report: the raw material for regenerating
// worlds and tasks from where agents fail.
type Failures struct {
	// Assertions are the rubric assertions that failed, most often first.
	Assertions []AssertionFailure `json:"assertions"`
	// ToolErrors are the agent's failed calls by world, tool and code,
	// most first; Codes sums them by code.
	ToolErrors []WorldToolError `json:"tool_errors"`
	Codes      map[string]int   `json:"error_codes"`
	// Violations are the hidden invariants broken, by world, task and
	// invariant.
	Violations []InvariantFailure `json:"violations"`
	// WastedTurns are turns whose every call failed or repeated an
	// earlier one exactly, of Turns; ByTask the tasks that wasted most.
	WastedTurns int         `json:"wasted_turns"`
	Turns       int         `json:"turns"`
	ByTask      []TaskWaste `json:"wasted_by_task"`
}

// AssertionFailure is an assertion of a task and how many episodes failed it.
type AssertionFailure struct {
	World    string `json:"world"`
	Task     string `json:"task"`
	Kind     string `json:"kind"`
	Text     string `json:"text"`
	Failed   int    `json:"failed"`
	Episodes int    `json:"episodes"`
}

// WorldToolError counts failed calls of a tool by code.
type WorldToolError struct {
	World string `json:"world"`
	ToolErrorCount
}

// InvariantFailure counts episodes that broke an invariant.
type InvariantFailure struct {
	World     string `json:"world"`
	Task      string `json:"task"`
	Invariant string `json:"invariant"`
	Episodes  int    `json:"episodes"`
}

// TaskWaste is a task's wasted turns.
type TaskWaste struct {
	World  string `json:"world"`
	Task   string `json:"task"`
	Wasted int    `json:"wasted"`
	Turns  int    `json:"turns"`
}

// Curriculum is the rollback curriculum of a task every trial failed.
type Curriculum struct {
	World       string `json:"world"`
	Task        string `json:"task"`
	GoldenSteps int    `json:"golden_steps"`
	// SolvedFrom is the shortest prefix from which a trial solved the
	// task; nil when none did.
	SolvedFrom *int          `json:"solved_from"`
	Tried      []PrefixTrial `json:"tried"`
}

// PrefixTrial is how a task went from one prefix.
type PrefixTrial struct {
	Prefix int `json:"prefix"`
	Trials int `json:"trials"`
	Solved int `json:"solved"`
}

// TaskStats is a task's line of the summary.
type TaskStats struct {
	World       string         `json:"world"`
	Task        string         `json:"task"`
	Origin      string         `json:"origin"`
	Difficulty  []string       `json:"difficulty"`
	GoldenSteps int            `json:"golden_steps"`
	Trials      int            `json:"trials"`
	Solved      int            `json:"solved"`
	MeanReward  float64        `json:"mean_reward"`
	MeanTurns   float64        `json:"mean_turns"`
	Ends        map[string]int `json:"ends"`
}

// Summarize summarises results (in any order; the summary is the same).
func Summarize(results []Result, info SummaryInfo) *Summary {
	results = slices.Clone(results)
	slices.SortFunc(results, func(a, b Result) int {
		return cmp.Or(strings.Compare(a.World, b.World), strings.Compare(a.Task, b.Task), cmp.Compare(a.Prefix, b.Prefix), cmp.Compare(a.Trial, b.Trial))
	})
	s := &Summary{SummaryInfo: info, Ends: map[string]int{}, Failures: Failures{Codes: map[string]int{}}}
	var main []Result
	for _, r := range results {
		if !r.Curriculum && r.Prefix == info.Prefix {
			main = append(main, r)
		}
	}
	s.Group = group("", main, info.Trials)
	byKey := func(keys func(Result) []string) []Group {
		parts := map[string][]Result{}
		for _, r := range main {
			for _, k := range keys(r) {
				parts[k] = append(parts[k], r)
			}
		}
		var out []Group
		for _, k := range slices.Sorted(maps.Keys(parts)) {
			out = append(out, group(k, parts[k], info.Trials))
		}
		return nonNil(out)
	}
	s.ByWorld = byKey(func(r Result) []string { return []string{r.World} })
	s.ByOrigin = byKey(func(r Result) []string { return []string{r.Origin} })
	s.ByDifficulty = byKey(func(r Result) []string {
		if len(r.Difficulty) == 0 {
			return []string{"(none)"}
		}
		return r.Difficulty
	})

	type tk struct{ world, task string }
	assertions := map[tk]map[string]*AssertionFailure{}
	var assertionOrder []*AssertionFailure
	toolErrs := map[[3]string]int{}
	inv := map[[3]string]int{}
	waste := map[tk]*TaskWaste{}
	var wasteOrder []*TaskWaste
	stats := map[tk]*TaskStats{}
	var statsOrder []*TaskStats
	for _, r := range main {
		key := tk{r.World, r.Task}
		s.Ends[r.End]++
		s.Tokens.Agent.Prompt += r.Tokens.Agent.Prompt
		s.Tokens.Agent.Completion += r.Tokens.Agent.Completion
		s.Tokens.User.Prompt += r.Tokens.User.Prompt
		s.Tokens.User.Completion += r.Tokens.User.Completion
		s.Seconds += r.Seconds
		s.ToolCalls += r.ToolCalls
		s.ToolErrors += r.ToolErrors
		st := stats[key]
		if st == nil {
			st = &TaskStats{World: r.World, Task: r.Task, Origin: r.Origin, Difficulty: nonNil(r.Difficulty), GoldenSteps: r.GoldenSteps, Ends: map[string]int{}}
			stats[key] = st
			statsOrder = append(statsOrder, st)
		}
		st.Trials++
		if r.Solved {
			st.Solved++
		}
		st.MeanReward += r.Reward
		st.MeanTurns += float64(r.Turns)
		st.Ends[r.End]++
		if assertions[key] == nil {
			assertions[key] = map[string]*AssertionFailure{}
		}
		for _, a := range r.Failed {
			af := assertions[key][a.Text]
			if af == nil {
				af = &AssertionFailure{World: r.World, Task: r.Task, Kind: a.Kind, Text: a.Text}
				assertions[key][a.Text] = af
				assertionOrder = append(assertionOrder, af)
			}
			af.Failed++
		}
		for _, e := range r.ErrorsBy {
			toolErrs[[3]string{r.World, e.Tool, e.Code}] += e.Count
			s.Failures.Codes[e.Code] += e.Count
		}
		seenInv := map[string]bool{}
		for _, v := range r.Violations {
			name, _, _ := strings.Cut(v, ":")
			if !seenInv[name] {
				seenInv[name] = true
				inv[[3]string{r.World, r.Task, name}]++
			}
		}
		s.Failures.WastedTurns += r.WastedTurns
		s.Failures.Turns += r.Turns
		w := waste[key]
		if w == nil {
			w = &TaskWaste{World: r.World, Task: r.Task}
			waste[key] = w
			wasteOrder = append(wasteOrder, w)
		}
		w.Wasted += r.WastedTurns
		w.Turns += r.Turns
	}
	for _, st := range statsOrder {
		st.MeanReward /= float64(st.Trials)
		st.MeanTurns /= float64(st.Trials)
		s.PerTask = append(s.PerTask, *st)
	}
	s.PerTask = nonNil(s.PerTask)
	for _, af := range assertionOrder {
		af.Episodes = stats[tk{af.World, af.Task}].Trials
		s.Failures.Assertions = append(s.Failures.Assertions, *af)
	}
	slices.SortStableFunc(s.Failures.Assertions, func(a, b AssertionFailure) int { return cmp.Compare(b.Failed, a.Failed) })
	s.Failures.Assertions = nonNil(s.Failures.Assertions)
	for k, n := range toolErrs {
		s.Failures.ToolErrors = append(s.Failures.ToolErrors, WorldToolError{World: k[0], ToolErrorCount: ToolErrorCount{Tool: k[1], Code: k[2], Count: n}})
	}
	slices.SortFunc(s.Failures.ToolErrors, func(a, b WorldToolError) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.World, b.World), strings.Compare(a.Tool, b.Tool), strings.Compare(a.Code, b.Code))
	})
	s.Failures.ToolErrors = nonNil(s.Failures.ToolErrors)
	for k, n := range inv {
		s.Failures.Violations = append(s.Failures.Violations, InvariantFailure{World: k[0], Task: k[1], Invariant: k[2], Episodes: n})
	}
	slices.SortFunc(s.Failures.Violations, func(a, b InvariantFailure) int {
		return cmp.Or(cmp.Compare(b.Episodes, a.Episodes), strings.Compare(a.World, b.World), strings.Compare(a.Task, b.Task), strings.Compare(a.Invariant, b.Invariant))
	})
	s.Failures.Violations = nonNil(s.Failures.Violations)
	for _, w := range wasteOrder {
		if w.Wasted > 0 {
			s.Failures.ByTask = append(s.Failures.ByTask, *w)
		}
	}
	slices.SortStableFunc(s.Failures.ByTask, func(a, b TaskWaste) int { return cmp.Compare(b.Wasted, a.Wasted) })
	s.Failures.ByTask = nonNil(s.Failures.ByTask)

	// The curriculum of the tasks every trial failed.
	for _, st := range s.PerTask {
		if st.Solved > 0 {
			continue
		}
		c := Curriculum{World: st.World, Task: st.Task, GoldenSteps: st.GoldenSteps}
		for _, r := range results {
			if !r.Curriculum || r.World != st.World || r.Task != st.Task {
				continue
			}
			if n := len(c.Tried); n == 0 || c.Tried[n-1].Prefix != r.Prefix {
				c.Tried = append(c.Tried, PrefixTrial{Prefix: r.Prefix})
			}
			p := &c.Tried[len(c.Tried)-1]
			p.Trials++
			if r.Solved {
				p.Solved++
				if c.SolvedFrom == nil || r.Prefix < *c.SolvedFrom {
					k := r.Prefix
					c.SolvedFrom = &k
				}
			}
		}
		if len(c.Tried) > 0 {
			s.Curriculum = append(s.Curriculum, c)
		}
	}
	return s
}

// group computes pass^k and rewards over results.
func group(name string, results []Result, trials int) Group {
	g := Group{Name: name, Episodes: len(results)}
	type count struct{ n, c int }
	per := map[string]*count{}
	var order []string
	reward, solved := 0.0, 0
	for _, r := range results {
		k := r.World + "\x00" + r.Task
		if per[k] == nil {
			per[k] = &count{}
			order = append(order, k)
		}
		per[k].n++
		if r.Solved {
			per[k].c++
			solved++
		}
		reward += r.Reward
	}
	g.Tasks = len(order)
	if len(results) > 0 {
		g.MeanReward = reward / float64(len(results))
		g.SolvedRate = float64(solved) / float64(len(results))
	}
	maxN := trials
	for _, c := range per {
		maxN = max(maxN, c.n)
	}
	for k := 1; k <= maxN; k++ {
		sum, tasks := 0.0, 0
		for _, key := range order {
			c := per[key]
			if c.n >= k {
				sum += PassHat(c.n, c.c, k)
				tasks++
			}
		}
		if tasks == 0 {
			break
		}
		g.PassHatK = append(g.PassHatK, sum/float64(tasks))
	}
	g.PassHatK = nonNil(g.PassHatK)
	return g
}

// PassHat is C(c,k)/C(n,k): the chance that k of n trials, c of which
// succeeded, drawn without replacement, all succeeded (tau2-bench's
// unbiased estimator of pass^k).
func PassHat(n, c, k int) float64 {
	if k > n || k < 0 || c < 0 || c > n {
		return 0
	}
	p := 1.0
	for i := range k {
		p *= float64(c-i) / float64(n-i)
	}
	return max(p, 0)
}
