package serve

import (
	"embed"
	"io/fs"
)

// source is this module's Go source (tests included: a pattern cannot leave
// them out; Source skips them).
//
//go:embed go.mod go.sum *.go
var source embed.FS

// Source returns the files of this module that a bundle's binary needs to
// build: go.mod, go.sum and the non-test Go files. worldc writes them into
// the bundle's source module (src/.worldc/serve), so that a bundle builds
// from worldc alone. A program that never calls Source does not link them.
func Source() fs.FS { return sourceFiles{source} }

type sourceFiles struct{ fsys embed.FS }

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
