package tasks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/internal/graphsvg"
)

// Graph is a world's tool-dependency graph, from the types and bodies of
// its tools (never from names alone):
//
//   - a lookup or param edge P → T: T has a parameter naming a record of
//     E (a ref E, a list of them, or a string named after E's key), and
//     P's result shows records of E (lookup when P writes nothing: a
//     search, list or get; param when P is a write whose result hands the
//     record on, such as the record it created), or records whose ref
//     field holds one (Via);
//   - a state edge W → T: a require of T (or a condition choosing which
//     requires run) reads a field that W writes; an insert or delete
//     writes every field of its entity;
//   - entity anchors: the fields a user knows a record by (its key, its
//     unique fields, the fields search tools filter by) and the tools
//     that find its records from them.
type Graph struct {
	World    string        `json:"world"`
	Tools    []GraphTool   `json:"tools"`
	Entities []GraphEntity `json:"entities"`
	Edges    []Edge        `json:"edges"`
}

// GraphTool is one tool: what it reads, writes, creates, deletes and shows.
type GraphTool struct {
	Name    string   `json:"name"`
	Service string   `json:"service"`
	Kind    string   `json:"kind"`
	Writes  bool     `json:"writes"`
	Reads   []string `json:"reads,omitempty"`   // Entity.field read by its requires
	Sets    []string `json:"sets,omitempty"`    // Entity.field written
	Creates []string `json:"creates,omitempty"` // entities inserted
	Deletes []string `json:"deletes,omitempty"` // entities deleted
	Shows   []string `json:"shows,omitempty"`   // entities its result holds
}

// GraphEntity is one entity and its anchors.
type GraphEntity struct {
	Name    string   `json:"name"`
	Service string   `json:"service"`
	Anchors []string `json:"anchors,omitempty"`  // fields a user knows a record by
	FoundBy []string `json:"found_by,omitempty"` // read tools that find records from anchors
}

// Edge is one dependency: From must (or may) run before To.
type Edge struct {
	From   string   `json:"from"`
	To     string   `json:"to"`
	Kind   string   `json:"kind"`             // lookup, param or state
	Param  string   `json:"param,omitempty"`  // lookup, param: To's parameter
	Entity string   `json:"entity,omitempty"` // lookup, param: the entity named
	Via    string   `json:"via,omitempty"`    // lookup: the ref field (Entity.field) that shows the id
	Fields []string `json:"fields,omitempty"` // state: Entity.field read by To and written by From
}

// BuildGraph computes the tool-dependency graph of w. The order of tools,
// entities and edges follows the spec's declaration order, so the graph
// of a spec is always the same.
func BuildGraph(w *ir.World) *Graph {
	return buildGraph(w, analyze(w))
}

func fieldName(f *ir.Field) string { return f.OwnerName() + "." + f.Name }

