// Command scale measures the executability gate on many worlds: it makes N
// renamed copies of the example corpus (testdata/worlds), generates them
// into a scratch module that uses this repository's runtime, and times the
// gate's stages cold and warm. Cold means the world packages were never
// built: every measured set gets world names of its own, so nothing of
// theirs is in the build cache, while the standard library and the runtime
// are (as on any machine that ran the gate once).
//
//	go run ./internal/gate/testdata/scale -copies 25     # 200 worlds
//
// It lives under testdata so that `go test ./...` and `go vet ./...` leave
// it alone: it is a measurement, not a test.
//
// Measured 2026-11-30 on the 2-core machine, 200 worlds (25 copies of the
// 8 example worlds, ~4,200 generated Go lines each), with other jobs
// keeping the load average between 4 and 13, so read the numbers as
// ranges (seconds per world):
//
//	check + gen                         0.08–0.14
//	type-check only (go/types)          0.03–0.06
//	cold gate, -N -l                    1.85–2.65  (type-check 2%, go test 98%)
//	  compile only (go build -N -l)     1.0
//	  go vet                            0.19
//	  the tests' own run time           0.16–0.17
//	cold gate, optimized                3.78
//	warm gate (cached results)          0.03
//	re-run (-count=1)                   0.44
//	cold linked gate (200 per binary)   2.44       (plain gate in the same run: 2.65)
//	re-run linked (-count=1)            0.10
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/gen"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/proc"
)

func main() {
	copies := flag.Int("copies", 1, "copies of the example corpus")
	repo := flag.String("repo", ".", "the worldc repository")
	keep := flag.Bool("keep", false, "keep the scratch module")
	stages := flag.String("stages", "typecheck,gate,warm,rerun,optimized,compile,linked", "what to measure, comma-separated")
	link := flag.Int("link", 200, "worlds per test binary for the linked stage")
	workers := flag.Int("j", 0, "packages built at once (default GOMAXPROCS)")
	flag.Parse()
	// The gate runs the go command in process groups of its own, which a
	// terminal's Ctrl-C does not reach: stop it, and remove the scratch
	// module, on the first signal; a second ends scale at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	m := &measure{ctx: ctx, copies: *copies, workers: *workers, link: *link}
	if err := m.run(*repo, *keep, strings.Split(*stages, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "scale:", err)
		os.Exit(1)
	}
}

type measure struct {
	ctx             context.Context
	copies, workers int
	link            int
	repo, scratch   string
	specs           map[string][]byte // file → source
	worlds          int               // per set
	lines           int               // generated Go lines per set
}

var worldHeader = regexp.MustCompile(`(?m)^world\s+([a-z][a-z0-9_]*)`)

