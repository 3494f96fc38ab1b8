package gate

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// EntryPoint is the function every generated world package exports for
// linked testing: `func Conformance() []error` runs the checks its own
// TestConformance runs.
const EntryPoint = ir.EntryPoint

// linkedTest tests worlds by linking up to opts.LinkBatch of them into one
// test binary that calls each world's Conformance entry point in a subtest
// of its own: one link per batch instead of one per world, and batches run
// in parallel. The aggregating package is written into a temporary
// directory below the module root (go test runs a test binary in its
// package's directory) and removed afterwards, whatever the outcome.
//
// It returns the worlds it could not judge (their batch did not build or
// the binary died); the caller tests those one package at a time.
func linkedTest(ctx context.Context, pkgs []*checkedPackage, opts *VetOptions, done func(path string, o testOutcome)) (rest []*checkedPackage, err error) {
	byModule := map[string][]*checkedPackage{}
	var modules []string
	for _, p := range pkgs {
		if p.ModuleDir == "" || p.ModulePath == "" {
			rest = append(rest, p)
			continue
		}
		if byModule[p.ModuleDir] == nil {
			modules = append(modules, p.ModuleDir)
		}
		byModule[p.ModuleDir] = append(byModule[p.ModuleDir], p)
	}
	for _, modDir := range modules {
		r, err := linkedTestModule(ctx, byModule[modDir], opts, done)
		if err != nil {
			return nil, err
		}
		rest = append(rest, r...)
	}
	return rest, nil
}

func linkedTestModule(ctx context.Context, pkgs []*checkedPackage, opts *VetOptions, done func(path string, o testOutcome)) (_ []*checkedPackage, err error) {
	modDir, modPath := pkgs[0].ModuleDir, pkgs[0].ModulePath
	tmp, err := os.MkdirTemp(modDir, "_worldc_gate_")
	if err != nil {
		return nil, err
	}
	// The directory goes on every way out: after the verdicts, on an error
	// and when ctx is done. go test and whatever it started have ended by
	// then, however they ended (Wait returns once its process group has),
	// so nothing writes into it while it is removed.
	defer func() {
		if rmErr := os.RemoveAll(tmp); rmErr != nil && err == nil {
			err = fmt.Errorf("removing the gate's temporary package: %w", rmErr)
		}
	}()
	base := modPath + "/" + filepath.Base(tmp)

	type member struct {
		pkg      *checkedPackage
		reported bool
	}
	batches := map[string][]*member{} // batch import path → its worlds
	var batchPaths, worldPaths []string
	size := max(opts.LinkBatch, 1)
	for start := 0; start < len(pkgs); start += size {
		chunk := pkgs[start:min(start+size, len(pkgs))]
		name := fmt.Sprintf("b%d", len(batchPaths))
		if err := os.Mkdir(filepath.Join(tmp, name), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, name, "worlds_test.go"), aggregator(chunk), 0o644); err != nil {
			return nil, err
		}
		path := base + "/" + name
		batchPaths = append(batchPaths, path)
		for _, p := range chunk {
			batches[path] = append(batches[path], &member{pkg: p})
			worldPaths = append(worldPaths, p.Path)
		}
	}

	args := append([]string{"test", "-json", "-vet=off", "-p", strconv.Itoa(opts.workers())}, buildFlags(worldPaths, opts)...)
	if opts.NoCache {
		args = append(args, "-count=1")
	}
	args = append(args, batchPaths...)
	cmd, remove, err := goCommand(ctx, opts, args...)
	if err != nil {
		return nil, err
	}
	defer remove()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("go test: %w", err)
	}
	outputs := map[string][]string{} // "batch\x00subtest" → output lines
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Package == "" {
			continue
		}
		members := batches[ev.Package]
		sub, ok := strings.CutPrefix(ev.Test, "TestWorlds/")
		if !ok {
			continue
		}
		sub, _, _ = strings.Cut(sub, "/") // a world's own subtests belong to it
		i, err := strconv.Atoi(strings.TrimPrefix(sub, "w"))
		if err != nil || i < 0 || i >= len(members) {
			continue
		}
		key := ev.Package + "\x00" + sub
		switch ev.Action {
		case "output":
			outputs[key] = append(outputs[key], strings.TrimRight(ev.Output, "\n"))
		case "pass", "fail", "skip":
			if ev.Test != "TestWorlds/"+sub {
				continue // the end of a nested subtest, not of the world
			}
			if ctx.Err() != nil {
				continue // a stopped binary's failures are no verdicts
			}
			o := testOutcome{OK: ev.Action != "fail", Elapsed: ev.Elapsed}
			errs := testErrors(outputs[key])
			delete(outputs, key)
			if !o.OK {
				if len(errs) == 0 {
					// The binary died in this world (a panic, an exit):
					// its own go test will tell why.
					continue
				}
				o.Stage, o.Errors = StageTest, errs
			}
			members[i].reported = true
			done(members[i].pkg.Path, o)
		}
	}
	_ = cmd.Wait() // go test exits 1 when a world fails: that is a verdict
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var rest []*checkedPackage
	for _, path := range batchPaths {
		for _, m := range batches[path] {
			if !m.reported {
				rest = append(rest, m.pkg)
			}
		}
	}
	return rest, sc.Err()
}

// aggregator is the test file of one batch: a subtest per world, named
// after its index, that reports every error of its Conformance.
func aggregator(pkgs []*checkedPackage) []byte {
	var b bytes.Buffer
	b.WriteString("// Code generated by worldc vet for linked testing. DO NOT EDIT.\n\npackage worlds_test\n\nimport (\n\t\"testing\"\n\n")
	for i, p := range pkgs {
		fmt.Fprintf(&b, "\tw%d %s\n", i, strconv.Quote(p.Path))
	}
	b.WriteString(")\n\nvar worlds = []func() []error{\n")
	for i := range pkgs {
		fmt.Fprintf(&b, "\tw%d.%s,\n", i, EntryPoint)
	}
	b.WriteString(`}

func TestWorlds(t *testing.T) {
	for i, conformance := range worlds {
		t.Run("w"+strconv.Itoa(i), func(t *testing.T) {
			for _, err := range conformance() {
				t.Error(err)
			}
		})
	}
}
`)
	out := b.Bytes()
	// strconv is needed by the test; add it to the imports.
	return bytes.Replace(out, []byte("import (\n\t\"testing\"\n"), []byte("import (\n\t\"strconv\"\n\t\"testing\"\n"), 1)
}
