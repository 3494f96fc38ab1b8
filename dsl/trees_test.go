package dsl

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestTreesGolden pins what Parse returns for every spec in the
// repository: the whole syntax tree, every position and comment included,
// as a digest of its JSON, or the error. testdata/trees.golden was
// recorded with participle parsing the whole grammar; a parser change
// that alters any tree, position or error on these inputs shows here.
// Rewrite it (after checking why it changed) with go test ./dsl -update.
func TestTreesGolden(t *testing.T) {
	specs := repoSpecs(t)
	var b strings.Builder
	for _, s := range specs {
		fmt.Fprintf(&b, "%s\t%s\n", s.name, parseDigest(s.name, s.src))
	}
	checkGolden(t, "testdata/trees.golden", []byte(b.String()))
}

// parseDigest is a short digest of the tree Parse builds for src, or the
// error it returns.
func parseDigest(name string, src []byte) string {
	f, err := Parse(name, src)
	if err != nil {
		return "error: " + err.Error()
	}
	sum := sha256.Sum256(treeJSON(f))
	return fmt.Sprintf("%x", sum[:12])
}

// treeJSON is the whole tree as JSON: every exported field, positions
// included, in declaration order.
func treeJSON(f *File) []byte {
	out, err := json.Marshal(f)
	if err != nil {
		panic(err)
	}
	return out
}

type namedSpec struct {
	name string
	src  []byte
}

// repoSpecs is every spec the repository holds, sorted by name: the .world
// files under the repository root (generated code aside), the .world files
// of the testscript archives, the format goldens, the fuzz corpus and
// seeds, and the code blocks of the documentation.
func repoSpecs(t testing.TB) []namedSpec {
	t.Helper()
	var specs []namedSpec
	add := func(name string, src []byte) { specs = append(specs, namedSpec{name, src}) }
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := filepath.ToSlash(strings.TrimPrefix(path, ".."+string(filepath.Separator)))
		switch {
		case d.IsDir() && (name == "generated" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "..":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case strings.HasSuffix(name, ".world"), strings.HasPrefix(name, "dsl/testdata/format/"):
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			add(name, src)
		case strings.HasSuffix(name, ".txtar"):
			a, err := txtar.ParseFile(path)
			if err != nil {
				return err
			}
			for _, f := range a.Files {
				if strings.HasSuffix(f.Name, ".world") {
					add(name+":"+f.Name, f.Data)
				}
			}
		case strings.HasPrefix(name, "dsl/testdata/fuzz/FuzzParse/"):
			src, err := readFuzzInput(path)
			if err != nil {
				return err
			}
			add(name, src)
		case strings.HasSuffix(name, ".md"):
			md, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, block := range codeBlocks(md) {
				add(fmt.Sprintf("%s:block%d", name, i+1), block)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range fuzzSeeds {
		add(fmt.Sprintf("fuzzSeeds[%d]", i), []byte(src))
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].name < specs[j].name })
	return specs
}

// readFuzzInput decodes a file of the fuzz corpus holding one []byte.
func readFuzzInput(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" {
		return nil, fmt.Errorf("%s: not a fuzz input of one value", path)
	}
	lit, ok := strings.CutPrefix(lines[1], "[]byte(")
	lit, ok2 := strings.CutSuffix(lit, ")")
	if !ok || !ok2 {
		return nil, fmt.Errorf("%s: not a []byte value", path)
	}
	s, err := strconv.Unquote(lit)
	return []byte(s), err
}

// codeBlocks is the text of every ``` block of a markdown document.
func codeBlocks(md []byte) [][]byte {
	var (
		blocks [][]byte
		cur    []string
		in     bool
	)
	for _, line := range strings.Split(string(md), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if in {
				blocks = append(blocks, []byte(strings.Join(cur, "\n")+"\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}
