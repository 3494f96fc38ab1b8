package gate

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// checkedPackage is one world package after the type-check.
type checkedPackage struct {
	Path, Name, Dir string
	Stage           Stage // of the errors: load or typecheck
	Errors          []Error
	// ModulePath and ModuleDir are the module that holds the package.
	ModulePath, ModuleDir string
	// Entry reports whether the package exports the conformance entry point
	// `func Conformance() []error` that linked testing calls.
	Entry bool
}

// typeCheck lists the packages matching patterns and type-checks each from
// source, its tests included, in parallel. It is the gate's fast first
// pass — a few hundredths of a second per package against a few tenths for
// a cold go test — and it compiles nothing but the packages the worlds
// import (the runtime and the standard library, once, through the build
// cache): asking go/packages for the types of the worlds themselves would
// make `go list -export` compile every world.
func typeCheck(ctx context.Context, patterns []string, opts *VetOptions) ([]*checkedPackage, error) {
	listCfg := &packages.Config{
		Context: ctx,
		Mode:    packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedModule,
		Dir:     opts.Dir,
		Env:     opts.Env,
		Tests:   true,
	}
	listed, err := packages.Load(listCfg, patterns...)
	if err != nil {
		return nil, err
	}
	// Group the variants of each world: p, "p [p.test]" (p with its
	// in-package tests) and "p_test [p.test]" (its external tests).
	type variants struct {
		plain, withTests, xtest *packages.Package
	}
	groups := map[string]*variants{}
	var order []string
	isRoot := map[string]bool{}
	for _, p := range listed {
		isRoot[p.ID] = true
		path := basePath(p)
		if path == "" {
			continue // the generated test main
		}
		g := groups[path]
		if g == nil {
			g = &variants{}
			groups[path] = g
			order = append(order, path)
		}
		switch {
		case strings.HasSuffix(p.Name, "_test") && p.ID != p.PkgPath:
			g.xtest = p
		case strings.Contains(p.ID, " ["):
			g.withTests = p
		default:
			g.plain = p
		}
	}
	slices.Sort(order)

	// Load the types of everything the worlds import from export data.
	deps := map[string]bool{}
	for _, p := range listed {
		for _, imp := range p.Imports {
			if !isRoot[imp.ID] && imp.PkgPath != "unsafe" && imp.PkgPath != "C" {
				deps[imp.ID] = true
			}
		}
	}
	imported := map[string]*types.Package{} // by import path
	if len(deps) > 0 {
		depCfg := &packages.Config{
			Context: ctx,
			Mode:    packages.NeedName | packages.NeedTypes,
			Dir:     opts.Dir,
			Env:     opts.Env,
		}
		depList := make([]string, 0, len(deps))
		for d := range deps {
			depList = append(depList, d)
		}
		slices.Sort(depList)
		loadedDeps, err := packages.Load(depCfg, depList...)
		if err != nil {
			return nil, err
		}
		for _, d := range loadedDeps {
			if d.Types != nil {
				imported[d.PkgPath] = d.Types
			}
		}
	}

	out := make([]*checkedPackage, len(order))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(max(opts.workers(), 1), max(len(order), 1)) {
		wg.Go(func() {
			for i := range work {
				g := groups[order[i]]
				out[i] = checkWorld(order[i], g.plain, g.withTests, g.xtest, imported, opts.Dir)
			}
		})
	}
	for i := range order {
		if ctx.Err() != nil {
			break // a type-check takes a few hundredths of a second: stop between worlds
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkWorld type-checks one world package: the variant with its
// in-package tests when there is one, then its external tests.
func checkWorld(path string, plain, withTests, xtest *packages.Package, imported map[string]*types.Package, dir string) *checkedPackage {
	main := withTests
	if main == nil {
		main = plain
	}
	if main == nil {
		main = xtest
	}
	cp := &checkedPackage{Path: path, Name: strings.TrimSuffix(main.Name, "_test")}
	if len(main.GoFiles) > 0 {
		cp.Dir = filepath.Dir(main.GoFiles[0])
	}
	if main.Module != nil {
		cp.ModulePath, cp.ModuleDir = main.Module.Path, main.Module.Dir
	}
	seen := map[string]bool{}
	addErr := func(stage Stage, pos, msg string) {
		key := pos + "\x00" + msg
		if seen[key] {
			return
		}
		seen[key] = true
		if cp.Stage == "" || stage == StageLoad {
			cp.Stage = stage
		}
		cp.Errors = append(cp.Errors, Error{Go: relPos(dir, pos), Message: msg})
	}
	for _, p := range []*packages.Package{plain, withTests, xtest} {
		if p == nil {
			continue
		}
		for _, e := range p.Errors {
			addErr(StageLoad, e.Pos, e.Msg)
		}
	}
	if len(cp.Errors) > 0 {
		return cp
	}
	goVersion := ""
	if main.Module != nil && main.Module.GoVersion != "" {
		goVersion = "go" + main.Module.GoVersion
	}
	fset := token.NewFileSet()
	check := func(p *packages.Package, self *types.Package) *types.Package {
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				for _, e := range scanErrors(err) {
					addErr(StageTypecheck, e[0], e[1])
				}
			}
			if f != nil {
				files = append(files, f)
			}
		}
		conf := types.Config{
			GoVersion: goVersion,
			Importer: importerFunc(func(importPath string) (*types.Package, error) {
				if importPath == "unsafe" {
					return types.Unsafe, nil
				}
				if self != nil && importPath == self.Path() {
					return self, nil
				}
				if t := imported[importPath]; t != nil {
					return t, nil
				}
				return nil, fmt.Errorf("package %s is not loaded", importPath)
			}),
			Sizes: types.SizesFor("gc", runtime.GOARCH),
			Error: func(err error) {
				// Soft errors (unused variables and imports) fail the
				// compiler too: every error counts.
				if te, ok := err.(types.Error); ok {
					addErr(StageTypecheck, te.Fset.Position(te.Pos).String(), te.Msg)
					return
				}
				addErr(StageTypecheck, "", err.Error())
			},
		}
		pkg, _ := conf.Check(p.PkgPath, fset, files, nil)
		return pkg
	}
	self := check(main, nil)
	if xtest != nil && xtest != main {
		check(xtest, self)
	}
	cp.Entry = self != nil && len(cp.Errors) == 0 && hasEntryPoint(self)
	return cp
}

// hasEntryPoint reports whether pkg declares func Conformance() []error.
func hasEntryPoint(pkg *types.Package) bool {
	fn, ok := pkg.Scope().Lookup(EntryPoint).(*types.Func)
	if !ok {
		return false
	}
	sig := fn.Signature()
	if sig.Params().Len() != 0 || sig.Results().Len() != 1 {
		return false
	}
	slice, ok := sig.Results().At(0).Type().(*types.Slice)
	return ok && types.Identical(slice.Elem(), types.Universe.Lookup("error").Type())
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// scanErrors splits a go/parser error into (position, message) pairs.
func scanErrors(err error) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(err.Error(), "\n") {
		if line == "" {
			continue
		}
		if m := goPosLine.FindStringSubmatch(line); m != nil {
			out = append(out, [2]string{m[1], m[2]})
		} else {
			out = append(out, [2]string{"", line})
		}
	}
	return out
}

// basePath is the import path a package variant belongs to: "p" for p, for
// "p [p.test]" and for its external test package "p_test [p.test]"; empty
// for the generated test main "p.test".
func basePath(p *packages.Package) string {
	id := p.ID
	if i := strings.Index(id, " ["); i >= 0 {
		id = id[:i]
	}
	if strings.HasSuffix(id, ".test") && p.Name == "main" {
		return ""
	}
	return strings.TrimSuffix(id, "_test")
}

// relPos makes the file of a "file:line:col" position relative to dir when
// it lies below it.
func relPos(dir, pos string) string {
	if pos == "" || pos == "-" {
		return ""
	}
	if dir == "" {
		dir = "."
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return pos
	}
	file, rest := pos, ""
	// file:line:col, or file:line
	for range 2 {
		if i := strings.LastIndexByte(file, ':'); i >= 0 && isDigits(file[i+1:]) {
			rest = file[i:] + rest
			file = file[:i]
		}
	}
	if rel, err := filepath.Rel(absDir, file); err == nil && filepath.IsLocal(rel) {
		return rel + rest
	}
	return pos
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
