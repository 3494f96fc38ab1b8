package serve

import (
	"embed"
	"io/fs"

	"github.com/worldc/worldc/runtime"
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
func Source() fs.FS { return runtime.WithoutTests(source) }
