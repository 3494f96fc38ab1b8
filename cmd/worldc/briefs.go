package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/text"
)

type briefsCmd struct {
	Sample   briefsSampleCmd   `cmd:"" help:"Sample cells of the taxonomy (industry × country × capability × difficulty) and ask the model for a brief per cell: JSONL for worldc author."`
	Coverage briefsCoverageCmd `cmd:"" help:"Count the briefs of a corpus per taxonomy cell and value, and the worlds that passed when given worldc author's output."`
}

type briefsSampleCmd struct {
	endpointFlags
	seedFlag
	N           int    `short:"n" default:"10" help:"Number of briefs (default ${default})."`
	SampleSeed  uint64 `name:"sample-seed" default:"1" placeholder:"N" help:"Seed of the sampling of cells (default ${default})."`
	Out         string `short:"o" default:"briefs.jsonl" placeholder:"FILE" help:"The JSONL file written (default ${default})."`
	Jobs        int    `short:"j" default:"4" placeholder:"N" help:"Requests at once (default ${default})."`
	PrintPrompt bool   `name:"print-prompt" help:"Print the request for each sample and exit without sending anything."`
}

func (c *briefsSampleCmd) Run(sys *stdio) error {
	if err := c.validate(!c.PrintPrompt); err != nil {
		return err
	}
	if c.N < 1 || c.Jobs < 1 {
		return usagef("-n and -j must be positive")
	}
	tax, err := author.LoadTaxonomy()
	if err != nil {
		return err
	}
	prompts, err := c.prompts()
	if err != nil {
		return err
	}
	samples := tax.Sample(c.N, c.SampleSeed)
	if c.PrintPrompt {
		for _, s := range samples {
			msgs, err := prompts.BriefRequest(s)
			if err != nil {
				return err
			}
			fmt.Fprintf(sys.stdout, "#### sample %s\n%s", s.ID, author.FormatMessages(msgs))
		}
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	briefs, usage, errs := author.WriteBriefs(ctx, c.client(c.Seed), prompts, samples, c.Jobs, nil)
	// Written whole and atomically: a link planted at -o is replaced, not
	// written through (see safefs.WriteFile).
	var out bytes.Buffer
	if err := author.WriteJSONL(&out, briefs); err != nil {
		return err
	}
	if err := safefs.WriteFile(absPath(sys.cwd, c.Out), out.Bytes()); err != nil {
		return err
	}
	for _, e := range errs {
		fmt.Fprintf(sys.stderr, "FAIL  %v\n", e)
	}
	fmt.Fprintf(sys.stderr, "%s written to %s (%s of %d cells), %d failed; tokens %d (prompt %d, completion %d)\n",
		text.Plural(len(briefs), "brief"), c.Out, tax.Version, tax.Cells(), len(errs), usage.Total(), usage.Prompt, usage.Completion)
	if len(errs) > 0 {
		return exitError(exitFailure)
	}
	return nil
}

type briefsCoverageCmd struct {
	Results string   `placeholder:"OUT" help:"An output directory of worldc author: count the worlds that passed too."`
	JSON    bool     `help:"Print the report as JSON."`
	Briefs  []string `arg:"" name:"briefs" help:"Brief files or directories, as worldc author takes them."`
}

func (c *briefsCoverageCmd) Run(sys *stdio) error {
	paths := make([]string, len(c.Briefs))
	for i, p := range c.Briefs {
		paths[i] = absPath(sys.cwd, p)
	}
	briefs, err := author.LoadBriefs(paths)
	if err != nil {
		return usagef("%v", err)
	}
	tax, err := author.LoadTaxonomy()
	if err != nil {
		return err
	}
	var passed map[string]bool
	if c.Results != "" {
		if passed, err = author.PassedBriefs(absPath(sys.cwd, c.Results)); err != nil {
			return err
		}
	}
	cov := tax.Coverage(briefs, passed)
	if c.JSON {
		data, err := json.MarshalIndent(cov, "", "  ")
		if err != nil {
			return err
		}
		_, err = sys.stdout.Write(append(data, '\n'))
		return err
	}
	_, err = fmt.Fprint(sys.stdout, cov.Text())
	return err
}
