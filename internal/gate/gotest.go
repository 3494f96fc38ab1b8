package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// testOutcome is what go test said about one package.
type testOutcome struct {
	OK      bool
	Stage   Stage
	Errors  []Error
	Elapsed float64
	Cached  bool
}

// testEvent is one line of `go test -json` (see `go doc test2json`).
type testEvent struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail events
	Test        string
	Output      string
	Elapsed     float64
	FailedBuild string
}

// buildFlags are the go command's flags for building world packages (the
// packages pkgs have in common): without optimisations unless
// opts.Optimize (-N -l: the gate runs each world's tests once, so compiling
// them is most of its time), and without debugging information (-dwarf=false
// for the worlds, -w for the test binaries' link), which no verdict reads:
// stack traces and test failures take their positions from the binary's
// line tables, which stay.
func buildFlags(pkgs []string, opts *VetOptions) []string {
	flags := []string{"-ldflags=-w"}
	gc := "-dwarf=false"
	if !opts.Optimize {
		gc = "-N -l " + gc
	}
	if pattern := commonPattern(pkgs); pattern != "" {
		flags = append(flags, "-gcflags="+pattern+"="+gc)
	}
	return flags
}

// goTest runs `go test -json` once on all pkgs, with opts.Workers packages
// built and tested in parallel, and calls done for each package as its
// result arrives.
func goTest(ctx context.Context, pkgs []string, opts *VetOptions, done func(path string, o testOutcome)) error {
	args := append([]string{"test", "-json", "-p", strconv.Itoa(opts.workers())}, buildFlags(pkgs, opts)...)
	if opts.NoCache {
		args = append(args, "-count=1")
	}
	args = append(args, pkgs...)
	cmd, remove, err := goCommand(ctx, opts, args...)
	if err != nil {
		return err
	}
	defer remove()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("go test: %w", err)
	}
	reported := map[string]bool{}
	parseErr := parseTestEvents(stdout, func(path string, o testOutcome) {
		if ctx.Err() != nil {
			return // what go test says once stopped (a test binary killed) is no verdict
		}
		reported[path] = true
		done(path, o)
	})
	waitErr := cmd.Wait()
	if err := ctx.Err(); err != nil {
		return err // the packages not reported were not judged
	}
	if parseErr != nil {
		return fmt.Errorf("go test: reading its output: %w", parseErr)
	}
	// go test exits 1 when a package fails; that is a verdict, not an error.
	// A package that got no verdict is one go test could not even set up.
	for _, p := range pkgs {
		if !reported[p] {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" && waitErr != nil {
				msg = waitErr.Error()
			}
			if msg == "" {
				msg = "go test reported nothing for this package"
			}
			done(p, testOutcome{Stage: StageBuild, Errors: []Error{{Message: firstLine(msg)}}})
		}
	}
	return nil
}

// parseTestEvents reads go test -json output and reports each package's
// outcome when its final event arrives.
func parseTestEvents(r io.Reader, done func(path string, o testOutcome)) error {
	type pkgState struct {
		build  []string // build output lines
		output []string // test output lines, in order
		failed map[string]bool
	}
	states := map[string]*pkgState{}
	state := func(path string) *pkgState {
		s := states[path]
		if s == nil {
			s = &pkgState{failed: map[string]bool{}}
			states[path] = s
		}
		return s
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var ev testEvent
		if err := json.Unmarshal(line, &ev); err != nil {
			continue
		}
		switch ev.Action {
		case "build-output":
			s := state(importPathOf(ev.ImportPath))
			s.build = append(s.build, strings.TrimRight(ev.Output, "\n"))
		case "output":
			if ev.Package != "" {
				state(ev.Package).output = append(state(ev.Package).output, strings.TrimRight(ev.Output, "\n"))
			}
		case "pass", "fail", "skip":
			if ev.Package == "" {
				continue
			}
			if ev.Test != "" {
				if ev.Action == "fail" {
					state(ev.Package).failed[ev.Test] = true
				}
				continue
			}
			s := state(ev.Package)
			o := testOutcome{OK: ev.Action != "fail", Elapsed: ev.Elapsed}
			for _, l := range s.output {
				if strings.HasPrefix(l, "ok  \t") && strings.HasSuffix(l, "(cached)") {
					o.Cached = true
				}
			}
			if !o.OK {
				if ev.FailedBuild != "" || len(s.build) > 0 {
					o.Stage = StageBuild
					o.Errors = buildErrors(s.build)
					// A dependency that failed to build (the runtime, say)
					// has its output under its own path.
					if dep := importPathOf(ev.FailedBuild); dep != "" && dep != ev.Package && states[dep] != nil {
						o.Errors = append(o.Errors, buildErrors(states[dep].build)...)
					}
				} else {
					o.Stage = StageTest
					o.Errors = testErrors(s.output)
				}
				if len(o.Errors) == 0 {
					o.Errors = []Error{{Message: "go test failed without saying why"}}
				}
			}
			delete(states, ev.Package)
			done(ev.Package, o)
		}
	}
	return sc.Err()
}

// importPathOf strips the variant from "p [p.test]".
func importPathOf(id string) string {
	if i := strings.Index(id, " ["); i >= 0 {
		return id[:i]
	}
	return id
}

// goPosLine matches a compiler or vet message "file.go:12:3: message".
var goPosLine = regexp.MustCompile(`^((?:[^:\s]+/)?[^:\s]+\.go:\d+(?::\d+)?): (.*)$`)

// buildErrors turns build output into errors: positioned lines, and other
// lines that say something ("# pkg" headers dropped).
func buildErrors(lines []string) []Error {
	var out []Error
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if m := goPosLine.FindStringSubmatch(l); m != nil {
			out = append(out, Error{Go: m[1], Message: m[2]})
			continue
		}
		out = append(out, Error{Message: l})
	}
	return out
}

// testErrors picks the failure messages out of a package's test output:
// what t.Error and friends printed (indented "file_test.go:12: message"
// lines and their continuations), and panics.
func testErrors(lines []string) []Error {
	var out []Error
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimSpace(l)
		switch {
		case trimmed == "", strings.HasPrefix(trimmed, "=== "), strings.HasPrefix(trimmed, "--- "),
			trimmed == "FAIL", trimmed == "PASS", strings.HasPrefix(trimmed, "FAIL\t"), strings.HasPrefix(trimmed, "ok  \t"),
			strings.HasPrefix(trimmed, "exit status "):
			continue
		case strings.HasPrefix(trimmed, "panic: "):
			msg, _, _ := strings.Cut(trimmed, " [recovered")
			out = append(out, Error{Message: msg})
			return out // the goroutine dump that follows is noise here
		}
		if m := goPosLine.FindStringSubmatch(trimmed); m != nil && strings.HasPrefix(l, "    ") {
			msg := m[2]
			// continuation lines of a multi-line message are indented deeper
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "        ") {
				i++
				msg += " " + strings.TrimSpace(lines[i])
			}
			out = append(out, Error{Go: m[1], Message: msg})
			continue
		}
		out = append(out, Error{Message: trimmed})
	}
	return out
}

// commonPattern is the narrowest go package pattern covering every path:
// "p/..." for their longest common path prefix, or the path itself for
// one package.
func commonPattern(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	if len(paths) == 1 {
		return paths[0]
	}
	prefix := strings.Split(paths[0], "/")
	for _, p := range paths[1:] {
		parts := strings.Split(p, "/")
		n := 0
		for n < len(prefix) && n < len(parts) && prefix[n] == parts[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if len(prefix) == 0 {
		return ""
	}
	return strings.Join(prefix, "/") + "/..."
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
