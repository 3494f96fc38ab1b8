// Package bundle builds a bundle: the directory a trainer downloads, with
// one server binary linking the bundle's worlds (runtime/serve), its
// manifest, the worlds' schemas, tasks and golden trajectories, trainer
// files, a Python client and a README.
//
// The binary is built from a source module that Build writes into the
// bundle (src/): a main package generated with jennifer, a copy of each
// world's generated package, and copies of worldc's runtime and server
// modules (embedded in worldc), so that a bundle builds from worldc alone
// and a trainer can rebuild it. The server's own dependencies (the MCP SDK,
// a WebSocket library) come from the Go module cache or proxy.
package bundle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	goruntime "runtime"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"
	"golang.org/x/mod/modfile"

	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/proc"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/runtime/serve"
	"github.com/worldc/worldc/templates"
)

// ServeModule is the module path of the server.
const ServeModule = "github.com/worldc/worldc/runtime/serve"

// World is one world's generated package.
type World struct {
	Name  string            // the world's name: its package name
	Files map[string][]byte // the package's files by name (tests are skipped)
	// SpecSHA256 is the hex SHA-256 of the spec it was generated from; ""
	// when built from a generated package.
	SpecSHA256 string
	// Source names where it comes from (its spec, or its package's
	// directory), for errors.
	Source string
	// Graph is the world's tool-dependency graph as an SVG picture
	// (internal/graphsvg), written to graphs/<world>.svg and linked from
	// the README; nil when there is none (a world from its package).
	Graph []byte
}

// Options configures Build.
type Options struct {
	Name    string // the bundle's name: the binary's
	Dir     string // the bundle directory
	Version string // worldc's version, for the manifest
	Runtime *output.Runtime
	// Env is the go command's environment; nil means os.Environ().
	Env []string
	// Step, when set, is told each step as it starts.
	Step func(what string)
}

