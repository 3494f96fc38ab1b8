package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/schollz/progressbar/v3"

	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/text"
)

type authorCmd struct {
	endpointFlags
	seedFlag
	Out         string   `short:"o" default:"authored" placeholder:"OUT" help:"Output directory: OUT/<id>.world for worlds that passed, OUT/<id>.failed.world for the last draft of those that did not, OUT/traces/<id>.jsonl, OUT/results/<id>.json (default ${default})."`
	Build       string   `placeholder:"DIR" help:"Where worlds are generated and gated, as worldc build -o DIR (default OUT/build); the packages of the worlds that passed stay there."`
	Module      string   `placeholder:"PATH" help:"Module path of the build directory when it becomes a module of its own (default worlds)."`
	AddRuntime  bool     `name:"add-runtime" help:"When the build directory is inside a module that does not require worldc's runtime, add it there (as worldc build --add-runtime)."`
	Rounds      int      `default:"3" placeholder:"N" help:"Repair rounds a brief gets after its first draft (default ${default})."`
	NoReach     bool     `name:"no-reachability" help:"Check without predicting the gate's conformance search (W025): the gate alone judges whether every tool can succeed."`
	CheckOnly   bool     `name:"check-only" help:"Stop at worldc check: write the specs that check clean without gating them (verdict checked); gate them later with worldc build."`
	Force       bool     `help:"Redo briefs done before with the same brief, model and prompts."`
	RetryFailed bool     `name:"retry-failed" help:"Redo the briefs that failed before."`
	Jobs        int      `short:"j" default:"4" placeholder:"N" help:"Briefs worked on at once (default ${default})."`
	GateJobs    int      `name:"gate-jobs" default:"1" placeholder:"N" help:"Worlds gated at once (default ${default}: go test builds in parallel already)."`
	JSON        bool     `help:"Print the summary as JSON on stdout instead of a line per brief."`
	PrintPrompt bool     `name:"print-prompt" help:"Print the messages of each brief's first request, exactly as they would be sent, and exit without sending anything."`
	Briefs      []string `arg:"" name:"briefs" help:"Brief files (.txt, .md: one brief each, the id is the file name), JSONL files ({\"id\", \"brief\", …} a line) or directories of them."`
}

// Run is the authoring loop on the briefs (see internal/author).
func (c *authorCmd) Run(sys *stdio) error {
	if err := c.validate(!c.PrintPrompt); err != nil {
		return err
	}
	if c.Rounds < 0 || c.Jobs < 1 || c.GateJobs < 1 {
		return usagef("--rounds must not be negative, -j and --gate-jobs must be positive")
	}
	paths := make([]string, len(c.Briefs))
	for i, p := range c.Briefs {
		paths[i] = absPath(sys.cwd, p)
	}
	briefs, err := author.LoadBriefs(paths)
	if err != nil {
		return usagef("%v", err)
	}
	prompts, err := c.prompts()
	if err != nil {
		return err
	}
	if c.PrintPrompt {
		for _, b := range briefs {
			msgs, err := prompts.Author(b)
			if err != nil {
				return err
			}
			fmt.Fprintf(sys.stdout, "#### brief %s (prompt version %s, about %d tokens)\n%s", b.ID, prompts.Version(), author.MessagesTokens(msgs), author.FormatMessages(msgs))
		}
		return nil
	}
	out := absPath(sys.cwd, c.Out)
	r := &author.Runner{Prompts: prompts, Client: c.client(c.Seed),
		Opts: author.Options{Out: out, Rounds: c.Rounds, CheckOnly: c.CheckOnly, Force: c.Force, RetryFailed: c.RetryFailed, Jobs: c.Jobs, NoReachability: c.NoReach}}
	if !c.CheckOnly {
		build := filepath.Join(out, "build")
		if c.Build != "" {
			build = absPath(sys.cwd, c.Build)
		}
		if r.Gate, err = author.NewGate(sys.ctx, build, author.GateOptions{ModulePath: c.Module, AddRuntime: c.AddRuntime, Version: worldcVersion(), Jobs: c.GateJobs}); err != nil {
			return err
		}
	}
	p := &briefPrinter{sys: sys, quiet: c.JSON}
	r.OnStart, r.OnResult = p.start, p.result
	s, err := r.Run(sys.ctx, briefs)
	p.finish()
	if err != nil {
		return err
	}
	if c.JSON {
		data, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return err
		}
		sys.stdout.Write(append(data, '\n'))
	} else {
		fmt.Fprint(sys.stdout, s.Text())
	}
	if !s.OK() {
		return exitError(exitFailure)
	}
	return nil
}

// briefPrinter prints a line per brief as it finishes, with a progress bar
// below on a terminal.
type briefPrinter struct {
	sys   *stdio
	quiet bool
	bar   *progressbar.ProgressBar
}

func (p *briefPrinter) start(todo int) {
	if p.sys.terminal && todo > 0 {
		p.bar = newBar(p.sys.stderr, todo, "author", "")
	}
}

func (p *briefPrinter) result(r author.Result) {
	if p.bar != nil {
		p.bar.Clear()
	}
	if !p.quiet {
		switch r.Verdict {
		case author.ResultPassed, author.ResultChecked:
			word := "ok"
			if r.Verdict == author.ResultChecked {
				word = "check"
			}
			fmt.Fprintf(p.sys.stdout, "%-6s %s  %s, %s, %.1fs\n", word, r.ID, text.Plural(r.Rounds, "round"), text.Plural(r.Tokens.Total(), "token"), r.Seconds)
		default:
			fmt.Fprintf(p.sys.stdout, "%-6s %s  %s\n", "FAIL", r.ID, text.Printable(r.Reason))
		}
	}
	if p.bar != nil {
		p.bar.Add(1)
	}
}

func (p *briefPrinter) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
	}
}
