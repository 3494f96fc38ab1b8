package author

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/worldc/worldc/templates"
)

// Taxonomy is what briefs are sampled from: templates/author/taxonomy.json.
type Taxonomy struct {
	Version      string   `json:"version"`
	Industries   []string `json:"industries"`
	Countries    []string `json:"countries"`
	Capabilities []string `json:"capabilities"`
	Difficulties []string `json:"difficulties"`
}

// LoadTaxonomy reads the embedded taxonomy.
func LoadTaxonomy() (*Taxonomy, error) {
	data, err := fs.ReadFile(templates.Author, "author/taxonomy.json")
	if err != nil {
		return nil, err
	}
	return ParseTaxonomy(data)
}

// ParseTaxonomy reads a taxonomy; every dimension must have values, each
// once.
func ParseTaxonomy(data []byte) (*Taxonomy, error) {
	var t Taxonomy
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("taxonomy: %v", err)
	}
	for _, d := range t.dimensions() {
		if len(d.values) == 0 {
			return nil, fmt.Errorf("taxonomy: no %s", d.name)
		}
		seen := map[string]bool{}
		for _, v := range d.values {
			if v == "" || seen[v] {
				return nil, fmt.Errorf("taxonomy: %s: %q is empty or listed twice", d.name, v)
			}
			seen[v] = true
		}
	}
	return &t, nil
}

type dimension struct {
	name   string
	values []string
	of     func(Brief) string
}

func (t *Taxonomy) dimensions() []dimension {
	return []dimension{
		{"industry", t.Industries, func(b Brief) string { return b.Industry }},
		{"country", t.Countries, func(b Brief) string { return b.Country }},
		{"capability", t.Capabilities, func(b Brief) string { return b.Capability }},
		{"difficulty", t.Difficulties, func(b Brief) string { return b.Difficulty }},
	}
}

// Cells is the number of cells: industries × countries × capabilities ×
// difficulties.
func (t *Taxonomy) Cells() int {
	n := 1
	for _, d := range t.dimensions() {
		n *= len(d.values)
	}
	return n
}

// Sample is one cell of the taxonomy, with the id its brief gets.
type Sample struct {
	ID                                        string
	Industry, Country, Capability, Difficulty string
}

// Sample draws n cells without repetition (cycling through all cells
// again when n is larger than their number), in an order the seed
// decides, so that a small corpus spreads over the taxonomy. Sample ids
// are the industry, the country and a running number: retail_de_007.
func (t *Taxonomy) Sample(n int, seed uint64) []Sample {
	total := t.Cells()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var out []Sample
	for len(out) < n {
		for _, c := range rng.Perm(total) {
			if len(out) == n {
				break
			}
			i := c
			s := Sample{}
			s.Difficulty = t.Difficulties[i%len(t.Difficulties)]
			i /= len(t.Difficulties)
			s.Capability = t.Capabilities[i%len(t.Capabilities)]
			i /= len(t.Capabilities)
			s.Country = t.Countries[i%len(t.Countries)]
			i /= len(t.Countries)
			s.Industry = t.Industries[i%len(t.Industries)]
			s.ID = fmt.Sprintf("%s_%s_%03d", WorldName(s.Industry), strings.ToLower(s.Country), len(out)+1)
			out = append(out, s)
		}
	}
	return out
}

