package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/schollz/progressbar/v3"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/text"
)

// gateFlags are the flags vet and build share.
type gateFlags struct {
	JSON          bool `help:"Print the report as JSON on stdout instead of verdict lines."`
	Workers       int  `short:"j" default:"0" placeholder:"N" help:"Packages type-checked, built and tested at once (default GOMAXPROCS)."`
	Optimize      bool `help:"Build the world packages with optimisations (by default the gate builds them with -N -l: faster)."`
	NoCache       bool `name:"no-cache" help:"Run the tests even when go test has a cached result."`
	TypecheckOnly bool `name:"typecheck-only" help:"Stop after the type-check."`
	Link          int  `default:"0" placeholder:"N" help:"Link the conformance checks of up to N worlds into one test binary instead of testing each package: far fewer links for many worlds (go test's vet checks run once over all of them). By default worlds are linked in batches of 25 when more than 8 are tested."`
	NoLink        bool `name:"no-link" help:"Test every package with go test, however many there are."`
}

func (f *gateFlags) validate() error {
	if f.Workers < 0 {
		return usagef("--workers must be positive")
	}
	if f.Link < 0 {
		return usagef("--link must be positive")
	}
	return nil
}

func (f *gateFlags) gateOptions() pipeline.GateOptions {
	return pipeline.GateOptions{
		Workers:       f.Workers,
		Optimize:      f.Optimize,
		NoCache:       f.NoCache,
		TypecheckOnly: f.TypecheckOnly,
		LinkBatch:     f.Link,
		NoLink:        f.NoLink,
	}
}

type vetCmd struct {
	gateFlags
	Paths []string `arg:"" optional:"" name:"dir|pattern" help:"Directories of generated worlds (every package below) or go package patterns; default generated."`
}

// Run type-checks and tests the generated world packages and prints one
// verdict per world and a summary.
func (c *vetCmd) Run(sys *stdio) error {
	if err := c.validate(); err != nil {
		return err
	}
	paths := c.Paths
	if len(paths) == 0 {
		paths = []string{"generated"}
	}
	patterns, err := pipeline.Patterns(sys.cwd, paths)
	if err != nil {
		return err
	}
	opts := &pipeline.Options{Cwd: sys.cwd, Gate: c.gateOptions()}
	p := c.printer(sys, opts)
	report, err := pipeline.Vet(sys.ctx, patterns, opts, nil, nil)
	p.finish()
	if err != nil {
		return err
	}
	if err := c.printReport(sys, report); err != nil {
		return err
	}
	return gateStatus(report, nil)
}

// gateStatus is the exit of a gate run: 1 when a world failed.
func gateStatus(report *gate.Report, err error) error {
	if err != nil {
		return err
	}
	if !report.OK() {
		return exitError(exitFailure)
	}
	return nil
}

// printer prints the verdicts of opts's run as they are known: a line per
// world (none with --json) and a progress bar on a terminal.
func (f *gateFlags) printer(sys *stdio, opts *pipeline.Options) *verdictPrinter {
	p := &verdictPrinter{w: sys.stdout, quiet: f.JSON, typecheckOnly: f.TypecheckOnly}
	if sys.terminal && !f.JSON {
		p.barOut = sys.stderr
	}
	opts.Events.Start = p.start
	opts.Events.Verdict = p.verdict
	opts.Events.Finish = p.finish
	return p
}

// printReport prints the end of a gate run: the report as JSON with
// --json, otherwise its warnings and the summary line.
func (f *gateFlags) printReport(sys *stdio, report *gate.Report) error {
	if f.JSON {
		out, err := json.MarshalIndent(report, "", "  ")
		if err != nil {
			return err
		}
		_, err = sys.stdout.Write(append(out, '\n'))
		return err
	}
	for _, w := range report.Warnings {
		fmt.Fprintf(sys.stderr, "worldc: warning: %s\n", w)
	}
	fmt.Fprintln(sys.stdout, gateSummary(report))
	return nil
}

// gateSummary is the closing line: "8 worlds, 7 passed, 1 failed in 12.3s
// (type-check 0.9s, go test 11.2s)".
func gateSummary(r *gate.Report) string {
	s := fmt.Sprintf("%s, %d passed, %d failed in %.1fs", text.Plural(len(r.Worlds), "world"), r.Passed, r.Failed, r.Seconds)
	if r.TypecheckSeconds > 0 {
		s += fmt.Sprintf(" (type-check %.1fs, go test %.1fs)", r.TypecheckSeconds, r.TestSeconds)
	}
	return s
}

// verdictPrinter prints verdict lines as they arrive, with a progress bar
// below them on a terminal.
type verdictPrinter struct {
	mu     sync.Mutex
	w      io.Writer
	quiet  bool      // --json: no lines
	barOut io.Writer // where the bar goes; nil for none
	bar    *progressbar.ProgressBar
	width  int
	// typecheckOnly: a world that passed was type-checked, not tested.
	typecheckOnly bool
}

func (p *verdictPrinter) start(names []string, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, n := range names {
		p.width = max(p.width, len(n))
	}
	if p.barOut != nil && total > 0 {
		p.bar = newBar(p.barOut, total, "vet", "worlds")
	}
}

// verdict prints one world's line; counted says whether it advances the
// bar (worlds that failed before the gate do not).
func (p *verdictPrinter) verdict(r gate.WorldResult, counted bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.quiet {
		return
	}
	if p.bar != nil {
		p.bar.Clear()
	}
	fmt.Fprintln(p.w, verdictLine(r, p.width, p.typecheckOnly))
	// The reason names the first error; every other one follows, indented,
	// so that nothing is hidden behind "(and N more)".
	if !r.OK && len(r.Errors) > 1 {
		for _, e := range r.Errors[1:] {
			fmt.Fprintf(p.w, "      %s\n", errorLine(e))
		}
	}
	if p.bar != nil && counted {
		p.bar.Add(1)
	}
}

func (p *verdictPrinter) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
		p.bar = nil
	}
}

// verdictLine is `ok    world  0.41s` or `FAIL  world  reason`.
func verdictLine(r gate.WorldResult, width int, typecheckOnly bool) string {
	if r.OK {
		timing := fmt.Sprintf("%.2fs", r.Seconds)
		switch {
		case typecheckOnly:
			timing = "type-checked"
		case r.Cached:
			timing = "(cached)"
		}
		return fmt.Sprintf("ok    %-*s  %s", width, r.World, timing)
	}
	return fmt.Sprintf("FAIL  %-*s  %s", width, r.World, text.Printable(r.Reason))
}

// errorLine is one error of a failed world: its spec position first when
// it has one, then the message, then the Go position.
func errorLine(e gate.Error) string {
	line := e.Message
	if e.Spec != "" {
		line = e.Spec + ": " + line
	}
	if e.Go != "" {
		line += " (" + e.Go + ")"
	}
	return text.Printable(strings.Join(strings.Fields(line), " "))
}
