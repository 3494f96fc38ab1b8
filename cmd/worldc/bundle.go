package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/worldc/worldc/internal/bundle"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
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

// worlds resolves the paths: a directory holding a generated world package
// (its world.go carries worldc's header) is taken as it is, an output
// directory of such packages gives each of them, anything else is specs,
// which must check clean.
func (c *bundleCmd) worlds(sys *stdio) ([]bundle.World, error) {
	var worlds []bundle.World
	var specPaths []string
	for _, p := range c.Paths {
		dir := absPath(sys.cwd, strings.TrimSuffix(p, "/..."))
		if isGeneratedPackage(dir) {
			w, err := readPackage(sys, dir)
			if err != nil {
				return nil, err
			}
			worlds = append(worlds, w)
			continue
		}
		if pkgs := generatedPackagesIn(dir); len(pkgs) > 0 {
			for _, d := range pkgs {
				w, err := readPackage(sys, d)
				if err != nil {
					return nil, err
				}
				worlds = append(worlds, w)
			}
			continue
		}
		specPaths = append(specPaths, p)
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
			worlds = append(worlds, bundle.World{Name: out.World, Files: out.Files, SpecSHA256: results[i].SHA256, Source: out.Source})
		}
	}
	return worlds, nil
}

// isGeneratedPackage reports whether dir holds a world package worldc
// generated.
func isGeneratedPackage(dir string) bool {
	ok, _ := safefs.IsGenerated(filepath.Join(dir, "world.go"))
	return ok
}

// generatedPackagesIn lists the generated world packages directly below
// dir, sorted.
func generatedPackagesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && isGeneratedPackage(filepath.Join(dir, e.Name())) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out
}

// readPackage reads a generated package's regular files (not its tests).
func readPackage(sys *stdio, dir string) (bundle.World, error) {
	w := bundle.World{Name: filepath.Base(dir), Files: map[string][]byte{}, Source: displayPath(sys.cwd, dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return w, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := safefs.ReadRegular(filepath.Join(dir, e.Name()))
		if err != nil {
			return w, err
		}
		w.Files[e.Name()] = data
	}
	return w, nil
}
