package main

import (
	"fmt"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/worldc/worldc/internal/author/fakellm"
)

// fakeServers are the fake endpoints of running scripts.
var fakeServers sync.Map // *testscript.TestScript → *fakellm.Server

// cmdFakellm is the scripts' fake LLM endpoint (see internal/author/fakellm):
//
//	fakellm start SCRIPT.json   start it; $FAKELLM is its base URL
//	fakellm counts              print the requests received per script key
//
// The endpoint stops when the script ends.
func cmdFakellm(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakellm start SCRIPT.json | fakellm counts")
	}
	switch args[0] {
	case "start":
		if len(args) != 2 {
			ts.Fatalf("usage: fakellm start SCRIPT.json")
		}
		script, err := fakellm.Load(ts.MkAbs(args[1]))
		ts.Check(err)
		srv := fakellm.New(script)
		fakeServers.Store(ts, srv)
		ts.Defer(func() {
			fakeServers.Delete(ts)
			srv.Close()
		})
		ts.Setenv("FAKELLM", srv.BaseURL())
	case "counts":
		v, ok := fakeServers.Load(ts)
		if !ok {
			ts.Fatalf("fakellm counts: no fake endpoint started")
		}
		fmt.Fprint(ts.Stdout(), v.(*fakellm.Server).Counts())
	default:
		ts.Fatalf("fakellm: unknown subcommand %q", args[0])
	}
}
