// Package rollback starts episodes from a prefix of their task's golden
// solution: the episode begins after the solution's first k calls, which
// are in its trajectory as given steps (runtime.Step.Given), and its state
// is the golden trajectory's after step k, hash for hash. Grading is
// unchanged: the rubric grades the final state, whoever made it.
//
// This is the start of AgentOmnia's rollback curriculum (a task that every
// rollout fails is tried again from growing prefixes of its golden
// trajectory) and of any "start from step k" a trainer wants. The server's
// episode creation (JSON API, OpenEnv reset, MCP ?prefix=, stdio --prefix)
// and the eval command use it.
package rollback

import (
	"fmt"

	"github.com/worldc/worldc/runtime"
)

// A RangeError is a prefix that the task's golden solution does not have.
type RangeError struct {
	Task   string
	Prefix int
	Steps  int // the length of the task's golden solution
}

func (e *RangeError) Error() string {
	if e.Task == "" {
		return fmt.Sprintf("prefix %d: an episode of the world seed has no golden solution (prefix must be 0)", e.Prefix)
	}
	if e.Steps == 0 {
		return fmt.Sprintf("prefix %d: task %s has no golden solution (prefix must be 0)", e.Prefix, e.Task)
	}
	return fmt.Sprintf("prefix %d: task %s has a golden solution of %d steps (prefix must be 0 to %d)", e.Prefix, e.Task, e.Steps, e.Steps)
}

// Check reports a *RangeError when prefix is not between 0 and the length
// of t's golden solution.
func Check(t runtime.TaskInfo, prefix int) error {
	if prefix < 0 || prefix > len(t.Solution) {
		return &RangeError{Task: t.ID, Prefix: prefix, Steps: len(t.Solution)}
	}
	return nil
}

// Start opens an episode of task t of w after the first prefix calls of
// its golden solution, and returns it with those calls' steps, each marked
// Given and carrying its observation and the state hash after it. prefix 0
// is a fresh episode with no steps. t.ID "" (the world seed) takes prefix
// 0 only.
func Start(w runtime.World, t runtime.TaskInfo, prefix int) (runtime.Episode, []runtime.Step, error) {
	if err := Check(t, prefix); err != nil {
		return nil, nil, err
	}
	ep, err := w.NewEpisode(t.ID)
	if err != nil {
		return nil, nil, err
	}
	if prefix == 0 {
		return ep, nil, nil
	}
	steps, err := runtime.Run(ep, t.Solution[:prefix])
	if err != nil {
		return nil, nil, fmt.Errorf("task %s: the golden solution's first %d steps: %w", t.ID, prefix, err)
	}
	for i := range steps {
		steps[i].Given = true
	}
	return ep, steps, nil
}

// Task finds a task of w by id; "" is the world seed's (no solution).
func Task(w runtime.World, id string) (runtime.TaskInfo, error) {
	if id == "" {
		return runtime.TaskInfo{}, nil
	}
	for _, t := range w.Tasks() {
		if t.ID == id {
			return t, nil
		}
	}
	return runtime.TaskInfo{}, fmt.Errorf("world %s has no task %q", w.Info().Name, id)
}
