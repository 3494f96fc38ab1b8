package author

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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

// LoadBriefs reads briefs from files and directories: a .jsonl file holds
// one JSON Brief per line; any other file is one brief whose id is the
// file's name without its extension; a directory means its *.txt, *.md and
// *.jsonl files, sorted. Ids must be unique, and so must their world names.
func LoadBriefs(paths []string) ([]Brief, error) {
	var out []Brief
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		files := []string{p}
		if info.IsDir() {
			files = nil
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, err
			}
			for _, e := range entries {
				if !e.IsDir() && slices.Contains(briefExts, filepath.Ext(e.Name())) && !strings.HasPrefix(e.Name(), ".") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			if len(files) == 0 {
				return nil, fmt.Errorf("%s: no briefs (*.txt, *.md, *.jsonl)", p)
			}
		}
		for _, f := range files {
			bs, err := readBriefFile(f)
			if err != nil {
				return nil, err
			}
			out = append(out, bs...)
		}
	}
	return out, validateBriefs(out)
}

func readBriefFile(path string) ([]Brief, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if filepath.Ext(path) != ".jsonl" {
		id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		return []Brief{{ID: id, Brief: strings.TrimSpace(string(data))}}, nil
	}
	return ParseBriefsJSONL(path, data)
}

// ParseBriefsJSONL reads one JSON Brief per non-blank line; name is for
// errors.
func ParseBriefsJSONL(name string, data []byte) ([]Brief, error) {
	var out []Brief
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
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
