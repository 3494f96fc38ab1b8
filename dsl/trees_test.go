package dsl

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

	"github.com/worldc/worldc/internal/golden"
)

// TestTreesGolden pins what Parse returns for every spec in the
// repository, one section of testdata/trees.golden (a txtar archive) per
// spec: the error, for a spec that does not parse; the syntax tree itself
// (renderTree: every node, field, position and comment), for the specs
// written to exercise the parser (showTree); a digest of the tree's JSON
// (every exported field, positions and comments included), for the rest.
// The whole corpus renders to some 80,000 lines (tau2_retail alone to
// 33,000), too many to review, while the parser's own inputs (the format
// inputs, the examples of the language doc, the fuzz seeds and corpus)
// render to about 2,000 and reach every node type of the syntax tree
// (TestTreesGoldenShowsEveryNode); the example worlds, the checker's,
// generator's and CLI's specs keep their digest, so that a change of
// their trees still fails, with its spec named. testdata/trees.golden was
// first recorded with participle parsing the whole grammar; a parser
// change that alters any tree, position or error on these inputs shows
// here. Rewrite it (after checking why it changed) with
// go test ./dsl -run TestTreesGolden -update.
func TestTreesGolden(t *testing.T) {
	a := &txtar.Archive{Comment: []byte(treesComment)}
	for _, s := range repoSpecs(t) {
		a.Files = append(a.Files, txtar.File{Name: s.name, Data: []byte(treeSection(s))})
	}
	golden.Archive(t, "testdata/trees.golden", a, *update)
}

const treesComment = `What dsl.Parse returns for every spec of the repository, one section per
spec: the error, the syntax tree (for the specs written to exercise the
parser: dsl/testdata/format/*.input, the code blocks of docs/language.md,
the fuzz seeds and corpus) or the digest of the tree (for the others: too
big to show). A tree shows one node a line, as field: Type start-end,
then its scalar fields; a chain of nodes that span the same text, each
holding only the next, shows as Type>Type>... on one line. Written by
TestTreesGolden (dsl/trees_test.go): go test ./dsl -run TestTreesGolden -update
`

// showTree reports whether the tree golden shows the tree of the spec
// named name, rather than its digest: the parser's own inputs, small and
// written to reach every construct.
func showTree(name string) bool {
	return strings.HasPrefix(name, "dsl/testdata/format/") && strings.HasSuffix(name, ".input") ||
		strings.HasPrefix(name, "docs/language.md:") ||
		strings.HasPrefix(name, "fuzzSeeds[") ||
		strings.HasPrefix(name, "dsl/testdata/fuzz/")
}

// treeSection is the section of the tree golden for s.
func treeSection(s namedSpec) string {
	if showTree(s.name) {
		if f, err := Parse(s.name, s.src); err == nil {
			return renderTree(s.name, s.src, f)
		}
	}
	d := parseDigest(s.name, s.src)
	if strings.HasPrefix(d, "error: ") {
		return d + "\n"
	}
	return "digest " + d + " (tree not shown)\n"
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

// TestTreesGoldenShowsEveryNode checks that the trees the golden shows
// hold every node type of the syntax tree, so that the digests of the
// other specs are not the only record of a node's shape.
func TestTreesGoldenShowsEveryNode(t *testing.T) {
	all := map[reflect.Type]bool{}
	var walkType func(reflect.Type)
	walkType = func(rt reflect.Type) {
		for rt.Kind() == reflect.Pointer || rt.Kind() == reflect.Slice {
			rt = rt.Elem()
		}
		if rt.Kind() != reflect.Struct || rt == posType || all[rt] {
			return
		}
		all[rt] = true
		for i := range rt.NumField() {
			if rt.Field(i).IsExported() {
				walkType(rt.Field(i).Type)
			}
		}
	}
	walkType(reflect.TypeFor[File]())

	seen := map[reflect.Type]bool{}
	var walk func(reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Struct:
			seen[v.Type()] = true
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		}
	}
	shown := 0
	for _, s := range repoSpecs(t) {
		if !showTree(s.name) {
			continue
		}
		if f, err := Parse(s.name, s.src); err == nil {
			walk(reflect.ValueOf(f))
			shown++
		}
	}
	if shown == 0 {
		t.Fatal("the tree golden shows no tree")
	}
	var missing []string
	for rt := range all {
		if !seen[rt] {
			missing = append(missing, rt.Name())
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("no tree in the golden holds a %s: add a spec with one to dsl/testdata/format", name)
	}
	if len(all) < 40 {
		t.Errorf("only %d node types found in the syntax tree", len(all))
	}
}

// renderTree is the syntax tree of f, parsed from src, for a reader: one
// node a line, below its parent and indented one step deeper, as
// "Field: Type start-end" (line:col, columns counted in runes) followed by
// its scalar fields (strings quoted, true booleans by name). Zero fields
// are left out. A chain of nodes that each hold only the next one (in a
// field whose type names it) and span the same text, such as the
// precedence levels of one operand (Expr>AndExpr>NotExpr>…>Literal),
// shows on one line. Nothing is lost: a position shows its file when that
// is not the spec's name, and its byte offset when that is not the one
// its line and column name in src.
func renderTree(name string, src []byte, f *File) string {
	r := treeRenderer{name: name, src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			r.lines = append(r.lines, i+1)
		}
	}
	r.node("", reflect.ValueOf(f).Elem(), 0)
	return r.b.String()
}

