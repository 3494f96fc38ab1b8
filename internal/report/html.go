package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strings"

	"github.com/worldc/worldc/internal/gate"
)

//go:embed report.html.tmpl
var pageTemplate string

var page = template.Must(template.New("report").Parse(pageTemplate))

// Count is a labelled number, with its bar's width in a chart.
type Count struct {
	Label string
	N     int
	Width float64 // of the bar, in SVG units
	Y     float64 // of the bar's row
}

// Matrix is a table of counts by two keys, shaded by value.
type Matrix struct {
	Title string
	Cols  []string
	Rows  []Row
}

// Row is a row of a Matrix.
type Row struct {
	Label string
	Cells []Cell
}

// Cell is one count of a Matrix.
type Cell struct {
	N     int
	Shade template.CSS // the cell's background
}

// Page is what the template renders.
type Page struct {
	Title                  string
	Worlds, Passed, Failed int
	PassRate               string // "87.5%"
	PassArc                string // SVG path of the pass share of the ring
	Seconds                float64
	ByStage, ByCode        []Count
	ChartHeightStage       int
	ChartHeightCode        int
	Histogram              []Bin
	HistMax                int
	Slowest                []gate.WorldResult
	Failures               []gate.WorldResult
	Coverage               []Matrix
	Warnings               []string
}

// Bin is a bar of the timing histogram.
type Bin struct {
	Label     string
	N         int
	X, H, Top float64
}

// HTML renders the report as one self-contained page.
func HTML(r *gate.Report, title string) ([]byte, error) {
	p := Page{Title: title, Worlds: len(r.Worlds), Passed: r.Passed, Failed: r.Failed, Seconds: r.Seconds, Warnings: r.Warnings}
	rate := 0.0
	if p.Worlds > 0 {
		rate = float64(p.Passed) / float64(p.Worlds)
	}
	p.PassRate = fmt.Sprintf("%.1f%%", 100*rate)
	p.PassArc = arc(rate)

	stages := map[string]int{}
	codes := map[string]int{}
	for _, w := range r.Worlds {
		if w.OK {
			continue
		}
		p.Failures = append(p.Failures, w)
		stages[string(w.Stage)]++
		// The diagnostics carry typed codes (the checker's W…, the gate's
		// gate-<stage>); a report of vet alone has none.
		seen := map[string]bool{}
		for _, d := range w.Diagnostics {
			seen[string(d.Code)] = true
		}
		if len(seen) == 0 {
			seen[string(w.Stage)+" (no code)"] = true
		}
		for c := range seen {
			codes[c]++
		}
	}
	p.ByStage = bars(stages)
	p.ByCode = bars(codes)
	p.ChartHeightStage = 24*len(p.ByStage) + 8
	p.ChartHeightCode = 24*len(p.ByCode) + 8
	p.Histogram, p.HistMax = histogram(r.Worlds)

	slow := slices.Clone(r.Worlds)
	slices.SortStableFunc(slow, func(a, b gate.WorldResult) int {
		switch {
		case a.Seconds > b.Seconds:
			return -1
		case a.Seconds < b.Seconds:
			return 1
		}
		return strings.Compare(a.World, b.World)
	})
	p.Slowest = slow[:min(len(slow), 10)]

	p.Coverage = []Matrix{
		matrix("Industry × country", r.Worlds, func(m *gate.WorldMeta) ([]string, []string) {
			return []string{orNone(m.Industry)}, []string{orNone(m.Country)}
		}),
		matrix("Capability × difficulty", r.Worlds, func(m *gate.WorldMeta) ([]string, []string) {
			return orNoneList(m.Capabilities), orNoneList(m.Difficulty)
		}),
	}
	var buf bytes.Buffer
	if err := page.Execute(&buf, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func orNoneList(s []string) []string {
	if len(s) == 0 {
		return []string{"(none)"}
	}
	return s
}

// bars sorts counts (most first) and sizes their bars to 300 units.
func bars(m map[string]int) []Count {
	var out []Count
	top := 0
	for k, n := range m {
		out = append(out, Count{Label: k, N: n})
		top = max(top, n)
	}
	slices.SortFunc(out, func(a, b Count) int {
		if a.N != b.N {
			return b.N - a.N
		}
		return strings.Compare(a.Label, b.Label)
	})
	for i := range out {
		out[i].Width = 300 * float64(out[i].N) / float64(max(top, 1))
		out[i].Y = float64(24*i + 4)
	}
	return out
}

// histogram bins the worlds' test times on a log scale.
func histogram(ws []gate.WorldResult) ([]Bin, int) {
	edges := []float64{0.01, 0.03, 0.1, 0.3, 1, 3, 10, 30, math.Inf(1)}
	labels := []string{"<10ms", "<30ms", "<0.1s", "<0.3s", "<1s", "<3s", "<10s", "<30s", "≥30s"}
	counts := make([]int, len(edges))
	for _, w := range ws {
		for i, e := range edges {
			if w.Seconds < e || i == len(edges)-1 {
				counts[i]++
				break
			}
		}
	}
	top := max(slices.Max(counts), 1)
	bins := make([]Bin, len(edges))
	for i := range bins {
		h := 120 * float64(counts[i]) / float64(top)
		bins[i] = Bin{Label: labels[i], N: counts[i], X: float64(10 + 52*i), H: h, Top: 130 - h}
	}
	return bins, top
}

// matrix counts worlds by pairs of keys.
func matrix(title string, ws []gate.WorldResult, keys func(*gate.WorldMeta) ([]string, []string)) Matrix {
	counts := map[[2]string]int{}
	rows, cols := map[string]bool{}, map[string]bool{}
	top := 0
	for _, w := range ws {
		if w.Meta == nil {
			continue
		}
		rs, cs := keys(w.Meta)
		for _, r := range rs {
			for _, c := range cs {
				counts[[2]string{r, c}]++
				top = max(top, counts[[2]string{r, c}])
				rows[r], cols[c] = true, true
			}
		}
	}
	m := Matrix{Title: title, Cols: sortedKeys(cols)}
	for _, r := range sortedKeys(rows) {
		var line []Cell
		for _, c := range m.Cols {
			n := counts[[2]string{r, c}]
			alpha := 0.0
			if top > 0 {
				alpha = 0.1 + 0.8*float64(n)/float64(top)
			}
			if n == 0 {
				alpha = 0
			}
			line = append(line, Cell{N: n, Shade: template.CSS(fmt.Sprintf("rgba(37,99,235,%.2f)", alpha))})
		}
		m.Rows = append(m.Rows, Row{Label: r, Cells: line})
	}
	return m
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// arc is the SVG path of a ring segment for share (0..1) of a circle of
// radius 50 centred at (60, 60).
func arc(share float64) string {
	if share >= 1 {
		return "M 60 10 A 50 50 0 1 1 59.99 10"
	}
	if share <= 0 {
		return ""
	}
	a := 2 * math.Pi * share
	x, y := 60+50*math.Sin(a), 60-50*math.Cos(a)
	large := 0
	if share > 0.5 {
		large = 1
	}
	return fmt.Sprintf("M 60 10 A 50 50 0 %d 1 %.2f %.2f", large, x, y)
}
