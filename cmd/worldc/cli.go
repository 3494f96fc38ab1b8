package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/pipeline"
	"golang.org/x/term"
)

// Exit codes, as gofmt and the go command use them.
const (
	exitOK      = 0
	exitFailure = 1 // problems found in the inputs
	exitUsage   = 2 // the command line is wrong
	// exitInterrupted is the status of a command stopped by an interrupt,
	// 128+SIGINT as shells report it; a command stopped by another signal
	// exits 128 plus its number (143 for SIGTERM).
	exitInterrupted = 130
)

// stdio is what a command may touch of the process: its context, streams
// and working directory. Tests give their own.
type stdio struct {
	// ctx is cancelled when the command should stop: by the first SIGINT
	// or SIGTERM, with an interrupt as its cause (see signalContext).
	ctx context.Context
	// release gives those signals their default effect back, for commands
	// that do not watch ctx (see watchesContext); nil when there is nothing
	// to release.
	release        func()
	stdin          io.Reader
	stdout, stderr io.Writer
	cwd            string
	// terminal reports whether stdout is a terminal (for progress bars).
	terminal bool
}

func newStdio(ctx context.Context, release func()) *stdio {
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "."
	}
	return &stdio{ctx: ctx, release: release, stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, cwd: cwd, terminal: isTerminal(os.Stdout)}
}

// watchesContext are the commands that stop when sys.ctx is cancelled:
// they run go commands that take long (the gate, a bundle's build) or ask
// a model (author; tasks, which also stops between worlds). The
// others get the signals' default effect back before they run, so that an
// interrupt ends them at once instead of being held for a context they do
// not read; briefs watches signals of its own.
var watchesContext = map[string]bool{"vet": true, "build": true, "bundle": true, "author": true, "tasks": true}

// isTerminal reports whether f is a terminal: a character device that
// answers the terminal's ioctl (/dev/null is a character device too, and
// `worldc build >/dev/null 2>log` must not fill log with a progress bar).
func isTerminal(f *os.File) bool {
	return term.IsTerminal(int(f.Fd()))
}

// cli is the command line. Each command is a struct with a Run(*stdio) error
// method, in a file of its own.
type cli struct {
	Check      checkCmd      `cmd:"" help:"Check world specs and report every diagnostic."`
	Fmt        fmtCmd        `cmd:"" help:"Format world specs canonically (like gofmt)."`
	Gen        genCmd        `cmd:"" help:"Check specs and generate their Go packages into DIR/<world>/."`
	Vet        vetCmd        `cmd:"" help:"The executability gate: type-check and go test generated world packages."`
	Build      buildCmd      `cmd:"" help:"Check, generate and vet: the main job."`
	Synth      synthCmd      `cmd:"" help:"Write a synthetic corpus of N distinct valid worlds, deterministic for a seed (for measuring the gate at scale)."`
	Tasks      tasksCmd      `cmd:"" help:"Synthesise verified tasks for worlds: dependency chains, loops and refusals with rubrics from the state diff, in template words or (with --model) words a model writes and the dataflow check verifies; or print or draw the tool-dependency graph."`
	Report     reportCmd     `cmd:"" help:"Render gate reports as an HTML page, or merge the reports of shards."`
	Bundle     bundleCmd     `cmd:"" help:"Build a bundle for trainers: one server binary (JSON API, MCP, OpenEnv WebSocket) with schemas, tasks and golden trajectories."`
	Explain    explainCmd    `cmd:"" help:"Explain a diagnostic code: its validator, hint and a failing example."`
	Validators validatorsCmd `cmd:"" help:"List the structural validators."`
	Grammar    grammarCmd    `cmd:"" help:"Print the grammar of the world language in EBNF."`
	Version    versionCmd    `cmd:"" help:"Print worldc's version, its Go version and the runtime it generates code for."`
	Author     authorCmd     `cmd:"" help:"Write worlds from business briefs with an LLM: draft, check, gate, repair; traces for training."`
	Traces     tracesCmd     `cmd:"" help:"Work with the construction traces of worldc author."`
	Corrupt    corruptCmd    `cmd:"" help:"Apply named corruption operators to valid specs: synthetic repair pairs, and a test of the checker."`
	Briefs     briefsCmd     `cmd:"" help:"Sample briefs from the taxonomy with an LLM, and report what a corpus covers."`

	VersionFlag kong.VersionFlag `name:"version" help:"Print the version and exit."`
}