type treeRenderer struct {
	name  string
	src   []byte
	lines []int // the byte offset at which each line starts
	b     strings.Builder
}

var posType = reflect.TypeFor[Pos]()

// node writes the node v (a struct), and the chain below it, at depth.
func (r *treeRenderer) node(label string, v reflect.Value, depth int) {
	indent := strings.Repeat("  ", depth)
	types := []string{v.Type().Name()}
	for {
		c, ok := soleChild(v)
		if !ok || !sameSpan(v, c) {
			break
		}
		types = append(types, c.Type().Name())
		v = c
	}
	r.b.WriteString(indent)
	if label != "" {
		r.b.WriteString(label + ": ")
	}
	r.b.WriteString(strings.Join(types, ">"))
	if p, ok := v.Type().FieldByName("Pos"); ok && p.Type == posType {
		r.b.WriteString(" " + r.pos(v.FieldByName("Pos").Interface().(Pos)))
		if e, ok := v.Type().FieldByName("EndPos"); ok && e.Type == posType {
			r.b.WriteString("-" + r.pos(v.FieldByName("EndPos").Interface().(Pos)))
		}
	}
	var below []func() // the nodes under this one, written after its line
	t := v.Type()
	for i := range t.NumField() {
		f, fv := t.Field(i), v.Field(i)
		if !f.IsExported() || fv.IsZero() || f.Name == "Pos" || f.Name == "EndPos" {
			continue
		}
		ft := f.Type
		switch {
		case ft == posType:
			r.b.WriteString(" " + f.Name + "=" + r.pos(fv.Interface().(Pos)))
		case ft.Kind() == reflect.Bool:
			r.b.WriteString(" " + f.Name)
		case ft.Kind() == reflect.String:
			r.b.WriteString(" " + f.Name + "=" + strconv.Quote(fv.String()))
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.String:
			r.b.WriteString(" " + f.Name + "=" + strconv.Quote(fv.Elem().String()))
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
			q := make([]string, fv.Len())
			for j := range q {
				q[j] = strconv.Quote(fv.Index(j).String())
			}
			r.b.WriteString(" " + f.Name + "=[" + strings.Join(q, " ") + "]")
		case ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct:
			below = append(below, func() { r.node(f.Name, fv.Elem(), depth+1) })
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Pointer && ft.Elem().Elem().Kind() == reflect.Struct:
			if fv.Len() == 0 {
				below = append(below, func() { fmt.Fprintf(&r.b, "%s  %s: []\n", indent, f.Name) })
			}
			for j := range fv.Len() {
				label := fmt.Sprintf("%s[%d]", f.Name, j)
				below = append(below, func() {
					if fv.Index(j).IsNil() {
						fmt.Fprintf(&r.b, "%s  %s: nil\n", indent, label)
						return
					}
					r.node(label, fv.Index(j).Elem(), depth+1)
				})
			}
		default:
			panic(fmt.Sprintf("renderTree: no rendering for field %s.%s of type %s", t.Name(), f.Name, ft))
		}
	}
	r.b.WriteString("\n")
	for _, f := range below {
		f()
	}
}

// soleChild is the node v holds when its only non-zero field (positions
// aside) is a pointer to a node whose type no other field of v has, so
// that the child's type names the field.
func soleChild(v reflect.Value) (reflect.Value, bool) {
	var (
		child reflect.Value
		ct    reflect.Type
	)
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "Pos" || f.Name == "EndPos" || v.Field(i).IsZero() {
			continue
		}
		if child.IsValid() || f.Type.Kind() != reflect.Pointer || f.Type.Elem().Kind() != reflect.Struct {
			return reflect.Value{}, false
		}
		child, ct = v.Field(i).Elem(), f.Type
	}
	if !child.IsValid() {
		return reflect.Value{}, false
	}
	n := 0
	for i := range t.NumField() {
		if t.Field(i).Type == ct {
			n++
		}
	}
	return child, n == 1
}

// sameSpan reports whether the nodes a and b have the same Pos and EndPos.
func sameSpan(a, b reflect.Value) bool {
	for _, name := range []string{"Pos", "EndPos"} {
		fa, fb := a.FieldByName(name), b.FieldByName(name)
		if !fa.IsValid() || !fb.IsValid() || fa.Interface() != fb.Interface() {
			return false
		}
	}
	return true
}

// pos is p as line:col, with its file and its byte offset only where they
// are not the spec's name and the offset that line:col names in the
// source; "?" for the zero position.
func (r *treeRenderer) pos(p Pos) string {
	if p == (Pos{}) {
		return "?"
	}
	s := fmt.Sprintf("%d:%d", p.Line, p.Column)
	if p.Filename != r.name {
		s = strconv.Quote(p.Filename) + ":" + s
	}
	if off, ok := r.offset(p.Line, p.Column); !ok || off != p.Offset {
		s += fmt.Sprintf("(offset %d)", p.Offset)
	}
	return s
}

// offset is the byte offset of line:col in the source.
func (r *treeRenderer) offset(line, col int) (int, bool) {
	if line < 1 || line > len(r.lines) || col < 1 {
		return 0, false
	}
	off := r.lines[line-1]
	for range col - 1 {
		if off >= len(r.src) {
			return 0, false
		}
		_, n := utf8.DecodeRune(r.src[off:])
		off += n
	}
	return off, true
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
