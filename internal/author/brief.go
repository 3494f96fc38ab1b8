package author

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/safefs"
)

// Brief is one business brief to write a world for. Its taxonomy fields
// are optional; `worldc briefs` fills them.
type Brief struct {
	ID         string `json:"id"`
	Brief      string `json:"brief"`
	Industry   string `json:"industry,omitempty"`
	Country    string `json:"country,omitempty"`
	Capability string `json:"capability,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
}

// Taxonomy renders the brief's taxonomy fields for the author prompt, or ""
// when it has none.
func (b Brief) Taxonomy() string {
	var parts []string
	for _, kv := range [][2]string{{"industry", b.Industry}, {"country", b.Country}, {"capability", b.Capability}, {"difficulty", b.Difficulty}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	return strings.Join(parts, ", ")
}

// WorldName is the name of the world written for the brief: its id in
// lower snake case, so that every brief's world has a name of its own.
func (b Brief) WorldName() string { return WorldName(b.ID) }

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

// WorldName turns a brief id into a world name: lower case, runs of other
// characters as one underscore, a leading digit prefixed with "w_", at most
// 64 characters.
func WorldName(id string) string {
	s := strings.Trim(nonWord.ReplaceAllString(strings.ToLower(id), "_"), "_")
	if s == "" {
		s = "world"
	}
	if s[0] >= '0' && s[0] <= '9' {
		s = "w_" + s
	}
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "_")
	}
	return s
}

// briefExts are the file extensions LoadBriefs reads below a directory.
var briefExts = []string{".txt", ".md", ".jsonl"}

// Bounds of what LoadBriefs reads: a brief is a paragraph or a page, and
// its text goes into every prompt of its world; a JSONL file holds many.
const (
	MaxBriefBytes      = 256 << 10
	MaxBriefsFileBytes = 64 << 20
)

// LoadBriefs reads briefs from files and directories: a .jsonl file holds
// one JSON Brief per line; any other file is one brief whose id is the
// file's name without its extension; a directory means its *.txt, *.md and
// *.jsonl files, sorted. Ids must be unique, and so must their world names.
//
// Briefs go to the LLM endpoint and into the traces, so they are read
// only from regular files, of bounded size: a file named on the command
// line may be a symbolic link to a regular file (as a spec may), but below
// a directory a link (to /proc/self/environ, say) or a special file (a
// FIFO, which would block, or a device, which never ends) is an error that
// names it, as is a file over its bound (MaxBriefBytes for one brief,
// MaxBriefsFileBytes for a JSONL file).
func LoadBriefs(paths []string) ([]Brief, error) {
	var out []Brief
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		var files []briefFile
		switch {
		case info.IsDir():
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if e.IsDir() || !slices.Contains(briefExts, filepath.Ext(e.Name())) || strings.HasPrefix(e.Name(), ".") {
					continue
				}
				f := filepath.Join(p, e.Name())
				if !e.Type().IsRegular() {
					return nil, notRegular(f, e.Type())
				}
				files = append(files, briefFile{name: f, read: f})
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no briefs (*.txt, *.md, *.jsonl)", p)
			}
		case info.Mode().IsRegular():
			// A link named on the command line is the user's choice: the
			// regular file it leads to is read (safefs refuses links).
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil, err
			}
			files = []briefFile{{name: p, read: real}}
		default:
			return nil, notRegular(p, info.Mode())
		}
		for _, f := range files {
			bs, err := f.briefs()
			if err != nil {
				return nil, err
			}
			out = append(out, bs...)
		}
	}
	return out, validateBriefs(out)
}

func notRegular(p string, m fs.FileMode) error {
	return fmt.Errorf("%s is %s: briefs are read from regular files only", p, safefs.Kind(m))
}

// briefFile is a file of briefs: name is the file as named (its id and
// extension, and how errors name it), read the regular file to read.
type briefFile struct{ name, read string }

func (f briefFile) briefs() ([]Brief, error) {
	jsonl := filepath.Ext(f.name) == ".jsonl"
	limit, what := int64(MaxBriefBytes), "brief"
	if jsonl {
		limit, what = MaxBriefsFileBytes, "JSONL file of briefs"
	}
	data, err := safefs.ReadRegularLimit(f.read, limit)
	if errors.Is(err, safefs.ErrTooLarge) {
		return nil, fmt.Errorf("%s has more than %d bytes, the bound of a %s", f.name, limit, what)
	}
	if err != nil {
		return nil, err
	}
	if !jsonl {
		id := strings.TrimSuffix(filepath.Base(f.name), filepath.Ext(f.name))
		return []Brief{{ID: id, Brief: strings.TrimSpace(string(data))}}, nil
	}
	return ParseBriefsJSONL(f.name, data)
}

// ParseBriefsJSONL reads one JSON Brief per non-blank line; name is for
// errors.
func ParseBriefsJSONL(name string, data []byte) ([]Brief, error) {
	var out []Brief
	sc := bufio.NewScanner(bytes.NewReader(data))
	// A line is a brief and its fields, JSON-escaped.
	const maxLine = 4 * MaxBriefBytes
	sc.Buffer(make([]byte, 0, 64*1024), maxLine)
	line := 1
	for ; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var b Brief
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&b); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		b.Brief = strings.TrimSpace(b.Brief)
		out = append(out, b)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil, fmt.Errorf("%s:%d: a line of more than %d bytes", name, line, maxLine)
	}
	return out, sc.Err()
}

func validateBriefs(bs []Brief) error {
	ids := map[string]bool{}
	names := map[string]string{}
	for _, b := range bs {
		if b.ID == "" {
			return fmt.Errorf("a brief has no id")
		}
		if b.Brief == "" {
			return fmt.Errorf("brief %s is empty", b.ID)
		}
		if len(b.Brief) > MaxBriefBytes {
			return fmt.Errorf("brief %s has %d bytes, more than the bound of a brief (%d)", b.ID, len(b.Brief), MaxBriefBytes)
		}
		if ids[b.ID] {
			return fmt.Errorf("brief id %s is used twice", b.ID)
		}
		ids[b.ID] = true
		n := b.WorldName()
		if other, ok := names[n]; ok {
			return fmt.Errorf("briefs %s and %s would both name their world %s", other, b.ID, n)
		}
		names[n] = b.ID
	}
	return nil
}

// fileID is the name under which a brief's files are written: its world
// name, which is safe as a file name.
func fileID(b Brief) string { return b.WorldName() }
