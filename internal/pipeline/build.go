package pipeline

import (
	"context"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/cache"
	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
)

// buildChunk is how many specs Build checks and generates before it writes
// them and lets their IR and generated files go: worldc's memory does not
// grow with the corpus by the worlds' IR and generated files.
const buildChunk = 100

// Build is the main job: check every spec, generate the worlds that check
// clean into opts.Out, and vet them. A world that fails at any step gets a
// failed verdict with the reason, and the others go on. With a cache, a
// spec whose spec, data files, generated files, worldc, runtime and Go are
// unchanged since a verdict takes that verdict (Gate.NoCache: never).
//
// Two specs that define one world are one failed verdict (W002 at the
// second spec's world header) whichever of them the cache knows: the
// first spec in the order given keeps the name.
func Build(ctx context.Context, specs []Spec, opts *Options) (*gate.Report, error) {
	b := &build{opts: opts, claims: claims{}, built: map[string]builtWorld{}, cached: map[int]*buildItem{}}
	todo := b.triage(specs)
	mod, err := PlanModule(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := ApplyModule(opts, mod); err != nil {
		return nil, err
	}
	var patterns []string
	locate := map[string]gate.Locator{}
	var changes []output.Change
	generated := 0
	for start := 0; start < len(todo); start += buildChunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		chunk := todo[start:min(start+buildChunk, len(todo))]
		var outs []output.Output
		var worlds []*buildItem
		var positions []*ir.PosMap
		for _, it := range b.check(chunk) {
			if out, pm, ok := b.admit(it); ok {
				outs = append(outs, out)
				worlds = append(worlds, it)
				positions = append(positions, pm)
			}
		}
		ch, err := Write(opts, outs)
		if err != nil {
			return nil, err
		}
		changes = append(changes, ch...)
		generated += len(outs)
		for i, it := range worlds {
			c := it.checked
			dir := filepath.Join(opts.Out, c.World.Name)
			patterns = append(patterns, PackageDir(opts.Cwd, dir))
			locate[dir] = gate.NewLocator(positions[i], dir)
			b.built[c.World.Name] = builtWorld{spec: c.Spec.Name, key: it.key, meta: Meta(c.World),
				deps: c.Deps, outputs: cache.OutputSums(outs[i].Files)}
		}
		for _, it := range chunk {
			it.src, it.checked = nil, nil // the chunk's IR and bytes go
		}
	}
	if opts.Events.Generated != nil {
		opts.Events.Generated(generated, changes)
	}
	report, err := Vet(ctx, patterns, opts, b.decided, locate)
	if err != nil {
		return nil, err
	}
	for i := range report.Worlds {
		w := &report.Worlds[i]
		bw, ok := b.built[w.World]
		if !ok {
			continue // judged before the gate: a failure, or the cache's
		}
		w.Spec, w.Meta = bw.spec, bw.meta
		w.Diagnostics = w.GateDiagnostics()
		b.remember(bw.key, bw.deps, bw.outputs, *w)
	}
	return report, nil
}

// build is the state of one Build.
type build struct {
	opts    *Options
	claims  claims
	decided []gate.WorldResult    // verdicts known before the gate
	cached  map[int]*buildItem    // specs whose verdict came from the cache, by index
	built   map[string]builtWorld // worlds generated, by name
}

// buildItem is a spec to judge.
type buildItem struct {
	index   int
	spec    Spec
	src     []byte
	readErr error
	key     string // its cache key; "" without a cache
	checked *Checked
	verdict int // with the cache: its verdict's place in decided
}

// builtWorld is what Build keeps of a world it generated.
type builtWorld struct {
	spec, key string
	meta      *gate.WorldMeta
	deps      []cache.FileSum // data files the check read
	outputs   []cache.FileSum // the generated files
}

// triage reads every spec once (its bytes decide its shard and its cache
// key), takes the verdicts the cache holds, and returns the specs to
// check, in order.
func (b *build) triage(specs []Spec) []*buildItem {
	opts := b.opts
	var todo []*buildItem
	for i, s := range specs {
		src, err := s.Read(opts.Stdin)
		if err == nil && opts.Shards > 1 && !s.IsStdin() && ShardOf(src, opts.Shards) != opts.Shard {
			continue
		}
		it := &buildItem{index: i, spec: s, src: src, readErr: err}
		if err == nil && opts.Cache != nil && !s.IsStdin() {
			it.key = opts.Cache.Key(cache.Input{Spec: src, Options: opts.Gate.cacheOptions()})
			if b.fromCache(it) {
				continue
			}
		}
		todo = append(todo, it)
	}
	return todo
}

