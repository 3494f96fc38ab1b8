package bundle

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/worldc/worldc/generated/insurance_claims"
	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/internal/cpubench"
	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
	"github.com/worldc/worldc/runtime/serve/eval/evaltest"
)

// fakeLLMEnv, when set, makes TestFakeLLMProcess the golden agent of the
// example worlds over HTTP in this (child) process, so that the eval
// benchmark measures its own process's CPU without the endpoint's.
const fakeLLMEnv = "WORLDC_BENCH_FAKE_LLM"

// TestFakeLLMProcess is the benchmark's instant endpoint when run as a
// child with fakeLLMEnv; otherwise it does nothing (there is nothing to
// test).
func TestFakeLLMProcess(t *testing.T) {
	if os.Getenv(fakeLLMEnv) == "" {
		return
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := evaltest.New(evaltest.Golden(exampleWorlds()...))
	s.Close() // its own listener is replaced by ln
	srv := &http.Server{Handler: s.Config.Handler}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	go srv.Serve(ln)
	io.Copy(io.Discard, os.Stdin) // until the parent closes stdin
	srv.Close()
}

// ownCPU is this process's CPU time (ns), its exited threads' included.
func ownCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkEvalTurn is the agent loop's own CPU per turn: eval of the
// tasks of an example world against an instant golden agent in a child
// process, over loopback — tau2_retail, the heaviest (its first 20 tasks:
// 16 tools, ~14 KB of schemas, large observations, 1–13 golden calls a
// task), and insurance_claims (30 tools, its 4 tasks 10 times each). Per turn the loop
// encodes the whole conversation and the tools (go-openai), sends it and
// reads the reply over HTTP, decodes it, runs the calls in the episode,
// hashes the state, and writes the trajectory and the result.
// cpu-ns/turn is this process's CPU (rusage: every thread's, the HTTP
// client's included); fake-cpu-ns/turn is the endpoint's, apart.
func BenchmarkEvalTurn(b *testing.B) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFakeLLMProcess$")
	cmd.Env = append(os.Environ(), fakeLLMEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		b.Fatal("the fake endpoint printed nothing")
	}
	url, ok := strings.CutPrefix(sc.Text(), "listening on ")
	if !ok {
		b.Fatalf("the fake endpoint: %q", sc.Text())
	}
	go io.Copy(io.Discard, stdout)
	for _, c := range []struct {
		w         runtime.World
		n, trials int
	}{{tau2_retail.New(), 20, 1}, {insurance_claims.New(), 4, 10}} {
		b.Run(c.w.Info().Name, func(b *testing.B) {
			var tasks []string
			for _, t := range c.w.Tasks()[:c.n] {
				tasks = append(tasks, t.ID)
			}
			turns := 0
			var cpu, fakeCPU int64
			for b.Loop() {
				cfg := eval.Config{Worlds: []runtime.World{c.w}, Tasks: tasks, Agent: evalClientURL(url + "/v1"), Model: "fake", Dir: b.TempDir(), Jobs: 1, Trials: c.trials}
				c0, f0 := ownCPU(), cpubench.ProcessCPU(cmd.Process.Pid)
				sum, err := eval.Run(context.Background(), cfg)
				c1, f1 := ownCPU(), cpubench.ProcessCPU(cmd.Process.Pid)
				if err != nil || sum.PassHatK[0] != 1 {
					b.Fatalf("%v %+v", err, sum)
				}
				cpu += c1 - c0
				fakeCPU += f1 - f0
				turns += sum.Failures.Turns
			}
			b.ReportMetric(float64(cpu)/float64(turns), "cpu-ns/turn")
			b.ReportMetric(float64(fakeCPU)/float64(turns), "fake-cpu-ns/turn")
			b.ReportMetric(float64(turns)/float64(b.N), "turns/op")
		})
	}
}
