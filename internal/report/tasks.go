package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strconv"
	"strings"
)

//go:embed tasks.html.tmpl
var tasksTemplate string

var tasksPage = template.Must(template.New("tasks").Parse(tasksTemplate))

// TasksWorld is one world's synthesis as `worldc tasks` made it (its
// summary, compiler/tasks.Summary, and its tasks' metadata), in the terms
// of the page, so that the report links no checker: the tasks kept and
// wanted, the writing tools and those covered, counts by origin, level,
// drop reason and call count, the note on a world short of tasks, and its
// tool-dependency graph drawn (tasks.Graph.SVG).
type TasksWorld struct {
	World                  string
	Wanted, Kept           int
	WritingTools, Covered  int
	Uncovered              []string
	Origins, Levels, Drops map[string]int
	Calls                  map[int]int
	Note                   string
	Tasks                  []TaskLine
	Graph                  []byte
}

// TaskLine is what the page shows of a task.
type TaskLine struct {
	ID, Origin, Level, Instruction string
	Calls                          int
	Factors                        []string
}

// coverage is the share of writing tools covered (1 without any).
func (w *TasksWorld) coverage() float64 {
	if w.WritingTools == 0 {
		return 1
	}
	return float64(w.Covered) / float64(w.WritingTools)
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
	Samples              []TaskLine
	Easy, Medium, Hard   int
	Covered, WritingTool int
}

// originColors are the origins' colours, in the order the legend shows
// them; another origin is grey.
var originColors = []struct{ origin, color string }{
	{"dag", "#2563eb"},
	{"program", "#7c3aed"},
	{"solver", "#16a34a"},
	{"question", "#d97706"},
	{"refusal", "#dc2626"},
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
		v.Kept += w.Kept
		v.Wanted += w.Wanted
		coverages = append(coverages, w.coverage())
		for k, n := range w.Origins {
			origins[k] += n
		}
		for k, n := range w.Levels {
			levels[k] += n
		}
		for k, n := range w.Drops {
			drops[k] += n
		}
		for k, n := range w.Calls {
			calls[k] += n
		}
		hard += w.Levels["hard"]
		for _, m := range w.Tasks {
			for _, f := range m.Factors {
				factors[f]++
			}
		}
		v.Rows = append(v.Rows, tasksRow{
			World: w.World, Kept: w.Kept, Wanted: w.Wanted,
			Coverage:    fmt.Sprintf("%.0f%%", 100*w.coverage()),
			CoverageLow: w.coverage() < 0.9,
			Uncovered:   strings.Join(w.Uncovered, ", "),
			Note:        w.Note,
			Origins:     stacked(w.Origins, originColors, 240),
			Levels:      stacked(w.Levels, levelColors, 240),
			Graph:       inlineSVG(w.Graph, fmt.Sprintf("g%d-", len(v.Rows))),
			Samples:     samples(w.Tasks),
			Easy:        w.Levels["easy"], Medium: w.Levels["medium"], Hard: w.Levels["hard"],
			Covered: w.Covered, WritingTool: w.WritingTools,
		})
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
func samples(ms []TaskLine) []TaskLine {
	first := map[string]TaskLine{}
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
	out := make([]TaskLine, len(order))
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
