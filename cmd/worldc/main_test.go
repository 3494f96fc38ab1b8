package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/worldc/worldc/internal/output"
)

var update = flag.Bool("update", false, "rewrite the expected files of failing cmp commands in testdata/script/*.txtar")

// TestMain registers this binary as the worldc command of the scripts.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"worldc": main})
}

// TestScript runs the CLI scripts in the repository's testdata/script.
// Each script runs in a fresh directory; $REPO is the repository root, for
// scripts that run on the example corpus. With -update, a failing
// `cmp stdout|stderr FILE` rewrites FILE inside the script.
//
// Scripts may run the go command (worldc vet does): they share this
// process's build and module caches, and never touch the network.
func TestScript(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(repo, "testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("REPO", repo)
			goEnv, err := goEnvironment()
			if err != nil {
				return err
			}
			for k, v := range goEnv {
				env.Setenv(k, v)
			}
			env.Setenv("GOPROXY", "off")
			env.Setenv("GOSUMDB", "off")
			env.Setenv("GOTOOLCHAIN", "local")
			env.Setenv("GOFLAGS", "-mod=mod")
			// Each script starts with an empty verdict cache of its own.
			env.Setenv("WORLDC_CACHE", filepath.Join(env.WorkDir, ".worldc-cache"))
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"worldmod":     cmdWorldmod,
			"checkversion": cmdCheckversion,
			"freeport":     cmdFreeport,
			"fakellm":      cmdFakellm,
			"waitproc":     cmdWaitproc,
			"leftovers":    cmdLeftovers,
			"signal":       cmdSignal,
			"killedby":     cmdKilledby,
		},
		Condition: func(cond string) (bool, error) {
			if cond == "short" {
				return testing.Short(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
	})
}

var (
	goEnvOnce sync.Once
	goEnvVals map[string]string
	goEnvErr  error
)

// goEnvironment is what the go command needs to find its caches inside a
// script (testscript sets HOME to a directory that does not exist).
func goEnvironment() (map[string]string, error) {
	goEnvOnce.Do(func() {
		keys := []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOROOT"}
		out, err := exec.Command("go", append([]string{"env"}, keys...)...).Output()
		if err != nil {
			goEnvErr = fmt.Errorf("go env: %v", err)
			return
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) != len(keys) {
			goEnvErr = fmt.Errorf("go env: unexpected output %q", out)
			return
		}
		goEnvVals = map[string]string{}
		for i, k := range keys {
			goEnvVals[k] = lines[i]
		}
	})
	return goEnvVals, goEnvErr
}

// cmdWorldmod writes go.mod for a module example.com/worlds in the
// script's working directory that takes worldc's runtime from
// $REPO/runtime, as a user's module that already depends on the runtime
// does, so that generated worlds build and test there offline.
func cmdWorldmod(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: worldmod")
	}
	runtimeDir := filepath.Join(ts.Getenv("REPO"), "runtime")
	mod := fmt.Sprintf("module example.com/worlds\n\ngo 1.26.0\n\nrequire github.com/worldc/worldc/runtime v0.0.0\n\nreplace github.com/worldc/worldc/runtime => %s\n", runtimeDir)
	ts.Check(os.WriteFile(ts.MkAbs("go.mod"), []byte(mod), 0o644))
}

// cmdCheckversion checks that a go.mod requires the runtime at the version
// of the runtime worldc embeds (the one `worldc version` prints).
func cmdCheckversion(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: checkversion go.mod")
	}
	rt, err := output.EmbeddedRuntime()
	ts.Check(err)
	data, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	want := "require " + output.RuntimeModule + " " + rt.Version() + "\n"
	if !strings.Contains(string(data), want) {
		ts.Fatalf("%s does not say %q", args[0], want)
	}
}

// cmdFreeport sets $PORT to a TCP port of the loopback interface that is
// free now, for a server a script starts in the background.
func cmdFreeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: freeport")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	ts.Check(l.Close())
	ts.Setenv("PORT", strconv.Itoa(port))
}

