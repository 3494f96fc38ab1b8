package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"

	"github.com/worldc/worldc/compiler/tasks"
)

//go:embed tasks.html.tmpl
var tasksTemplate string

var tasksPage = template.Must(template.New("tasks").Parse(tasksTemplate))

// TasksWorld is one world's synthesis as `worldc tasks` made it: its
// summary, the metadata of its tasks and its tool-dependency graph drawn
// (tasks.Graph.SVG).
type TasksWorld struct {
	Summary tasks.Summary
	Tasks   []tasks.Meta
	Graph   []byte
}

// tasksView is what the tasks template renders.
type tasksView struct {
	Title                     string
	Worlds, Kept, Wanted      int
	MedianCoverage, HardShare string
	ByOrigin, ByLevel         []Count
	ByFactor, ByDrop          []Count
	OriginH, LevelH           int
	FactorH, DropH            int
	Calls                     []Bin
	Legend                    []Segment
	Rows                      []tasksRow
	Open                      bool // the worlds' sections open: there are few
}

// Segment is a part of a stacked bar.
type Segment struct {
	Label    string
	N        int
	X, Width float64
	Color    template.CSS
}

// tasksRow is a world's line of the table and its section.
type tasksRow struct {
	World                string
	Kept, Wanted         int
	Coverage             string
	CoverageLow          bool
	Uncovered, Note      string
	Origins, Levels      []Segment
	Graph                template.HTML
	Samples              []tasks.Meta
	Easy, Medium, Hard   int
	Covered, WritingTool int
}

// originColors are the origins' colours, in the order the legend shows
// them; another origin is grey.
var originColors = []struct{ origin, color string }{
	{tasks.OriginDAG, "#2563eb"},
	{tasks.OriginProgram, "#7c3aed"},
	{tasks.OriginSolver, "#16a34a"},
	{tasks.OriginQuestion, "#d97706"},
	{tasks.OriginRefusal, "#dc2626"},
}

var levelColors = []struct{ origin, color string }{
	{"easy", "#86efac"},
	{"medium", "#facc15"},
	{"hard", "#ef4444"},
}

