package runtime

import (
	"embed"
	"io/fs"
)

// ModulePath is this module's path, the import path of this package: what
// generated worlds import and what worldc's go.mod files require.
const ModulePath = "github.com/worldc/worldc/runtime"

// source is this module's Go source: go.mod and the files of the packages a
// generated world imports (this one and pycalc). Tests and test helpers are
// embedded too (a pattern cannot leave them out) and skipped by Source.
//
//go:embed go.mod *.go pycalc/*.go
var source embed.FS

// Source returns the files of this module that a generated world needs to
// build: go.mod and the non-test Go files of this package and of pycalc,
// at their paths in the module ("go.mod", "table.go", "pycalc/eval.go").
//
// worldc writes them into an output module (.worldc/runtime) so that the
// worlds it generates build anywhere, offline, with the runtime they were
// generated for. A program that never calls Source does not link them.
func Source() fs.FS { return WithoutTests(source) }

// WithoutTests is fsys without its _test.go files: how worldc's modules
// hand out their embedded sources (this one's, the server's).
func WithoutTests(fsys fs.ReadDirFS) fs.FS { return sourceFiles{fsys} }

// sourceFiles hides the _test.go files of a tree.
type sourceFiles struct{ fsys fs.ReadDirFS }

func (s sourceFiles) Open(name string) (fs.File, error) {
	if isTestFile(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return s.fsys.Open(name)
}

func (s sourceFiles) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := s.fsys.ReadDir(name)
	if err != nil {
		return nil, err
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if !isTestFile(e.Name()) {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

func isTestFile(name string) bool {
	n := len(name)
	return n >= 8 && name[n-8:] == "_test.go"
}
