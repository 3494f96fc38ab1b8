package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/tasks"
)

// tasksSample synthesises 30 tasks of an example world, and adds a world
// whose words hold markup.
func tasksSample(t *testing.T) []TasksWorld {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "worlds", "ecommerce_returns.world")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data := os.DirFS(filepath.Dir(path))
	w, ds := compiler.CheckSource(path, src, compiler.WithData(data))
	if w == nil || ds.HasErrors() {
		t.Fatalf("%s does not check:\n%s", path, ds.Text())
	}
	r, err := tasks.Synthesize(w, src, tasks.Options{N: 30, Seed: 1, Filename: path, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	ok := TasksWorld{World: r.Summary.World, Wanted: r.Summary.Wanted, Kept: r.Summary.Kept, WritingTools: r.Summary.WritingTools,
		Covered: r.Summary.Covered, Origins: r.Summary.Origins, Levels: r.Summary.Levels, Drops: r.Summary.Dropped, Calls: r.Summary.Calls,
		Graph: tasks.BuildGraph(w).SVG()}
	for _, m := range r.Tasks {
		ok.Tasks = append(ok.Tasks, TaskLine{ID: m.ID, Origin: m.Origin, Level: m.Difficulty.Level, Instruction: m.Instruction, Calls: m.Calls, Factors: m.Factors})
	}
	hostile := TasksWorld{World: "odd", Wanted: 10, Kept: 1, WritingTools: 2, Covered: 1, Uncovered: []string{"close_all"},
		Origins: map[string]int{"dag": 1}, Levels: map[string]int{"easy": 1}, Calls: map[int]int{1: 1}, Drops: map[string]int{"duplicate": 9},
		Note:  "1 distinct task: <b>few</b>",
		Tasks: []TaskLine{{ID: "t1", Origin: "dag", Instruction: "Close <script>alert(1)</script> now", Calls: 1, Level: "easy"}}}
	return []TasksWorld{ok, hostile}
}

// TestTasksHTML: the page parses, holds the synthesis' numbers, a world's
// graph and a task of each of its origins, escapes the words, and needs
// no network; two worlds' graphs do not share an id.
func TestTasksHTML(t *testing.T) {
	ws := tasksSample(t)
	again := ws[0]
	again.World = "ecommerce_returns_again"
	ws = append(ws, again)
	page, err := TasksHTML(ws, "tasks")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	kept := ws[0].Kept*2 + 1
	for id, want := range map[string]string{"worlds": "3", "kept": strconv.Itoa(kept)} {
		if got := textOf(doc, id); got != want {
			t.Errorf("#%s = %q, want %q", id, got, want)
		}
	}
	s := string(page)
	for _, want := range []string{"tool-dependency graph", "&lt;script&gt;", "&lt;b&gt;few&lt;/b&gt;", "close_all", `id="w-odd"`, "duplicate"} {
		if !strings.Contains(s, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for origin := range ws[0].Origins {
		if !strings.Contains(s, "("+origin+", ") {
			t.Errorf("no task of origin %s shown", origin)
		}
	}
	for _, bad := range []string{"<script>", "http://", "https://"} {
		if strings.Contains(s, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(s, -1) {
		ids[m[1]]++
	}
	for id, n := range ids {
		if n > 1 {
			t.Errorf("id %q is given %d times", id, n)
		}
	}
	twice, err := TasksHTML(ws, "tasks")
	if err != nil || !bytes.Equal(twice, page) {
		t.Error("the same synthesis rendered two pages")
	}
}
