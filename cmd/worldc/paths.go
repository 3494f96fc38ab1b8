package main

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/dsl"
)

// specExt is the extension of world spec files.
const specExt = ".world"

// stdinName names standard input in diagnostics.
const stdinName = "<stdin>"

// specFile is one spec named on the command line or found below a
// directory.
type specFile struct {
	// name is the path as diagnostics print it: relative to the working
	// directory when the file lies below it, otherwise as given.
	name string
	// path is the absolute path to read and write; empty for stdin.
	path string
}

func (f specFile) isStdin() bool { return f.path == "" }

// read returns the file's content. Only a regular file is read (a named
// symbolic link is followed to one): opening a FIFO or a device could block
// forever or never end.
func (f specFile) read(sys *stdio) ([]byte, error) {
	if f.isStdin() {
		return readAllLimited(sys.stdin)
	}
	if info, err := os.Stat(f.path); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, errNotRegular
	}
	fh, err := os.Open(f.path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if info, err := fh.Stat(); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() { // replaced since the Stat above
		return nil, errNotRegular
	}
	return readAllLimited(fh)
}

// errNotRegular refuses to read a spec that is not a regular file.
var errNotRegular = errors.New("not a regular file")

// expandPaths turns PATH arguments into spec files: a file is taken as it
// is (whatever its extension), a directory or dir/... means every *.world
// below it in lexical order, skipping directories whose names start with
// "." or "_" (as the go command does), and "-" is standard input. Files
// named twice are kept once. A path that does not exist, or a directory
// without specs, is a usage error.
func expandPaths(cwd string, args []string) ([]specFile, error) {
	var out []specFile
	seen := map[string]bool{}
	add := func(abs, given string) {
		if !seen[abs] {
			seen[abs] = true
			out = append(out, specFile{name: displayName(cwd, abs, given), path: abs})
		}
	}
	for _, arg := range args {
		if arg == "-" {
			if !seen[""] {
				seen[""] = true
				out = append(out, specFile{name: stdinName})
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
		abs := root
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, abs)
		}
		abs = filepath.Clean(abs)
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
			return nil, usagef("%s: no %s files", arg, specExt)
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
		if d.Type().IsRegular() && strings.HasSuffix(d.Name(), specExt) && !strings.HasPrefix(d.Name(), ".") {
			found = append(found, path)
		}
		return nil
	})
	slices.Sort(found)
	return found, err
}

// displayName is how a file is named in output: relative to cwd when it
// lies below it, otherwise as the user wrote it (cleaned).
func displayName(cwd, abs, given string) string {
	if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return filepath.Clean(given)
}

// readAllLimited reads r up to one byte past the parser's size limit, so
// that an endless or huge input gets the parser's size diagnostic instead
// of exhausting memory.
func readAllLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, dsl.MaxFileSize+1))
}

// unwrapPathError drops the operation and path of an *fs.PathError: the
// file is named already where it is reported.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
