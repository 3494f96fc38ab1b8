package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/cache"
)

type checkCmd struct {
	JSON  bool     `help:"Print the diagnostics as a JSON array on stdout ([] when clean)."`
	Paths []string `arg:"" name:"path" help:"Spec files, directories or dir/... patterns."`
}

func (c *checkCmd) Run(sys *stdio) error {
	files, err := expandPaths(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	results := checkFiles(sys, files)
	var all compiler.Diagnostics
	withErrors, warnings := 0, 0
	for _, r := range results {
		all = append(all, r.diags...)
		if r.diags.HasErrors() {
			withErrors++
		}
		for _, d := range r.diags {
			if d.Severity == compiler.SeverityWarning {
				warnings++
			}
		}
	}
	if c.JSON {
		sys.stdout.Write(all.JSON())
	} else {
		fmt.Fprint(sys.stderr, all.Text())
	}
	fmt.Fprintln(sys.stderr, checkSummary(len(files), withErrors, warnings))
	if withErrors > 0 {
		return exitError(exitFailure)
	}
	return nil
}

// checkResult is the outcome of checking one spec.
type checkResult struct {
	file  specFile
	world *ir.World // nil unless the spec checked without errors
	diags compiler.Diagnostics
	// sha256 is the hex SHA-256 of the spec's bytes.
	sha256 string
	// deps are the data files the check read, with their SHA-256.
	deps []cache.FileSum
}

// checkFiles checks every file, in parallel, and returns the results in
// the order of files. A file that cannot be read yields one W001 diagnostic
// (the spec does not parse because there is none to read).
func checkFiles(sys *stdio, files []specFile) []checkResult {
	results := make([]checkResult, len(files))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range work {
				results[i] = checkFile(sys, files[i])
			}
		})
	}
	for i := range files {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

func checkFile(sys *stdio, f specFile) checkResult {
	src, err := f.read(sys)
	if err != nil {
		return checkResult{file: f, diags: compiler.Diagnostics{readError(f, err)}}
	}
	// Diagnostics name the file as the user does; data files (load … from)
	// are read from the spec's real directory whatever the names say.
	var opts []compiler.Option
	var data *cache.RecordingFS
	if !f.isStdin() {
		if root, err := os.OpenRoot(filepath.Dir(f.path)); err == nil {
			defer root.Close()
			data = &cache.RecordingFS{FS: root.FS(), Base: filepath.Dir(f.path)}
			opts = append(opts, compiler.WithData(data))
		}
	}
	w, diags := compiler.CheckSource(f.name, src, opts...)
	sum := sha256.Sum256(src)
	res := checkResult{file: f, world: w, diags: diags, sha256: hex.EncodeToString(sum[:])}
	if data != nil {
		res.deps, _ = data.Deps() // a file that cannot be hashed now is no dependency a cache could check
	}
	return res
}

// readError reports an unreadable spec as a diagnostic at its first line,
// so that it is counted and shown like any other problem with the file.
func readError(f specFile, err error) compiler.Diagnostic {
	return compiler.Diagnostic{
		Code:     diag.Syntax,
		Severity: compiler.SeverityError,
		Message:  fmt.Sprintf("cannot read the spec: %v", unwrapPathError(err)),
		File:     f.name,
		Line:     1,
		Col:      1,
		End:      compiler.Position{Line: 1, Col: 1},
		Hint:     "Make the path a readable spec file.",
	}
}

// checkSummary is the closing line of check: "3 worlds checked, 1 with
// errors", and the number of warnings when there are any.
func checkSummary(checked, withErrors, warnings int) string {
	s := fmt.Sprintf("%s checked, %d with errors", plural(checked, "world"), withErrors)
	if warnings > 0 {
		s += ", " + plural(warnings, "warning")
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
