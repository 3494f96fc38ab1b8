package gen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"sort"

	"github.com/dave/jennifer/jen"

	"github.com/worldc/worldc/compiler/ir"
)

// Package is a generated world package: its files, as Generate returns
// them, and where their Go code comes from in the spec.
type Package struct {
	Files     map[string][]byte
	Positions *ir.PosMap
}

// GeneratePackage is Generate with the package's position map: for each
// Go file, the lines of every top-level declaration (and of some smaller
// pieces) with the spec element they implement, and the spec elements its
// conformance checks name in their failures. The files are those Generate
// returns, byte for byte: the map is made from what the generator records
// as it emits each declaration, then resolved to lines by parsing the
// formatted files, never by inferring anything from Go names.
func GeneratePackage(w *ir.World) (p *Package, err error) {
	if w == nil {
		return nil, fmt.Errorf("gen: nil world")
	}
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, recovered(w, r)
		}
	}()
	g, err := newGenerator(w)
	if err != nil {
		return nil, err
	}
	return g.run(true)
}

// The origins of generated code: what the position map says a range
// comes from.

func (g *generator) worldOrigin() ir.Origin {
	return ir.Origin{Pos: g.w.Pos, What: "world " + g.w.Name + " (generated code common to the world)"}
}

func toolOrigin(t *ir.Tool) ir.Origin { return ir.Origin{Pos: t.Pos, What: "tool " + t.Name} }

func entityOrigin(e *ir.Entity) ir.Origin { return ir.Origin{Pos: e.Pos, What: "entity " + e.Name} }

func recordOrigin(sd *ir.StructDef) ir.Origin {
	return ir.Origin{Pos: sd.Pos, What: "record " + sd.Name}
}

// fieldOrigin is a field of an entity or of a value record.
func fieldOrigin(f *ir.Field) ir.Origin {
	return ir.Origin{Pos: f.Pos, What: "field " + f.OwnerName() + "." + f.Name}
}

func invariantOrigin(inv *ir.Invariant) ir.Origin {
	return ir.Origin{Pos: inv.Pos, What: "invariant " + inv.Name}
}

func taskOrigin(t *ir.Task) ir.Origin { return ir.Origin{Pos: t.Pos, What: "task " + t.Name} }

// assertionOrigin is assertion i (from 0) of task t's rubric.
func assertionOrigin(t *ir.Task, i int, a *ir.Assertion) ir.Origin {
	if a.Pos.Line == 0 {
		return taskOrigin(t)
	}
	return ir.Origin{Pos: a.Pos, What: fmt.Sprintf("task %s, assertion %d", t.Name, i+1)}
}

// stepOrigin is step i (from 0) of task t's golden solution.
func stepOrigin(t *ir.Task, i int, st *ir.Step) ir.Origin {
	if st == nil || st.Pos.Line == 0 {
		return taskOrigin(t)
	}
	return ir.Origin{Pos: st.Pos, What: fmt.Sprintf("task %s, solution step %d", t.Name, i+1)}
}

// stmtOrigin is a statement of the body of tool t, named by its keyword
// ("tool set_tier, require"); ok is false for a statement without a
// position.
func stmtOrigin(t *ir.Tool, st ir.Stmt) (o ir.Origin, ok bool) {
	var pos ir.Pos
	var kw string
	switch x := st.(type) {
	case *ir.Require:
		pos, kw = x.Pos, "require"
	case *ir.Fail:
		pos, kw = x.Pos, "fail"
	case *ir.VarDecl:
		pos, kw = x.Pos, "var"
	case *ir.Assign:
		pos, kw = x.Pos, "set"
	case *ir.Let:
		pos, kw = x.Pos, "let"
	case *ir.Set:
		pos, kw = x.Pos, "set"
	case *ir.Insert:
		pos, kw = x.Pos, "insert"
	case *ir.Delete:
		pos, kw = x.Pos, "delete"
	case *ir.Return:
		pos, kw = x.Pos, "return"
	case *ir.If:
		pos, kw = x.Pos, "if"
	case *ir.For:
		pos, kw = x.Pos, "for"
	}
	if pos.Line == 0 {
		return ir.Origin{}, false
	}
	return ir.Origin{Pos: pos, What: "tool " + t.Name + ", " + kw}, true
}

// at makes o the origin of the declarations emitted from now on, until
// the function it returns restores the one before: `defer g.at(o)()`.
func (g *generator) at(o ir.Origin) (restore func()) {
	prev := g.origin
	g.origin = o
	return func() { g.origin = prev }
}

