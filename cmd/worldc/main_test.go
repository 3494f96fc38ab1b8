package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

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
