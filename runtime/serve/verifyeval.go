package serve

import (
	"fmt"
	"io"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// verifyEvalCmd replays the trajectories of an eval run (verify --eval
// DIR): every step's observation and state hash, the final hash and the
// reward, as recorded.
func verifyEvalCmd(worlds []runtime.World, dir string, out io.Writer) error {
	problems, n, err := eval.Replay(worlds, dir)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(out, "FAIL", p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems in %s", len(problems), dir)
	}
	fmt.Fprintf(out, "ok  %d eval trajectories replayed in %s\n", n, dir)
	return nil
}
