package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// Patterns turns vet arguments into go package patterns: a directory means
// every package below it (./dir/...); dir/... and import path patterns
// pass through. A directory that does not exist is a *UsageError.
func Patterns(cwd string, args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		root, recursive, local := gate.SplitPattern(arg)
		abs := Abs(cwd, root)
		info, err := os.Stat(abs)
		switch {
		case err == nil && info.IsDir():
			rel, err := filepath.Rel(cwd, abs)
			if err != nil {
				return nil, err
			}
			switch {
			case rel == ".":
				out = append(out, "./...")
			case filepath.IsLocal(rel):
				out = append(out, "./"+filepath.ToSlash(rel)+"/...")
			default:
				out = append(out, filepath.ToSlash(abs)+"/...")
			}
		case err == nil:
			return nil, usagef("%s: not a directory", arg)
		case local || !recursive && !strings.Contains(root, "."):
			return nil, usagef("%s: no such directory", arg)
		default:
			// An import path pattern (example.com/worlds/...): go resolves it.
			out = append(out, arg)
		}
	}
	return out, nil
}

// vetOptions are the gate's options for a run.
func (o *Options) vetOptions() gate.VetOptions {
	rt, _ := output.EmbeddedRuntime() // read once at start-up already: it cannot fail now
	return gate.VetOptions{
		Runtime:       rt,
		Dir:           o.Cwd,
		Workers:       o.Gate.Workers,
		Optimize:      o.Gate.Optimize,
		NoCache:       o.Gate.NoCache,
		TypecheckOnly: o.Gate.TypecheckOnly,
		LinkBatch:     o.Gate.LinkBatch,
		NoLink:        o.Gate.NoLink,
	}
}

// Vet runs the gate on the packages matching patterns and returns the
// report, sorted by world. decided are verdicts known before the gate
// (specs with errors, verdicts from the cache): they are told first and
// join the report. locate places the gate's errors in the specs (by the
// package's absolute directory; optional).
func Vet(ctx context.Context, patterns []string, opts *Options, decided []gate.WorldResult, locate map[string]gate.Locator) (*gate.Report, error) {
	start := time.Now()
	ev := &opts.Events
	vo := opts.vetOptions()
	vo.Locate = locate
	vo.Start = func(worlds []string) {
		names := slices.Clone(worlds)
		for _, r := range decided {
			names = append(names, r.World)
		}
		if ev.Start != nil {
			ev.Start(names, len(worlds))
		}
		if ev.Verdict != nil {
			for _, r := range decided {
				ev.Verdict(r, false)
			}
		}
	}
	vo.Progress = func(r gate.WorldResult) {
		if ev.Verdict != nil {
			ev.Verdict(r, true)
		}
	}
	report := &gate.Report{}
	if len(patterns) > 0 {
		var err error
		report, err = gate.Vet(ctx, patterns, vo)
		if ev.Finish != nil {
			ev.Finish()
		}
		if err != nil {
			return nil, err
		}
	} else {
		vo.Start(nil)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // verdicts of an interrupted gate are not verdicts
	}
	report.Worlds = append(report.Worlds, decided...)
	for _, r := range decided {
		if r.OK {
			report.Passed++
		} else {
			report.Failed++
		}
	}
	slices.SortStableFunc(report.Worlds, func(a, b gate.WorldResult) int { return strings.Compare(a.World, b.World) })
	report.Seconds = time.Since(start).Seconds()
	return report, nil
}
