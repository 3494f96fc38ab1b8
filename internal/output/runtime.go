package output

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/sumdb/dirhash"

	worldrt "github.com/worldc/worldc/runtime"
)

// RuntimeModule is the module path of worldc's runtime, the one dependency
// of every generated world.
const RuntimeModule = worldrt.ModulePath

// Runtime is a copy of worldc's runtime module: the files a generated world
// needs to build (go.mod and the non-test Go files of its packages).
type Runtime struct {
	// Files maps slash-separated paths in the module to their contents.
	Files map[string][]byte
	// Hash is the go.sum-style hash of Files ("h1:" and base64 SHA-256,
	// golang.org/x/mod/sumdb/dirhash.Hash1 over the paths above): equal
	// hashes mean the same runtime.
	Hash string
	// GoVersion is the go directive of the runtime's go.mod: the oldest Go
	// that builds the worlds.
	GoVersion string
}

// EmbeddedRuntime is the runtime this worldc was built with, the one the
// code it generates is written for.
func EmbeddedRuntime() (*Runtime, error) {
	files, err := ReadFS(worldrt.Source())
	if err != nil {
		return nil, fmt.Errorf("reading the embedded runtime: %w", err)
	}
	return newRuntime(files)
}

// ReadFS reads every file of fsys (an embedded module's source) by its
// slash-separated path.
func ReadFS(fsys fs.FS) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		files[p] = data
		return err
	})
	return files, err
}

func newRuntime(files map[string][]byte) (*Runtime, error) {
	mod, ok := files["go.mod"]
	if !ok {
		return nil, errors.New("the runtime has no go.mod")
	}
	f, err := modfile.ParseLax("go.mod", mod, nil)
	if err != nil {
		return nil, err
	}
	if f.Module == nil || f.Module.Mod.Path != RuntimeModule || f.Go == nil {
		return nil, fmt.Errorf("the runtime's go.mod does not declare module %s with a go version", RuntimeModule)
	}
	h, err := hashFiles(files)
	if err != nil {
		return nil, err
	}
	return &Runtime{Files: files, Hash: h, GoVersion: f.Go.Version}, nil
}

// hashFiles is dirhash.Hash1 over files.
func hashFiles(files map[string][]byte) (string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	return dirhash.Hash1(names, func(name string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(files[name])), nil
	})
}

// Version is the version a module requires the runtime at: a pseudo-version
// whose revision is the start of the runtime's hash, so that go.mod says
// which runtime the worlds were generated for.
func (r *Runtime) Version() string {
	sum, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(r.Hash, "h1:"))
	if err != nil || len(sum) < 6 {
		sum = make([]byte, 6)
	}
	return "v0.0.0-00010101000000-" + hex.EncodeToString(sum[:6])
}

// ShortHash is the hash as people read it: its first twelve hex digits, as
// in Version.
func (r *Runtime) ShortHash() string {
	return strings.TrimPrefix(r.Version(), "v0.0.0-00010101000000-")
}

// readRuntimeDir reads, from the runtime module at dir, the files that a
// runtime copy holds: go.mod and the non-test Go files of the directories
// that r's files are in. It is how a module's runtime is compared with r.
func (r *Runtime) readRuntimeDir(dir string) (*Runtime, error) {
	dirs := map[string]bool{}
	for name := range r.Files {
		dirs[path.Dir(name)] = true
	}
	files := map[string][]byte{}
	for d := range dirs {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
				continue
			}
			p := path.Join(d, name)
			if files[p], err = os.ReadFile(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				return nil, err
			}
		}
	}
	mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil, err
	}
	files["go.mod"] = mod
	return newRuntime(files)
}

// hashOfDir is the hash of the runtime module at dir, as readRuntimeDir
// reads it, or an error that says why there is none.
func (r *Runtime) hashOfDir(dir string) (string, error) {
	other, err := r.readRuntimeDir(dir)
	if err != nil {
		return "", err
	}
	return other.Hash, nil
}