// nameRE is what a bundle may be called: it names a file and a command.
var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,63}$`)

// Build writes the bundle into opts.Dir and returns its manifest. It
// writes only below opts.Dir; a directory that holds something else than a
// bundle is refused.
func Build(ctx context.Context, worlds []World, opts Options) (*serve.Manifest, error) {
	if !nameRE.MatchString(opts.Name) {
		return nil, fmt.Errorf("bundle name %q: use lower case letters, digits, - and _ (at most 64, starting with a letter)", opts.Name)
	}
	if len(worlds) == 0 {
		return nil, errors.New("a bundle needs at least one world")
	}
	seen := map[string]string{}
	for _, w := range worlds {
		if first, dup := seen[w.Name]; dup {
			return nil, &output.DuplicateWorldError{World: w.Name, First: first, Second: w.Source}
		}
		seen[w.Name] = w.Source
	}
	slices.SortFunc(worlds, func(a, b World) int { return strings.Compare(a.Name, b.Name) })
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	step := func(s string) {
		if opts.Step != nil {
			opts.Step(s)
		}
	}
	step("writing the source module")
	src := filepath.Join(dir, "src")
	files, err := sourceModule(worlds, opts)
	if err != nil {
		return nil, err
	}
	if err := writeTree(src, files); err != nil {
		return nil, err
	}
	step("building the server binary")
	bin := filepath.Join(dir, "bin", opts.Name)
	if err := goBuild(ctx, src, bin, opts.Env); err != nil {
		return nil, err
	}
	step("exporting schemas, tasks and golden trajectories")
	if err := run(ctx, bin, nil, "export", dir); err != nil {
		return nil, err
	}
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	m.WorldcVersion = opts.Version
	if m.GoVersion, err = goVersion(ctx, src, opts.Env); err != nil {
		return nil, err
	}
	m.Runtime = opts.Runtime.Hash
	sum, err := serve.FileSHA256(bin)
	if err != nil {
		return nil, err
	}
	m.Binary = serve.ManifestFile{Path: "bin/" + opts.Name, SHA256: sum}
	for i := range m.Worlds {
		for _, w := range worlds {
			if w.Name == m.Worlds[i].Name {
				m.Worlds[i].SpecSHA256 = w.SpecSHA256
			}
		}
	}
	rows, graphs := worldRows(m), map[string][]byte{}
	for i, w := range worlds {
		if len(w.Graph) > 0 && i < len(rows) && rows[i].Name == w.Name {
			rows[i].Graph, graphs[w.Name+".svg"] = "graphs/"+w.Name+".svg", w.Graph
		}
	}
	if len(graphs) > 0 {
		if err := writeTree(filepath.Join(dir, "graphs"), graphs); err != nil {
			return nil, err
		}
	}
	readme, err := templates.BundleReadme(templates.BundleData{Name: opts.Name, Worlds: rows, GoVersion: m.GoVersion})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "rebuild.sh"), []byte(rebuildScript(opts.Name, m.GoVersion)), 0o755); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "client"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "client", "worldc_client.py"), []byte(templates.PythonClient), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "client", "worldc_verl.py"), []byte(templates.VerlTool), 0o644); err != nil {
		return nil, err
	}
	// Every file of the bundle is hashed: the worlds' by the export, the
	// binary above, the rest (README, rebuild.sh, client/, src/) here.
	if m.Files, err = otherFiles(dir, m); err != nil {
		return nil, err
	}
	if err := writeManifest(dir, m); err != nil {
		return nil, err
	}
	step("verifying the bundle")
	if err := run(ctx, bin, nil, "verify", "--bundle", dir); err != nil {
		return nil, fmt.Errorf("the new bundle does not verify: %w", err)
	}
	return m, nil
}

func worldRows(m *serve.Manifest) []templates.BundleWorld {
	var out []templates.BundleWorld
	for _, w := range m.Worlds {
		out = append(out, templates.BundleWorld{Name: w.Name, Title: w.Title, Tools: w.Tools, Tasks: w.Tasks})
	}
	return out
}

// bundleMarker is the file that says a directory is a bundle worldc wrote.
const bundleMarker = serve.ManifestName

// prepareDir makes dir ready for a new bundle: it must not exist, be
// empty, or be a bundle (whose generated parts are then removed).
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	if err := isBundle(dir); err != nil {
		return fmt.Errorf("%s is not empty and holds no bundle worldc wrote (%v): choose another directory", dir, err)
	}
	for _, part := range []string{"bin", "src", "worlds", "trainers", "client", "graphs", "README.md", "rebuild.sh", bundleMarker} {
		if err := os.RemoveAll(filepath.Join(dir, part)); err != nil {
			return err
		}
	}
	return nil
}

// isBundle says why dir is not a bundle worldc wrote, or nil when it is:
// its manifest is a regular file that decodes as a bundle's manifest,
// field for field, and names a binary that is there with the hash it
// gives. A manifest.json of something else (a web app has one) is not
// enough to have its directories removed.
func isBundle(dir string) error {
	data, err := safefs.ReadRegularLimit(filepath.Join(dir, bundleMarker), 64<<20)
	if err != nil {
		return fmt.Errorf("no readable %s", bundleMarker)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m serve.Manifest
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%s is not a bundle's manifest: %v", bundleMarker, err)
	}
	if !nameRE.MatchString(m.Bundle) || m.Binary.Path != "bin/"+m.Bundle || !strings.HasPrefix(m.Runtime, "h1:") {
		return fmt.Errorf("%s is not a bundle's manifest", bundleMarker)
	}
	f, err := safefs.OpenRegular(filepath.Join(dir, filepath.FromSlash(m.Binary.Path)))
	if err != nil {
		return fmt.Errorf("its binary %s is missing", m.Binary.Path)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil || hex.EncodeToString(h.Sum(nil)) != m.Binary.SHA256 {
		return fmt.Errorf("its binary %s is not the one the manifest names", m.Binary.Path)
	}
	return nil
}

// sourceModule is the source of the binary: go.mod, go.sum, main.go, the
// worlds under worlds/ and the runtime and server under .worldc/.
func sourceModule(worlds []World, opts Options) (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, data := range opts.Runtime.Files {
		files[output.RuntimeCopyDir+"/"+name] = data
	}
	serveFiles, err := output.ReadFS(serve.Source())
	if err != nil {
		return nil, fmt.Errorf("reading the embedded server: %w", err)
	}
	for name, data := range serveFiles {
		files[".worldc/serve/"+name] = data
	}
	serveMod, err := modfile.Parse("go.mod", serveFiles["go.mod"], nil)
	if err != nil {
		return nil, err
	}
	gomod := &modfile.File{}
	gomod.AddModuleStmt("bundle")
	if err := gomod.AddGoStmt(opts.Runtime.GoVersion); err != nil {
		return nil, err
	}
	gomod.AddNewRequire(output.RuntimeModule, opts.Runtime.Version(), false)
	gomod.AddNewRequire(ServeModule, opts.Runtime.Version(), false)
	for _, r := range serveMod.Require {
		if r.Mod.Path != output.RuntimeModule {
			gomod.AddNewRequire(r.Mod.Path, r.Mod.Version, r.Indirect)
		}
	}
	if err := gomod.AddReplace(output.RuntimeModule, "", "./"+output.RuntimeCopyDir, ""); err != nil {
		return nil, err
	}
	if err := gomod.AddReplace(ServeModule, "", "./.worldc/serve", ""); err != nil {
		return nil, err
	}
	gomod.Cleanup()
	if files["go.mod"], err = gomod.Format(); err != nil {
		return nil, err
	}
	files["go.sum"] = serveFiles["go.sum"]
	for _, w := range worlds {
		for name, data := range w.Files {
			if strings.HasSuffix(name, "_test.go") || !filepath.IsLocal(name) || path.Clean(name) != name || strings.Contains(name, "/") {
				continue
			}
			files["worlds/"+w.Name+"/"+name] = data
		}
	}
	if files["main.go"], err = mainFile(worlds, opts.Name); err != nil {
		return nil, err
	}
	return files, nil
}

// mainFile is the bundle's main package.
func mainFile(worlds []World, name string) ([]byte, error) {
	f := jen.NewFile("main")
	f.HeaderComment(strings.TrimPrefix(safefs.Header, "// "))
	f.PackageComment(fmt.Sprintf("Command %s serves the worlds of the bundle %s over the JSON episode API,\nMCP and the OpenEnv WebSocket; run it without arguments for its usage.", name, name))
	var args []jen.Code
	args = append(args, jen.Lit(name))
	for _, w := range worlds {
		f.ImportAlias("bundle/worlds/"+w.Name, w.Name)
		args = append(args, jen.Qual("bundle/worlds/"+w.Name, "New").Call())
	}
	f.Func().Id("main").Params().Block(
		jen.Qual(ServeModule, "Main").Call(args...),
	)
	var buf bytes.Buffer
	if err := f.Render(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeTree writes files below root (which it empties first).
func writeTree(root string, files map[string][]byte) error {
	if err := os.RemoveAll(root); err != nil {
		return err
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p := filepath.Join(root, filepath.FromSlash(n))
		if rel, err := filepath.Rel(root, p); err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("refusing to write %s outside %s", n, root)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			return err
		}
	}
	return nil
}

// buildEnv and buildArgs are how the binary is built, which rebuild.sh
// repeats.
var (
	buildEnv  = []string{"CGO_ENABLED=0", "GOFLAGS=-mod=mod", "GOWORK=off"}
	buildArgs = []string{"build", "-trimpath", "-buildvcs=false", "-ldflags=-s -w -buildid="}
)

// rebuildScript is the bundle's rebuild.sh: the same build of src/, then
// the new binary's verify, which checks its own hash against the manifest.
func rebuildScript(name, goVersion string) string {
	return fmt.Sprintf(`#!/bin/sh
