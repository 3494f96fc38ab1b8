// Package safefs holds the file-system rules every worldc command keeps:
// read only regular files (a FIFO blocks its reader, a device never ends),
// never write through a symbolic link or outside the directory it was
// given, replace files atomically, and touch no file worldc did not write
// (the generated-file header on its first line says which those are).
//
// Every other package reads and writes the user's files through these
// functions, so that a rule is defined once.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// Header starts every file worldc generates, on its first line.
const Header = ir.Header

// ErrTooLarge is the error of a bounded read of a file longer than its
// bound.
var ErrTooLarge = errors.New("file too large")

// Kind names the kind of a file that is not a regular one: "a directory",
// "a symbolic link", "a named pipe (FIFO)"…
func Kind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// OpenRegular opens p for reading only if it is a regular file, not a
// symbolic link, and checks again once it is open (the file may have been
// replaced between the two).
func OpenRegular(p string) (*os.File, error) {
	if info, err := os.Lstat(p); err != nil {
		return nil, err
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file but %s", p, Kind(info.Mode()))
	}
	// Opened without blocking: a FIFO swapped in after the Lstat must not
	// hold the open until a writer comes (the check below then refuses it).
	f, err := os.OpenFile(p, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return f, nil
}

// ReadRegular reads the regular file p (see OpenRegular).
func ReadRegular(p string) ([]byte, error) {
	return ReadRegularLimit(p, -1)
}

// ReadRegularLimit reads the regular file p, failing with ErrTooLarge
// when it holds more than limit bytes (a negative limit: no bound).
func ReadRegularLimit(p string, limit int64) ([]byte, error) {
	f, err := OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if limit < 0 {
		return io.ReadAll(f)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w (more than %d bytes)", p, ErrTooLarge, limit)
	}
	return data, err
}

// IsGenerated reports whether p is a regular file whose first line is the
// worldc header (where Go's convention and jennifer put it; a header
// further down is not worldc's). It reads no more than that line, and
// never opens a FIFO, a device or a symbolic link: those are not worldc's.
func IsGenerated(p string) (bool, error) {
	f, err := OpenRegular(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return false, err // the file is gone or unreadable
		}
		return false, nil // not a regular file
	}
	defer f.Close()
	buf := make([]byte, len(Header)+2)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	return strings.TrimSuffix(line, "\r") == Header, nil
}

// Inside verifies that p, cleaned, lies strictly inside root.
func Inside(root, p string) error {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return fmt.Errorf("refusing to write %s: outside the output directory %s", p, root)
	}
	return nil
}

// NoSymlinks verifies that no existing path component between root
// (exclusive) and p (inclusive) is a symbolic link, so that writing p
// cannot land outside root.
func NoSymlinks(root, p string) error {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return err
	}
	if rel == "." {
		return nil
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		if info, err := os.Lstat(cur); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("refusing to write through the symbolic link %s", cur)
		}
	}
	return nil
}

// File is a file being written atomically (Create): what is written goes
// to a temporary file beside its path, which Commit renames over it.
type File struct {
	*os.File
	path string
	mode os.FileMode
	done bool
}

// Create starts replacing p atomically, for output written as it is made
// (a stream of JSON lines): write to the File, then Commit; Close without
// Commit (or after a failed one) removes the temporary file and leaves p as
// it was. A symbolic link at p is replaced, not followed (see WriteFile).
func Create(p string) (*File, error) {
	mode := os.FileMode(0o644)
	if info, err := os.Lstat(p); err == nil && info.Mode().IsRegular() {
		mode = info.Mode().Perm()
	} else if err == nil && info.IsDir() {
		return nil, fmt.Errorf("%s is a directory", p)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp*")
	if err != nil {
		return nil, err
	}
	return &File{File: tmp, path: p, mode: mode}, nil
}

// Commit puts the written content in place of the file's path.
func (f *File) Commit() error {
	if f.done {
		return errors.New("safefs: file committed or closed already")
	}
	f.done = true
	err := f.File.Chmod(f.mode)
	if err == nil {
		err = f.File.Sync()
	}
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.File.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.File.Name())
	}
	return err
}

// Close abandons a file not committed: its temporary file goes. After
// Commit it does nothing.
func (f *File) Close() error {
	if f.done {
		return nil
	}
	f.done = true
	f.File.Close()
	return os.Remove(f.File.Name())
}

// WriteFile replaces p with data so that a reader sees the old or the new
// content, never part of it: it writes a temporary file in the same
// directory, syncs it and renames it over p. An existing regular file
// keeps its mode (new files get 0644).
//
// A symbolic link at p is replaced, not followed: a link planted where
// worldc writes (an output directory, a report path) must not redirect
// the write to a file elsewhere, and the rename cannot follow it anyway
// without a race between resolving the link and writing its target.
func WriteFile(p string, data []byte) error {
	f, err := Create(p)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// RemoveEmptyDirs removes dir and its parents up to root (exclusive) while
// they are empty.
func RemoveEmptyDirs(root, dir string) {
	for dir != root && Inside(root, dir) == nil {
		if os.Remove(dir) != nil { // not empty, or gone
			return
		}
		dir = filepath.Dir(dir)
	}
}
