package gate

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Stage is where a world failed the gate.
type Stage string

// The stages of the gate, in order.
const (
	StageCheck     Stage = "check"     // the spec has errors (set by callers that check specs)
	StageGenerate  Stage = "generate"  // the code generator failed (set by callers that generate)
	StageLoad      Stage = "load"      // the package could not be found or listed
	StageTypecheck Stage = "typecheck" // go/packages found type errors
	StageBuild     Stage = "build"     // go test could not build it (compile, link or vet)
	StageTest      Stage = "test"      // its tests failed
)

// WorldResult is the gate's verdict on one world package.
type WorldResult struct {
	World   string  `json:"world"`   // the package name: the world's name
	Package string  `json:"package"` // the import path
	OK      bool    `json:"ok"`
	Stage   Stage   `json:"stage,omitempty"`  // where it failed; empty when OK
	Reason  string  `json:"reason,omitempty"` // one line; empty when OK
	Errors  []Error `json:"errors,omitempty"` // every error found, in order
	Seconds float64 `json:"seconds"`          // the tests' own run time as go test reports it
	Cached  bool    `json:"cached,omitempty"` // go test reused a cached result
}

// Error is one problem found in a world package: at a Go position when it
// has one, and at the spec position it comes from when that can be told.
type Error struct {
	Go      string `json:"go,omitempty"`   // file:line:col in the generated package
	Spec    string `json:"spec,omitempty"` // file:line:col in the spec
	Message string `json:"message"`
}

func (e Error) String() string {
	var b strings.Builder
	if e.Go != "" {
		b.WriteString(e.Go + ": ")
	}
	b.WriteString(e.Message)
	if e.Spec != "" {
		b.WriteString(" (from " + e.Spec + ")")
	}
	return b.String()
}

// Report is the outcome of a gate run.
type Report struct {
	Worlds []WorldResult `json:"worlds"`
	Passed int           `json:"passed"`
	Failed int           `json:"failed"`
	// Seconds is the wall time of the whole run; TypecheckSeconds and
	// TestSeconds split it.
	Seconds          float64 `json:"seconds"`
	TypecheckSeconds float64 `json:"typecheck_seconds"`
	TestSeconds      float64 `json:"test_seconds"`
}

// OK reports whether every world passed.
func (r *Report) OK() bool { return r.Failed == 0 }

// VetOptions configures Vet.
type VetOptions struct {
	// Dir is the directory the go command runs in: inside the module that
	// holds the packages. Empty means the current directory.
	Dir string
	// Env is the environment of the go command; nil means os.Environ().
	Env []string
	// Workers is how many packages are built and tested at once (go test
	// -p); 0 means GOMAXPROCS.
	Workers int
	// Optimize builds the world packages with optimisations. By default the
	// gate builds them with -N -l, which compiles 20–30% faster; the
	// runtime and the rest are built as usual.
	Optimize bool
	// TypecheckOnly stops after the type-check.
	TypecheckOnly bool
	// NoCache runs the tests even when go test has a cached result.
	NoCache bool
	// LinkBatch, when positive, links the conformance checks of up to that
	// many worlds into one test binary (see EntryPoint) instead of running
	// go test on each package: far fewer links for large corpora. The
	// packages' own _test.go files and go vet are not run that way. Worlds
	// without the entry point, or whose batch fails to build, are tested
	// one package at a time.
	LinkBatch int
	// Locate maps a Go position in a world package to the spec position it
	// comes from (see NewLocator); keyed by the package's absolute
	// directory. Optional.
	Locate map[string]Locator
	// Progress, when set, is called once per world as its verdict is known.
	Progress func(r WorldResult)
	// Start, when set, is called once the worlds are known, before any
	// Progress call, with their names in the order of the report.
	Start func(worlds []string)
}