func buildGraph(w *ir.World, facts []*toolFacts) *Graph {
	g := &Graph{World: w.Name}
	names := func(es []*ir.Entity) []string {
		var out []string
		for _, e := range es {
			out = append(out, e.Name)
		}
		return out
	}
	fields := func(fs []*ir.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, fieldName(f))
		}
		return out
	}
	for _, f := range facts {
		g.Tools = append(g.Tools, GraphTool{
			Name: f.tool.Name, Service: f.tool.Service.Name, Kind: string(f.tool.Kind), Writes: f.writer(),
			Reads: fields(f.reads), Sets: fields(f.writes), Creates: names(f.creates), Deletes: names(f.deletes), Shows: names(f.shows),
		})
	}
	for _, e := range w.Entities {
		ge := GraphEntity{Name: e.Name, Service: e.Service.Name, Anchors: anchorFields(e, facts)}
		for _, f := range facts {
			if finds(f, e) {
				ge.FoundBy = append(ge.FoundBy, f.tool.Name)
			}
		}
		g.Entities = append(g.Entities, ge)
	}
	for _, t := range facts {
		for _, p := range t.tool.Params {
			e := t.names[p]
			if e == nil {
				continue
			}
			direct := false
			for _, pr := range facts {
				if pr == t || !slices.Contains(pr.shows, e) {
					continue
				}
				switch {
				case pr.writer() && slices.Contains(pr.creates, e):
					g.Edges = append(g.Edges, Edge{From: pr.tool.Name, To: t.tool.Name, Kind: "param", Param: p.Name, Entity: e.Name})
				case !pr.writer() && !needsID(pr, e):
					g.Edges = append(g.Edges, Edge{From: pr.tool.Name, To: t.tool.Name, Kind: "lookup", Param: p.Name, Entity: e.Name})
					direct = true
				}
			}
			if direct {
				continue
			}
			// No read finds e's records directly: the reads that show
			// records holding a ref to one.
			for _, pr := range facts {
				if pr == t || pr.writer() {
					continue
				}
				for _, se := range pr.shows {
					if via := refField(se, e); via != nil {
						g.Edges = append(g.Edges, Edge{From: pr.tool.Name, To: t.tool.Name, Kind: "lookup", Param: p.Name, Entity: e.Name, Via: fieldName(via)})
						break
					}
				}
			}
		}
		for _, wr := range facts {
			if wr == t {
				continue
			}
			var common []string
			for _, r := range t.reads {
				if slices.Contains(wr.writes, r) {
					common = append(common, fieldName(r))
				}
			}
			if len(common) > 0 {
				g.Edges = append(g.Edges, Edge{From: wr.tool.Name, To: t.tool.Name, Kind: "state", Fields: common})
			}
		}
	}
	return g
}

// needsID reports whether the read tool takes a record of e by its id
// (a get): it shows the record, but cannot find it.
func needsID(f *toolFacts, e *ir.Entity) bool {
	for _, p := range f.tool.Params {
		if f.names[p] == e && p.Required() {
			return true
		}
	}
	return false
}

// refField is the first field of se that is a ref (or a list of refs) to
// e, or nil.
func refField(se, e *ir.Entity) *ir.Field {
	for _, f := range se.Fields {
		t := f.Type
		if t.Kind == ir.KindList {
			t = t.Elem
		}
		if t.Kind == ir.KindRef && t.Entity == e {
			return f
		}
	}
	return nil
}

// anchorFields are the fields a user knows a record of e by: its key, its
// unique scalar fields, and the fields that read tools filter by.
func anchorFields(e *ir.Entity, facts []*toolFacts) []string {
	var out []string
	add := func(f *ir.Field) {
		if f != nil && !slices.Contains(out, f.Name) {
			out = append(out, f.Name)
		}
	}
	add(e.Key)
	for _, f := range e.Fields {
		if f.Unique && f.Type.Kind.Textual() {
			add(f)
		}
	}
	for _, t := range facts {
		if t.tool.Kind == ir.ToolSearch && t.tool.Entity == e {
			for _, f := range t.tool.By {
				if f.Type.Kind != ir.KindRef {
					add(f)
				}
			}
		}
	}
	for _, t := range facts {
		if t.writer() || t.tool.Kind != ir.ToolCustom || !slices.Contains(t.shows, e) && !returnsKey(t.tool, e) {
			continue
		}
		for _, p := range t.tool.Params {
			if f := e.Field(p.Name); f != nil && f != e.Key {
				add(f)
			}
		}
	}
	return out
}

// returnsKey reports whether a custom tool returns a string and takes
// parameters named after fields of e other than its key: a finder of
// e's key (`find_user_id_by_email(email)`).
func returnsKey(t *ir.Tool, e *ir.Entity) bool {
	if e.Key == nil || t.Returns == nil || !t.Returns.Kind.Textual() || len(t.Params) == 0 {
		return false
	}
	for _, p := range t.Params {
		if e.Field(p.Name) == nil && !structHas(e, p.Name) {
			return false
		}
	}
	return true
}

// structHas reports whether a value record field of e has a field name.
func structHas(e *ir.Entity, name string) bool {
	for _, f := range e.Fields {
		if f.Type.Kind == ir.KindStruct && f.Type.Struct.Field(name) != nil {
			return true
		}
	}
	return false
}

