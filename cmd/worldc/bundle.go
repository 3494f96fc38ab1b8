package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/internal/bundle"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/text"
)

type bundleCmd struct {
	Out   string   `short:"o" required:"" placeholder:"DIR" help:"The bundle directory (new, empty, or a bundle to rebuild)."`
	Name  string   `placeholder:"NAME" help:"The bundle's name, which its binary bin/NAME takes (default: the directory's name)."`
	Paths []string `arg:"" name:"path" help:"Specs (files, directories, dir/...), generated world packages, or output directories holding them."`
}

// Run checks and generates the specs (or reads the generated packages),
// builds the server binary and writes the bundle, then verifies it.
func (c *bundleCmd) Run(sys *stdio) error {
	out := absPath(sys.cwd, c.Out)
	name := c.Name
	if name == "" {
		name = strings.ToLower(filepath.Base(out))
	}
	worlds, err := c.worlds(sys)
	if err != nil {
		return err
	}
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return err
	}
	start := time.Now()
	m, err := bundle.Build(sys.ctx, worlds, bundle.Options{
		Name: name, Dir: out, Version: worldcVersion(), Runtime: rt,
		Step: func(what string) { fmt.Fprintf(sys.stderr, "bundle %s: %s\n", name, what) },
	})
	if err != nil {
		return err
	}
	tasks := 0
	for _, w := range m.Worlds {
		tasks += w.Tasks
	}
	fmt.Fprintf(sys.stdout, "bundle %s: %s, %s in %s (%.1fs); bin/%s verified\n", name, text.Plural(len(m.Worlds), "world"), text.Plural(tasks, "task"),
		displayPath(sys.cwd, out), time.Since(start).Seconds(), name)
	return nil
}

// worlds resolves the paths (pipeline.SplitPackages): generated world
// packages are taken as they are, anything else is specs, which must
// check clean.
func (c *bundleCmd) worlds(sys *stdio) ([]bundle.World, error) {
	pkgs, specPaths, err := pipeline.SplitPackages(sys.cwd, c.Paths)
	if err != nil {
		return nil, err
	}
	var worlds []bundle.World
	for _, p := range pkgs {
		worlds = append(worlds, bundle.World{Name: p.World, Files: p.Files, Source: p.Source})
	}
	if len(specPaths) > 0 {
		specs, err := pipeline.Expand(sys.cwd, specPaths)
		if err != nil {
			return nil, err
		}
		results, outs, err := checkAndGenerate(sys, specs, "no bundle")
		if err != nil {
			return nil, err
		}
		for i, out := range outs {
			worlds = append(worlds, bundle.World{Name: out.World, Files: out.Files, SpecSHA256: results[i].SHA256, Source: out.Source,
				Graph: tasks.BuildGraph(results[i].World).SVG()})
		}
	}
	return worlds, nil
}
