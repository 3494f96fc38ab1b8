// Package cache is the verdict cache of the gate: verdicts stored by the
// content of everything they depend on.
package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/gate"
	"github.com/worldc/worldc/internal/output"
	"github.com/worldc/worldc/internal/safefs"
)

// Cache holds gate verdicts by content: a world whose spec, data files,
// generated files, worldc, runtime and Go are unchanged gets its last
// verdict without being checked, generated or tested again. It is safe for
// concurrent use by several processes (entries are written whole, by
// rename); an entry that does not decode, or whose checksum does not match,
// is ignored as if absent.
type Cache struct {
	dir  string
	salt string // what every key shares: worldc, runtime, Go, gate options
}

// DefaultDir is where the cache lives unless told otherwise:
// $WORLDC_CACHE, else <user cache dir>/worldc/verdicts.
func DefaultDir() (string, error) {
	if d := os.Getenv("WORLDC_CACHE"); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory (set WORLDC_CACHE or pass --cache-dir): %w", err)
	}
	return filepath.Join(base, "worldc", "verdicts"), nil
}

// Open opens (creating) a cache in dir. salt names everything besides
// a world's own inputs that a verdict depends on; entries made under
// another salt are never found.
func Open(dir, salt string) (*Cache, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &Cache{dir: dir, salt: salt}, nil
}

// Input is what a world's verdict depends on besides the salt.
type Input struct {
	// Spec is the spec's content.
	Spec []byte
	// Options distinguishes gate runs whose verdicts differ for the same
	// world (--typecheck-only, say).
	Options string
}

// Entry is a stored verdict.
type Entry struct {
	Key string `json:"key"`
	// Deps are the files the check read besides the spec (data files,
	// policy documents), by path, with their SHA-256: the entry holds only
	// while they are unchanged.
	Deps []FileSum `json:"deps,omitempty"`
	// Outputs are the generated files of the world (relative to its
	// directory) with their SHA-256: the entry holds only while they are
	// on disk unchanged.
	Outputs []FileSum        `json:"outputs,omitempty"`
	Result  gate.WorldResult `json:"result"`
	// Sum is the SHA-256 of the entry's JSON with Sum empty.
	Sum string `json:"sum"`
}

// FileSum is a file and its SHA-256 (hex). A dependency with an empty
// SHA256 is a file the check looked for and did not find: the entry holds
// while it is still absent.
type FileSum struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// maxEntry bounds the size of a cache entry read back.
const maxEntry = 16 << 20

// holds reports whether the dependency is as it was: the same content, or
// still absent.
func (d FileSum) holds() bool {
	if d.SHA256 == "" {
		_, err := os.Lstat(d.Path)
		return errors.Is(err, fs.ErrNotExist)
	}
	sum, err := depSHA256(d.Path)
	return err == nil && sum == d.SHA256
}

// Key is the cache key of a world's inputs.
func (c *Cache) Key(in Input) string {
	h := sha256.New()
	fmt.Fprintf(h, "worldc verdict v1\x00%s\x00%s\x00%d\x00", c.salt, in.Options, len(in.Spec))
	h.Write(in.Spec)
	return hex.EncodeToString(h.Sum(nil))
}