// finds reports whether the read tool f finds records of e from what a
// user knows: a search or list of e, or a custom read whose parameters
// are not the record's id.
func finds(f *toolFacts, e *ir.Entity) bool {
	if f.writer() {
		return false
	}
	switch f.tool.Kind {
	case ir.ToolSearch, ir.ToolList:
		return f.tool.Entity == e
	case ir.ToolCustom:
		if !slices.Contains(f.shows, e) && !returnsKey(f.tool, e) {
			return false
		}
		for _, p := range f.tool.Params {
			if f.names[p] == e {
				return false
			}
		}
		return true
	}
	return false
}

// JSON renders the graph as indented JSON.
func (g *Graph) JSON() []byte {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		panic(err) // strings and slices only
	}
	return append(b, '\n')
}

// DOT renders the graph for Graphviz: one cluster per service with its
// tools (writes as boxes, reads as ellipses) and entities (notes), lookup
// and param edges solid, state edges dashed, anchors dotted from an
// entity to the tools that find it.
func (g *Graph) DOT() []byte {
	var b bytes.Buffer
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	fmt.Fprintf(&b, "digraph %s {\n", q(g.World))
	b.WriteString("  rankdir=LR;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [fontname=\"Helvetica\", fontsize=8];\n")
	var services []string
	for _, t := range g.Tools {
		if !slices.Contains(services, t.Service) {
			services = append(services, t.Service)
		}
	}
	for _, e := range g.Entities {
		if !slices.Contains(services, e.Service) {
			services = append(services, e.Service)
		}
	}
	for i, s := range services {
		fmt.Fprintf(&b, "  subgraph cluster_%d {\n    label=%s;\n", i, q(s))
		for _, e := range g.Entities {
			if e.Service == s {
				label := e.Name
				if len(e.Anchors) > 0 {
					label += "\\n(" + strings.Join(e.Anchors, ", ") + ")"
				}
				fmt.Fprintf(&b, "    %s [shape=note, label=\"%s\"];\n", q("entity:"+e.Name), label)
			}
		}
		for _, t := range g.Tools {
			if t.Service != s {
				continue
			}
			shape := "ellipse"
			if t.Writes {
				shape = "box"
			}
			fmt.Fprintf(&b, "    %s [shape=%s];\n", q(t.Name), shape)
		}
		b.WriteString("  }\n")
	}
	for _, e := range g.Entities {
		for _, t := range e.FoundBy {
			fmt.Fprintf(&b, "  %s -> %s [style=dotted, arrowhead=none];\n", q("entity:"+e.Name), q(t))
		}
	}
	for _, e := range g.Edges {
		switch e.Kind {
		case "state":
			fmt.Fprintf(&b, "  %s -> %s [style=dashed, label=%s];\n", q(e.From), q(e.To), q(strings.Join(e.Fields, ", ")))
		default:
			label := e.Param
			if e.Via != "" {
				label += " via " + e.Via
			}
			fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", q(e.From), q(e.To), q(label))
		}
	}
	b.WriteString("}\n")
	return b.Bytes()
}

// SVG draws the graph as a picture (internal/graphsvg): services as
// bands, tools as nodes in columns by depth, lookup, param and state
// edges each in their own style, and a legend.
func (g *Graph) SVG() []byte {
	sg := &graphsvg.Graph{World: g.World}
	for _, t := range g.Tools {
		sg.Tools = append(sg.Tools, graphsvg.Tool{Name: t.Name, Service: t.Service, Kind: t.Kind, Writes: t.Writes})
	}
	for _, e := range g.Edges {
		label := e.Param
		if e.Kind == "state" {
			label = strings.Join(e.Fields, ", ")
		} else if e.Via != "" {
			label += " via " + e.Via
		}
		sg.Edges = append(sg.Edges, graphsvg.Edge{From: e.From, To: e.To, Kind: e.Kind, Label: label})
	}
	return graphsvg.Render(sg)
}