// fromCache takes it's verdict from the cache when the cache holds one
// and no earlier spec defines its world.
func (b *build) fromCache(it *buildItem) bool {
	if b.opts.Gate.NoCache {
		return false
	}
	e, ok := b.opts.Cache.Get(it.key, b.opts.Out)
	if !ok {
		return false
	}
	r := e.Result
	r.Cached = true
	if r.Stage != gate.StageCheck {
		// A world: it claims its name. One that an earlier cached spec
		// holds is checked again, to fail with W002.
		if _, _, won := b.claims.take(r.World, it.index, it.spec.Name); !won {
			return false
		}
	}
	it.verdict = len(b.decided)
	b.decided = append(b.decided, r)
	it.src = nil // read again in the rare case it turns out a duplicate
	b.cached[it.index] = it
	return true
}

// check checks a chunk of specs in parallel, keeping their order.
func (b *build) check(items []*buildItem) []*buildItem {
	var wg sync.WaitGroup
	work := make(chan *buildItem)
	for range min(runtime.GOMAXPROCS(0), len(items)) {
		wg.Go(func() {
			for it := range work {
				it.checked = b.checkItem(it)
			}
		})
	}
	for _, it := range items {
		work <- it
	}
	close(work)
	wg.Wait()
	return items
}

func (b *build) checkItem(it *buildItem) *Checked {
	if it.readErr != nil {
		return &Checked{Spec: it.spec, Diags: compiler.Diagnostics{readError(it.spec, it.readErr)}}
	}
	c := checkSource(it.spec, it.src, b.opts.Check)
	return &c
}

// admit decides what becomes of a checked spec: a failed verdict (errors,
// a world another spec defines, a generator failure), or an output to
// write and vet.
func (b *build) admit(it *buildItem) (output.Output, *ir.PosMap, bool) {
	c := it.checked
	b.opts.Events.diagnostics(c.Diags)
	if c.World == nil {
		res := checkFailure(c)
		b.decided = append(b.decided, res)
		b.remember(it.key, c.Deps, nil, res)
		return output.Output{}, nil, false
	}
	prev, had, won := b.claims.take(c.World.Name, it.index, c.Spec.Name)
	if !won {
		b.duplicate(c, prev.spec)
		return output.Output{}, nil, false
	}
	if displaced, was := b.cached[prev.index]; had && was {
		// A later spec's cached verdict had the name: that spec is now
		// the duplicate. Its verdict is replaced by the W002 of a check.
		displaced.src, displaced.readErr = displaced.spec.Read(nil)
		d := b.checkItem(displaced)
		if d.World != nil {
			b.decided[displaced.verdict] = b.duplicateResult(d, c.Spec.Name)
		}
		delete(b.cached, prev.index)
	}
	out, pm, err := GenerateForGate(c)
	if err != nil {
		b.decided = append(b.decided, generateFailure(c, err))
		return output.Output{}, nil, false
	}
	return out, pm, true
}

// duplicate records the failed verdict of a spec whose world first, an
// earlier spec, defines. It is not cached: it depends on the other spec.
func (b *build) duplicate(c *Checked, first string) {
	b.decided = append(b.decided, b.duplicateResult(c, first))
}

func (b *build) duplicateResult(c *Checked, first string) gate.WorldResult {
	d := duplicateDiagnostic(c.World, c.Spec.Name, first)
	b.opts.Events.diagnostics(compiler.Diagnostics{d})
	c.Diags, c.World = append(c.Diags, d), nil
	return checkFailure(c)
}

// remember stores a verdict; a cache that cannot be written is not a
// failure of the build.
func (b *build) remember(key string, deps, outputs []cache.FileSum, res gate.WorldResult) {
	if b.opts.Cache == nil || key == "" {
		return
	}
	res.Cached = false
	_ = b.opts.Cache.Put(key, cache.Entry{Deps: deps, Outputs: outputs, Result: res})
}
