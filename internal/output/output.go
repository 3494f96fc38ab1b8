package output

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/safefs"
)

// Header starts every generated Go file; a world directory that holds a Go
// file without it was not written by worldc, and the gate refuses to touch
// it.
const Header = ir.Header

// Output is the generated package of one world.
type Output struct {
	// World is the world's name: the package name and the directory below
	// the output directory.
	World string
	// Files maps slash-separated paths relative to the world's directory to
	// their contents.
	Files map[string][]byte
	// Source names where the world comes from (a spec), for errors.
	Source string
}

// DuplicateWorldError is the error of two sources (specs, generated
// packages) that define one world: both would be generated into one
// directory, or served under one name. It is the one error for that, from
// the pipeline's check of specs to the bundle's of packages.
type DuplicateWorldError struct {
	World         string
	First, Second string // the sources, in the order they were given
}

func (e *DuplicateWorldError) Error() string {
	return fmt.Sprintf("world %s is defined by both %s and %s: a world's name names its generated package, so each needs its own", e.World, e.First, e.Second)
}

// ChangeKind says what a Change does to a file.
type ChangeKind int

// The kinds of change, in the words of `worldc gen --check`.
const (
	Missing  ChangeKind = iota + 1 // the file is generated but not on disk: create it
	Outdated                       // the file on disk differs: rewrite it
	Stale                          // the file is on disk but no longer generated: remove it
)

func (k ChangeKind) String() string {
	switch k {
	case Missing:
		return "missing"
	case Outdated:
		return "out of date"
	case Stale:
		return "stale"
	}
	return fmt.Sprintf("ChangeKind(%d)", int(k))
}

// Change is one file to create, rewrite or remove.
type Change struct {
	Kind ChangeKind
	// Path is the file's path relative to the output directory,
	// slash-separated: "<world>/<file>".
	Path string
}

// worldName is what a world directory may be called: the checker allows
// only lower snake case names, and the gate checks again because specs come
// from LLMs and Outputs may come from elsewhere.
var worldName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// IsWorldName reports whether s may name a world's directory.
func IsWorldName(s string) bool { return worldName.MatchString(s) }

// Plan compares the outputs with what is under dir and returns the changes
// that bring dir in line, sorted by path. It writes nothing. Every path it
// returns stays inside dir: it refuses world names and file paths that are
// not local, symbolic links on the way to a file, two outputs for one
// world, and world directories that hold Go files worldc did not generate.
// Only Go files that start with the header are stale (removed when no
// longer generated); every other file is left alone, and one that stands
// where a generated file goes (a FIFO, a directory, a file worldc did not
// write) is an error that names it. It never opens anything but regular
// files.
func Plan(dir string, outs []Output) ([]Change, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	var changes []Change
	seen := map[string]string{}
	for _, out := range outs {
		if !worldName.MatchString(out.World) {
			return nil, fmt.Errorf("world name %q is not a valid directory name (lower snake case, at most 64 characters)", out.World)
		}
		if first, dup := seen[out.World]; dup {
			return nil, &DuplicateWorldError{World: out.World, First: first, Second: out.Source}
		}
		seen[out.World] = out.Source
		c, err := planWorld(root, out)
		if err != nil {
			return nil, err
		}
		changes = append(changes, c...)
	}
	slices.SortFunc(changes, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return changes, nil
}

func planWorld(root string, out Output) ([]Change, error) {
	worldDir := filepath.Join(root, out.World)
	if err := safefs.Inside(root, worldDir); err != nil {
		return nil, err
	}
	if err := safefs.NoSymlinks(root, worldDir); err != nil {
		return nil, err
	}
	ours, err := generatedFiles(worldDir, out)
	if err != nil {
		return nil, err
	}
	var changes []Change
	names := make([]string, 0, len(out.Files))
	for name := range out.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !filepath.IsLocal(filepath.FromSlash(name)) || path.Clean(name) != name || strings.Contains(name, "\\") {
			return nil, fmt.Errorf("world %s: generated file name %q is not a plain relative path", out.World, name)
		}
		full := filepath.Join(worldDir, filepath.FromSlash(name))
		if err := safefs.Inside(root, full); err != nil {
			return nil, err
		}
		if err := safefs.NoSymlinks(root, full); err != nil {
			return nil, err
		}
		rel := out.World + "/" + name
		info, err := os.Lstat(full)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			changes = append(changes, Change{Missing, rel})
			continue
		case err != nil:
			return nil, err
		case !info.Mode().IsRegular():
			return nil, fmt.Errorf("%s is in the way of world %s: it is not a regular file but %s; refusing to replace it", full, out.World, safefs.Kind(info.Mode()))
		case !ours[name] && (strings.HasSuffix(name, ".go") || len(ours) == 0):
			// A Go file without the header fails generatedFiles; any other
			// file is worldc's only beside the Go files it wrote.
			return nil, fmt.Errorf("%s is in the way of world %s: worldc did not write it (the directory holds no Go file starting with %q); refusing to replace it", full, out.World, Header)
		case info.Size() != int64(len(out.Files[name])):
			changes = append(changes, Change{Outdated, rel})
			continue
		}
		old, err := safefs.ReadRegular(full)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(old, out.Files[name]) {
			changes = append(changes, Change{Outdated, rel})
		}
	}
	stale := make([]string, 0, len(ours))
	for name := range ours {
		if _, ok := out.Files[name]; !ok {
			stale = append(stale, name)
		}
	}
	slices.Sort(stale)
	for _, name := range stale {
		changes = append(changes, Change{Stale, out.World + "/" + name})
	}
	return changes, nil
}