func (m *measure) run(repo string, keep bool, stages []string) error {
	var err error
	if m.repo, err = filepath.Abs(repo); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(m.repo, "testdata", "worlds", "*.world"))
	if len(files) == 0 {
		return fmt.Errorf("no worlds in %s/testdata/worlds", m.repo)
	}
	m.specs = map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		m.specs[f] = b
	}
	if m.scratch, err = os.MkdirTemp("", "worldc-scale-"); err != nil {
		return err
	}
	if keep {
		fmt.Println("scratch module:", m.scratch)
	} else {
		defer os.RemoveAll(m.scratch)
	}
	mod := fmt.Sprintf("module example.com/scale\n\ngo 1.26.0\n\nrequire github.com/worldc/worldc/runtime v0.0.0\n\nreplace github.com/worldc/worldc/runtime => %s\n", filepath.Join(m.repo, "runtime"))
	if err := os.WriteFile(filepath.Join(m.scratch, "go.mod"), []byte(mod), 0o644); err != nil {
		return err
	}
	fmt.Printf("machine: %d CPUs (GOMAXPROCS %d), %s\n", runtime.NumCPU(), runtime.GOMAXPROCS(0), loadavg())
	// Warm the runtime and the standard library once, as any machine that
	// ran the gate before has them.
	if err := m.goCmd("build", "github.com/worldc/worldc/runtime", "testing"); err != nil {
		return err
	}
	tag := fmt.Sprintf("%04x", time.Now().UnixNano()&0xffff)
	set := func(name string) (string, error) {
		start := time.Now()
		dir, err := m.makeSet(name + tag)
		if err != nil {
			return "", err
		}
		fmt.Printf("generated set %s: %d worlds, %d Go lines each on average, check+gen %.2fs (%.3fs/world)\n",
			name, m.worlds, m.lines/m.worlds, time.Since(start).Seconds(), time.Since(start).Seconds()/float64(m.worlds))
		return dir, nil
	}
	has := func(s string) bool { return slices.Contains(stages, s) }
	if has("typecheck") || has("gate") || has("warm") || has("rerun") {
		dir, err := set("g")
		if err != nil {
			return err
		}
		pattern := "./" + filepath.Base(dir) + "/..."
		if has("typecheck") {
			r, err := m.vet(pattern, gate.VetOptions{TypecheckOnly: true})
			if err != nil {
				return err
			}
			m.print("type-check only", r, r.Seconds)
		}
		if has("gate") {
			r, err := m.vet(pattern, gate.VetOptions{})
			if err != nil {
				return err
			}
			m.print("cold gate (-N -l)", r, r.Seconds)
			fmt.Printf("  of which type-check %.1fs, go test %.1fs\n", r.TypecheckSeconds, r.TestSeconds)
			run := 0.0
			for _, w := range r.Worlds {
				run += w.Seconds
			}
			fmt.Printf("  tests' own run time, summed: %.1fs (%.3fs/world)\n", run, run/float64(len(r.Worlds)))
		}
		if has("warm") {
			r, err := m.vet(pattern, gate.VetOptions{})
			if err != nil {
				return err
			}
			m.print("warm gate (cached results)", r, r.Seconds)
		}
		if has("rerun") {
			r, err := m.vet(pattern, gate.VetOptions{NoCache: true})
			if err != nil {
				return err
			}
			m.print("re-run (-count=1: packages built, tests relinked and run)", r, r.Seconds)
		}
	}
	if has("optimized") {
		dir, err := set("o")
		if err != nil {
			return err
		}
		r, err := m.vet("./"+filepath.Base(dir)+"/...", gate.VetOptions{Optimize: true})
		if err != nil {
			return err
		}
		m.print("cold gate (optimized)", r, r.Seconds)
	}
	if has("linked") {
		dir, err := set("l")
		if err != nil {
			return err
		}
		pattern := "./" + filepath.Base(dir) + "/..."
		r, err := m.vet(pattern, gate.VetOptions{LinkBatch: m.link})
		if err != nil {
			return err
		}
		m.print(fmt.Sprintf("cold linked gate (-N -l, %d worlds per binary)", m.link), r, r.Seconds)
		r, err = m.vet(pattern, gate.VetOptions{LinkBatch: m.link, NoCache: true})
		if err != nil {
			return err
		}
		m.print("re-run linked (-count=1)", r, r.Seconds)
	}
	if has("compile") {
		dir, err := set("c")
		if err != nil {
			return err
		}
		pattern := "./" + filepath.Base(dir) + "/..."
		start := time.Now()
		if err := m.goCmd("build", "-gcflags="+pattern+"=-N -l", pattern); err != nil {
			return err
		}
		s := time.Since(start).Seconds()
		fmt.Printf("%-58s %7.1fs  %.3fs/world\n", "compile only (go build -N -l, cold)", s, s/float64(m.worlds))
		start = time.Now()
		if err := m.goCmd("vet", pattern); err != nil {
			fmt.Println("  go vet:", err)
		}
		s = time.Since(start).Seconds()
		fmt.Printf("%-58s %7.1fs  %.3fs/world\n", "go vet (packages compiled, tests not)", s, s/float64(m.worlds))
	}
	return nil
}

// makeSet writes m.copies renamed copies of every example world below
// scratch/<name>/ and returns that directory.
func (m *measure) makeSet(name string) (string, error) {
	dir := filepath.Join(m.scratch, name)
	m.worlds, m.lines = 0, 0
	files := make([]string, 0, len(m.specs))
	for f := range m.specs {
		files = append(files, f)
	}
	slices.Sort(files)
	for i := range m.copies {
		var outs []output.Output
		for _, f := range files {
			src := worldHeader.ReplaceAll(m.specs[f], []byte(fmt.Sprintf("world ${1}_%s_%d", name, i)))
			w, diags := compiler.CheckSource(f, src)
			if w == nil {
				return "", fmt.Errorf("%s does not check:\n%s", f, diags.Text())
			}
			out, err := gen.Generate(w)
			if err != nil {
				return "", err
			}
			for n, b := range out {
				if strings.HasSuffix(n, ".go") {
					m.lines += bytes.Count(b, []byte("\n"))
				}
			}
			outs = append(outs, output.Output{World: w.Name, Files: out})
			m.worlds++
		}
		changes, err := output.Plan(dir, outs)
		if err != nil {
			return "", err
		}
		if err := output.Apply(dir, outs, changes); err != nil {
			return "", err
		}
	}
	return dir, nil
}

func (m *measure) vet(pattern string, opts gate.VetOptions) (*gate.Report, error) {
	opts.Dir = m.scratch
	opts.Workers = m.workers
	return gate.Vet(m.ctx, []string{pattern}, opts)
}

func (m *measure) print(what string, r *gate.Report, seconds float64) {
	fmt.Printf("%-58s %7.1fs  %.3fs/world  (%d passed, %d failed)\n", what, seconds, seconds/float64(len(r.Worlds)), r.Passed, r.Failed)
}

func (m *measure) goCmd(args ...string) error {
	cmd := proc.CommandContext(m.ctx, "go", args...)
	cmd.Dir = m.scratch
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, firstLines(string(out), 10))
	}
	return nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "load unknown"
	}
	return "load average " + strings.Join(f[:3], " ")
}
