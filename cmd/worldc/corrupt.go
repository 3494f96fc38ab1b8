package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/text"
)

type corruptCmd struct {
	Ops      []string `name:"op" placeholder:"NAME" help:"Apply only these operators (default all; see --list)."`
	MaxSites int      `name:"max-sites" default:"0" placeholder:"N" help:"Sites per operator and spec (default every site)."`
	Out      string   `short:"o" placeholder:"FILE" help:"Write the corruptions as JSONL to FILE (default standard output)."`
	List     bool     `help:"List the operators and the code check must report for each, and exit."`
	Paths    []string `arg:"" optional:"" name:"path" help:"Spec files, directories or dir/... patterns; each must check clean."`
}

// Run applies the operators to every spec and writes one JSON line per
// corruption (operator, site, diagnostics, corrupted and original spec),
// then the detection rate per operator on standard error. It fails when
// check misses a corruption.
func (c *corruptCmd) Run(sys *stdio) error {
	ops, err := author.LookupOperators(c.Ops)
	if err != nil {
		return usagef("%v", err)
	}
	if c.List {
		tw := tabwriter.NewWriter(sys.stdout, 0, 0, 2, ' ', 0)
		for _, o := range ops {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", o.Name, o.Code, o.Doc)
		}
		return tw.Flush()
	}
	if len(c.Paths) == 0 {
		return usagef("no specs given")
	}
	files, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	out := sys.stdout
	var file *safefs.File // -o: the corruptions land whole, or not at all
	if c.Out != "" {
		if file, err = safefs.Create(absPath(sys.cwd, c.Out)); err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	enc := json.NewEncoder(out)
	var all []author.Corruption
	for _, f := range files {
		src, err := f.Read(sys.stdin)
		if err != nil {
			return err
		}
		cs, err := corruptFile(f.Name, f.Path, src, author.CorruptOptions{Operators: ops, MaxSites: c.MaxSites})
		if err != nil {
			return err
		}
		for _, c := range cs {
			if err := enc.Encode(c); err != nil {
				return err
			}
		}
		all = append(all, cs...)
	}
	if file != nil {
		if err := file.Commit(); err != nil {
			return err
		}
	}
	missed := 0
	tw := tabwriter.NewWriter(sys.stderr, 0, 0, 2, ' ', 0)
	for _, r := range author.DetectionRates(all) {
		fmt.Fprintf(tw, "%s\t%s\tdetected %d of %d\t(%s)\n", r.Operator, r.Code, r.Detected, r.Applied, text.Plural(r.Worlds, "spec"))
		missed += r.Applied - r.Detected
	}
	tw.Flush()
	fmt.Fprintf(sys.stderr, "%s of %s, %d not detected by check\n", text.Plural(len(all), "corruption"), text.Plural(len(files), "spec"), missed)
	if missed > 0 {
		return exitError(exitFailure)
	}
	return nil
}

// corruptFile corrupts the spec src (read from path, "" for standard
// input). Its data files are read as check reads them, through an os.Root
// of the spec's directory: no path, symbolic links included, leads out of
// it (an os.DirFS follows a link anywhere, and a diagnostic would print
// what it read there).
func corruptFile(name, path string, src []byte, opts author.CorruptOptions) ([]author.Corruption, error) {
	if path != "" {
		root, err := os.OpenRoot(filepath.Dir(path))
		if err != nil {
			return nil, err
		}
		defer root.Close()
		opts.Data = root.FS()
	}
	return author.Corrupt(name, src, opts)
}
