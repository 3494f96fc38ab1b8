package serve

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// episode is one open episode: a world state and the calls made in it.
// Its mutex serialises everything done to it.
type episode struct {
	id    string
	world *world
	task  string

	mu       sync.Mutex
	ep       runtime.Episode
	steps    []runtime.Step
	closed   bool
	lastUsed time.Time
	mcp      any      // the MCP server of the per-episode endpoint, made on first use
	j        *journal // where its calls are journaled; nil when not durable
}

// call runs one tool call and records it. A panic that escapes the world
// (its registry recovers the tools' own) is turned into an internal error
// observation; the episode stays usable.
func (e *episode) call(tool string, args json.RawMessage, now time.Time) (obs runtime.Observation, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return runtime.Observation{}, errClosed(e.id)
	}
	e.lastUsed = now
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				obs = runtime.ErrorObservation(runtime.Internal("tool %s failed: %v", tool, r))
			}
		}()
		obs = e.ep.Call(tool, args)
	}()
	e.steps = append(e.steps, runtime.Step{Tool: tool, Args: append(json.RawMessage(nil), args...), Observation: obs})
	// Journaled before it is answered: an answered call survives a crash.
	if err := e.journalCall(tool, args, obs); err != nil {
		return obs, &apiError{Status: 500, Code: CodeInternal, Message: "the call ran but could not be journaled: " + err.Error()}
	}
	return obs, nil
}

// state is the episode's state as JSON and its hash.
func (e *episode) state(now time.Time) (json.RawMessage, string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, "", errClosed(e.id)
	}
	e.lastUsed = now
	return e.ep.Snapshot(), e.ep.StateHash(), nil
}

// grade grades the current state with the agent's final message, or
// without one when answer is nil (see answer.go).
func (e *episode) grade(now time.Time, answer *string) (runtime.Grade, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return runtime.Grade{}, errClosed(e.id)
	}
	e.lastUsed = now
	return eval.Grade(e.ep, answer), nil
}

// trajectory is a copy of the calls made so far.
func (e *episode) trajectory() []runtime.Step {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]runtime.Step(nil), e.steps...)
}

// stepCount is how many calls were made.
func (e *episode) stepCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.steps)
}

// close marks the episode closed; it reports whether it was open.
func (e *episode) close() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	was := !e.closed
	e.closed = true
	return was
}

// idleSince reports whether the episode has been unused since before t
// (an episode busy with a call is not idle).
func (e *episode) idleSince(t time.Time) bool {
	if !e.mu.TryLock() {
		return false
	}
	defer e.mu.Unlock()
	return !e.closed && e.lastUsed.Before(t)
}
