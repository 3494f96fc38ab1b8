// Command taskcost measures task synthesis and what its tasks cost the
// gate (issue 21's note), over the example worlds and a synthetic corpus:
//
//	go run ./cmd/taskcost -worldc bin/worldc [-synth 200] [-gate-sample 4] [-gate-runs 3] [-json FILE]
//
// (make measure-tasks). For every world it runs `worldc tasks -n 100
// --json` and records the summary (tasks kept, dropped by reason, writing
// tools covered, levels, calls, the note of a world short of tasks) and the
// command's CPU time. For the example worlds and the first GATE_SAMPLE
// synthetic ones it also writes the world with 5 synthesised tasks and
// times the gate on both: `worldc build -j 1` of the written spec into a
// fresh output directory (a module of its own, so that nothing of the
// world is in the build cache) with a verdict cache of its own, CPU time
// of worldc and its children (the go command, the compiler, the test
// binary) and wall time, the median of GATE_RUNS runs, the two sizes
// interleaved. It prints tables and, with -json, writes them as JSON.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// summary is the part of `worldc tasks --json` this reads.
type summary struct {
	World        string         `json:"world"`
	Wanted       int            `json:"wanted"`
	Kept         int            `json:"kept"`
	Dropped      map[string]int `json:"dropped"`
	WritingTools int            `json:"writing_tools"`
	Covered      int            `json:"covered"`
	Levels       map[string]int `json:"levels"`
	Origins      map[string]int `json:"origins"`
	Calls        map[string]int `json:"calls"`
	Note         string         `json:"note,omitempty"`
}

// world is one world's measurements.
type world struct {
	Name      string  `json:"name"`
	Synthetic bool    `json:"synthetic"`
	Summary   summary `json:"summary"`
	// TasksCPU is the CPU seconds of `worldc tasks -n N` on the world.
	TasksCPU float64 `json:"tasks_cpu"`
	// Gate, when measured: the median CPU and wall seconds of the gate
	// with 5 and with N tasks.
	Gate *gate `json:"gate,omitempty"`
}

type gate struct {
	CPU5, CPUN, Wall5, WallN float64
	Runs                     int
}

// Ratio is the gate's CPU time with N tasks over that with 5.
func (g *gate) Ratio() float64 { return g.CPUN / g.CPU5 }

// report is everything measured.
type report struct {
	N      int     `json:"n"`
	Worlds []world `json:"worlds"`
}