// named records that the failures of the package's checks name the
// element n, which is at o.
func (g *generator) named(n ir.Named, o ir.Origin) {
	if g.names == nil {
		g.names = map[ir.Named]ir.Origin{}
	}
	g.names[n] = o
}

// goFile is a Go file of the package being generated: a jennifer file
// that also records, for the position map, the origin of each top-level
// declaration in the order they are emitted. Func, Type, Var and Const
// start a declaration (the origin is the generator's, see at), and
// addDecl adds one built elsewhere; every other item of the file (a
// comment, a blank line, an import) is none. After the file is rendered,
// ranges finds the declarations in the formatted source, in the same
// order, and checks that they are as many and of the same kinds.
type goFile struct {
	*jen.File
	g     *generator
	decls []declRecord
}

// declRecord is a top-level declaration as the generator emitted it.
type declRecord struct {
	tok  token.Token // FUNC, TYPE, VAR or CONST
	from ir.Origin
	// parts are pieces of the declaration with origins of their own:
	// statements of a function's body, or elements of the composite
	// literal a variable holds (see part). count is how many statements
	// the body has, or how many elements the literal: ranges checks it
	// against the parsed declaration, so that the parts cannot drift from
	// what they name.
	parts []part
	count int
}

// A part is n consecutive statements, from index first, of a statement
// list of a function's body, or n elements from first of the composite
// literal of a variable declaration (its value, or the last argument of
// the call that is its value). For statements, in says which list: nil
// for the body's own, else an index into the body's list, then into the
// list of the statement there (a block, or the body of a for or an if),
// and so on inward.
type part struct {
	in       []int
	first, n int
	from     ir.Origin
}

func (g *generator) newGoFile() *goFile {
	return &goFile{File: jen.NewFilePathName("", g.pkg), g: g}
}

// Func starts a top-level function declaration from the generator's
// current origin; Type, Var and Const start the others.
func (f *goFile) Func() *jen.Statement  { f.declare(token.FUNC, f.g.origin); return f.File.Func() }
func (f *goFile) Type() *jen.Statement  { f.declare(token.TYPE, f.g.origin); return f.File.Type() }
func (f *goFile) Var() *jen.Statement   { f.declare(token.VAR, f.g.origin); return f.File.Var() }
func (f *goFile) Const() *jen.Statement { f.declare(token.CONST, f.g.origin); return f.File.Const() }

// addDecl adds c, one declaration of kind tok (with its doc comment) from
// o, built before the file was: a constant of a grader.
func (f *goFile) addDecl(tok token.Token, o ir.Origin, c jen.Code) {
	f.declare(tok, o)
	f.File.Add(c)
}

func (f *goFile) declare(tok token.Token, o ir.Origin) {
	f.decls = append(f.decls, declRecord{tok: tok, from: o})
}

// bodyParts records that the function declared last has n statements in
// its body, and that the pieces ps of it come from origins of their own.
func (f *goFile) bodyParts(n int, ps ...part) { f.addParts(token.FUNC, n, ps) }

// eltParts records that the composite literal of the variable declared
// last has n elements, and that the pieces ps of it come from origins of
// their own.
func (f *goFile) eltParts(n int, ps ...part) { f.addParts(token.VAR, n, ps) }

func (f *goFile) addParts(tok token.Token, n int, ps []part) {
	d := &f.decls[len(f.decls)-1]
	if d.tok != tok {
		panic(fmt.Sprintf("gen: position map: parts of a %s for a %s", tok, d.tok))
	}
	d.parts, d.count = ps, n
}