func (o *VetOptions) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// Vet runs the gate on the packages matching patterns (go package
// patterns, such as ./generated/...): a type-check of all of them with
// go/packages, then go test on those that type-check, in one invocation so
// that builds run in parallel and share the build cache. Every world gets a
// verdict; the error is for a gate that could not run at all.
func Vet(ctx context.Context, patterns []string, opts VetOptions) (*Report, error) {
	start := time.Now()
	pkgs, err := typeCheck(ctx, patterns, &opts)
	if err != nil {
		return nil, err
	}
	if len(pkgs) == 0 {
		return nil, fmt.Errorf("no packages match %s", strings.Join(patterns, " "))
	}
	if opts.Start != nil {
		names := make([]string, len(pkgs))
		for i, p := range pkgs {
			names[i] = p.Name
		}
		opts.Start(names)
	}
	report := &Report{}
	results := map[string]*WorldResult{}
	var toTest []string
	var toLink []*checkedPackage
	for _, p := range pkgs {
		r := &WorldResult{World: p.Name, Package: p.Path}
		results[p.Path] = r
		switch {
		case len(p.Errors) > 0:
			r.Stage = p.Stage
			r.Errors = p.Errors
			r.Reason = summarize(p.Stage, p.Errors)
			if opts.Progress != nil {
				opts.Progress(*r)
			}
		case opts.TypecheckOnly:
			r.OK = true
			if opts.Progress != nil {
				opts.Progress(*r)
			}
		case opts.LinkBatch > 0 && p.Entry:
			toLink = append(toLink, p)
		default:
			toTest = append(toTest, p.Path)
		}
	}
	report.TypecheckSeconds = time.Since(start).Seconds()
	testStart := time.Now()
	if len(toLink) > 0 {
		rest, err := linkedTest(ctx, toLink, &opts, func(path string, o testOutcome) {
			r := results[path]
			r.Seconds = o.Elapsed
			if o.OK {
				r.OK = true
			} else {
				r.Stage, r.Errors, r.Reason = o.Stage, o.Errors, summarize(o.Stage, o.Errors)
			}
			if opts.Progress != nil {
				opts.Progress(*r)
			}
		})
		if err != nil {
			return nil, err
		}
		for _, p := range rest {
			toTest = append(toTest, p.Path)
		}
		slices.Sort(toTest)
	}
	if len(toTest) > 0 {
		err := goTest(ctx, toTest, &opts, func(path string, o testOutcome) {
			r := results[path]
			if r == nil {
				return
			}
			r.Seconds = o.Elapsed
			r.Cached = o.Cached
			if o.OK {
				r.OK = true
			} else {
				r.Stage = o.Stage
				r.Errors = o.Errors
				r.Reason = summarize(o.Stage, o.Errors)
			}
			if opts.Progress != nil {
				opts.Progress(*r)
			}
		})
		if err != nil {
			return nil, err
		}
	}
	if len(toTest)+len(toLink) > 0 {
		report.TestSeconds = time.Since(testStart).Seconds()
	}
	for _, p := range pkgs {
		r := results[p.Path]
		if locate := opts.Locate[p.Dir]; locate != nil && p.Dir != "" {
			for i := range r.Errors {
				if r.Errors[i].Spec == "" && r.Errors[i].Go != "" {
					r.Errors[i].Spec = locate(r.Errors[i].Go)
				}
			}
			if !r.OK && r.Stage != StageTest {
				r.Reason = summarize(r.Stage, r.Errors)
			}
		}
		if r.OK {
			report.Passed++
		} else {
			report.Failed++
		}
		report.Worlds = append(report.Worlds, *r)
	}
	slices.SortStableFunc(report.Worlds, func(a, b WorldResult) int { return strings.Compare(a.Package, b.Package) })
	report.Seconds = time.Since(start).Seconds()
	return report, nil
}

// summarize is the one-line reason of a failure: the stage and the first
// error, and how many more there are.
func summarize(stage Stage, errs []Error) string {
	if len(errs) == 0 {
		return string(stage) + " failed"
	}
	var what string
	switch stage {
	case StageTypecheck:
		what = "type error"
	case StageBuild:
		what = "build failed"
	case StageTest:
		what = "test failed"
	default:
		what = string(stage) + " failed"
	}
	s := what + ": " + oneLine(errs[0].String())
	if n := len(errs) - 1; n > 0 {
		s += fmt.Sprintf(" (and %d more)", n)
	}
	return s
}

// oneLine joins a multi-line message ("have …\n\twant …") into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
