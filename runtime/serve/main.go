package serve

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/serve/eval"
)

// Main is the whole program of a bundle's binary: worldc generates
// `func main() { serve.Main("name", world1.New(), world2.New()) }`. It never
// returns.
func Main(bundle string, worlds ...runtime.World) {
	os.Exit(Run(bundle, worlds, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `usage: %[1]s COMMAND [flags]

  %[1]s serve [--addr HOST:PORT] [--control-addr HOST:PORT] [--control-token T]
        [--max-episodes N] [--idle-timeout D] ... (serve -h lists them all)
        the episode server: JSON API (/v1/...), MCP (/mcp/{world}?task=T,
        /v1/episodes/{id}/mcp), OpenEnv WebSocket (/ws), /healthz, /metrics;
        the control plane (episodes, grade, state) behind the token
  %[1]s stdio --world W [--task T] [--prefix K] [--grade-to FILE]
        [--answer-file A]
        one episode over MCP on stdin and stdout (after the first K steps
        of the task's golden solution); its grade and trajectory are
        written to FILE when the client disconnects, graded with the
        agent's final message read from A then (if A exists)
  %[1]s verify [--bundle DIR] [--eval DIR]
        replay every golden solution and check every hash against the
        bundle's manifest.json (default: the directory above this binary);
        --eval DIR: replay the trajectories of an eval run instead
  %[1]s eval --model M -o DIR [--base-url URL] [--world W] [--task T]...
        [-k K] [--max-turns N] [-j J] [--user instruction|simulated]
        [--user-model M2] [--prefix K] [--curriculum] (eval -h: all flags)
        run an OpenAI-compatible model as the agent on every task, K trials
        each: DIR/results.jsonl, trajectories/, summary.json (pass^k by
        world, origin, difficulty), report.html; the same DIR resumes
  %[1]s export DIR
        write the per-world files of a bundle (worldc bundle runs it)
  %[1]s worlds
        list the worlds and their tasks
`

// Run runs a command of the bundle binary and returns its exit status: 0
// success, 1 failure, 2 bad usage.
func Run(bundle string, worlds []runtime.World, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stderr, usage, bundle)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cmd, rest := args[0], args[1:]
	fs := flag.NewFlagSet(bundle+" "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var err error
	switch cmd {
	case "serve":
		cfg, ok := serveFlags(fs, rest, stderr)
		if !ok {
			return 2
		}
		err = serveCmd(worlds, cfg, stdout)
	case "stdio":
		world := fs.String("world", "", "the world (may be omitted when the bundle has one)")
		task := fs.String("task", "", "the task (empty: the world seed, no rubric)")
		gradeTo := fs.String("grade-to", "", "when the client disconnects, write {grade, trajectory} as JSON to this file")
		prefix := fs.Int("prefix", 0, "start after the first `K` steps of the task's golden solution")
		answerFile := fs.String("answer-file", "", "when the client disconnects, grade with the agent's final message read from this `file` (the harness writes it before closing stdin; no file: graded without an answer)")
		if fs.Parse(rest) != nil || fs.NArg() > 0 {
			return 2
		}
		if *answerFile != "" && *gradeTo == "" {
			fmt.Fprintf(stderr, "%s stdio: --answer-file needs --grade-to (the grade is written there)\n", bundle)
			return 2
		}
		w := *world
		if w == "" && len(worlds) == 1 {
			w = worlds[0].Info().Name
		}
		err = stdioCmd(worlds, w, *task, *prefix, *gradeTo, *answerFile, stdin, stdout, stderr)
	case "verify":
		dir := fs.String("bundle", "", "the bundle directory (default: the directory above this binary)")
		evalDir := fs.String("eval", "", "replay the trajectories of the eval run in this directory instead")
		if fs.Parse(rest) != nil || fs.NArg() > 0 {
			return 2
		}
		if *evalDir != "" {
			err = verifyEvalCmd(worlds, *evalDir, stdout)
			break
		}
		err = verifyCmd(worlds, *dir, stdout)
	case "eval":
		return eval.Main(bundle, worlds, rest, stdout, stderr)
	case "export":
		if fs.Parse(rest) != nil || fs.NArg() != 1 {
			fmt.Fprintf(stderr, "usage: %s export DIR\n", bundle)
			return 2
		}
		err = Export(worlds, fs.Arg(0), ExportOptions{Bundle: bundle})
	case "worlds":
		for _, w := range worlds {
			info := w.Info()
			fmt.Fprintf(stdout, "%s\t%s\t%d tools\t%d tasks\n", info.Name, info.Title, len(w.Tools()), len(w.Tasks()))
		}
	default:
		fmt.Fprintf(stderr, "%s: unknown command %q\n", bundle, cmd)
		fmt.Fprintf(stderr, usage, bundle)
		return 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "%s %s: %v\n", bundle, cmd, err)
		return 1
	}
	return 0
}

func stdioCmd(worlds []runtime.World, world, task string, prefix int, gradeTo, answerFile string, stdin io.Reader, stdout, stderr io.Writer) error {
	s, err := New(worlds, Options{Logger: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var done func(*StdioEnd) error
	if gradeTo != "" {
		done = func(end *StdioEnd) error {
			answer, err := readAnswerFile(answerFile)
			if err != nil {
				return err
			}
			g, err := end.Grade(answer)
			if err != nil {
				return err
			}
			data, err := marshalIndent(StdioResult{World: world, Task: task, Grade: g, Trajectory: nonNil(end.Trajectory), Answer: answer})
			if err != nil {
				return err
			}
			return os.WriteFile(gradeTo, data, 0o644)
		}
	}
	return s.ServeStdioAt(ctx, world, task, prefix, stdin, stdout, done)
}

// StdioResult is what `stdio --grade-to FILE` writes when the client
// disconnects.
type StdioResult struct {
	World      string         `json:"world"`
	Task       string         `json:"task"`
	Grade      runtime.Grade  `json:"grade"`
	Trajectory []runtime.Step `json:"trajectory"`
	// Answer is the final message the episode was graded with (from
	// --answer-file), absent when it was graded without one.
	Answer *string `json:"answer,omitempty"`
}

// readAnswerFile reads the agent's final message for stdio's grade: nil
// when name is "" or the file does not exist; a file over MaxAnswerBytes
// is an error.
func readAnswerFile(name string) (*string, error) {
	if name == "" {
		return nil, nil
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAnswerBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxAnswerBytes {
		return nil, fmt.Errorf("--answer-file %s: %w", name, answerTooLong())
	}
	return checkAnswer(string(data))
}

// defaultBundleDir is the directory above the running binary (bin/).
func defaultBundleDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	exe, err = filepath.EvalSymlinks(exe)
	if err != nil {
		return "", err
	}
	return filepath.Dir(filepath.Dir(exe)), nil
}
