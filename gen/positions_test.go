package gen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/specgen"
)

// positionWorlds are the worlds the position map is tested on: the example
// worlds, the generator's own test worlds and synthetic ones (-short:
// every fourth example, four synthetic).
func positionWorlds(t *testing.T) []*ir.World {
	t.Helper()
	var specs []string
	for _, pattern := range []string{"../testdata/worlds/*.world", "testdata/*.world"} {
		m, err := filepath.Glob(pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no worlds %s: %v", pattern, err)
		}
		specs = append(specs, m...)
	}
	var out []*ir.World
	for i, spec := range specs {
		if testing.Short() && i%4 != 0 {
			continue
		}
		src, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		w, ds := compiler.CheckSource(spec, src)
		if w == nil {
			t.Fatalf("%s does not check:\n%s", spec, ds.Text())
		}
		out = append(out, w)
	}
	n := 24
	if testing.Short() {
		n = 4
	}
	for i := range n {
		name, src := specgen.CorpusSpec(19, i)
		w, ds := compiler.CheckSource(name+".world", []byte(src))
		if w == nil {
			t.Fatalf("synthetic world %d does not check:\n%s", i, ds.Text())
		}
		out = append(out, w)
	}
	return out
}

// TestGeneratePackage: GeneratePackage gives the files Generate gives, byte
// for byte, and a position map that covers every declaration of every Go
// file with well-formed ranges, at the declarations the generator named
// after spec elements, and names every tool, invariant, task and solution
// step where the spec has it.
func TestGeneratePackage(t *testing.T) {
	for _, w := range positionWorlds(t) {
		t.Run(w.Name, func(t *testing.T) {
			files := mustGenerate(t, w)
			p, err := GeneratePackage(w)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(Files(files), Files(p.Files)) {
				t.Fatalf("files %v, Generate's %v", Files(p.Files), Files(files))
			}
			for name, b := range files {
				if !bytes.Equal(b, p.Files[name]) {
					t.Errorf("%s differs from Generate's", name)
				}
			}
			pm := p.Positions
			if want := (ir.Origin{Pos: w.Pos, What: "world " + w.Name + " (generated code common to the world)"}); pm.World != want {
				t.Errorf("world %+v, want %+v", pm.World, want)
			}
			parsed := checkRanges(t, w, p)
			checkDecls(t, w, pm, parsed)
			checkStatements(t, w, p, parsed)
			checkNames(t, w, pm)
		})
	}
}

// parsedFile is a generated Go file, parsed.
type parsedFile struct {
	fset *token.FileSet
	f    *ast.File
	src  []byte
}

func (pf parsedFile) line(p token.Pos) int { return pf.fset.Position(p).Line }

// checkRanges checks the map's ranges of every Go file against the file:
// sorted, nested or side by side (sharing at most a line, `}, {`), inside
// the file, every declaration inside one and the imports in none. It
// returns the parsed files.
func checkRanges(t *testing.T, w *ir.World, p *Package) map[string]parsedFile {
	t.Helper()
	parsed := map[string]parsedFile{}
	for _, name := range Files(p.Files) {
		if !strings.HasSuffix(name, ".go") {
			if _, ok := p.Positions.Files[name]; ok {
				t.Errorf("%s: ranges for a file that is not Go", name)
			}
			continue
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name, p.Files[name], parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		pf := parsedFile{fset, f, p.Files[name]}
		parsed[name] = pf
		rs := p.Positions.Files[name]
		if len(rs) == 0 {
			t.Errorf("%s: no ranges", name)
			continue
		}
		lines := bytes.Count(p.Files[name], []byte("\n"))
		for i, r := range rs {
			if r.First < 1 || r.Last < r.First || r.Last > lines {
				t.Errorf("%s: range %d-%d in a file of %d lines", name, r.First, r.Last, lines)
			}
			if r.Origin.Pos.Filename != w.Pos.Filename || r.Origin.Pos.Line < 1 || r.Origin.What == "" {
				t.Errorf("%s:%d-%d: origin %+v", name, r.First, r.Last, r.Origin)
			}
			if i == 0 {
				continue
			}
			if q := rs[i-1]; r.First < q.First || r.First == q.First && r.Last > q.Last {
				t.Errorf("%s: range %d-%d after %d-%d", name, r.First, r.Last, q.First, q.Last)
			}
			for _, q := range rs[:i] {
				inside := r.First >= q.First && r.Last <= q.Last
				if !inside && r.First < q.Last {
					t.Errorf("%s: ranges %d-%d and %d-%d overlap", name, q.First, q.Last, r.First, r.Last)
				}
			}
		}
		for _, d := range f.Decls {
			first, last := pf.line(d.Pos()), pf.line(d.End())
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
				for l := first; l <= last; l++ {
					if o, ok := p.Positions.At(name, l); ok {
						t.Errorf("%s:%d: an import line from %s", name, l, o.What)
					}
				}
				continue
			}
			held := false
			for _, r := range rs {
				held = held || r.First <= first && last <= r.Last
			}
			if !held {
				t.Errorf("%s:%d-%d: a declaration in no range", name, first, last)
			}
		}
	}
	return parsed
}