// signalContext: the first signal cancels the context with the signal as
// its cause; release before any signal leaves the context alive.
func TestSignalContext(t *testing.T) {
	self, err := os.FindProcess(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ctx, release := signalContext(context.Background(), os.Interrupt)
	defer release()
	if err := self.Signal(os.Interrupt); err != nil {
		t.Skipf("cannot send itself %v on %s: %v", os.Interrupt, runtime.GOOS, err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the context is not cancelled a minute after SIGINT")
	}
	if sig := interruptedBy(ctx); sig != os.Interrupt {
		t.Errorf("interruptedBy = %v, want %v", sig, os.Interrupt)
	}
	if got := interruptedStatus(ctx); got != 130 {
		t.Errorf("interruptedStatus = %d, want 130", got)
	}

	ctx, release = signalContext(context.Background(), os.Interrupt)
	release()
	release()
	if ctx.Err() != nil || interruptedBy(ctx) != nil {
		t.Errorf("released before any signal: %v, %v; want a live context", ctx.Err(), interruptedBy(ctx))
	}
	if interruptedBy(context.Background()) != nil {
		t.Error("interruptedBy(Background) is not nil")
	}
}

// The commands of interrupt.txtar, which signals worldc while the gate
// runs and then looks for what it left behind. They find the processes of
// a script in /proc (Linux): those whose environment holds the script's
// $WORK, which every process the script starts inherits, down to go
// test's compilers and test binaries.

// scriptProcess is a process that a script started, directly or not.
type scriptProcess struct {
	pid  int
	args []string
}

// commandLine is the process's arguments, the first as a base name.
func (p scriptProcess) commandLine() string {
	args := slices.Clone(p.args)
	if len(args) > 0 {
		args[0] = filepath.Base(args[0])
	}
	return strings.Join(args, " ")
}

func (p scriptProcess) String() string {
	return fmt.Sprintf("process %d %s", p.pid, p.commandLine())
}

// scriptProcesses are the processes of the script running now (not those
// that have exited and wait to be reaped).
func scriptProcesses(ts *testscript.TestScript) []scriptProcess {
	marker := []byte("WORK=" + ts.Getenv("WORK") + "\x00")
	entries, err := os.ReadDir("/proc")
	ts.Check(err)
	var out []scriptProcess
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.HasPrefix(env, marker) && !bytes.Contains(env, append([]byte{0}, marker...)) {
			continue // gone, another user's, exited, or not the script's
		}
		if !processRuns(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, scriptProcess{pid, strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")})
	}
	return out
}

// processRuns reports whether process pid exists and has not exited.
func processRuns(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && len(stat) > i+2 && stat[i+2] != 'Z' && stat[i+2] != 'X'
}

// cmdWaitproc waits until a process of the script runs a command line
// that matches the regular expression (the command's base name, then its
// arguments: `^go test `, `^link `): the synchronisation of
// interrupt.txtar, which signals worldc while the gate runs rather than
// after some time. It fails when no background command runs any more, or
// after five minutes.
func cmdWaitproc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitproc REGEXP")
	}
	re, err := regexp.Compile(args[0])
	ts.Check(err)
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		ts.Fatalf("waitproc reads /proc: %v", err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		for _, p := range scriptProcesses(ts) {
			if re.MatchString(p.commandLine()) {
				ts.Logf("%s", p)
				return
			}
		}
		running := false
		for _, cmd := range ts.BackgroundCmds() {
			running = running || processRuns(cmd.Process.Pid)
		}
		if !running {
			ts.Fatalf("no background command runs, and no process ran %s", args[0])
		}
		if time.Now().After(deadline) {
			ts.Fatalf("no process ran %s in five minutes", args[0])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// cmdLeftovers prints what a stopped worldc could leave behind: the
// directories named _worldc_gate_* below $WORK, what is in $TMPDIR (go's
// work directories, test binaries' temporary files), and the processes of
// the script. It fails when there is none; `! leftovers`, when there is
// any. $TMPDIR/goimports does not count: x/tools' module index, which
// worldc links, makes it as the process starts when the process is a test
// binary (testing.Testing), as the scripts' worldc is.
func cmdLeftovers(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 0 {
		ts.Fatalf("usage: [!] leftovers")
	}
	work := ts.Getenv("WORK")
	var found []string
	ts.Check(filepath.WalkDir(work, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), "_worldc_gate_") {
			rel, _ := filepath.Rel(work, path)
			found = append(found, "dir "+filepath.ToSlash(rel))
			return fs.SkipDir
		}
		return nil
	}))
	tmp, err := os.ReadDir(ts.Getenv("TMPDIR"))
	ts.Check(err)
	for _, e := range tmp {
		if e.Name() != "goimports" {
			found = append(found, "tmp "+e.Name())
		}
	}
	for _, p := range scriptProcesses(ts) {
		found = append(found, p.String())
	}
	for _, f := range found {
		fmt.Fprintln(ts.Stdout(), f)
	}
	switch {
	case neg && len(found) > 0:
		ts.Fatalf("left behind:\n%s", strings.Join(found, "\n"))
	case !neg && len(found) == 0:
		ts.Fatalf("nothing left behind")
	}
}

var (
	signalledMu sync.Mutex
	signalled   = map[*testscript.TestScript][]*exec.Cmd{}
)

var scriptSignals = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM}

// cmdSignal sends SIGINT or SIGTERM to the background commands (the
// builtin kill has no SIGTERM), and remembers them for killedby.
func cmdSignal(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || scriptSignals[args[0]] == 0 {
		ts.Fatalf("usage: signal INT|TERM")
	}
	cmds := ts.BackgroundCmds()
	if len(cmds) == 0 {
		ts.Fatalf("no background command to signal")
	}
	signalledMu.Lock()
	if signalled[ts] == nil {
		ts.Defer(func() {
			signalledMu.Lock()
			delete(signalled, ts)
			signalledMu.Unlock()
		})
	}
	signalled[ts] = cmds
	signalledMu.Unlock()
	for _, cmd := range cmds {
		ts.Check(cmd.Process.Signal(scriptSignals[args[0]]))
	}
}

// cmdKilledby checks, after wait, that the commands signal signalled
// ended by the signal SIG (a shell would say 128+SIG), rather than
// exiting with a status of their own.
func cmdKilledby(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 || scriptSignals[args[0]] == 0 {
		ts.Fatalf("usage: killedby INT|TERM")
	}
	want := scriptSignals[args[0]]
	signalledMu.Lock()
	cmds := signalled[ts]
	signalledMu.Unlock()
	if len(cmds) == 0 {
		ts.Fatalf("killedby: no command was signalled")
	}
	for _, cmd := range cmds {
		if cmd.ProcessState == nil {
			ts.Fatalf("killedby: %s has not been waited for", cmd.Path)
		}
		ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if !ok || !ws.Signaled() || ws.Signal() != want {
			ts.Fatalf("%s ended with %v, not by %v", filepath.Base(cmd.Path), cmd.ProcessState, want)
		}
	}
}
