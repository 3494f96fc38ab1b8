package gate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
)

// A Locator maps a failure of a world package to the spec position of the
// declaration it comes from, or "" when it cannot tell: by its position in
// a generated Go file ("file.go:12:3", relative to VetOptions.Dir or
// absolute), or else by what its message names (the conformance checks
// say `task "t"`, `step 2`, `tool "x"` or `tool x:`).
type Locator func(goPos, message string) string

// specDecl is a spec declaration a generated Go declaration may come from.
type specDecl struct {
	goName string // the CamelCase stem the generator derives from its name
	what   string // "tool set_tier"
	pos    ir.Pos
}

// NewLocator returns a Locator for the package generated from w, whose Go
// positions are relative to dir. It finds the top-level Go declaration
// around the position (a function, method or type) and matches its name
// against the Go names of the world's tools, entities, invariants and
// tasks: the generator names each Go declaration after the spec element it
// implements (SetTier, SetTierArgs, Customer, ...). It is a heuristic: it
// names the spec element, not the exact expression.
func NewLocator(w *ir.World, dir string) Locator {
	var decls []specDecl
	for _, t := range w.Tools {
		decls = append(decls, specDecl{ir.GoName(t.Name), "tool " + t.Name, t.Pos})
	}
	for _, e := range w.Entities {
		decls = append(decls, specDecl{ir.GoName(e.Name), "entity " + e.Name, e.Pos})
		for _, f := range e.Fields {
			decls = append(decls, specDecl{ir.GoName(e.Name) + ir.GoName(f.Name), "field " + e.Name + "." + f.Name, f.Pos})
		}
	}
	for _, inv := range w.Invariants {
		decls = append(decls, specDecl{ir.GoName(inv.Name), "invariant " + inv.Name, inv.Pos})
	}
	for _, t := range w.Tasks {
		decls = append(decls, specDecl{ir.GoName(t.Name), "task " + t.Name, t.Pos})
	}
	byMessage := messageLocator(w)
	return func(goPos, message string) string {
		if spec := byGoPos(decls, dir, goPos); spec != "" {
			return spec
		}
		return byMessage(message)
	}
}

// byGoPos locates a Go position by the declaration around it.
func byGoPos(decls []specDecl, dir, goPos string) string {
	{
		file, line, ok := splitPos(goPos)
		if !ok {
			return ""
		}
		if !filepath.IsAbs(file) && dir != "" {
			file = filepath.Join(dir, file)
		}
		name := enclosingDecl(file, line)
		if name == "" {
			return ""
		}
		best := -1
		for i, d := range decls {
			if d.goName == "" || !strings.Contains(name, d.goName) {
				continue
			}
			// The longest match wins (CustomerTier over Customer); an
			// exact match wins outright.
			if name == d.goName || best < 0 || len(d.goName) > len(decls[best].goName) {
				best = i
			}
			if name == d.goName {
				break
			}
		}
		if best < 0 {
			return ""
		}
		d := decls[best]
		return fmt.Sprintf("%s:%d:%d, %s", d.pos.Filename, d.pos.Line, d.pos.Column, d.what)
	}
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
	at := func(pos ir.Pos, what string) string {
		return fmt.Sprintf("%s:%d:%d, %s", pos.Filename, pos.Line, pos.Column, what)
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

// splitPos splits "file:line[:col]".
func splitPos(pos string) (file string, line int, ok bool) {
	parts := strings.Split(pos, ":")
	if len(parts) < 2 {
		return "", 0, false
	}
	n := len(parts) - 1
	if len(parts) >= 3 && isDigits(parts[n]) && isDigits(parts[n-1]) {
		n--
	}
	line, err := strconv.Atoi(parts[n])
	if err != nil {
		return "", 0, false
	}
	return strings.Join(parts[:n], ":"), line, true
}

// enclosingDecl returns the name of the top-level declaration of a Go file
// that spans line: a function's name, a method's receiver type and name
// joined ("StateSetTier"), or a type's name.
func enclosingDecl(file string, line int) string {
	fset := token.NewFileSet()
	// A file with syntax errors still yields the declarations before them.
	f, _ := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if f == nil {
		return ""
	}
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
