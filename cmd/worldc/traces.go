package main

import (
	"fmt"

	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/text"
)

type tracesCmd struct {
	Export tracesExportCmd `cmd:"" help:"Write supervision sets from the traces of worldc author: final.jsonl (brief → spec) and repairs.jsonl ((spec, findings) → repaired spec)."`
}

type tracesExportCmd struct {
	Out      string   `short:"o" default:"export" placeholder:"DIR" help:"Where final.jsonl and repairs.jsonl go (default ${default})."`
	Corrupt  bool     `help:"Add synthetic repair pairs: the corruption operators applied to every final spec."`
	Ops      []string `name:"op" placeholder:"NAME" help:"With --corrupt, only these operators (see worldc corrupt --list)."`
	MaxSites int      `name:"max-sites" default:"1" placeholder:"N" help:"With --corrupt, sites per operator and spec (default ${default}; 0: all)."`
	Dirs     []string `arg:"" name:"out" help:"Output directories of worldc author (their traces/ are read)."`
}

func (c *tracesExportCmd) Run(sys *stdio) error {
	dirs := make([]string, len(c.Dirs))
	for i, d := range c.Dirs {
		dirs[i] = absPath(sys.cwd, d)
	}
	set, err := author.ExportTraces(dirs)
	if err != nil {
		return err
	}
	fromTraces := len(set.Repairs)
	if c.Corrupt {
		ops, err := author.LookupOperators(c.Ops)
		if err != nil {
			return usagef("%v", err)
		}
		if err := set.AddCorruptions(ops, c.MaxSites); err != nil {
			return err
		}
	}
	if err := set.Write(absPath(sys.cwd, c.Out)); err != nil {
		return err
	}
	for _, r := range set.Refused {
		fmt.Fprintf(sys.stderr, "refused %s (%s): %s\n", text.Printable(r.ID), text.Printable(displayPath(sys.cwd, r.File)), text.Printable(r.Reason))
	}
	refused := ""
	if len(set.Refused) > 0 {
		refused = "; " + text.Plural(len(set.Refused), "brief") + " refused"
	}
	fmt.Fprintf(sys.stderr, "%s, %s read; %s: %d final specs, %d repair pairs (%d from traces, %d from corruptions)%s\n",
		text.Plural(set.Briefs, "brief"), text.Plural(set.Traces, "trace"), c.Out, len(set.Finals), len(set.Repairs), fromTraces, len(set.Repairs)-fromTraces, refused)
	return nil
}
