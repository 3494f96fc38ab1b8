package pipeline

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/safefs"
)

// SplitPackages sorts inputs that may be generated world packages as well
// as specs (a bundle's): a directory holding a package worldc generated
// (its world.go starts with the header) is read as it is, an output
// directory of such packages gives each of them (sorted), and every other
// argument is returned in rest, for Expand. A package's files are read as
// regular files, its tests left out.
func SplitPackages(cwd string, args []string) (pkgs []output.Output, rest []string, err error) {
	for _, arg := range args {
		dir := Abs(cwd, strings.TrimSuffix(arg, "/..."))
		dirs := []string{dir}
		if !isGeneratedPackage(dir) {
			if dirs = generatedPackagesIn(dir); len(dirs) == 0 {
				rest = append(rest, arg)
				continue
			}
		}
		for _, d := range dirs {
			p, err := readPackage(d, DisplayName(cwd, d, d))
			if err != nil {
				return nil, nil, err
			}
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, rest, nil
}

// isGeneratedPackage reports whether dir holds a world package worldc
// generated.
func isGeneratedPackage(dir string) bool {
	ok, _ := safefs.IsGenerated(filepath.Join(dir, "world.go"))
	return ok
}

// generatedPackagesIn lists the generated world packages directly below
// dir, sorted.
func generatedPackagesIn(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && isGeneratedPackage(filepath.Join(dir, e.Name())) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	slices.Sort(out)
	return out
}

// readPackage reads a generated package's regular files (not its tests).
func readPackage(dir, source string) (output.Output, error) {
	p := output.Output{World: filepath.Base(dir), Files: map[string][]byte{}, Source: source}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return p, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		data, err := safefs.ReadRegular(filepath.Join(dir, e.Name()))
		if err != nil {
			return p, err
		}
		p.Files[e.Name()] = data
	}
	return p, nil
}
