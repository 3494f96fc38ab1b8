package graphsvg

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRender: a small graph with a cycle, a back edge, an edge within a
// column and names to escape is drawn well-formed, the same bytes twice,
// with every node, the three edge styles and the legend.
func TestRender(t *testing.T) {
	g := &Graph{
		World: "w<&>",
		Tools: []Tool{
			{Name: "find_orders", Service: "sales", Kind: "search"},
			{Name: "pay_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "refund_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "record_receipt", Service: "books", Kind: "custom", Writes: true},
			{Name: strings.Repeat("x", 80), Service: "books", Kind: "get"},
		},
		Edges: []Edge{
			{From: "find_orders", To: "pay_order", Kind: "lookup", Label: "order"},
			{From: "find_orders", To: "refund_order", Kind: "lookup", Label: "order"},
			{From: "pay_order", To: "refund_order", Kind: "state", Label: "Order.status"},
			{From: "refund_order", To: "pay_order", Kind: "state", Label: "Order.status"},
			{From: "pay_order", To: "record_receipt", Kind: "param", Label: "order <a&b>"},
			{From: "record_receipt", To: "find_orders", Kind: "param", Label: "a cycle"},
			{From: "nowhere", To: "pay_order", Kind: "lookup"},
		},
	}
	a, b := Render(g), Render(g)
	if !bytes.Equal(a, b) {
		t.Fatalf("two renderings differ")
	}
	if err := Check(a); err != nil {
		t.Fatalf("not well-formed: %v\n%s", err, a)
	}
	for _, want := range []string{
		"w&lt;&amp;&gt; — tool-dependency graph", ">find_orders</text>", ">pay_order</text>", "service books",
		`stroke-dasharray="5 3" marker-end="url(#arrow-state)"><title>pay_order → refund_order (state: Order.status)`,
		`marker-end="url(#arrow-param)"><title>pay_order → record_receipt (param: order &lt;a&amp;b&gt;)`,
		strings.Repeat("x", 47) + "…</text>",
	} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	// The data flow gives the columns: find_orders first, the writes
	// after it; record_receipt after pay_order.
	r := ranks(g, map[string]int{"find_orders": 0, "pay_order": 1, "refund_order": 2, "record_receipt": 3})
	if r[0] != 0 || r[1] != 1 || r[2] != 1 || r[3] != 2 {
		t.Errorf("ranks = %v, want [0 1 1 2 0]", r)
	}
	if err := Check(Render(&Graph{World: "empty"})); err != nil {
		t.Errorf("the empty graph: %v", err)
	}
}

func TestCheck(t *testing.T) {
	for _, bad := range []string{"", "<svg>", "<svg></svg><svg></svg>", "<html></html>", "<svg><g></svg>"} {
		if Check([]byte(bad)) == nil {
			t.Errorf("Check(%q) = nil", bad)
		}
	}
}

// TestInsideViewBox: every edge's control points (which bound its curve)
// and every node lie inside the picture, also for an edge between two
// tools of the last column, which bulges to the right of it.
func TestInsideViewBox(t *testing.T) {
	g := &Graph{
		World: "w",
		Tools: []Tool{
			{Name: "find_orders", Service: "sales", Kind: "search"},
			{Name: "pay_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "hold_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "ship_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "tag_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "refund_order", Service: "sales", Kind: "custom", Writes: true},
			{Name: "find_orders_by_a_rather_long_name_of_forty", Service: "sales", Kind: "search"},
		},
		Edges: []Edge{
			{From: "find_orders", To: "pay_order", Kind: "lookup"},
			{From: "find_orders", To: "hold_order", Kind: "lookup"},
			{From: "find_orders", To: "ship_order", Kind: "lookup"},
			{From: "find_orders", To: "tag_order", Kind: "lookup"},
			{From: "find_orders", To: "refund_order", Kind: "lookup"},
			{From: "pay_order", To: "refund_order", Kind: "state"},
			{From: "refund_order", To: "pay_order", Kind: "state"},
		},
	}
	svg := string(Render(g))
	var w, h float64
	if _, err := fmt.Sscanf(svg[strings.Index(svg, `viewBox="`):], `viewBox="0 0 %g %g"`, &w, &h); err != nil {
		t.Fatalf("no viewBox: %v", err)
	}
	paths := regexp.MustCompile(`<path d="([^"]*)"`).FindAllStringSubmatch(svg, -1)
	if len(paths) < 7 {
		t.Fatalf("%d paths, want the 7 edges", len(paths))
	}
	point := regexp.MustCompile(`(-?[0-9.]+),(-?[0-9.]+)`)
	for _, p := range paths {
		for _, m := range point.FindAllStringSubmatch(p[1], -1) {
			x, _ := strconv.ParseFloat(m[1], 64)
			y, _ := strconv.ParseFloat(m[2], 64)
			if x < 0 || x > w || y < 0 || y > h {
				t.Errorf("point %s,%s of %q is outside the %gx%g picture", m[1], m[2], p[1], w, h)
			}
		}
	}
}

// TestLegendAboveBands: at every width the legend's entries stay inside
// the picture, do not overlap one another, and all lie above the first
// service band (which would hide them: it is drawn after the legend).
func TestLegendAboveBands(t *testing.T) {
	for _, width := range []float64{640, 900, 1400, 3000} {
		entries, bottom := legend(width)
		if len(entries) != len(edgeStyles) {
			t.Fatalf("width %g: %d legend entries, want %d", width, len(entries), len(edgeStyles))
		}
		for i, e := range entries {
			right := e.x + 36 + float64(len(e.style.what))*6.2
			if right > width-margin {
				t.Errorf("width %g: the %s entry ends at %g, past the margin", width, e.style.kind, right)
			}
			if e.y+18 > bottom {
				t.Errorf("width %g: the %s entry is below the legend's bottom %g", width, e.style.kind, bottom)
			}
			for _, f := range entries[:i] {
				if f.y == e.y && f.x+36+float64(len(f.style.what))*6.2 > e.x {
					t.Errorf("width %g: the %s and %s entries overlap", width, f.style.kind, e.style.kind)
				}
			}
		}
	}
	g := &Graph{World: "w", Tools: []Tool{{Name: "find_orders", Service: "sales", Kind: "search"}}}
	svg := string(Render(g))
	band := regexp.MustCompile(`<rect x="16" y="([0-9.]+)" width="[0-9.]+" height="[0-9.]+" rx="6"`).FindStringSubmatch(svg)
	if band == nil {
		t.Fatalf("no service band in\n%s", svg)
	}
	top, _ := strconv.ParseFloat(band[1], 64)
	for _, m := range regexp.MustCompile(`<line x1="[0-9.]+" y1="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		if y, _ := strconv.ParseFloat(m[1], 64); y >= top {
			t.Errorf("a legend line at y=%g is under the first band (top %g)", y, top)
		}
	}
}
