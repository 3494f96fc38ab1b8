package serve

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// verifyCmd checks a bundle: the binary and every file against the
// manifest, each world's seed state hash, and every golden trajectory
// replayed in this binary (observations and state hashes after each step,
// the final hash and a full reward). It reports every problem.
func verifyCmd(worlds []runtime.World, dir string, out io.Writer) error {
	if dir == "" {
		var err error
		if dir, err = defaultBundleDir(); err != nil {
			return err
		}
	}
	problems, checked, err := Verify(worlds, dir)
	if err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintln(out, "FAIL", p)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%d problems in %s", len(problems), dir)
	}
	fmt.Fprintf(out, "ok  %d worlds, %d files, %d golden trajectories verified in %s\n", len(worlds), checked.files, checked.trajectories, dir)
	return nil
}

type verified struct{ files, trajectories int }

// Verify checks the bundle in dir against worlds (the worlds linked into the
// running binary) and returns every problem found.
func Verify(worlds []runtime.World, dir string) ([]string, verified, error) {
	var problems []string
	var n verified
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return nil, n, fmt.Errorf("reading the manifest: %w", err)
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, n, fmt.Errorf("manifest.json: %w", err)
	}
	if m.Binary.Path != "" {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			return nil, n, err
		}
		if sum, err := FileSHA256(exe); err != nil {
			problems = append(problems, fmt.Sprintf("binary: %v", err))
		} else if sum != m.Binary.SHA256 {
			problems = append(problems, fmt.Sprintf("binary %s: sha256 %s, the manifest says %s", exe, sum, m.Binary.SHA256))
		}
	}
	for _, f := range m.Files {
		if !cleanRel(f.Path) {
			problems = append(problems, fmt.Sprintf("manifest file path %q is not inside the bundle", f.Path))
			continue
		}
		sum, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(f.Path)))
		n.files++
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s: %v", f.Path, err))
		case sum != f.SHA256:
			problems = append(problems, fmt.Sprintf("%s: sha256 %s, the manifest says %s", f.Path, sum, f.SHA256))
		}
	}
	byName := map[string]ManifestWorld{}
	for _, mw := range m.Worlds {
		byName[mw.Name] = mw
	}
	for _, w := range worlds {
		info := w.Info()
		mw, ok := byName[info.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("world %s: not in the manifest", info.Name))
			continue
		}
		delete(byName, info.Name)
		seed, err := w.NewEpisode("")
		if err != nil {
			return nil, n, err
		}
		if h := seed.StateHash(); h != mw.SeedStateHash {
			problems = append(problems, fmt.Sprintf("world %s: seed state hash %s, the manifest says %s", info.Name, h, mw.SeedStateHash))
		}
		for _, f := range mw.Files {
			if !cleanRel(f.Path) {
				problems = append(problems, fmt.Sprintf("world %s: manifest file path %q is not inside the bundle", info.Name, f.Path))
				continue
			}
			sum, err := FileSHA256(filepath.Join(dir, filepath.FromSlash(f.Path)))
			n.files++
			switch {
			case err != nil:
				problems = append(problems, fmt.Sprintf("%s: %v", f.Path, err))
			case sum != f.SHA256:
				problems = append(problems, fmt.Sprintf("%s: sha256 %s, the manifest says %s", f.Path, sum, f.SHA256))
			}
		}
		p, count, err := replaySolutions(w, filepath.Join(dir, "worlds", info.Name, "solutions.jsonl"))
		if err != nil {
			problems = append(problems, fmt.Sprintf("world %s: %v", info.Name, err))
		}
		problems = append(problems, p...)
		n.trajectories += count
		if count != mw.Solutions {
			problems = append(problems, fmt.Sprintf("world %s: %d golden trajectories, the manifest says %d", info.Name, count, mw.Solutions))
		}
	}
	for name := range byName {
		problems = append(problems, fmt.Sprintf("world %s: in the manifest but not in this binary", name))
	}
	return problems, n, nil
}

// replaySolutions replays each trajectory of a solutions.jsonl in a fresh
// episode of its task.
func replaySolutions(w runtime.World, file string) ([]string, int, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var problems []string
	count := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for line := 1; sc.Scan(); line++ {
		var row SolutionRow
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v", file, line, err))
			continue
		}
		count++
		ep, err := w.NewEpisode(row.TaskID)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s:%d: %v", file, line, err))
			continue
		}
		if err := runtime.Replay(ep, row.Steps); err != nil {
			var re *runtime.ReplayError
			if errors.As(err, &re) {
				problems = append(problems, fmt.Sprintf("world %s task %s: %v", row.World, row.TaskID, err))
				continue
			}
			return nil, count, err
		}
		if h := ep.StateHash(); h != row.FinalStateHash {
			problems = append(problems, fmt.Sprintf("world %s task %s: final state hash %s, recorded %s", row.World, row.TaskID, h, row.FinalStateHash))
		}
		if g := eval.Grade(ep, row.Answer); g.Reward != row.Reward {
			problems = append(problems, fmt.Sprintf("world %s task %s: reward %v, recorded %v", row.World, row.TaskID, g.Reward, row.Reward))
		}
	}
	return problems, count, sc.Err()
}