const description = `Compile world specs into typed Go environment packages.

A PATH is a spec file, a directory (every *.world below it, sorted) or dir/...;
"-" reads standard input. Exit status: 0 success, 1 problems found, 2 bad usage.`

// usageError is a command line that is well-formed for the parser but wrong
// (an unknown code, a path that does not exist). It exits 2. It is the
// pipeline's, which refuses paths that name no spec.
type usageError = pipeline.UsageError

func usagef(format string, args ...any) error {
	return &usageError{Msg: fmt.Sprintf(format, args...)}
}

// exitError ends the command with a status; whatever explains it has been
// printed already.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

// exitRequest is panicked by kong's Exit hook (after --help) and recovered by
// run, so that run returns instead of exiting the process.
type exitRequest int

// run parses args, runs the command and returns the exit status. It never
// lets a panic of the command line parser reach the user.
func run(args []string, sys *stdio) (code int) {
	if sys.ctx == nil {
		sys.ctx = context.Background()
	}
	var c cli
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		fmt.Fprintf(sys.stderr, "worldc: internal error: %v\n", err)
		return exitFailure
	}
	parser, err := kong.New(&c,
		kong.Vars{"version": strings.TrimRight(versionText(rt), "\n")},
		kong.Name("worldc"),
		kong.Description(description),
		kong.Writers(sys.stdout, sys.stderr),
		kong.Exit(func(code int) { panic(exitRequest(code)) }),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		// The command line model is ours: this is a bug, not bad usage.
		fmt.Fprintf(sys.stderr, "worldc: internal error: %v\n", err)
		return exitFailure
	}
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			code = int(req)
		}
	}()
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintln(sys.stderr, parseErrorLine(err))
		return exitUsage
	}
	if command, _, _ := strings.Cut(ctx.Command(), " "); !watchesContext[command] && sys.release != nil {
		sys.release()
	}
	err = ctx.Run(sys)
	if sys.ctx.Err() != nil {
		// Whatever the command returned (the context's error, or a
		// failure of what it stopped), it did not finish.
		fmt.Fprintln(sys.stderr, "worldc: interrupted")
		return interruptedStatus(sys.ctx)
	}
	return exitStatus(err, sys.stderr)
}

// interruptedStatus is the exit status of a command whose context was
// cancelled: 128 plus the number of the signal that cancelled it.
func interruptedStatus(ctx context.Context) int {
	if sig, ok := interruptedBy(ctx).(syscall.Signal); ok && sig > 0 && sig < 128 {
		return 128 + int(sig)
	}
	return exitInterrupted
}

// parseErrorLine renders a command line error as one line naming the
// command and where to find its usage.
func parseErrorLine(err error) string {
	command := "worldc"
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil {
		if sel := pe.Context.Selected(); sel != nil {
			command = sel.FullPath() // "worldc check"
		}
	}
	msg := strings.ReplaceAll(err.Error(), "\n", " ")
	if command == "worldc" {
		if strings.HasPrefix(msg, "expected one of ") && pe != nil && pe.Context != nil {
			var names []string
			for _, n := range pe.Context.Model.Children {
				names = append(names, n.Name)
			}
			msg = "missing command: one of " + strings.Join(names, ", ")
		} else if rest, ok := strings.CutPrefix(msg, "unexpected argument "); ok {
			msg = fmt.Sprintf("unknown command %q", rest)
		}
	}
	// kong says `expected "<path> ..."` for a missing argument.
	if rest, ok := strings.CutPrefix(msg, `expected "<`); ok && strings.HasSuffix(rest, `"`) {
		msg = "missing argument <" + strings.TrimSuffix(rest, `"`)
	}
	return fmt.Sprintf("%s: %s (see '%s --help')", command, msg, command)
}

// exitStatus maps a command's error to an exit status, printing it when it
// has not been printed.
func exitStatus(err error, stderr io.Writer) int {
	var ee exitError
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ee):
		return int(ee)
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "worldc: %s\n", ue.Msg)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "worldc: %v\n", err)
		return exitFailure
	}
}