func (c *Cache) file(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// Get returns the entry for key when it exists, is intact, and its
// dependencies and outputs are unchanged on disk (outRoot is the output
// directory: the world's files are in outRoot/<world>).
func (c *Cache) Get(key, outRoot string) (*Entry, bool) {
	// An entry is a regular file of bounded size: a FIFO planted in the
	// cache must not hang the build, nor a link to /dev/zero exhaust it.
	data, err := safefs.ReadRegularLimit(c.file(key), maxEntry)
	if err != nil {
		return nil, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.Key != key {
		return nil, false
	}
	want := e.Sum
	e.Sum = ""
	if got, err := entrySum(&e); err != nil || got != want {
		return nil, false
	}
	e.Sum = want
	for _, d := range e.Deps {
		if !d.holds() {
			return nil, false
		}
	}
	if len(e.Outputs) > 0 && (!output.IsWorldName(e.Result.World) || !sameOutputs(filepath.Join(outRoot, e.Result.World), e.Outputs)) {
		return nil, false
	}
	return &e, true
}

// Put stores an entry (its Key and Sum are set here).
func (c *Cache) Put(key string, e Entry) error {
	e.Key, e.Sum = key, ""
	sum, err := entrySum(&e)
	if err != nil {
		return err
	}
	e.Sum = sum
	data, err := json.Marshal(&e)
	if err != nil {
		return err
	}
	p := c.file(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return safefs.WriteFile(p, data) // whole or not at all: concurrent runs share the cache
}

func entrySum(e *Entry) (string, error) {
	data, err := json.Marshal(e)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// OutputSums are the SHA-256 of a world's generated files, sorted by name.
func OutputSums(files map[string][]byte) []FileSum {
	out := make([]FileSum, 0, len(files))
	for name, data := range files {
		sum := sha256.Sum256(data)
		out = append(out, FileSum{Path: name, SHA256: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(out, func(a, b FileSum) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// sameOutputs reports whether dir holds exactly the files of sums with
// those contents, and nothing else: a file added beside them (a .go file
// as a symbolic link, a directory of them) changes the package.
func sameOutputs(dir string, sums []FileSum) bool {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != len(sums) {
		return false
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			return false
		}
	}
	for _, s := range sums {
		if !filepath.IsLocal(s.Path) {
			return false
		}
		sum, err := fileSHA256(filepath.Join(dir, filepath.FromSlash(s.Path)))
		if err != nil || sum != s.SHA256 {
			return false
		}
	}
	return true
}

func fileSHA256(p string) (string, error) {
	f, err := safefs.OpenRegular(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// ExecutableSum is the SHA-256 of the running program: the identity of
// this worldc build for cache keys (a version string does not change when
// a development build does).
func ExecutableSum() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	return fileSHA256(exe)
}

// depSHA256 is the SHA-256 of a data file: it may be a symbolic link
// inside the spec's directory (the check reads through an os.Root, which
// allows those), but only a regular file is read.
func depSHA256(p string) (string, error) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", err
	}
	return fileSHA256(target)
}

// RecordingFS wraps a file system and records the files looked for
// through it (opened or stat'ed, found or not), so that a cache entry can
// depend on them: on their content, or on their absence.
type RecordingFS struct {
	FS   fs.FS
	Base string // the directory FS is rooted at, to name the files
	read []string
}

// Open implements fs.FS.
func (r *RecordingFS) Open(name string) (fs.File, error) {
	r.read = append(r.read, name)
	return r.FS.Open(name)
}

// Stat implements fs.StatFS with FS's own Stat: without it, fs.Stat
// would open the file to stat it, and opening a FIFO blocks until a
// writer comes (a data file named by a hostile spec must not hang check).
func (r *RecordingFS) Stat(name string) (fs.FileInfo, error) {
	r.read = append(r.read, name)
	if sfs, ok := r.FS.(fs.StatFS); ok {
		return sfs.Stat(name)
	}
	return fs.Stat(r.FS, name)
}

// Deps are the files looked for so far with their current SHA-256
// (empty for those absent), sorted. A file that exists but cannot be
// hashed (a FIFO, a link out of the tree) is a dependency that never
// holds: the spec is checked again each time.
func (r *RecordingFS) Deps() []FileSum {
	names := slices.Clone(r.read)
	slices.Sort(names)
	names = slices.Compact(names)
	var out []FileSum
	for _, n := range names {
		if !fs.ValidPath(n) {
			continue // the FS refused it: nothing was read
		}
		p := filepath.Join(r.Base, filepath.FromSlash(n))
		sum, err := depSHA256(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			out = append(out, FileSum{Path: p})
		case err != nil:
			out = append(out, FileSum{Path: p, SHA256: unhashable})
		default:
			out = append(out, FileSum{Path: p, SHA256: sum})
		}
	}
	return out
}

// unhashable is the SHA256 of a dependency that could not be hashed: no
// file's hash is that.
const unhashable = "unhashable"