// WriteBriefs asks the model for a brief per sample, jobs at a time, and
// returns the briefs in the order of the samples (those whose request
// failed are left out and reported in the error list) and the tokens used.
func WriteBriefs(ctx context.Context, c *Client, p *Prompts, samples []Sample, jobs int, done func(Brief, error)) ([]Brief, Usage, []error) {
	briefs := make([]*Brief, len(samples))
	errs := make([]error, len(samples))
	var usage Usage
	var mu sync.Mutex
	work := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(jobs, len(samples))) {
		wg.Go(func() {
			for i := range work {
				s := samples[i]
				b, u, err := writeBrief(ctx, c, p, s)
				mu.Lock()
				usage.Add(u)
				if err != nil {
					errs[i] = fmt.Errorf("%s: %w", s.ID, err)
				} else {
					briefs[i] = &b
				}
				if done != nil {
					done(b, errs[i])
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range samples {
		select {
		case work <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	var out []Brief
	var failed []error
	for i := range samples {
		switch {
		case briefs[i] != nil:
			out = append(out, *briefs[i])
		case errs[i] != nil:
			failed = append(failed, errs[i])
		default:
			failed = append(failed, fmt.Errorf("%s: interrupted", samples[i].ID))
		}
	}
	return out, usage, failed
}

func writeBrief(ctx context.Context, c *Client, p *Prompts, s Sample) (Brief, Usage, error) {
	msgs, err := p.BriefRequest(s)
	if err != nil {
		return Brief{}, Usage{}, err
	}
	r, err := c.Complete(ctx, msgs, 0)
	if err != nil {
		return Brief{}, r.Usage, err
	}
	text := strings.TrimSpace(r.Content)
	if text == "" {
		return Brief{}, r.Usage, fmt.Errorf("the reply is empty")
	}
	return Brief{ID: s.ID, Brief: text, Industry: s.Industry, Country: s.Country, Capability: s.Capability, Difficulty: s.Difficulty}, r.Usage, nil
}

// Coverage is what a corpus of briefs covers of a taxonomy.
type Coverage struct {
	Briefs int `json:"briefs"`
	// Cells is the taxonomy's number of cells, Covered how many have a
	// brief; Outside counts briefs whose fields are not in the taxonomy.
	Cells   int `json:"cells"`
	Covered int `json:"covered"`
	Outside int `json:"outside"`
	// Dimensions count briefs per value (zeros included), in the
	// taxonomy's order; CellCounts the briefs per covered cell, sorted.
	Dimensions []DimensionCount `json:"dimensions"`
	CellCounts []CellCount      `json:"cell_counts"`
}

// DimensionCount counts briefs per value of one dimension; Passed counts
// those whose world passed, when results are given.
type DimensionCount struct {
	Name   string       `json:"name"`
	Values []ValueCount `json:"values"`
}

// ValueCount is one value's count.
type ValueCount struct {
	Value  string `json:"value"`
	Briefs int    `json:"briefs"`
	Passed *int   `json:"passed,omitempty"`
}

// CellCount is one cell's count.
type CellCount struct {
	Industry   string `json:"industry"`
	Country    string `json:"country"`
	Capability string `json:"capability"`
	Difficulty string `json:"difficulty"`
	Briefs     int    `json:"briefs"`
	Passed     *int   `json:"passed,omitempty"`
}

// Coverage counts briefs per cell and per value. passed, when not nil,
// tells which briefs' worlds passed (by brief id), and adds their counts.
func (t *Taxonomy) Coverage(briefs []Brief, passed map[string]bool) *Coverage {
	c := &Coverage{Briefs: len(briefs), Cells: t.Cells()}
	cells := map[[4]string]*CellCount{}
	for _, d := range t.dimensions() {
		dc := DimensionCount{Name: d.name}
		for _, v := range d.values {
			vc := ValueCount{Value: v}
			for _, b := range briefs {
				if d.of(b) == v {
					vc.Briefs++
					if passed != nil && passed[b.ID] {
						vc.Passed = inc(vc.Passed)
					}
				}
			}
			if passed != nil && vc.Passed == nil {
				vc.Passed = new(int)
			}
			dc.Values = append(dc.Values, vc)
		}
		c.Dimensions = append(c.Dimensions, dc)
	}
	for _, b := range briefs {
		if !slices.Contains(t.Industries, b.Industry) || !slices.Contains(t.Countries, b.Country) ||
			!slices.Contains(t.Capabilities, b.Capability) || !slices.Contains(t.Difficulties, b.Difficulty) {
			c.Outside++
			continue
		}
		k := [4]string{b.Industry, b.Country, b.Capability, b.Difficulty}
		cc := cells[k]
		if cc == nil {
			cc = &CellCount{Industry: k[0], Country: k[1], Capability: k[2], Difficulty: k[3]}
			if passed != nil {
				cc.Passed = new(int)
			}
			cells[k] = cc
		}
		cc.Briefs++
		if passed != nil && passed[b.ID] {
			*cc.Passed++
		}
	}
	for _, cc := range cells {
		c.CellCounts = append(c.CellCounts, *cc)
	}
	slices.SortFunc(c.CellCounts, func(a, b CellCount) int {
		return strings.Compare(strings.Join([]string{a.Industry, a.Country, a.Capability, a.Difficulty}, "\x00"),
			strings.Join([]string{b.Industry, b.Country, b.Capability, b.Difficulty}, "\x00"))
	})
	c.Covered = len(c.CellCounts)
	return c
}

func inc(p *int) *int {
	if p == nil {
		p = new(int)
	}
	*p++
	return p
}

// Text renders the coverage: per dimension, each value's count (and
// passed), then the covered cells.
func (c *Coverage) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d briefs cover %d of %d cells (industry × country × capability × difficulty)", c.Briefs, c.Covered, c.Cells)
	if c.Outside > 0 {
		fmt.Fprintf(&b, "; %d outside the taxonomy", c.Outside)
	}
	b.WriteString("\n")
	for _, d := range c.Dimensions {
		fmt.Fprintf(&b, "\n%s:\n", d.Name)
		for _, v := range d.Values {
			fmt.Fprintf(&b, "  %-24s %4d", v.Value, v.Briefs)
			if v.Passed != nil {
				fmt.Fprintf(&b, "  passed %d", *v.Passed)
			}
			b.WriteString("\n")
		}
	}
	if len(c.CellCounts) > 0 {
		b.WriteString("\ncells:\n")
		for _, cc := range c.CellCounts {
			fmt.Fprintf(&b, "  %s × %s × %s × %s  %d", cc.Industry, cc.Country, cc.Capability, cc.Difficulty, cc.Briefs)
			if cc.Passed != nil {
				fmt.Fprintf(&b, "  passed %d", *cc.Passed)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
