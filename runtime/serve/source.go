package serve

import (
	"embed"
	"io/fs"

	"github.com/worldc/worldc/runtime"
)

// source is this module's Go source: the packages a bundle's binary links
// (tests included: a pattern cannot leave them out; Source skips them).
//
//go:embed go.mod go.sum *.go rollback/*.go eval/*.go eval/templates/*.tmpl llm/*.go
var source embed.FS

// Source returns the files of this module that a bundle's binary needs to
// build: go.mod, go.sum and the non-test Go files of this package and of
// those it imports, at their paths in the module ("rollback/rollback.go").
// worldc writes them into the bundle's source module (src/.worldc/serve),
// so that a bundle builds from worldc alone. A program that never calls Source does not link them.
func Source() fs.FS { return runtime.WithoutTests(source) }
