package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

var reportTmpl = template.Must(template.New("report.html.tmpl").Funcs(template.FuncMap{
	"deref": func(p *int) int { return *p },
}).ParseFS(templateFS, "templates/report.html.tmpl"))

// bar is a bar of a chart, laid out.
type bar struct {
	Label, Text string
	X, Y, W     int
	Top, H      int // vertical bars
	Rest, RestW int // the part of a ratio bar that failed
}

type chart struct {
	Title  string
	Bars   []bar
	Height int
	Width  int
}

type reportData struct {
	Title, Pass1, PassArc, Tokens string
	S                             *Summary
	PassK                         chart
	Breakdowns, Counts            []chart
	Assertions                    []AssertionFailure
	ToolErrors                    []WorldToolError
	Wasted                        []TaskWaste
}

// Color is the fill of an end's or code's bar.
func (reportData) Color(label string) string {
	switch label {
	case EndAnswered, EndUserStop:
		return "#16a34a"
	case EndMaxTurns:
		return "#f59e0b"
	}
	return "#dc2626"
}

// Report renders the summary as one HTML page: no script, no network,
// charts as inline SVG.
func Report(s *Summary, title string) ([]byte, error) {
	d := reportData{Title: title, S: s, Pass1: "–",
		Tokens: compact(s.Tokens.Agent.Prompt + s.Tokens.Agent.Completion + s.Tokens.User.Prompt + s.Tokens.User.Completion)}
	if len(s.PassHatK) > 0 {
		d.Pass1 = fmt.Sprintf("%.3f", s.PassHatK[0])
		d.PassArc = arc(s.PassHatK[0])
	}
	d.PassK.Width = 20 + 50*max(len(s.PassHatK), 1)
	for i, v := range s.PassHatK {
		h := int(math.Round(v * 140))
		d.PassK.Bars = append(d.PassK.Bars, bar{Label: fmt.Sprint(i + 1), Text: fmt.Sprintf("%.2f", v), X: 10 + 50*i, Top: 155 - h, H: h})
	}
	for _, b := range []struct {
		title string
		gs    []Group
	}{{"by world", s.ByWorld}, {"by task origin", s.ByOrigin}, {"by difficulty", s.ByDifficulty}} {
		c := chart{Title: b.title}
		for i, g := range b.gs {
			p := 0.0
			if len(g.PassHatK) > 0 {
				p = g.PassHatK[0]
			}
			w := int(math.Round(p * 250))
			c.Bars = append(c.Bars, bar{Label: trunc(g.Name, 28), Text: fmt.Sprintf("%.2f (%d tasks)", p, g.Tasks), Y: 22 * i, W: w, Rest: 190 + w, RestW: 250 - w})
		}
		c.Height = max(22*len(c.Bars), 22)
		d.Breakdowns = append(d.Breakdowns, c)
	}
	for _, b := range []struct {
		title string
		m     map[string]int
	}{{"ends", s.Ends}, {"failed calls by error code", s.Failures.Codes}} {
		c := chart{Title: b.title}
		keys := make([]string, 0, len(b.m))
		top := 1
		for k, n := range b.m {
			keys = append(keys, k)
			top = max(top, n)
		}
		slices.SortFunc(keys, func(x, y string) int {
			if b.m[x] != b.m[y] {
				return b.m[y] - b.m[x]
			}
			return strings.Compare(x, y)
		})
		for i, k := range keys {
			w := int(math.Round(float64(b.m[k]) / float64(top) * 250))
			c.Bars = append(c.Bars, bar{Label: trunc(k, 28), Text: fmt.Sprint(b.m[k]), Y: 22 * i, W: w, Rest: 190 + w})
		}
		c.Height = max(22*len(c.Bars), 22)
		d.Counts = append(d.Counts, c)
	}
	d.Assertions = s.Failures.Assertions[:min(len(s.Failures.Assertions), 30)]
	d.ToolErrors = s.Failures.ToolErrors[:min(len(s.Failures.ToolErrors), 30)]
	d.Wasted = s.Failures.ByTask[:min(len(s.Failures.ByTask), 20)]
	var buf bytes.Buffer
	if err := reportTmpl.Execute(&buf, d); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// arc is the SVG path of a share of the ring of radius 50 centred at 60,60,
// from 12 o'clock clockwise.
func arc(share float64) string {
	if share <= 0 {
		return ""
	}
	if share >= 1 {
		share = 0.99999
	}
	a := 2 * math.Pi * share
	x, y := 60+50*math.Sin(a), 60-50*math.Cos(a)
	large := 0
	if share > 0.5 {
		large = 1
	}
	return fmt.Sprintf("M60,10 A50,50 0 %d 1 %.2f,%.2f", large, x, y)
}

func trunc(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func compact(n int) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1e4:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// writeOutputs writes DIR/summary.json and DIR/report.html.
func writeOutputs(dir string, s *Summary) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, "summary.json"), append(data, '\n')); err != nil {
		return err
	}
	html, err := Report(s, "eval: "+s.Model)
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, "report.html"), html)
}
