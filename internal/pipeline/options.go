package pipeline

import (
	"fmt"
	"io"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/cache"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// Options configures a run of the pipeline.
type Options struct {
	// Cwd is the directory paths are relative to and the go command
	// runs in (for packages outside any module given by path).
	Cwd string
	// Stdin is what the spec "-" reads.
	Stdin io.Reader
	// Out is the output directory (absolute): world W goes to Out/W.
	Out string
	// Module is the module the worlds build in (see output.PlanModule).
	Module output.ModuleOptions
	// Gate configures the executability gate.
	Gate GateOptions
	// Cache, when set, is the verdict cache Build reads and writes.
	Cache *cache.Cache
	// Shard and Shards: Build builds only the specs whose content hash
	// falls in shard Shard of Shards (0 ≤ Shard < Shards); Shards ≤ 1 is
	// every spec.
	Shard, Shards int
	// Check are options of the checker.
	Check []compiler.Option
	// Events tells the caller what happens; any of them may be nil.
	Events Events
}

// GateOptions are the options of the gate that commands expose.
type GateOptions struct {
	Workers       int  // packages built and tested at once; 0 is GOMAXPROCS
	Optimize      bool // build world packages with optimisations
	NoCache       bool // neither verdict cache nor go test's cache
	TypecheckOnly bool // stop after the type-check
	LinkBatch     int  // link up to N worlds' checks into one test binary
	NoLink        bool // test every package with go test
}

// cacheOptions are the gate options that change a verdict.
func (g GateOptions) cacheOptions() string {
	return fmt.Sprintf("typecheck-only=%t link=%t", g.TypecheckOnly, g.LinkBatch > 0)
}

// Events are the callbacks of a run, each called from one goroutine at a
// time.
type Events struct {
	// Diagnostics are a spec's diagnostics, once it is checked (warnings
	// included), in the order of the specs.
	Diagnostics func(d compiler.Diagnostics)
	// Module is called when the module's go.mod or runtime copy was
	// written.
	Module func(p *output.ModulePlan)
	// Generated is called once every world is written: how many, and the
	// files that changed.
	Generated func(worlds int, changes []output.Change)
	// Start is called once the worlds to judge are known, with every
	// world's name (those judged before the gate included) and how many of
	// them the gate judges, before any Verdict.
	Start func(worlds []string, gated int)
	// Verdict is a world's verdict as it is known; gated says whether
	// the gate judged it (a progress bar counts those), rather than the
	// checker or the cache.
	Verdict func(r gate.WorldResult, gated bool)
	// Finish is called when the gate is done, before the report is
	// complete.
	Finish func()
}

func (e *Events) diagnostics(d compiler.Diagnostics) {
	if e.Diagnostics != nil && len(d) > 0 {
		e.Diagnostics(d)
	}
}
