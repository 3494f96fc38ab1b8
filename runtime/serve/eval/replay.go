package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/worldc/worldc/runtime"
)

// ReadTrajectory reads a trajectory file of an eval run.
func ReadTrajectory(path string) ([]Line, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		var l Line
		if err := d.Decode(&l); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, n, err)
		}
		if l.Type == "step" && l.Observation == nil {
			return nil, fmt.Errorf("%s:%d: a step without its observation", path, n)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

// Steps are the tool calls of a trajectory as runtime steps, given ones
// first; the arguments of a call whose arguments were not JSON are its
// text, as the model sent it.
func Steps(lines []Line) []runtime.Step {
	var steps []runtime.Step
	for _, l := range lines {
		if l.Type != "step" {
			continue
		}
		args := l.Args
		if l.ArgsText != nil {
			args = json.RawMessage(*l.ArgsText)
		}
		steps = append(steps, runtime.Step{Tool: l.Tool, Args: args, Observation: *l.Observation, StateHash: l.StateHash, Given: l.Given})
	}
	return steps
}

// Replay replays every trajectory of the eval run in dir in a fresh
// episode of its task, in the worlds given: each step's observation and
// state hash, the final state hash and the reward must be as recorded. It
// returns every problem and the number of trajectories replayed.
func Replay(worlds []runtime.World, dir string) ([]string, int, error) {
	results, err := ReadResults(dir)
	if err != nil {
		return nil, 0, err
	}
	byName := map[string]runtime.World{}
	for _, w := range worlds {
		byName[w.Info().Name] = w
	}
	var problems []string
	n := 0
	for _, r := range results {
		where := fmt.Sprintf("%s (world %s task %s trial %d)", r.Trajectory, r.World, r.Task, r.Trial)
		w, ok := byName[r.World]
		if !ok {
			problems = append(problems, where+": the world is not in this binary")
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(r.Trajectory)) {
			problems = append(problems, where+": the trajectory's path is not inside the directory")
			continue
		}
		lines, err := ReadTrajectory(filepath.Join(dir, filepath.FromSlash(r.Trajectory)))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		n++
		ep, err := w.NewEpisode(r.Task)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		if err := runtime.Replay(ep, Steps(lines)); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		if h := ep.StateHash(); h != r.FinalStateHash {
			problems = append(problems, fmt.Sprintf("%s: final state hash %s, recorded %s", where, h, r.FinalStateHash))
		}
		if g := Grade(ep, endAnswer(lines)); g.Reward != r.Reward || g.Solved() != r.Solved {
			problems = append(problems, fmt.Sprintf("%s: reward %v (solved %v), recorded %v (solved %v)", where, g.Reward, g.Solved(), r.Reward, r.Solved))
		}
	}
	return problems, n, nil
}

// endAnswer is the answer a trajectory's end line says its episode was
// graded with; nil when none.
func endAnswer(lines []Line) *string {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].Type == "end" {
			return lines[i].Answer
		}
	}
	return nil
}