// TasksHTML renders the synthesis of worlds as one self-contained page:
// the tasks kept by origin, difficulty level, atomic-difficulty factor and
// call count, the candidates dropped by reason, each world's tool
// coverage with its origins and levels as stacked bars, and per world its
// dependency graph and a task of each origin. The page holds no time, so
// that the same specs and seed give the same page.
func TasksHTML(ws []TasksWorld, title string) ([]byte, error) {
	v := tasksView{Title: title, Worlds: len(ws), Open: len(ws) <= 3}
	origins, levels, factors, drops := map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	calls := map[int]int{}
	var coverages []float64
	hard := 0
	for _, w := range ws {
		s := w.Summary
		v.Kept += s.Kept
		v.Wanted += s.Wanted
		coverages = append(coverages, s.Coverage())
		for k, n := range s.Origins {
			origins[k] += n
		}
		for k, n := range s.Levels {
			levels[k] += n
		}
		for k, n := range s.Dropped {
			drops[k] += n
		}
		for k, n := range s.Calls {
			calls[k] += n
		}
		hard += s.Levels["hard"]
		for _, m := range w.Tasks {
			for _, f := range m.Factors {
				factors[f]++
			}
		}
		row := tasksRow{
			World: s.World, Kept: s.Kept, Wanted: s.Wanted,
			Coverage:    fmt.Sprintf("%.0f%%", 100*s.Coverage()),
			CoverageLow: s.Coverage() < 0.9,
			Uncovered:   strings.Join(s.Uncovered, ", "),
			Note:        s.Note,
			Origins:     stacked(s.Origins, originColors, 240),
			Levels:      stacked(s.Levels, levelColors, 240),
			Graph:       inlineSVG(w.Graph, fmt.Sprintf("g%d-", len(v.Rows))),
			Samples:     samples(w.Tasks),
			Easy:        s.Levels["easy"], Medium: s.Levels["medium"], Hard: s.Levels["hard"],
			Covered: s.Covered, WritingTool: s.WritingTools,
		}
		v.Rows = append(v.Rows, row)
	}
	v.MedianCoverage = "—"
	if len(coverages) > 0 {
		slices.Sort(coverages)
		med := coverages[len(coverages)/2]
		if len(coverages)%2 == 0 {
			med = (coverages[len(coverages)/2-1] + coverages[len(coverages)/2]) / 2
		}
		v.MedianCoverage = fmt.Sprintf("%.0f%%", 100*med)
	}
	v.HardShare = "—"
	if v.Kept > 0 {
		v.HardShare = fmt.Sprintf("%.0f%%", 100*float64(hard)/float64(v.Kept))
	}
	v.ByOrigin, v.ByLevel, v.ByFactor = bars(origins), bars(levels), bars(factors)
	v.ByDrop = bars(drops)
	if len(v.ByDrop) > 12 {
		v.ByDrop = v.ByDrop[:12]
	}
	v.OriginH, v.LevelH = 24*len(v.ByOrigin)+8, 24*len(v.ByLevel)+8
	v.FactorH, v.DropH = 24*len(v.ByFactor)+8, 24*len(v.ByDrop)+8
	v.Calls = callBins(calls)
	for _, o := range originColors {
		v.Legend = append(v.Legend, Segment{Label: o.origin, Color: template.CSS(o.color)})
	}
	var buf bytes.Buffer
	if err := tasksPage.Execute(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// stacked lays counts out as the segments of a bar of width units, in the
// order of colors, then the other keys in name order (grey).
func stacked(m map[string]int, colors []struct{ origin, color string }, width float64) []Segment {
	total := 0
	for _, n := range m {
		total += n
	}
	if total == 0 {
		return nil
	}
	var keys []string
	color := map[string]string{}
	for _, c := range colors {
		keys = append(keys, c.origin)
		color[c.origin] = c.color
	}
	var rest []string
	for k := range m {
		if _, known := color[k]; !known {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	var out []Segment
	x := 0.0
	for _, k := range append(keys, rest...) {
		n := m[k]
		if n == 0 {
			continue
		}
		c := color[k]
		if c == "" {
			c = "#9ca3af"
		}
		w := width * float64(n) / float64(total)
		out = append(out, Segment{Label: k, N: n, X: x, Width: w, Color: template.CSS(c)})
		x += w
	}
	return out
}

// callBins are the bars of the calls-per-task histogram: 1 to 11 calls,
// and 12 or more.
func callBins(calls map[int]int) []Bin {
	const last = 12
	counts := make([]int, last)
	for k, n := range calls {
		i := min(max(k, 1), last) - 1
		counts[i] += n
	}
	top := max(slices.Max(counts), 1)
	bins := make([]Bin, last)
	for i := range bins {
		label := strconv.Itoa(i + 1)
		if i == last-1 {
			label += "+"
		}
		h := 110 * float64(counts[i]) / float64(top) // room above for the count
		bins[i] = Bin{Label: label, N: counts[i], X: float64(10 + 40*i), H: h, Top: 130 - h}
	}
	return bins
}

// samples are a world's first task of each origin, in the legend's order
// and then by name, for the page to show what the words read like.
func samples(ms []tasks.Meta) []tasks.Meta {
	first := map[string]tasks.Meta{}
	var order []string
	for _, m := range ms {
		if _, seen := first[m.Origin]; !seen {
			first[m.Origin] = m
			order = append(order, m.Origin)
		}
	}
	rank := func(o string) int {
		for i, c := range originColors {
			if c.origin == o {
				return i
			}
		}
		return len(originColors)
	}
	slices.SortStableFunc(order, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	out := make([]tasks.Meta, len(order))
	for i, o := range order {
		out[i] = first[o]
	}
	return out
}

// inlineSVG is a graph's picture (internal/graphsvg, which escapes every
// text it draws) for a place in the page: without the XML namespace,
// which HTML does not need, and with its marker ids prefixed, so that the
// pictures of several worlds do not share ids.
func inlineSVG(svg []byte, prefix string) template.HTML {
	s := strings.Replace(string(svg), ` xmlns="http://www.w3.org/2000/svg"`, "", 1)
	s = strings.ReplaceAll(s, `id="arrow-`, `id="`+prefix+`arrow-`)
	s = strings.ReplaceAll(s, `url(#arrow-`, `url(#`+prefix+`arrow-`)
	return template.HTML(s)
}
