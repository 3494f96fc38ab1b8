package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
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
			for _, k := range []string{"GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
				if v, ok := os.LookupEnv(k); ok {
					env.Setenv(k, v)
				}
			}
			return nil
		},
	})
}
