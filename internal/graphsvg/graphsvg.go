// Package graphsvg draws a world's tool-dependency graph (compiler/tasks'
// Graph) as a self-contained SVG picture, without Graphviz: a layered
// layout in which each service is a horizontal band, each tool a node
// placed in the column of its depth (the longest chain of dependencies
// that leads to it), and the three kinds of edges drawn apart — lookups
// thin and grey, parameters solid blue, state transitions dashed orange —
// with a legend. The picture is deterministic: the same graph gives the
// same bytes.
package graphsvg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// Graph is what the picture shows.
type Graph struct {
	World string
	Tools []Tool // in the spec's order
	Edges []Edge
}

// Tool is a node.
type Tool struct {
	Name, Service, Kind string
	Writes              bool
}

// Edge is a dependency: From must (or may) run before To.
type Edge struct {
	From, To string
	Kind     string // lookup, param or state
	Label    string // the parameter, or the fields a state edge is about
}

// The picture's geometry, in SVG units (a unit is a CSS pixel).
const (
	margin   = 16
	charW    = 6.6 // of 11px monospace
	nodeH    = 24
	rowH     = 34
	bandHead = 24
	gap      = 90 // between columns, where the edges run
	maxLabel = 48 // characters of a tool's name drawn; the rest is in its title
)

// edgeStyle is how an edge kind is drawn.
type edgeStyle struct {
	kind, color, dash, what string
	width                   float64
}

var edgeStyles = []edgeStyle{
	{"lookup", "#9ca3af", "", "lookup: a read finds the record a parameter names", 1},
	{"param", "#2563eb", "", "parameter: a write hands on the record a parameter takes", 1.5},
	{"state", "#ea580c", "5 3", "state: a require reads a field the other tool writes", 1.5},
}

// legendEntry is an edge style's place in the legend: its line's top-left.
type legendEntry struct {
	style edgeStyle
	x, y  float64
}

// legend lays the edge styles out right of the node samples, left to right,
// starting a new line before an entry that would pass the picture's right
// margin; it returns the entries and the bottom of the last line.
func legend(width float64) ([]legendEntry, float64) {
	const left, lineH = margin + 150, 18
	x, y := float64(left), float64(margin+26)
	var out []legendEntry
	for _, s := range edgeStyles {
		w := 36 + float64(utf8.RuneCountInString(s.what))*6.2
		if x > left && x+w > width-margin {
			x, y = left, y+lineH
		}
		out = append(out, legendEntry{s, x, y})
		x += w + 24
	}
	return out, y + lineH
}

func styleOf(kind string) edgeStyle {
	for _, s := range edgeStyles {
		if s.kind == kind {
			return s
		}
	}
	return edgeStyles[0]
}

