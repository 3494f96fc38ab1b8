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

const noopSpec = `
world noops {
  title "No-ops"
  currency "EUR"
  today 2026-03-16
}

service desk "Desk" {
  entity Ticket "A ticket" {
    title  string
    status enum { open closed } = open
  }
  tool find_tickets: search Ticket by title "Find tickets"
  tool touch(ticket: ref Ticket) "Assign a ticket its own status" {
    set ticket.status = ticket.status
    return ticket
  }
  tool recheck(ticket: ref Ticket, hard: bool) "Assign it its status either way" {
    set ticket.status = if hard then ticket.status else ticket.status
    return ticket
  }
  tool tally(ticket: ref Ticket) "Count in a local" {
    var n = 0
    for t in Ticket where t.title == ticket.title {
      set n = n + 1
    }
    return n
  }
  tool close(ticket: ref Ticket) "Close a ticket" {
    require ticket.status == open else "already closed"
    set ticket.status = closed
    set ticket.title = ticket.title
    return ticket
  }
}

seed {
  desk.Ticket t_1 { title: "Printer jam" }
  desk.Ticket t_2 { title: "VPN down" }
}
`

// TestWritesChangeState: a tool whose sets assign fields their own values
// (or whose assignments are to locals) changes no state and is no writing
// tool, to the graph, the coverage and the report alike; a tool with one
// real write among self-assignments is one, writing that field only.
func TestWritesChangeState(t *testing.T) {
	w, ds := compiler.CheckSource("noops.world", []byte(noopSpec))
	if ds.HasErrors() || w == nil {
		t.Fatalf("the spec does not check:\n%s", ds.Text())
	}
	writers := map[string]bool{}
	for _, tl := range BuildGraph(w).Tools {
		if tl.Writes {
			writers[tl.Name] = true
		}
		if tl.Name == "close" && !slices.Equal(tl.Sets, []string{"Ticket.status"}) {
			t.Errorf("close sets %v, want only Ticket.status", tl.Sets)
		}
	}
	if len(writers) != 1 || !writers["close"] {
		t.Errorf("the graph's writing tools are %v, want close alone", writers)
	}
	r, err := Synthesize(w, []byte(noopSpec), Options{N: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Summary; s.WritingTools != 1 || s.Covered != 1 || len(s.Uncovered) > 0 {
		t.Errorf("summary: %d writing tools, %d covered, uncovered %v; want close alone, covered", s.WritingTools, s.Covered, s.Uncovered)
	}
}
