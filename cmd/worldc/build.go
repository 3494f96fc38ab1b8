package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/cache"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/text"
)

type buildCmd struct {
	outFlags
	gateFlags
	Shard    string   `placeholder:"I/N" help:"Build only shard I of N (0-based) of the specs, chosen by content hash (stable when specs are added). Default: JOB_COMPLETION_INDEX and WORLDC_SHARD_COUNT when both are set (a Kubernetes Indexed Job)."`
	Report   string   `placeholder:"FILE" help:"Also write the JSON report to FILE (for worldc report and report merge)."`
	CacheDir string   `name:"cache-dir" placeholder:"DIR" help:"The verdict cache (default $WORLDC_CACHE, else the user cache directory's worldc/verdicts)."`
	Paths    []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

// Run is the main job (pipeline.Build): check every spec, generate the
// worlds that check clean into DIR, and vet them, printing a verdict per
// world. A world that fails at any step gets a FAIL verdict with the
// reason, and the others go on (unlike gen, which writes nothing unless
// every spec is clean).
func (c *buildCmd) Run(sys *stdio) error {
	if err := c.validate(); err != nil {
		return err
	}
	specs, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	opts := c.pipelineOptions(sys)
	if opts.Shard, opts.Shards, err = pipeline.ParseShard(c.Shard, os.Getenv); err != nil {
		return err
	}
	if opts.Cache, err = c.openCache(sys); err != nil {
		// No cache is no reason not to build: every world is judged anew.
		fmt.Fprintf(sys.stderr, "worldc: warning: no verdict cache: %v\n", err)
		opts.Cache = nil
	}
	p := c.printer(sys, opts)
	opts.Events.Generated = func(n int, changes []output.Change) {
		if !c.JSON {
			fmt.Fprintf(sys.stderr, "%s generated in %s: %s\n", text.Plural(n, "world"), c.Out, changeSummary(changes))
		}
	}
	report, err := pipeline.Build(sys.ctx, specs, opts)
	p.finish()
	if err != nil {
		return err
	}
	if err := c.printReport(sys, report); err != nil {
		return err
	}
	if c.Report != "" {
		if err := writeReport(absPath(sys.cwd, c.Report), report); err != nil {
			return err
		}
	}
	return gateStatus(report, nil)
}

// pipelineOptions are the pipeline's options from the flags.
func (c *buildCmd) pipelineOptions(sys *stdio) *pipeline.Options {
	opts := c.outFlags.options(sys)
	opts.Gate = c.gateFlags.gateOptions()
	if !c.JSON {
		opts.Events.Diagnostics = func(d compiler.Diagnostics) { fmt.Fprint(sys.stderr, d.Text()) }
	}
	return opts
}

// openCache opens the verdict cache, keyed by this worldc's executable,
// the runtime it generates for and the Go toolchain.
func (c *buildCmd) openCache(sys *stdio) (*cache.Cache, error) {
	dir := c.CacheDir
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(); err != nil {
			return nil, err
		}
	} else {
		dir = absPath(sys.cwd, dir)
	}
	exe, err := cache.ExecutableSum()
	if err != nil {
		return nil, err
	}
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return nil, err
	}
	// The go that the gate runs in the output's module (a toolchain line
	// there can choose another): asked where the output goes, or its
	// nearest directory that exists yet.
	goDir := absPath(sys.cwd, c.Out)
	for _, err := os.Stat(goDir); err != nil && filepath.Dir(goDir) != goDir; _, err = os.Stat(goDir) {
		goDir = filepath.Dir(goDir)
	}
	goVersion, err := gate.GoVersion(sys.ctx, goDir, nil)
	if err != nil {
		return nil, err
	}
	return cache.Open(dir, exe+"\x00"+rt.Hash+"\x00"+goVersion)
}

// absPath resolves p against cwd.
func absPath(cwd, p string) string { return pipeline.Abs(cwd, p) }

// writeReport writes a gate report as indented JSON.
func writeReport(p string, r *gate.Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return safefs.WriteFile(p, append(data, '\n'))
}