// declAt returns the first line of the top-level declaration named name
// (with recv, a method of that type) in the file.
func declAt(t *testing.T, pf parsedFile, recv, name string) int {
	t.Helper()
	for _, d := range pf.f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.Name != name || (d.Recv == nil) != (recv == "") {
				continue
			}
			if recv != "" {
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); !ok || id.Name != recv {
					continue
				}
			}
			return pf.line(d.Pos())
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if recv == "" && s.Name.Name == name {
						return pf.line(s.Pos())
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if recv == "" && n.Name == name {
							return pf.line(n.Pos())
						}
					}
				}
			}
		}
	}
	t.Fatalf("no declaration %s %s", recv, name)
	return 0
}

// checkDecls looks up the declarations the generator named after spec
// elements (its own names, not the map's) and checks that the map places
// them at those elements.
func checkDecls(t *testing.T, w *ir.World, pm *ir.PosMap, parsed map[string]parsedFile) {
	t.Helper()
	g, err := newGenerator(w)
	if err != nil {
		t.Fatal(err)
	}
	// The generator names some helpers while it generates: a generator that
	// has run has them all.
	if _, err := g.run(false); err != nil {
		t.Fatal(err)
	}
	want := func(file, recv, name string, o ir.Origin) {
		t.Helper()
		l := declAt(t, parsed[file], recv, name)
		if got, ok := pm.At(file, l); !ok || got != o {
			t.Errorf("%s:%d (%s %s): %+v, want %+v", file, l, recv, name, got, o)
		}
	}
	for _, tool := range w.Tools {
		ti := g.tools[tool]
		want("tools.go", "", ti.args, toolOrigin(tool))
		want("tools.go", ti.args, "decode", toolOrigin(tool))
		want("tools.go", "State", ti.method, toolOrigin(tool))
		want("tools.go", "State", ti.call, toolOrigin(tool))
	}
	for _, e := range w.Entities {
		ei := g.ents[e]
		want("types.go", "", ei.typ, entityOrigin(e))
		want("types.go", ei.typ, "clone", entityOrigin(e))
		want("types.go", ei.typ, "AppendJSON", entityOrigin(e))
		want("state.go", "State", "find"+ei.typ, entityOrigin(e))
		want("state.go", "State", ei.check, entityOrigin(e))
		for _, f := range e.Fields {
			if name, ok := ei.checks[f]; ok {
				want("state.go", "State", name, fieldOrigin(f))
			}
		}
	}
	for _, sd := range w.Structs {
		si := g.structs[sd]
		want("types.go", "", si.typ, recordOrigin(sd))
		want("types.go", si.typ, "clone", recordOrigin(sd))
		want("types.go", "", si.plain, recordOrigin(sd))
	}
	var enums []*enumInfo
	for _, ei := range g.enums {
		enums = append(enums, ei)
	}
	slices.SortFunc(enums, func(a, b *enumInfo) int { return strings.Compare(a.typ, b.typ) })
	for _, ei := range enums {
		if ei.def.Field != nil {
			want("types.go", "", ei.typ, fieldOrigin(ei.def.Field))
			want("types.go", "", ei.values, fieldOrigin(ei.def.Field))
			want("types.go", ei.typ, "Valid", fieldOrigin(ei.def.Field))
		}
	}
	for _, inv := range w.Invariants {
		want("invariants.go", "State", g.invs[inv], invariantOrigin(inv))
		if inv.Always {
			want("invariants.go", "State", g.alwaysIn[inv], invariantOrigin(inv))
		}
	}
	for _, task := range w.Tasks {
		for i, a := range task.Assertions {
			if name, ok := g.pkgNames.given[a]; ok {
				want("tasks.go", "", name, assertionOrigin(task, i, a))
			}
		}
	}
	want("state.go", "", "NewState", pm.World)
	want("state.go", "State", "Validate", pm.World)
	want("seed.go", "", "decodeSeed", pm.World)
	want("world.go", "", "New", pm.World)
	want("world_test.go", "", "TestConformance", pm.World)
}

