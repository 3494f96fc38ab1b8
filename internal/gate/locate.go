package gate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/tools/go/ast/astutil"

	"github.com/worldc/worldc/compiler/ir"
)

// A Locator maps a failure of a world package to the spec position of the
// declaration it comes from: by its position in a generated Go file
// ("file.go:12:3", relative to VetOptions.Dir or absolute), or else by what
// its message names (the conformance checks say `task "t"`, `step 2`,
// `tool "x"` or `tool x:`), or, when neither tells, the world's own
// declaration: every failure of a world package gets a spec position.
type Locator func(goPos, message string) string

// specDecl is a spec declaration a generated Go declaration may come from.
type specDecl struct {
	goName string // the CamelCase stem the generator derives from its name
	name   string // its name in the spec ("set_tier", "Customer.tier"), as generated strings hold it
	what   string // "tool set_tier"
	rank   int    // the more specific kinds first: field, tool, invariant, task, entity
	pos    ir.Pos
}

// maxMentionLines bounds the Go node whose mentions place a position that
// no declaration name places: a statement or literal longer than this
// mentions too much to name one spec element (a registry of every tool).
const maxMentionLines = 40

// NewLocator returns a Locator for the package generated from w, whose Go
// positions are relative to dir. It finds the top-level Go declaration
// around the position (a function, method or type) and matches its name
// against the Go names of the world's tools, entities, invariants and
// tasks: the generator names each Go declaration after the spec element it
// implements (SetTier, SetTierArgs, Customer, ...). In a declaration named
// after none (a registry, the state's validation, the seed), it takes the
// innermost statement or literal around the position that names a spec
// element, by a string the generator wrote ("set_tier", "Customer.email")
// or a Go name derived from one (callSetTier); and failing all that, the
// world itself. It is a heuristic: it names the spec element, not the exact
// expression.
func NewLocator(w *ir.World, dir string) Locator {
	var decls []specDecl
	for _, f := range w.Entities {
		for _, fd := range f.Fields {
			decls = append(decls, specDecl{ir.GoName(f.Name) + ir.GoName(fd.Name), f.Name + "." + fd.Name, "field " + f.Name + "." + fd.Name, 0, fd.Pos})
		}
	}
	for _, t := range w.Tools {
		decls = append(decls, specDecl{ir.GoName(t.Name), t.Name, "tool " + t.Name, 1, t.Pos})
	}
	for _, inv := range w.Invariants {
		decls = append(decls, specDecl{ir.GoName(inv.Name), inv.Name, "invariant " + inv.Name, 2, inv.Pos})
	}
	for _, t := range w.Tasks {
		decls = append(decls, specDecl{ir.GoName(t.Name), t.Name, "task " + t.Name, 3, t.Pos})
	}
	for _, e := range w.Entities {
		decls = append(decls, specDecl{ir.GoName(e.Name), e.Name, "entity " + e.Name, 4, e.Pos})
	}
	byMessage := messageLocator(w)
	world := ""
	if w.Pos.Line > 0 {
		world = at(w.Pos, "world "+w.Name+" (generated code common to the world)")
	}
	return func(goPos, message string) string {
		if spec := byGoPos(decls, dir, goPos); spec != "" {
			return spec
		}
		if spec := byMessage(message); spec != "" {
			return spec
		}
		return world
	}
}

// at formats a spec position and what is there.
func at(pos ir.Pos, what string) string {
	return fmt.Sprintf("%s:%d:%d, %s", pos.Filename, pos.Line, pos.Column, what)
}

// byGoPos locates a Go position by the declaration around it, or by what
// the statements around it name.
func byGoPos(decls []specDecl, dir, goPos string) string {
	file, line, col, ok := splitPosCol(goPos)
	if !ok {
		return ""
	}
	if !filepath.IsAbs(file) && dir != "" {
		file = filepath.Join(dir, file)
	}
	src, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	fset := token.NewFileSet()
	// A file with syntax errors still yields the declarations before them.
	f, _ := parser.ParseFile(fset, file, src, parser.SkipObjectResolution)
	if f == nil {
		return ""
	}
	if d, ok := byDeclName(decls, enclosingDecl(fset, f, line)); ok {
		return at(d.pos, d.what)
	}
	if d, ok := byMentions(decls, fset, f, src, line, col); ok {
		return at(d.pos, d.what)
	}
	return ""
}

// byDeclName finds the spec element a Go declaration is named after: the
// longest Go name the declaration's name contains (CustomerTier over
// Customer), an exact match outright.
func byDeclName(decls []specDecl, name string) (specDecl, bool) {
	if name == "" {
		return specDecl{}, false
	}
	best := -1
	for i, d := range decls {
		if d.goName == "" || !strings.Contains(name, d.goName) {
			continue
		}
		if name == d.goName {
			return d, true
		}
		if best < 0 || len(d.goName) > len(decls[best].goName) {
			best = i
		}
	}
	if best < 0 {
		return specDecl{}, false
	}
	return decls[best], true
}