// generatedFiles lists the files below a world's directory that worldc
// wrote: regular Go files whose first line is the header. Only they are
// ever removed or replaced without question (a file worldc generates but
// that is not Go, such as seed.json, is replaced only beside them).
// Anything else (a README, notes/x.csv, a FIFO) is left alone. It refuses
// a directory holding a Go file without the header on its first line:
// that directory is someone else's.
func generatedFiles(worldDir string, out Output) (map[string]bool, error) {
	ours := map[string]bool{}
	info, err := os.Lstat(worldDir)
	if errors.Is(err, fs.ErrNotExist) {
		return ours, nil
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s exists and is not a directory", worldDir)
	}
	err = filepath.WalkDir(worldDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		rel, err := filepath.Rel(worldDir, p)
		if err != nil {
			return err
		}
		generated, err := safefs.IsGenerated(p)
		if err != nil {
			return err
		}
		if !generated {
			return fmt.Errorf("%s was not generated by worldc (its first line is not %q); refusing to write world %s there", p, Header, out.World)
		}
		ours[filepath.ToSlash(rel)] = true
		return nil
	})
	return ours, err
}

// Apply carries out changes planned by Plan for the same outputs: it
// writes missing and out-of-date files atomically (a temporary file in the
// same directory renamed over the old one), removes stale files and the
// directories they leave empty. It checks every path again before touching
// it, and removes only Go files whose first line is the header.
func Apply(dir string, outs []Output, changes []Change) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	for _, out := range outs {
		for name, data := range out.Files {
			files[out.World+"/"+name] = data
		}
	}
	for _, c := range changes {
		full := filepath.Join(root, filepath.FromSlash(c.Path))
		if err := safefs.Inside(root, full); err != nil {
			return err
		}
		// The file itself may be a link (rename replaces it, Remove removes
		// the link); the directories on the way may not.
		if err := safefs.NoSymlinks(root, filepath.Dir(full)); err != nil {
			return err
		}
		switch c.Kind {
		case Missing, Outdated:
			data, ok := files[c.Path]
			if !ok {
				return fmt.Errorf("no generated content for %s", c.Path)
			}
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if err := safefs.WriteFile(full, data); err != nil {
				return err
			}
		case Stale:
			// Only a file worldc wrote is ever removed.
			if ok, err := safefs.IsGenerated(full); errors.Is(err, fs.ErrNotExist) {
				continue
			} else if err != nil {
				return err
			} else if !ok {
				return fmt.Errorf("refusing to remove %s: worldc did not write it (its first line is not %q)", full, Header)
			}
			if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			safefs.RemoveEmptyDirs(root, filepath.Dir(full))
		}
	}
	return nil
}

// Remove removes a world's package from dir as worldc wrote it: its Go
// files that start with the header, and the other files of written (what
// worldc wrote there: name → SHA-256) that still hold what it wrote; then
// the directories left empty. Anything else stays, and a directory that
// holds Go files worldc did not write is refused, as Plan refuses it.
func Remove(dir, world string, written map[string][sha256.Size]byte) error {
	root, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	empty := Output{World: world, Files: map[string][]byte{}}
	changes, err := Plan(root, []Output{empty})
	if err != nil {
		return err
	}
	if err := Apply(root, []Output{empty}, changes); err != nil {
		return err
	}
	worldDir := filepath.Join(root, world)
	names := make([]string, 0, len(written))
	for name := range written {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if strings.HasSuffix(name, ".go") || !filepath.IsLocal(filepath.FromSlash(name)) {
			continue // the Go files went above
		}
		full := filepath.Join(worldDir, filepath.FromSlash(name))
		if err := safefs.NoSymlinks(root, full); err != nil {
			return err
		}
		data, err := safefs.ReadRegular(full)
		if err != nil || sha256.Sum256(data) != written[name] {
			continue // gone, or not what worldc wrote: not worldc's to remove
		}
		if err := os.Remove(full); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		safefs.RemoveEmptyDirs(root, filepath.Dir(full))
	}
	return nil
}

// Sums are the SHA-256 of an output's files, for Remove.
func (o Output) Sums() map[string][sha256.Size]byte {
	sums := make(map[string][sha256.Size]byte, len(o.Files))
	for name, data := range o.Files {
		sums[name] = sha256.Sum256(data)
	}
	return sums
}
