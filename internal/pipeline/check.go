package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/diag"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/cache"
)

// Checked is the outcome of checking one spec.
type Checked struct {
	Spec Spec
	// World is the checked world; nil when the spec has errors.
	World *ir.World
	// Diags are every diagnostic of the spec, warnings included.
	Diags compiler.Diagnostics
	// SHA256 is the hex SHA-256 of the spec's bytes.
	SHA256 string
	// Deps are the data files the check read (or looked for), with their
	// SHA-256, for the verdict cache.
	Deps []cache.FileSum
}

// Errors are the errors among the diagnostics.
func (c *Checked) Errors() []compiler.Diagnostic {
	var out []compiler.Diagnostic
	for _, d := range c.Diags {
		if d.Severity == compiler.SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// Check checks every spec, in parallel, and returns the results in the
// order of specs. A spec that cannot be read yields one W001 diagnostic
// (the spec does not parse because there is none to read). Data files
// (load … from) are read from the spec's own directory, through an
// os.Root, so that no name in a spec reaches outside it.
func Check(specs []Spec, stdin io.Reader, opts ...compiler.Option) []Checked {
	results := make([]Checked, len(specs))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(specs)) {
		wg.Go(func() {
			for i := range work {
				results[i] = checkOne(specs[i], stdin, opts)
			}
		})
	}
	for i := range specs {
		work <- i
	}
	close(work)
	wg.Wait()
	return results
}

// CheckSource checks a spec given as bytes (a draft of the authoring
// loop), as Check does a file.
func CheckSource(s Spec, src []byte, opts ...compiler.Option) Checked {
	return checkSource(s, src, opts)
}

func checkOne(s Spec, stdin io.Reader, opts []compiler.Option) Checked {
	src, err := s.Read(stdin)
	if err != nil {
		return Checked{Spec: s, Diags: compiler.Diagnostics{readError(s, err)}}
	}
	return checkSource(s, src, opts)
}

func checkSource(s Spec, src []byte, opts []compiler.Option) Checked {
	var data *cache.RecordingFS
	if !s.IsStdin() {
		if root, err := os.OpenRoot(filepath.Dir(s.Path)); err == nil {
			defer root.Close()
			data = &cache.RecordingFS{FS: root.FS(), Base: filepath.Dir(s.Path)}
			opts = append(opts[:len(opts):len(opts)], compiler.WithData(data))
		}
	}
	w, diags := compiler.CheckSource(s.Name, src, opts...)
	sum := sha256.Sum256(src)
	res := Checked{Spec: s, World: w, Diags: diags, SHA256: hex.EncodeToString(sum[:])}
	if data != nil {
		res.Deps = data.Deps()
	}
	return res
}

// readError reports an unreadable spec as a diagnostic at its first line,
// so that it is counted and shown like any other problem with the file.
func readError(s Spec, err error) compiler.Diagnostic {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the file is named already
	}
	return compiler.Diagnostic{
		Code:     diag.Syntax,
		Severity: compiler.SeverityError,
		Message:  fmt.Sprintf("cannot read the spec: %v", err),
		File:     s.Name,
		Line:     1,
		Col:      1,
		End:      compiler.Position{Line: 1, Col: 1},
		Hint:     "Make the path a readable spec file.",
	}
}
