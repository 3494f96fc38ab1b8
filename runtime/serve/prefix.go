package serve

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/rollback"
)

// Prefix starts: an episode may start after the first k steps of its
// task's golden solution (package rollback), on every protocol:
// `{"task", "prefix": k}` to POST /v1/worlds/{w}/episodes, `prefix` in the
// OpenEnv reset data, `?prefix=k` on the MCP session URL and `--prefix` on
// stdio. Those steps are the first of the episode's trajectory, marked
// given; the state hash is the golden trajectory's after step k; grading is
// unchanged.

// CodeInvalidPrefix (400): the prefix is not between 0 and the length of
// the task's golden solution.
const CodeInvalidPrefix = "invalid_prefix"

// WSInvalidPrefix is CodeInvalidPrefix on the OpenEnv WebSocket.
const WSInvalidPrefix = "INVALID_PREFIX"

func invalidPrefix(err error) error {
	return &apiError{Status: http.StatusBadRequest, Code: CodeInvalidPrefix, Message: err.Error()}
}

// parsePrefix reads a prefix from a query parameter ("" is 0).
func parsePrefix(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 0 {
		return 0, invalidPrefix(fmt.Errorf("prefix %q is not a number of steps", s))
	}
	return k, nil
}

// given is the episode's given steps: those of its prefix, first in its
// trajectory.
func (e *episode) given() []runtime.Step {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for n < len(e.steps) && e.steps[n].Given {
		n++
	}
	if n == 0 {
		return nil
	}
	return append([]runtime.Step(nil), e.steps[:n]...)
}

// checkPrefixQuery checks the ?prefix= of an MCP session URL.
func checkPrefixQuery(wd *world, task, q string) error {
	k, err := parsePrefix(q)
	if err != nil {
		return err
	}
	if err := rollback.Check(wd.tasks[task], k); err != nil {
		return invalidPrefix(err)
	}
	return nil
}