# Rebuild bin/%[1]s from src/ exactly as worldc built it, and check that the
# new binary is byte for byte the shipped one (its verify compares its own
# SHA-256 with manifest.json, then replays every golden trajectory).
# The Go toolchain must be the one the manifest names: %[2]s.
set -eu
cd "$(dirname "$0")"
have=$(go env GOVERSION)
if [ "$have" != "%[2]s" ]; then
	echo "rebuild.sh: go is $have; the bundle was built with %[2]s (GOTOOLCHAIN=%[2]s selects it)" >&2
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(cd src && env %[3]s go %[4]s -o "$out/%[1]s" .)
"$out/%[1]s" verify --bundle "$PWD"
`, name, goVersion, strings.Join(buildEnv, " "), strings.Join(buildArgs[:3], " ")+` "`+buildArgs[3]+`"`)
}

// otherFiles hashes the bundle's files that neither the binary's entry
// nor a world's list holds, sorted by path.
func otherFiles(dir string, m *serve.Manifest) ([]serve.ManifestFile, error) {
	known := map[string]bool{serve.ManifestName: true, m.Binary.Path: true}
	for _, w := range m.Worlds {
		for _, f := range w.Files {
			known[f.Path] = true
		}
	}
	var out []serve.ManifestFile
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if known[rel] {
			return nil
		}
		sum, err := serve.FileSHA256(p)
		if err != nil {
			return err
		}
		out = append(out, serve.ManifestFile{Path: rel, SHA256: sum})
		return nil
	})
	slices.SortFunc(out, func(a, b serve.ManifestFile) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}

// goBuild builds the static, reproducible binary.
func goBuild(ctx context.Context, src, bin string, env []string) error {
	if env == nil {
		env = os.Environ()
	}
	env = append(slices.Clip(env), buildEnv...)
	// A work directory that goes even when go build is stopped.
	env, removeWork, err := proc.GoWorkDir(env)
	if err != nil {
		return err
	}
	defer removeWork()
	cmd := proc.CommandContext(ctx, "go", append(slices.Clone(buildArgs), "-o", bin, ".")...)
	cmd.Dir = src
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "module lookup disabled") || strings.Contains(msg, "dial tcp") {
			msg += "\n(the server's dependencies must be in the Go module cache or reachable through GOPROXY: run `go mod download` in " + src + " with the network on, once)"
		}
		return fmt.Errorf("building the server binary in %s: %v\n%s", src, err, msg)
	}
	return nil
}

func goVersion(ctx context.Context, dir string, env []string) (string, error) {
	cmd := proc.CommandContext(ctx, "go", "env", "GOVERSION")
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return goruntime.Version(), nil
	}
	return strings.TrimSpace(string(out)), nil
}

// run runs the bundle binary.
func run(ctx context.Context, bin string, env []string, args ...string) error {
	cmd := proc.CommandContext(ctx, bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}

func readManifest(dir string) (*serve.Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, bundleMarker))
	if err != nil {
		return nil, err
	}
	var m serve.Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return &m, nil
}

func writeManifest(dir string, m *serve.Manifest) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, bundleMarker), buf.Bytes(), 0o644)
}