// checkStatements checks the pieces of the custom tools' bodies: one per
// statement of the body compiled (up to the first that ends it), inside
// the tool's method, in order, and a require's piece holds its failure.
func checkStatements(t *testing.T, w *ir.World, p *Package, parsed map[string]parsedFile) {
	t.Helper()
	g, err := newGenerator(w)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(p.Files["tools.go"]), "\n")
	for _, tool := range w.Tools {
		if tool.Kind != ir.ToolCustom {
			continue
		}
		first := declAt(t, parsed["tools.go"], "State", g.tools[tool].method)
		var body *ast.FuncDecl
		for _, d := range parsed["tools.go"].f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && parsed["tools.go"].line(fd.Pos()) == first {
				body = fd
			}
		}
		last := parsed["tools.go"].line(body.End())
		prev := first
		for _, st := range tool.Body {
			o, ok := stmtOrigin(tool, st)
			if !ok {
				t.Fatalf("tool %s: a statement without a position", tool.Name)
			}
			var r *ir.Range
			for i, q := range p.Positions.Files["tools.go"] {
				if q.Origin == o && q.First > first && q.Last < last {
					r = &p.Positions.Files["tools.go"][i]
				}
			}
			if r == nil {
				t.Errorf("tool %s: no piece from %s at %s", tool.Name, o.What, o.Pos)
				break
			}
			if r.First < prev {
				t.Errorf("tool %s: the piece of %s at %s starts at line %d, before the one before it (%d)", tool.Name, o.What, o.Pos, r.First, prev)
			}
			prev = r.First
			text := strings.Join(lines[r.First-1:r.Last], "\n")
			if x, ok := st.(*ir.Require); ok && x.Message != "" && !strings.Contains(text, strconv.Quote(x.Message)) {
				t.Errorf("tool %s: the piece of the require at %s (lines %d-%d) does not fail with %q:\n%s", tool.Name, x.Pos, r.First, r.Last, x.Message, text)
			}
			if terminates([]ir.Stmt{st}) {
				break
			}
		}
	}
}

// checkNames checks the elements the map names for failure messages.
func checkNames(t *testing.T, w *ir.World, pm *ir.PosMap) {
	t.Helper()
	want := map[ir.Named]ir.Origin{}
	for _, tool := range w.Tools {
		want[ir.Named{Kind: "tool", Name: tool.Name}] = toolOrigin(tool)
	}
	for _, inv := range w.Invariants {
		want[ir.Named{Kind: "invariant", Name: inv.Name}] = invariantOrigin(inv)
	}
	for _, task := range w.Tasks {
		want[ir.Named{Kind: "task", Name: task.Name}] = taskOrigin(task)
		for i, st := range task.Solution {
			want[ir.Named{Kind: "task", Name: task.Name, Step: i + 1}] = ir.Origin{Pos: st.Pos, What: fmt.Sprintf("task %s, solution step %d", task.Name, i+1)}
		}
	}
	if len(pm.Names) != len(want) {
		t.Errorf("%d names, want %d", len(pm.Names), len(want))
	}
	for n, o := range want {
		if got, ok := pm.Names[n]; !ok || got != o {
			t.Errorf("name %+v: %+v, want %+v", n, got, o)
		}
	}
}

// TestPositionMapChecked: the map resolver refuses declarations that are
// not those recorded, rather than give lines of others.
func TestPositionMapChecked(t *testing.T) {
	g := &generator{pkg: "x"}
	src := []byte("package x\n\nimport \"fmt\"\n\nfunc A() { fmt.Println() }\n\nvar B = []int{1, 2}\n")
	for _, tt := range []struct {
		name  string
		decls []declRecord
		want  string
	}{
		{"one missing", []declRecord{{tok: token.FUNC}}, "1 declarations emitted, 2 in the file"},
		{"kinds", []declRecord{{tok: token.FUNC}, {tok: token.CONST}}, "a var declaration where a const was emitted"},
		{"statements", []declRecord{{tok: token.FUNC, count: 2, parts: []part{{first: 0, n: 1}}}, {tok: token.VAR}}, "2 statements emitted, 1 in its body"},
		{"no statement", []declRecord{{tok: token.FUNC, count: 1, parts: []part{{first: 1, n: 1}}}, {tok: token.VAR}}, "no statements 1 to 1"},
		{"elements", []declRecord{{tok: token.FUNC}, {tok: token.VAR, count: 3, parts: []part{{first: 0, n: 1}}}}, "3 elements emitted"},
	} {
		f := &goFile{g: g, decls: tt.decls}
		if _, err := f.ranges("x.go", src); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	o := ir.Origin{Pos: ir.Pos{Filename: "x.world", Line: 3, Column: 1}, What: "tool x"}
	f := &goFile{g: g, decls: []declRecord{{tok: token.FUNC, count: 1, parts: []part{{first: 0, n: 1, from: o}}}, {tok: token.VAR, count: 2, parts: []part{{first: 1, n: 1, from: o}}}}}
	rs, err := f.ranges("x.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []ir.Range{{First: 5, Last: 7}, {First: 5, Last: 5, Origin: o}, {First: 7, Last: 7, Origin: o}}
	if !slices.Equal(rs, want) {
		t.Errorf("ranges %+v, want %+v", rs, want)
	}
}