// byMentions finds the innermost node around line:col, inside the
// innermost block and of at most maxMentionLines lines, that mentions a spec
// element, and returns the most specific element it mentions (the first in
// the source among equals).
func byMentions(decls []specDecl, fset *token.FileSet, f *ast.File, src []byte, line, col int) (specDecl, bool) {
	tf := fset.File(f.Pos())
	if tf == nil || line < 1 || line > tf.LineCount() {
		return specDecl{}, false
	}
	start := tf.Offset(tf.LineStart(line))
	end := len(src)
	if line < tf.LineCount() {
		end = tf.Offset(tf.LineStart(line + 1))
	}
	// The column, or the line's first character when the column is in its
	// indentation (or absent).
	text := src[start:end]
	off := len(text) - len(bytes.TrimLeft(text, " \t"))
	if col-1 > off && col-1 < len(text) {
		off = col - 1
	}
	pos := tf.Pos(start + off)
	byName := map[string]int{}
	for i, d := range decls {
		if _, dup := byName[d.name]; !dup {
			byName[d.name] = i
		}
	}
	path, _ := astutil.PathEnclosingInterval(f, pos, pos)
	for _, n := range path {
		switch n.(type) {
		case *ast.File, *ast.BlockStmt:
			// A block's statements are as likely one as another.
			return specDecl{}, false
		}
		if fset.Position(n.End()).Line-fset.Position(n.Pos()).Line >= maxMentionLines {
			break
		}
		// A compound statement is placed by its header if that names
		// something (the loop over a table, not the checks of the table's
		// fields), else by its body.
		for _, headerOnly := range []bool{true, false} {
			if d, ok := mentioned(decls, byName, n, headerOnly); ok {
				return d, true
			}
		}
	}
	return specDecl{}, false
}

// mentioned returns the most specific spec element n names, by strings or
// Go names, the first in the source among equals; with headerOnly, not
// looking into the blocks of compound statements.
func mentioned(decls []specDecl, byName map[string]int, n ast.Node, headerOnly bool) (specDecl, bool) {
	best := -1
	ast.Inspect(n, func(n ast.Node) bool {
		i := -1
		switch n := n.(type) {
		case *ast.BlockStmt:
			return !headerOnly
		case *ast.BasicLit:
			if n.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(n.Value)
			if err != nil {
				return true
			}
			if j, ok := byName[s]; ok {
				i = j
			}
		case *ast.Ident:
			if d, ok := byDeclName(decls, n.Name); ok {
				i = slices.IndexFunc(decls, func(e specDecl) bool { return e.what == d.what })
			}
		}
		if i >= 0 && (best < 0 || decls[i].rank < decls[best].rank) {
			best = i
		}
		return true
	})
	if best < 0 {
		return specDecl{}, false
	}
	return decls[best], true
}

var (
	taskRE      = regexp.MustCompile(`task "([^"]+)"`)
	stepRE      = regexp.MustCompile(`: step (\d+)`)
	toolRE      = regexp.MustCompile(`tool "([^"]+)"|\btool ([A-Za-z_][A-Za-z0-9_]*):`)
	invariantRE = regexp.MustCompile(`invariant "?([A-Za-z_][A-Za-z0-9_]*)"?`)
)

// messageLocator locates a failure by what its message names: a task's
// solution step, a task, a tool or an invariant of w, most precise first.
// It keeps the names and positions only, not w.
func messageLocator(w *ir.World) func(string) string {
	type taskAt struct {
		pos   ir.Pos
		steps []ir.Pos
	}
	tasks, tools, invs := map[string]taskAt{}, map[string]ir.Pos{}, map[string]ir.Pos{}
	for _, t := range w.Tasks {
		ta := taskAt{pos: t.Pos}
		for _, st := range t.Solution {
			var p ir.Pos
			if st != nil {
				p = st.Pos
			}
			ta.steps = append(ta.steps, p)
		}
		tasks[t.Name] = ta
	}
	for _, t := range w.Tools {
		tools[t.Name] = t.Pos
	}
	for _, inv := range w.Invariants {
		invs[inv.Name] = inv.Pos
	}
	return func(msg string) string {
		if m := taskRE.FindStringSubmatch(msg); m != nil {
			if t, ok := tasks[m[1]]; ok {
				if s := stepRE.FindStringSubmatch(msg); s != nil {
					if n, err := strconv.Atoi(s[1]); err == nil && n >= 1 && n <= len(t.steps) && t.steps[n-1].Line > 0 {
						return at(t.steps[n-1], fmt.Sprintf("task %s, solution step %d", m[1], n))
					}
				}
				return at(t.pos, "task "+m[1])
			}
		}
		if m := toolRE.FindStringSubmatch(msg); m != nil {
			name := m[1] + m[2]
			if pos, ok := tools[name]; ok {
				return at(pos, "tool "+name)
			}
		}
		if m := invariantRE.FindStringSubmatch(msg); m != nil {
			if pos, ok := invs[m[1]]; ok {
				return at(pos, "invariant "+m[1])
			}
		}
		return ""
	}
}

// splitPosCol splits "file:line[:col]"; col is 0 when absent.
func splitPosCol(pos string) (file string, line, col int, ok bool) {
	parts := strings.Split(pos, ":")
	if len(parts) < 2 {
		return "", 0, 0, false
	}
	n := len(parts) - 1
	if len(parts) >= 3 && isDigits(parts[n]) && isDigits(parts[n-1]) {
		col, _ = strconv.Atoi(parts[n])
		n--
	}
	line, err := strconv.Atoi(parts[n])
	if err != nil {
		return "", 0, 0, false
	}
	return strings.Join(parts[:n], ":"), line, col, true
}

// enclosingDecl returns the name of the top-level declaration of a Go file
// that spans line: a function's name, a method's receiver type and name
// joined ("StateSetTier"), or a type's name.
func enclosingDecl(fset *token.FileSet, f *ast.File, line int) string {
	for _, d := range f.Decls {
		start, end := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
		if line < start || line > end {
			continue
		}
		switch d := d.(type) {
		case *ast.FuncDecl:
			name := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				name = recvName(d.Recv.List[0].Type) + name
			}
			return name
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if fset.Position(s.Pos()).Line <= line && line <= fset.Position(s.End()).Line {
					switch s := s.(type) {
					case *ast.TypeSpec:
						return s.Name.Name
					case *ast.ValueSpec:
						if len(s.Names) > 0 {
							return s.Names[0].Name
						}
					}
				}
			}
		}
	}
	return ""
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvName(e.X)
	}
	return ""
}
