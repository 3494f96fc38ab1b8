// Command coldstart is what a new process does before its first tool
// call in the tau2 retail world: decode the embedded seed, build the
// world state, start an episode on it, make one call (get_order_details of
// #W2378156) and hash the state; it prints the hash. With -episode it
// stops after the call, with -empty before the episode (the cost of the
// process and of initialising the packages). BenchmarkTau2ColdStart builds
// it and times processes of it by their CPU time (docs/design/tau2-retail.md
// §13).
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/worldc/worldc/generated/tau2_retail"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	if mode == "-empty" {
		return
	}
	ep, err := tau2_retail.NewEpisode("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if o := ep.Call("get_order_details", json.RawMessage(`{"order_id":"#W2378156"}`)); !o.OK {
		fmt.Fprintln(os.Stderr, o.Err())
		os.Exit(1)
	}
	if mode == "-episode" {
		return
	}
	fmt.Println(ep.StateHash())
}
