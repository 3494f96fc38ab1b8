package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/specgen"
	"github.com/worldc/worldc/internal/text"
)

type synthCmd struct {
	N    int    `short:"n" default:"100" help:"How many worlds (default ${default})."`
	Seed uint64 `default:"1" help:"The corpus seed: the same seed writes the same specs (default ${default})."`
	Out  string `short:"o" required:"" placeholder:"DIR" help:"Where to write DIR/<world>.world."`
}

// Run writes a synthetic corpus: N distinct valid worlds (internal/specgen),
// varied in size and construct and spread over industries, countries and
// task tags, for measuring the gate at scale.
func (c *synthCmd) Run(sys *stdio) error {
	if c.N < 1 || c.N > 1_000_000 {
		return usagef("-n %d: want 1 to 1,000,000 worlds", c.N)
	}
	dir := absPath(sys.cwd, c.Out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range c.N {
		name, src := specgen.CorpusSpec(c.Seed, i)
		if err := safefs.WriteFile(filepath.Join(dir, name+pipeline.SpecExt), []byte(src)); err != nil {
			return err
		}
	}
	fmt.Fprintf(sys.stderr, "%s written to %s (seed %d)\n", text.Plural(c.N, "synthetic world"), displayPath(sys.cwd, dir), c.Seed)
	return nil
}
