package tasks

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/golden"
	"github.com/worldc/worldc/internal/graphsvg"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/graph")

// worldsDir holds the example worlds.
var worldsDir = filepath.Join("..", "..", "testdata", "worlds")

// redteamDir holds the unseen-style worlds (testdata/redteam/worlds).
var redteamDir = filepath.Join("..", "..", "testdata", "redteam", "worlds")

func checkWorld(t testing.TB, name string) (*ir.World, []byte) {
	t.Helper()
	path := filepath.Join(worldsDir, name+".world")
	w, ds := compiler.CheckFile(path)
	if ds.HasErrors() || w == nil {
		t.Fatalf("%s does not check:\n%s", path, ds.Text())
	}
	src, err := readFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return w, src
}

// TestGraphGolden: the dependency graph of two example worlds, as JSON and
// as DOT.
func TestGraphGolden(t *testing.T) {
	for _, name := range []string{"ecommerce_returns", "telecom_plans"} {
		t.Run(name, func(t *testing.T) {
			w, _ := checkWorld(t, name)
			g := BuildGraph(w)
			golden.File(t, filepath.Join("testdata", "graph", name+".json"), g.JSON(), *update)
			golden.File(t, filepath.Join("testdata", "graph", name+".dot"), g.DOT(), *update)
			svg := g.SVG()
			golden.File(t, filepath.Join("testdata", "graph", name+".svg"), svg, *update)
			if err := graphsvg.Check(svg); err != nil {
				t.Errorf("%s.svg is not well-formed XML: %v", name, err)
			}
			// Every tool is drawn, and each kind of edge in its style.
			for _, tl := range g.Tools {
				if !bytes.Contains(svg, []byte(">"+tl.Name+"</text>")) {
					t.Errorf("tool %s is not drawn", tl.Name)
				}
			}
			for _, kind := range []string{"lookup", "param", "state"} {
				if !bytes.Contains(svg, []byte(`marker-end="url(#arrow-`+kind+`)"><title>`)) {
					t.Errorf("no %s edge drawn", kind)
				}
			}
		})
	}
}

// TestGraphEdges: the edges that the types and bodies of the returns
// world imply, each of its three kinds.
func TestGraphEdges(t *testing.T) {
	w, _ := checkWorld(t, "ecommerce_returns")
	g := BuildGraph(w)
	has := func(e Edge) bool {
		return slices.ContainsFunc(g.Edges, func(o Edge) bool {
			return o.From == e.From && o.To == e.To && o.Kind == e.Kind && o.Param == e.Param && o.Via == e.Via && slices.Equal(o.Fields, e.Fields)
		})
	}
	for _, e := range []Edge{
		// A search finds the order a cancellation takes.
		{From: "find_orders", To: "cancel_order", Kind: "lookup", Param: "order", Entity: "Order"},
		// The return a receipt takes may be the one authorize_return
		// created and returned.
		{From: "authorize_return", To: "receive_return", Kind: "param", Param: "rma", Entity: "ReturnAuthorization"},
		// receive_return's requires read the status authorize_return
		// and the others write.
		{From: "receive_return", To: "complete_return", Kind: "state", Fields: []string{"ReturnAuthorization.status", "ReturnAuthorization.credit_amount"}},
		// refund_cancelled_order requires a cancelled order.
		{From: "cancel_order", To: "refund_cancelled_order", Kind: "state", Fields: []string{"Order.status"}},
	} {
		if !has(e) {
			t.Errorf("no edge %+v", e)
		}
	}
	// A get needs the id it shows: it finds nothing.
	if has(Edge{From: "get_order", To: "cancel_order", Kind: "lookup", Param: "order", Entity: "Order"}) {
		t.Errorf("get_order is a lookup of cancel_order's order")
	}
	var order *GraphEntity
	for i := range g.Entities {
		if g.Entities[i].Name == "Order" {
			order = &g.Entities[i]
		}
	}
	if order == nil || !slices.Equal(order.Anchors, []string{"order_number", "status"}) || !slices.Equal(order.FoundBy, []string{"find_orders"}) {
		t.Errorf("Order's anchors: %+v", order)
	}
}

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }
