package main

import (
	"fmt"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/report"
	"github.com/worldc/worldc/internal/safefs"
)

// reportCmd renders reports as HTML (the default) or merges shards.
type reportCmd struct {
	HTML  reportHTMLCmd  `cmd:"" default:"withargs" help:"Render gate reports (of a run, or the shards of one) as one self-contained HTML page."`
	Merge reportMergeCmd `cmd:"" help:"Join the JSON reports of the shards of one corpus into one report."`
}

type reportHTMLCmd struct {
	Out     string   `short:"o" default:"report.html" placeholder:"FILE" help:"The page to write (default ${default})."`
	Title   string   `default:"worldc gate report" help:"The page's title."`
	Reports []string `arg:"" name:"report" help:"JSON reports (worldc build --report FILE, or --json)."`
}

// Run merges the reports and writes the page.
func (c *reportHTMLCmd) Run(sys *stdio) error {
	r, err := readReports(sys, c.Reports)
	if err != nil {
		return err
	}
	page, err := report.HTML(r, c.Title)
	if err != nil {
		return err
	}
	if err := safefs.WriteFile(absPath(sys.cwd, c.Out), page); err != nil {
		return err
	}
	fmt.Fprintf(sys.stderr, "%s: %d worlds, %d passed, %d failed\n", c.Out, len(r.Worlds), r.Passed, r.Failed)
	return nil
}

type reportMergeCmd struct {
	Out     string   `short:"o" required:"" placeholder:"FILE" help:"The merged JSON report to write."`
	Reports []string `arg:"" name:"report" help:"The shards' JSON reports."`
}

// Run merges the shards' reports, writes the result and prints its
// verdicts (without times: what any sharding of a corpus agrees on). It
// exits 1 when a world failed, as build does.
func (c *reportMergeCmd) Run(sys *stdio) error {
	r, err := readReports(sys, c.Reports)
	if err != nil {
		return err
	}
	if err := writeReport(absPath(sys.cwd, c.Out), r); err != nil {
		return err
	}
	fmt.Fprint(sys.stdout, report.Verdicts(r))
	return gateStatus(r, nil)
}

func readReports(sys *stdio, paths []string) (*gate.Report, error) {
	var rs []*gate.Report
	for _, p := range paths {
		r, err := report.Read(absPath(sys.cwd, p))
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return report.Merge(rs)
}