// ranges resolves the declarations recorded for the file named name to
// line ranges of src, the file as rendered and formatted.
func (f *goFile) ranges(name string, src []byte) ([]ir.Range, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("gen: %s: position map: %v", name, err)
	}
	var decls []ast.Decl
	for _, d := range file.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		decls = append(decls, d)
	}
	if len(decls) != len(f.decls) {
		return nil, fmt.Errorf("gen: %s: position map: %d declarations emitted, %d in the file", name, len(f.decls), len(decls))
	}
	tf := fset.File(file.Pos())
	var out []ir.Range
	last := -1 // the range in out of the previous declaration
	for i, d := range decls {
		rec := f.decls[i]
		tok, doc := token.FUNC, (*ast.CommentGroup)(nil)
		switch d := d.(type) {
		case *ast.FuncDecl:
			doc = d.Doc
		case *ast.GenDecl:
			tok, doc = d.Tok, d.Doc
		}
		if tok != rec.tok {
			return nil, fmt.Errorf("gen: %s:%d: position map: a %s declaration where a %s was emitted", name, tf.Line(d.Pos()), tok, rec.tok)
		}
		start := d.Pos()
		if doc != nil {
			start = doc.Pos()
		}
		first, end := tf.Line(start), tf.Line(d.End())
		if last >= 0 && out[last].Origin == rec.from {
			// Consecutive declarations from one origin: one range.
			out[last].Last = end
		} else {
			out = append(out, ir.Range{First: first, Last: end, Origin: rec.from})
			last = len(out) - 1
		}
		if len(rec.parts) == 0 {
			continue
		}
		nodes, err := partNodes(d, rec)
		if err != nil {
			return nil, fmt.Errorf("gen: %s:%d: position map: %v", name, tf.Line(d.Pos()), err)
		}
		for j, p := range rec.parts {
			out = append(out, ir.Range{First: tf.Line(nodes[j][0].Pos()), Last: tf.Line(nodes[j][len(nodes[j])-1].End()), Origin: p.from})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].First != out[j].First {
			return out[i].First < out[j].First
		}
		return out[i].Last > out[j].Last
	})
	return out, nil
}

// partNodes returns the nodes of each part of the declaration d, as rec
// recorded them.
func partNodes(d ast.Decl, rec declRecord) ([][]ast.Node, error) {
	var out [][]ast.Node
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Body == nil {
			return nil, fmt.Errorf("func %s: no body", d.Name.Name)
		}
		if len(d.Body.List) != rec.count {
			return nil, fmt.Errorf("func %s: %d statements emitted, %d in its body", d.Name.Name, rec.count, len(d.Body.List))
		}
		for _, p := range rec.parts {
			list := d.Body.List
			for _, i := range p.in {
				if i < 0 || i >= len(list) {
					return nil, fmt.Errorf("func %s: no statement %d in a list of %d", d.Name.Name, i, len(list))
				}
				inner, ok := innerList(list[i])
				if !ok {
					return nil, fmt.Errorf("func %s: a %T holds no statements", d.Name.Name, list[i])
				}
				list = inner
			}
			if p.n < 1 || p.first < 0 || p.first+p.n > len(list) {
				return nil, fmt.Errorf("func %s: no statements %d to %d in a list of %d", d.Name.Name, p.first, p.first+p.n-1, len(list))
			}
			var nodes []ast.Node
			for _, s := range list[p.first : p.first+p.n] {
				nodes = append(nodes, s)
			}
			out = append(out, nodes)
		}
	case *ast.GenDecl:
		lit := varLiteral(d)
		if lit == nil || len(lit.Elts) != rec.count {
			return nil, fmt.Errorf("var: %d elements emitted, not those of its value", rec.count)
		}
		for _, p := range rec.parts {
			if p.in != nil || p.n < 1 || p.first < 0 || p.first+p.n > len(lit.Elts) {
				return nil, fmt.Errorf("var: no elements %d to %d in a literal of %d", p.first, p.first+p.n-1, len(lit.Elts))
			}
			var nodes []ast.Node
			for _, e := range lit.Elts[p.first : p.first+p.n] {
				nodes = append(nodes, e)
			}
			out = append(out, nodes)
		}
	}
	return out, nil
}

// innerList is the statement list a statement holds: a block's, or the
// body of a for or an if.
func innerList(s ast.Stmt) ([]ast.Stmt, bool) {
	switch s := s.(type) {
	case *ast.BlockStmt:
		return s.List, true
	case *ast.ForStmt:
		return s.Body.List, true
	case *ast.RangeStmt:
		return s.Body.List, true
	case *ast.IfStmt:
		return s.Body.List, true
	}
	return nil, false
}

// varLiteral is the composite literal of a declaration of one variable:
// its value, or the last argument of the call that is its value.
func varLiteral(d *ast.GenDecl) *ast.CompositeLit {
	if d.Tok != token.VAR || len(d.Specs) != 1 {
		return nil
	}
	vs, ok := d.Specs[0].(*ast.ValueSpec)
	if !ok || len(vs.Values) != 1 {
		return nil
	}
	v := vs.Values[0]
	if c, ok := v.(*ast.CallExpr); ok && len(c.Args) > 0 {
		v = c.Args[len(c.Args)-1]
	}
	lit, _ := v.(*ast.CompositeLit)
	return lit
}
