package gen

import (
	"path/filepath"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// TestUnusualShapes generates, vets and tests a world whose records hold
// the shapes the retail fixture does not: a record inside itself (a tree),
// a list of lists, a map of optional values, an optional list of optional
// records.
func TestUnusualShapes(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	b := newBuilder("shapes")
	node := b.structDef("Node", "A tree node", fld("name", typ(ir.KindString)))
	children := fld("children", listT(structT(node)))
	children.Struct = node
	node.Fields = append(node.Fields, children)
	svc := b.service("docs", "Documents")
	grid := fld("grid", listT(listT(typ(ir.KindInt))))
	scores := fld("scores", mapT(opt(typ(ir.KindDecimal))))
	extra := fld("extra", opt(listT(opt(structT(node)))))
	root := fld("root", structT(node))
	doc := b.entity(svc, "Doc", "A document", root, grid, scores, extra)
	b.stdTool(svc, "get_doc", ir.ToolGet, doc, "")
	b.stdTool(svc, "create_doc", ir.ToolCreate, doc, "")
	{
		pd := param("doc", refT(doc), "")
		pn := param("child", structT(node), "A subtree")
		b.tool(svc, &ir.Tool{Name: "add_child", Kind: ir.ToolCustom, Doc: "Add a subtree under the root",
			Params: []*ir.Param{pd, pn}, Returns: recT(doc),
			Body: []ir.Stmt{
				&ir.Require{Cond: bin("<", call(typ(ir.KindInt), "len", sfield(field(varRef(pd.Var), root), children)), intLit0(3)), Message: "too many children"},
				&ir.Assign{Root: varRef(pd.Var), Path: []ir.PathStep{{Field: root}, {Field: children}},
					Value: call(children.Type, "append", sfield(field(varRef(pd.Var), root), children), varRef(pn.Var))},
				&ir.Assign{Root: varRef(pd.Var), Path: []ir.PathStep{{Field: grid}, {Index: intLit0(0)}, {Index: intLit0(0)}}, Value: intLit0(7)},
				&ir.Assign{Root: varRef(pd.Var), Path: []ir.PathStep{{Field: scores}, {Index: sfield(varRef(pn.Var), node.Fields[0])}}, Value: lit(typ(ir.KindNull), vNull())},
				&ir.Return{Value: varRef(pd.Var)},
			}})
	}
	leaf := func(name string) *ir.Value {
		return vRec(node, map[string]*ir.Value{"name": vStr(name), "children": vList()})
	}
	b.w.Seed = []*ir.Record{b.record(doc, "d1", map[string]*ir.Value{
		"root": vRec(node, map[string]*ir.Value{"name": vStr("r"), "children": vList(leaf("a"))}),
		"grid": vList(vList(vInt(1), vInt(2)), vList()), "scores": vMap("a", vDec(1.5), "b", vNull()),
		"extra": vList(leaf("x"), vNull()),
	})}
	d1 := keyLookup(doc, "d1")
	d1.Key = handle(doc, "d1")
	addChild := toolNamed(b.w, "add_child")
	b.w.Tasks = []*ir.Task{{Name: "grow", Persona: "Editor", Instruction: "Add a child b to d1.", Domain: "ToB/docs",
		Assertions: []*ir.Assertion{
			{Kind: ir.AssertExpr, Text: "len(d1.root.children) == 2", Expr: bin("==", call(typ(ir.KindInt), "len", sfield(field(d1, root), children)), intLit0(2))},
			{Kind: ir.AssertExpr, Text: "d1.grid[0] == [7, 2]", Expr: bin("==", idx(field(d1, grid), intLit0(0)), list(typ(ir.KindInt), intLit0(7), intLit0(2)))},
		},
		Solution: []*ir.Step{{Tool: addChild, Args: []*ir.Arg{arg(addChild, "doc", vRef("d1")), arg(addChild, "child", leaf("b"))}}},
	}}
	dir := filepath.Join(scratch(t), b.w.Name)
	writeFiles(t, dir, mustGenerate(t, b.w))
	vetAndTest(t, dir)
}
