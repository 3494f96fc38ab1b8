package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/internal/safefs"
)

// SpecExt is the extension of world spec files.
const SpecExt = ".world"

// StdinName names standard input in diagnostics.
const StdinName = "<stdin>"

// UsageError is a command line that names specs wrongly: a path that does
// not exist, a directory without specs. Commands exit 2 on it.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}

// Spec is one spec named on the command line or found below a directory.
type Spec struct {
	// Name is the path as diagnostics print it: relative to the working
	// directory when the file lies below it, otherwise as given.
	Name string
	// Path is the absolute path to read; empty for standard input.
	Path string
}

// IsStdin reports whether the spec is read from standard input.
func (s Spec) IsStdin() bool { return s.Path == "" }

// Read returns the spec's content, from stdin when it is standard input.
// Only a regular file is read (a symbolic link the user named is followed
// to one): opening a FIFO or a device could block forever or never end.
// At most one byte more than the parser's size limit is read, so that a
// huge input gets the parser's size diagnostic instead of exhausting
// memory.
func (s Spec) Read(stdin io.Reader) ([]byte, error) {
	if s.IsStdin() {
		return io.ReadAll(io.LimitReader(stdin, dsl.MaxFileSize+1))
	}
	target, err := filepath.EvalSymlinks(s.Path)
	if err != nil {
		return nil, err
	}
	f, err := safefs.OpenRegular(target)
	if err != nil {
		if _, ok := err.(*fs.PathError); ok {
			return nil, err
		}
		return nil, errNotRegular
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, dsl.MaxFileSize+1))
}

// errNotRegular refuses to read a spec that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// Expand turns PATH arguments into specs: a file is taken as it is
// (whatever its extension), a directory or dir/... means every *.world
// below it in lexical order, skipping directories whose names start with
// "." or "_" (as the go command does), and "-" is standard input. Files
// named twice are kept once. A path that does not exist, or a directory
// without specs, is a *UsageError.
func Expand(cwd string, args []string) ([]Spec, error) {
	var out []Spec
	seen := map[string]bool{}
	add := func(abs, given string) {
		if !seen[abs] {
			seen[abs] = true
			out = append(out, Spec{Name: DisplayName(cwd, abs, given), Path: abs})
		}
	}
	for _, arg := range args {
		if arg == "-" {
			if !seen[""] {
				seen[""] = true
				out = append(out, Spec{Name: StdinName})
			}
			continue
		}
		root := arg
		recursive := false
		if root == "..." || strings.HasSuffix(root, "/...") {
			root = strings.TrimSuffix(strings.TrimSuffix(root, "..."), "/")
			if root == "" {
				root = "."
			}
			recursive = true
		}
		abs := Abs(cwd, root)
		info, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usagef("%s: no such file or directory", arg)
			}
			return nil, usagef("%v", err)
		}
		if !info.IsDir() {
			if recursive {
				return nil, usagef("%s: %s is not a directory", arg, root)
			}
			add(abs, root)
			continue
		}
		found, err := specsBelow(abs)
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, usagef("%s: no %s files", arg, SpecExt)
		}
		for _, f := range found {
			add(f, filepath.Join(root, strings.TrimPrefix(f, abs)))
		}
	}
	return out, nil
}

// specsBelow lists the *.world files below dir, sorted: regular files
// only. A symbolic link (to a spec, inside the tree or not, or to a
// directory), a FIFO, a socket or a device is skipped, so that a walk
// neither leaves the tree, nor blocks opening a FIFO, nor lets `fmt -w`
// write anywhere but the regular files inside it.
func specsBelow(dir string) ([]string, error) {
	var found []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), SpecExt) && !strings.HasPrefix(d.Name(), ".") {
			found = append(found, path)
		}
		return nil
	})
	slices.Sort(found)
	return found, err
}

// Abs resolves p against cwd.
func Abs(cwd, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// DisplayName is how a file is named in output: relative to cwd when it
// lies below it, otherwise as the user wrote it (cleaned).
func DisplayName(cwd, abs, given string) string {
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return filepath.Clean(given)
}

// PackageDir is how the go command is told about the package in dir: a
// ./relative path below cwd, otherwise the absolute path.
func PackageDir(cwd, dir string) string {
	if rel, err := filepath.Rel(cwd, dir); err == nil && filepath.IsLocal(rel) {
		return "./" + filepath.ToSlash(rel)
	}
	return dir
}
