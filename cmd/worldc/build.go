package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/cache"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/safefs"
)

type buildCmd struct {
	outFlags
	gateFlags
	Shard    string   `placeholder:"I/N" help:"Build only shard I of N (0-based) of the specs, chosen by content hash (stable when specs are added). Default: JOB_COMPLETION_INDEX and WORLDC_SHARD_COUNT when both are set (a Kubernetes Indexed Job)."`
	Report   string   `placeholder:"FILE" help:"Also write the JSON report to FILE (for worldc report and report merge)."`
	CacheDir string   `name:"cache-dir" placeholder:"DIR" help:"The verdict cache (default $WORLDC_CACHE, else the user cache directory's worldc/verdicts)."`
	Paths    []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

// Run is the main job: check every spec, generate the worlds that check
// clean into DIR, and vet them. A world that fails at any step gets a FAIL
// verdict with the reason, and the others go on (unlike gen, which writes
// nothing unless every spec is clean). A world whose spec, data files,
// generated files, worldc, runtime and Go are unchanged since a verdict
// takes that verdict from the cache (--no-cache: never).
func (c *buildCmd) Run(sys *stdio) error {
	if err := c.validate(); err != nil {
		return err
	}
	files, err := expandPaths(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	shard, count, err := c.shard()
	if err != nil {
		return err
	}
	outDir := absPath(sys.cwd, c.Out)
	vc, err := c.openCache(sys)
	if err != nil {
		// No cache is no reason not to build: every world is judged anew.
		fmt.Fprintf(sys.stderr, "worldc: warning: no verdict cache: %v\n", err)
		vc = nil
	}
	// Read every spec once: its bytes decide its shard and its cache key.
	var todo []specFile
	var decided []gate.WorldResult
	keys := map[string]string{} // spec path → cache key
	for _, f := range files {
		if f.isStdin() {
			todo = append(todo, f) // read once, by the check: no shard, no cache
			continue
		}
		src, err := f.read(sys)
		if err == nil && count > 1 && shardOf(src, count) != shard {
			continue
		}
		if err == nil && vc != nil {
			key := vc.Key(cache.Input{Spec: src, Options: c.cacheOptions()})
			keys[f.path] = key
			if e, ok := vc.Get(key, outDir); ok && !c.NoCache {
				r := e.Result
				r.Cached = true
				decided = append(decided, r)
				continue
			}
		}
		todo = append(todo, f)
	}
	mod, err := c.planModule(sys)
	if err != nil {
		return err
	}
	if err := c.applyModule(sys, mod); err != nil {
		return err
	}
	// Check, generate and write the specs a chunk at a time, keeping of
	// each world only what the gate and the report need: worldc's memory
	// does not grow with the corpus by the worlds' IR and generated files.
	opts := c.options(sys)
	opts.Locate = map[string]gate.Locator{}
	var patterns []string
	built := map[string]builtWorld{}        // by world name
	failedCheck := map[string]checkedSpec{} // by the name of its verdict
	seen := map[string]string{}             // world → the spec that defines it
	var changes []output.Change
	generated := 0
	for start := 0; start < len(todo); start += buildChunk {
		results := checkFiles(sys, todo[start:min(start+buildChunk, len(todo))])
		var outs []output.Output
		var chunk []checkResult
		for _, r := range results {
			if !c.JSON {
				fmt.Fprint(sys.stderr, r.diags.Text())
			}
			if r.world == nil {
				res := checkFailure(r)
				decided = append(decided, res)
				failedCheck[res.World] = checkedSpec{path: r.file.path, diags: errorDiagnostics(r.diags), deps: r.deps}
				continue
			}
			if other, dup := seen[r.world.Name]; dup {
				// One failed verdict, not a failed run: in a corpus an LLM
				// wrote, two specs may well pick one name. Not cached: it
				// depends on the other spec.
				d := duplicateWorld(r, other)
				if !c.JSON {
					fmt.Fprint(sys.stderr, compiler.Diagnostics{d}.Text())
				}
				r.diags, r.world = append(r.diags, d), nil
				res := checkFailure(r)
				res.Diagnostics = []compiler.Diagnostic{d}
				decided = append(decided, res)
				continue
			}
			seen[r.world.Name] = r.file.name
			out, err := generateWorld(r)
			if err != nil {
				decided = append(decided, gate.WorldResult{World: r.world.Name, Stage: gate.StageGenerate,
					Reason: "generate: " + err.Error(), Errors: []gate.Error{{Message: err.Error()}}, Spec: r.file.name, Meta: worldMeta(r.world)})
				continue
			}
			outs = append(outs, out)
			chunk = append(chunk, r)
		}
		ch, err := output.Plan(outDir, outs)
		if err != nil {
			return err
		}
		if err := output.Apply(outDir, outs, ch); err != nil {
			return err
		}
		changes = append(changes, ch...)
		generated += len(outs)
		for i, r := range chunk {
			dir := filepath.Join(outDir, r.world.Name)
			patterns = append(patterns, packageDir(sys.cwd, dir))
			opts.Locate[dir] = gate.NewLocator(r.world, sys.cwd)
			built[r.world.Name] = builtWorld{spec: r.file.name, path: r.file.path, meta: worldMeta(r.world),
				deps: r.deps, outputs: cache.OutputSums(outs[i].Files)}
		}
	}
	if !c.JSON {
		fmt.Fprintf(sys.stderr, "%s generated in %s: %s\n", plural(generated, "world"), c.Out, changeSummary(changes))
	}
	// Name each verdict's spec and world, and remember the new verdicts.
	annotate := func(report *gate.Report) {
		for i := range report.Worlds {
			w := &report.Worlds[i]
			b, ok := built[w.World]
			if !ok {
				if fc, ok := failedCheck[w.World]; ok {
					w.Diagnostics = fc.diags
					if vc != nil {
						c.remember(vc, keys[fc.path], fc.deps, nil, *w)
					}
				}
				continue
			}
			w.Spec, w.Meta = b.spec, b.meta
			w.Diagnostics = w.GateDiagnostics()
			if vc != nil {
				c.remember(vc, keys[b.path], b.deps, b.outputs, *w)
			}
		}
	}
	report, err := runGate(sys, patterns, c.gateFlags, opts, decided, annotate)
	if err != nil {
		return err
	}
	if c.Report != "" {
		if err := writeReport(absPath(sys.cwd, c.Report), report); err != nil {
			return err
		}
	}
	return gateStatus(report, nil)
}

// buildChunk is how many specs build checks and generates before it writes
// them and lets their IR and generated files go.
const buildChunk = 100

// builtWorld is what build keeps of a world it generated.
type builtWorld struct {
	spec, path string // the spec's name in output, and its path
	meta       *gate.WorldMeta
	deps       []cache.FileSum // data files the check read
	outputs    []cache.FileSum // the generated files
}

// checkedSpec is what build keeps of a spec with errors.
type checkedSpec struct {
	path  string
	diags []compiler.Diagnostic
	deps  []cache.FileSum
}

// remember stores a verdict; a cache that cannot be written is not a
// failure of the build.
func (c *buildCmd) remember(vc *cache.Cache, key string, deps, outputs []cache.FileSum, res gate.WorldResult) {
	if key == "" {
		return
	}
	res.Cached = false
	_ = vc.Put(key, cache.Entry{Deps: deps, Outputs: outputs, Result: res})
}

// cacheOptions are the flags that change a verdict.
func (c *buildCmd) cacheOptions() string {
	return fmt.Sprintf("typecheck-only=%t link=%t", c.TypecheckOnly, c.Link > 0)
}

// openCache opens the verdict cache, keyed by this worldc's executable,
// the runtime it generates for and the Go toolchain.
func (c *buildCmd) openCache(sys *stdio) (*cache.Cache, error) {
	dir := c.CacheDir
	if dir == "" {
		var err error
		if dir, err = cache.DefaultDir(); err != nil {
			return nil, err
		}
	} else {
		dir = absPath(sys.cwd, dir)
	}
	exe, err := cache.ExecutableSum()
	if err != nil {
		return nil, err
	}
	rt, err := output.EmbeddedRuntime()
	if err != nil {
		return nil, err
	}
	goVersion, err := gate.GoVersion()
	if err != nil {
		return nil, err
	}
	return cache.Open(dir, exe+"\x00"+rt.Hash+"\x00"+goVersion)
}

// shard is this run's shard and the number of shards: from --shard, or
// from a Kubernetes Indexed Job's environment; (0, 1) for all specs.
func (c *buildCmd) shard() (int, int, error) {
	spec := c.Shard
	if spec == "" {
		idx, cnt := os.Getenv("JOB_COMPLETION_INDEX"), os.Getenv("WORLDC_SHARD_COUNT")
		if idx == "" || cnt == "" {
			return 0, 1, nil
		}
		spec = idx + "/" + cnt
	}
	i, n, ok := strings.Cut(spec, "/")
	shard, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || shard < 0 || shard >= count {
		return 0, 0, usagef("--shard %s: want I/N with 0 <= I < N", spec)
	}
	return shard, count, nil
}

// shardOf is the shard of a spec: its content hash modulo n, so that
// adding specs moves none of the others.
func shardOf(src []byte, n int) int {
	sum := sha256.Sum256(src)
	return int(binary.BigEndian.Uint64(sum[:8]) % uint64(n))
}

// worldMeta classifies a checked world for reports.
func worldMeta(w *ir.World) *gate.WorldMeta {
	m := &gate.WorldMeta{Title: w.Title, Industry: w.Industry, Country: w.Country, Tools: len(w.Tools), Tasks: len(w.Tasks)}
	for _, t := range w.Tasks {
		m.Capabilities = append(m.Capabilities, t.Capabilities...)
		m.Difficulty = append(m.Difficulty, t.Difficulty...)
	}
	slices.Sort(m.Capabilities)
	m.Capabilities = slices.Compact(m.Capabilities)
	slices.Sort(m.Difficulty)
	m.Difficulty = slices.Compact(m.Difficulty)
	return m
}

// checkFailure is the verdict on a spec with errors, named after its file,
// with the first error as the reason.
func checkFailure(r checkResult) gate.WorldResult {
	res := gate.WorldResult{World: strings.TrimSuffix(filepath.Base(r.file.name), specExt), Stage: gate.StageCheck, Spec: r.file.name}
	for _, d := range r.diags {
		if d.Severity != compiler.SeverityError {
			continue
		}
		res.Errors = append(res.Errors, gate.Error{Spec: fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Col), Message: fmt.Sprintf("error[%s]: %s", d.Code, d.Message)})
	}
	if len(res.Errors) > 0 {
		res.Reason = "check: " + res.Errors[0].Spec + ": " + res.Errors[0].Message
		if n := len(res.Errors) - 1; n > 0 {
			res.Reason += fmt.Sprintf(" (and %d more)", n)
		}
	}
	return res
}

// absPath resolves p against cwd.
func absPath(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// packageDir is how the go command is told about the package in dir: a
// ./relative path below cwd, otherwise the absolute path.
func packageDir(cwd, dir string) string {
	if rel, err := filepath.Rel(cwd, dir); err == nil && filepath.IsLocal(rel) {
		return "./" + filepath.ToSlash(rel)
	}
	return dir
}

// writeReport writes a gate report as indented JSON.
func writeReport(p string, r *gate.Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return safefs.WriteFile(p, append(data, '\n'))
}

// duplicateWorld is the error of a spec whose world another spec, other,
// already defines: both would be generated into one package.
func duplicateWorld(r checkResult, other string) compiler.Diagnostic {
	p := r.world.Pos
	return compiler.Diagnostic{
		Code: diag.DuplicateName, Severity: compiler.SeverityError,
		File: p.Filename, Line: p.Line, Col: p.Column,
		Message: fmt.Sprintf("world %s is also defined by %s: a world's name names its generated package, so each spec needs its own", r.world.Name, other),
		Hint:    "Rename one of the two worlds (world NAME { … }), or leave one spec out.",
	}
}

// errorDiagnostics are the errors among diags.
func errorDiagnostics(diags compiler.Diagnostics) []compiler.Diagnostic {
	var out []compiler.Diagnostic
	for _, d := range diags {
		if d.Severity == compiler.SeverityError {
			out = append(out, d)
		}
	}
	return out
}