func main() {
	worldc := flag.String("worldc", "bin/worldc", "the worldc binary")
	worlds := flag.String("worlds", "testdata/worlds", "the example worlds")
	synth := flag.Int("synth", 200, "synthetic worlds (worldc synth)")
	seed := flag.Int("seed", 1, "the corpus seed")
	n := flag.Int("n", 100, "tasks per world")
	sample := flag.Int("gate-sample", 4, "synthetic worlds whose gate is timed (besides the example worlds)")
	runs := flag.Int("gate-runs", 3, "gate runs per world and size (the median is kept)")
	out := flag.String("json", "", "also write the report as JSON to this file")
	flag.Parse()
	if err := run(os.Stdout, *worldc, *worlds, *synth, *seed, *n, *sample, *runs, *out); err != nil {
		fmt.Fprintln(os.Stderr, "taskcost:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, worldc, worlds string, synth, seed, n, sample, runs int, out string) error {
	bin, err := filepath.Abs(worldc)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "taskcost-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	specs, err := filepath.Glob(filepath.Join(worlds, "*.world"))
	if err != nil || len(specs) == 0 {
		return fmt.Errorf("no example worlds in %s", worlds)
	}
	nExamples := len(specs)
	if synth > 0 {
		dir := filepath.Join(tmp, "synth")
		if _, _, err := timed(nil, bin, "synth", "-n", fmt.Sprint(synth), "--seed", fmt.Sprint(seed), "-o", dir); err != nil {
			return err
		}
		more, _ := filepath.Glob(filepath.Join(dir, "*.world"))
		if len(more) != synth {
			return fmt.Errorf("worldc synth wrote %d worlds, want %d", len(more), synth)
		}
		specs = append(specs, more...)
	}
	rep := report{N: n}
	for i, spec := range specs {
		wd := world{Name: strings.TrimSuffix(filepath.Base(spec), ".world"), Synthetic: i >= nExamples}
		dir := filepath.Join(tmp, "tasks", fmt.Sprint(n), wd.Name)
		var stdout strings.Builder
		cpu, _, err := timed(&stdout, bin, "tasks", "-n", fmt.Sprint(n), "--json", "-o", dir, spec)
		if err != nil {
			return fmt.Errorf("%s: %v", spec, err)
		}
		var ss []summary
		if err := json.Unmarshal([]byte(stdout.String()), &ss); err != nil || len(ss) != 1 {
			return fmt.Errorf("%s: the summary does not decode (%v): %.200s", spec, err, stdout.String())
		}
		wd.Summary, wd.TasksCPU = ss[0], cpu
		if i < nExamples+sample {
			if wd.Gate, err = timeGate(bin, tmp, spec, dir, wd.Name, n, runs); err != nil {
				return fmt.Errorf("%s: %v", spec, err)
			}
		}
		rep.Worlds = append(rep.Worlds, wd)
		fmt.Fprintf(os.Stderr, "\r%d/%d worlds", i+1, len(specs))
	}
	fmt.Fprintln(os.Stderr)
	print(w, &rep)
	if out != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(out, append(b, '\n'), 0o644)
	}
	return nil
}

// timeGate writes the world with 5 tasks beside the one with n (in dirN)
// and times the gate on both, interleaved, runs times each.
func timeGate(bin, tmp, spec, dirN, name string, n, runs int) (*gate, error) {
	dir5 := filepath.Join(tmp, "tasks", "5", name)
	if _, _, err := timed(nil, bin, "tasks", "-n", "5", "-o", dir5, spec); err != nil {
		return nil, err
	}
	var cpu5, cpuN, wall5, wallN []float64
	for r := range runs {
		for _, size := range []struct {
			dir       string
			cpu, wall *[]float64
			tag       string
		}{{dir5, &cpu5, &wall5, "5"}, {dirN, &cpuN, &wallN, fmt.Sprint(n)}} {
			out := filepath.Join(tmp, "gate", fmt.Sprintf("%s_%s_%d", name, size.tag, r))
			cache := filepath.Join(tmp, "cache", fmt.Sprintf("%s_%s_%d", name, size.tag, r))
			cmd := []string{"build", "-j", "1", "--cache-dir", cache, "--module", fmt.Sprintf("m%s%d", size.tag, r), "-o", out, filepath.Join(size.dir, name+".world")}
			c, wall, err := timed(nil, bin, cmd...)
			if err != nil {
				return nil, err
			}
			*size.cpu, *size.wall = append(*size.cpu, c), append(*size.wall, wall)
			if err := os.RemoveAll(out); err != nil {
				return nil, err
			}
		}
	}
	return &gate{CPU5: median(cpu5), CPUN: median(cpuN), Wall5: median(wall5), WallN: median(wallN), Runs: runs}, nil
}

// timed runs bin with args and returns the CPU seconds (user and system,
// of the process and the children it waited for) and the wall seconds.
func timed(stdout io.Writer, bin string, args ...string) (cpu, wall float64, err error) {
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = stdout, &stderr
	t0 := time.Now()
	err = cmd.Run()
	wall = time.Since(t0).Seconds()
	if err != nil {
		return 0, 0, fmt.Errorf("worldc %s: %v\n%s", strings.Join(args, " "), err, lastLines(stderr.String(), 10))
	}
	if cmd.ProcessState == nil {
		return 0, 0, errors.New("no process state")
	}
	return (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds(), wall, nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// print writes the report's tables.
func print(w io.Writer, rep *report) {
	for _, part := range []struct {
		title     string
		synthetic bool
	}{{"example worlds", false}, {"synthetic worlds", true}} {
		var ws []world
		for _, x := range rep.Worlds {
			if x.Synthetic == part.synthetic {
				ws = append(ws, x)
			}
		}
		if len(ws) == 0 {
			continue
		}
		fmt.Fprintf(w, "## %s (%d), worldc tasks -n %d\n\n", part.title, len(ws), rep.N)
		aggregate(w, ws, rep.N, !part.synthetic)
	}
	var gated []world
	for _, x := range rep.Worlds {
		if x.Gate != nil {
			gated = append(gated, x)
		}
	}
	if len(gated) == 0 {
		return
	}
	fmt.Fprintf(w, "## the gate with 5 and %d tasks (worldc build -j 1, fresh output directory and verdict cache; median of %d runs)\n\n", rep.N, gated[0].Gate.Runs)
	fmt.Fprintf(w, "| world | CPU s, 5 | CPU s, %d | ratio | wall s, 5 | wall s, %d |\n|---|---|---|---|---|---|\n", rep.N, rep.N)
	var ratios []float64
	for _, x := range gated {
		g := x.Gate
		ratios = append(ratios, g.Ratio())
		fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f× | %.2f | %.2f |\n", x.Name, g.CPU5, g.CPUN, g.Ratio(), g.Wall5, g.WallN)
	}
	fmt.Fprintf(w, "\nratio (CPU, %d tasks over 5): median %.2f×, max %.2f× over %d worlds\n", rep.N, median(ratios), slices.Max(ratios), len(ratios))
}

// aggregate writes one group's summary: per world for the examples, in
// totals and distributions for a corpus.
func aggregate(w io.Writer, ws []world, n int, perWorld bool) {
	dropped := map[string]int{}
	levels := map[string]int{}
	calls := map[string]int{}
	origins := map[string]int{}
	var cpus, coverage []float64
	kept, short, below90 := 0, 0, 0
	if perWorld {
		fmt.Fprintln(w, "| world | kept | writing tools covered | easy/medium/hard | CPU s |\n|---|---|---|---|---|")
	}
	for _, x := range ws {
		s := x.Summary
		kept += s.Kept
		for k, v := range s.Dropped {
			dropped[k] += v
		}
		for k, v := range s.Levels {
			levels[k] += v
		}
		for k, v := range s.Calls {
			calls[k] += v
		}
		for k, v := range s.Origins {
			origins[k] += v
		}
		cov := 1.0
		if s.WritingTools > 0 {
			cov = float64(s.Covered) / float64(s.WritingTools)
		}
		coverage = append(coverage, cov)
		if cov < 0.9 {
			below90++
		}
		cpus = append(cpus, x.TasksCPU)
		if s.Kept < n {
			short++
		}
		if perWorld {
			fmt.Fprintf(w, "| %s | %d | %d/%d | %d/%d/%d | %.2f |\n", x.Name, s.Kept, s.Covered, s.WritingTools, s.Levels["easy"], s.Levels["medium"], s.Levels["hard"], x.TasksCPU)
		}
	}
	if perWorld {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "tasks kept: %d over %d worlds (%.1f a world); %d worlds short of %d\n", kept, len(ws), float64(kept)/float64(len(ws)), short, n)
	fmt.Fprintf(w, "dropped by reason: %s\n", counts(dropped))
	fmt.Fprintf(w, "origins: %s\n", counts(origins))
	fmt.Fprintf(w, "difficulty: %s; calls per task: %s\n", counts(levels), numericCounts(calls))
	fmt.Fprintf(w, "writing-tool coverage: median %.0f%%, min %.0f%%, %d worlds below 90%%\n", 100*median(coverage), 100*slices.Min(coverage), below90)
	fmt.Fprintf(w, "CPU of worldc tasks per world: median %.2f s, max %.2f s\n", median(cpus), slices.Max(cpus))
	if short > 0 {
		fmt.Fprintf(w, "short of %d tasks, and why:\n", n)
		for _, x := range ws {
			if x.Summary.Kept < n {
				fmt.Fprintf(w, "  %s: %d: %s\n", x.Name, x.Summary.Kept, x.Summary.Note)
			}
		}
	}
	fmt.Fprintln(w)
}

// counts renders a count map, largest first (then by key).
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// numericCounts renders a count map keyed by numbers, in their order.
func numericCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