// Render draws g.
func Render(g *Graph) []byte {
	idx := map[string]int{}
	for i, t := range g.Tools {
		if _, dup := idx[t.Name]; !dup {
			idx[t.Name] = i
		}
	}
	rank := ranks(g, idx)
	var services []string
	for _, t := range g.Tools {
		if !slices.Contains(services, t.Service) {
			services = append(services, t.Service)
		}
	}
	// Node width: the longest name drawn.
	longest := 8
	for _, t := range g.Tools {
		longest = max(longest, utf8.RuneCountInString(label(t.Name)))
	}
	nodeW := float64(longest)*charW + 20
	colW := nodeW + gap
	maxRank := 0
	for _, r := range rank {
		maxRank = max(maxRank, r)
	}
	// Each band holds its service's tools, stacked by column.
	type pos struct{ x, y float64 }
	at := make([]pos, len(g.Tools))
	type band struct {
		name   string
		top, h float64
	}
	var bands []band
	// Right of the last column, room for the edges that leave and re-enter
	// it (an edge within a column bulges by at most gap-16).
	width := max(float64(margin*2+16)+float64(maxRank)*colW+nodeW+gap-16, 640)
	// The legend's edge entries, wrapped to the width: the bands start
	// below its last line.
	entries, legendBottom := legend(width)
	y := legendBottom + 12
	for _, s := range services {
		stack := make([]int, maxRank+1)
		rows := 1
		for i, t := range g.Tools {
			if t.Service != s {
				continue
			}
			r := rank[i]
			at[i] = pos{margin + 8 + float64(r)*colW, y + bandHead + float64(stack[r])*rowH}
			stack[r]++
			rows = max(rows, stack[r])
		}
		h := bandHead + float64(rows)*rowH + 4
		bands = append(bands, band{s, y, h})
		y += h + 10
	}
	height := y + margin

	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif" font-size="11">`+"\n", num(width), num(height), num(width), num(height))
	fmt.Fprintf(&b, "<title>%s: tool-dependency graph</title>\n", esc(g.World))
	b.WriteString("<defs>\n")
	for _, s := range edgeStyles {
		fmt.Fprintf(&b, `<marker id="arrow-%s" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="%s"/></marker>`+"\n", s.kind, s.color)
	}
	b.WriteString("</defs>\n")
	fmt.Fprintf(&b, `<rect width="%s" height="%s" fill="#ffffff"/>`+"\n", num(width), num(height))
	// The legend: the world, the nodes, the edges.
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="14" font-weight="bold">%s — tool-dependency graph</text>`+"\n", margin, margin+8, esc(g.World))
	ly := float64(margin + 26)
	fmt.Fprintf(&b, `<rect x="%d" y="%s" width="28" height="14" rx="7" fill="#ffffff" stroke="#6b7280"/><text x="%d" y="%s">read</text>`+"\n", margin, num(ly), margin+34, num(ly+11))
	fmt.Fprintf(&b, `<rect x="%d" y="%s" width="28" height="14" fill="#dbeafe" stroke="#1d4ed8"/><text x="%d" y="%s">write</text>`+"\n", margin+70, num(ly), margin+104, num(ly+11))
	for _, e := range entries {
		s := e.style
		fmt.Fprintf(&b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"%s marker-end="url(#arrow-%s)"/>`, num(e.x), num(e.y+7), num(e.x+30), num(e.y+7), s.color, num(s.width), dashAttr(s.dash), s.kind)
		fmt.Fprintf(&b, `<text x="%s" y="%s">%s</text>`+"\n", num(e.x+36), num(e.y+11), esc(s.what))
	}
	for _, bd := range bands {
		fmt.Fprintf(&b, `<rect x="%d" y="%s" width="%s" height="%s" rx="6" fill="#f9fafb" stroke="#e5e7eb"/>`, margin, num(bd.top), num(width-2*margin), num(bd.h))
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-weight="bold" fill="#374151">service %s</text>`+"\n", margin+8, num(bd.top+16), esc(bd.name))
	}
	// Edges under the nodes, in the graph's order.
	for _, e := range g.Edges {
		i, ok1 := idx[e.From]
		j, ok2 := idx[e.To]
		if !ok1 || !ok2 || i == j {
			continue
		}
		s := styleOf(e.Kind)
		x1, y1 := at[i].x+nodeW, at[i].y+nodeH/2
		x2, y2 := at[j].x, at[j].y+nodeH/2
		dx := max(40, (x2-x1)/2)
		var d string
		switch {
		case at[i].x == at[j].x:
			// The same column: out of the right side and back into it,
			// bulging into the gap by how far apart they are.
			bulge := min(gap-16, 18+abs(y2-y1)/6)
			d = fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", num(x1), num(y1), num(x1+bulge), num(y1), num(x1+bulge), num(y2), num(x1), num(y2))
		case x2 < x1:
			// Backwards: from the left side of From to the right of To.
			x1, x2 = at[i].x, at[j].x+nodeW
			dx = max(40, (x1-x2)/2)
			d = fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", num(x1), num(y1), num(x1-dx), num(y1), num(x2+dx), num(y2), num(x2), num(y2))
		default:
			d = fmt.Sprintf("M%s,%s C%s,%s %s,%s %s,%s", num(x1), num(y1), num(x1+dx), num(y1), num(x2-dx), num(y2), num(x2), num(y2))
		}
		title := e.From + " → " + e.To + " (" + e.Kind
		if e.Label != "" {
			title += ": " + e.Label
		}
		title += ")"
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="%s"%s marker-end="url(#arrow-%s)"><title>%s</title></path>`+"\n",
			d, s.color, num(s.width), dashAttr(s.dash), s.kind, esc(title))
	}
	for i, t := range g.Tools {
		p := at[i]
		fill, stroke, rx := "#ffffff", "#6b7280", nodeH/2
		if t.Writes {
			fill, stroke, rx = "#dbeafe", "#1d4ed8", 3
		}
		fmt.Fprintf(&b, `<g><title>%s (%s, service %s)</title><rect x="%s" y="%s" width="%s" height="%d" rx="%d" fill="%s" stroke="%s"/><text x="%s" y="%s" font-family="monospace" text-anchor="middle">%s</text></g>`+"\n",
			esc(t.Name), esc(t.Kind), esc(t.Service), num(p.x), num(p.y), num(nodeW), nodeH, rx, fill, stroke, num(p.x+nodeW/2), num(p.y+16), esc(label(t.Name)))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// ranks is each tool's column: the length of the longest chain of lookup
// and param edges leading to it (how records flow from the reads that
// find them to the writes that take them), with the edges that close a
// cycle (found by a depth-first walk in the tools' order) left out. State
// edges are drawn between the columns the data flow gives.
func ranks(g *Graph, idx map[string]int) []int {
	n := len(g.Tools)
	out := make([][]int, n)
	for _, e := range g.Edges {
		if e.Kind == "state" {
			continue
		}
		i, ok1 := idx[e.From]
		j, ok2 := idx[e.To]
		if ok1 && ok2 && i != j && !slices.Contains(out[i], j) {
			out[i] = append(out[i], j)
		}
	}
	// Depth-first, iteratively (a graph from a spec may be deep): the
	// edges kept are those to a node not on the current path.
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]int, n)
	var order []int // reverse post-order: a topological order of the kept edges
	kept := make([][]int, n)
	for root := range n {
		if state[root] != unseen {
			continue
		}
		type frame struct{ v, next int }
		stack := []frame{{root, 0}}
		state[root] = onPath
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.next < len(out[f.v]) {
				w := out[f.v][f.next]
				f.next++
				switch state[w] {
				case unseen:
					kept[f.v] = append(kept[f.v], w)
					state[w] = onPath
					stack = append(stack, frame{w, 0})
				case done:
					kept[f.v] = append(kept[f.v], w)
				}
				continue
			}
			state[f.v] = done
			order = append(order, f.v)
			stack = stack[:len(stack)-1]
		}
	}
	rank := make([]int, n)
	for k := len(order) - 1; k >= 0; k-- {
		v := order[k]
		for _, w := range kept[v] {
			rank[w] = max(rank[w], rank[v]+1)
		}
	}
	return rank
}

// Check reports whether data is a well-formed XML document whose one
// root element is svg (what Render writes, and what a page or a README
// embedding a picture wants).
func Check(data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	roots, depth := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if el.Name.Local != "svg" {
					return fmt.Errorf("root element %s, want svg", el.Name.Local)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if roots != 1 || depth != 0 {
		return fmt.Errorf("%d root elements, want one svg", roots)
	}
	return nil
}

// label is a tool's name as drawn: at most maxLabel characters.
func label(s string) string {
	if utf8.RuneCountInString(s) <= maxLabel {
		return s
	}
	r := []rune(s)
	return string(r[:maxLabel-1]) + "…"
}

func abs(f float64) float64 { return max(f, -f) }

func dashAttr(d string) string {
	if d == "" {
		return ""
	}
	return ` stroke-dasharray="` + d + `"`
}

// num writes a coordinate with at most one decimal.
func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	return strings.TrimSuffix(s, ".0")
}

func esc(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}
