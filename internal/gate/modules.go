package gate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/worldc/worldc/internal/output"
)

// moduleGroup is the patterns of one module, run with the go command in
// the module's root.
type moduleGroup struct {
	dir      string   // where the go command runs
	own      bool     // the module is one worldc wrote
	patterns []string // relative to dir, or import paths
	opts     VetOptions
	pkgs     []*checkedPackage
	mismatch string // RuntimeMismatch of the module
}

// groupByModule sorts patterns by the module that holds them, so that the
// go command runs inside each module whatever the current directory: a
// pattern that is a directory (absolute, or relative to dir: ".", "./x",
// "../x", with or without "/...") goes to the module of its go.mod, with a
// pattern relative to that module's root; an import path pattern stays
// with dir.
func groupByModule(patterns []string, dir string) ([]*moduleGroup, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	var groups []*moduleGroup
	byDir := map[string]*moduleGroup{}
	group := func(d string) *moduleGroup {
		g := byDir[d]
		if g == nil {
			g = &moduleGroup{dir: d, own: output.IsOwnModule(d)}
			byDir[d] = g
			groups = append(groups, g)
		}
		return g
	}
	for _, pat := range patterns {
		base, recursive, local := SplitPattern(pat)
		if !local {
			g := group(dir)
			g.patterns = append(g.patterns, pat)
			continue
		}
		abs := filepath.FromSlash(base)
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(dir, abs)
		}
		abs = filepath.Clean(abs)
		root, err := output.FindModuleRoot(abs)
		if err != nil {
			return nil, err
		}
		if root == "" {
			return nil, fmt.Errorf("%s is not inside a Go module: generate worlds into it with worldc gen or build, which make it a module of its own, or run go mod init there", abs)
		}
		rel := "./" + relSlash(root, abs)
		if rel == "./." {
			rel = "."
		}
		if recursive {
			if rel == "." {
				rel = "./..."
			} else {
				rel += "/..."
			}
		}
		g := group(root)
		g.patterns = append(g.patterns, rel)
	}
	return groups, nil
}

// envOrOS is env, or the process's environment when env is nil.
func envOrOS(env []string) []string {
	if env == nil {
		return os.Environ()
	}
	return env
}

// relSlash is p relative to base, slash-separated.
func relSlash(base, p string) string {
	r, err := filepath.Rel(base, p)
	if err != nil {
		return p
	}
	return path.Clean(filepath.ToSlash(r))
}

// SplitPattern classifies a go package pattern: base is the pattern
// without a trailing "/..." (recursive says whether it had one; "..."
// alone is "." recursive), and local says whether base names a directory
// (absolute, or relative: ".", "..", "./x", "../x") rather than an import
// path. It is the one place that tells the two apart.
func SplitPattern(pat string) (base string, recursive, local bool) {
	base, recursive = strings.CutSuffix(pat, "/...")
	if pat == "..." {
		base, recursive = ".", true
	}
	local = filepath.IsAbs(base) || base == "." || base == ".." || strings.HasPrefix(base, "./") || strings.HasPrefix(base, "../")
	return base, recursive, local
}
