package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/tasks"
	"github.com/worldc/worldc/internal/author"
	"github.com/worldc/worldc/internal/pipeline"
	"github.com/worldc/worldc/internal/report"
	"github.com/worldc/worldc/internal/safefs"
	"github.com/worldc/worldc/internal/taskwords"
	"github.com/worldc/worldc/internal/text"
)

type tasksCmd struct {
	endpointFlags
	N           int      `short:"n" default:"100" help:"Tasks to synthesise per world (default ${default})."`
	Seed        uint64   `default:"1" help:"The synthesis seed: the same spec and seed write the same tasks (default ${default}); with --model also the endpoint's sampling seed (a repair asks with seed+1)."`
	Jobs        int      `short:"j" default:"4" placeholder:"N" help:"With --model: requests for words at once (default ${default})."`
	Out         string   `short:"o" placeholder:"OUT" help:"Where to write OUT/<world>.world, OUT/<world>.tasks.jsonl and the specs' data files (with --model also OUT/traces/<world>.words.jsonl, a line per request)."`
	Difficulty  string   `enum:",easy,medium,hard" default:"" help:"Keep only tasks of this level: easy, medium or hard (default: all)."`
	JSON        bool     `help:"Print the summary as a JSON array on stdout (without it the summary goes to stderr, with a progress bar on a terminal)."`
	Graph       bool     `help:"Print the tool-dependency graph of each world on stdout instead of synthesising tasks (with -o OUT: write OUT/<world>.graph.<format> instead)."`
	GraphFormat string   `name:"graph-format" default:"dot" enum:"dot,json,svg" help:"The graph's format: dot (Graphviz), json, or svg (a picture: services as bands, tools by depth, lookup, parameter and state edges apart) (default ${default})."`
	Paths       []string `arg:"" name:"spec" help:"Spec files, directories or dir/... patterns."`
}

// Run synthesises tasks for every world (compiler/tasks) and writes each
// world's spec with them appended, their metadata, and the data files the
// spec reads, so that `worldc check OUT` and `worldc build OUT` work.
func (c *tasksCmd) Run(sys *stdio) error {
	if c.N < 1 || c.N > 900 {
		return usagef("-n %d: want 1 to 900 tasks per world (a world holds at most 1,000 tasks)", c.N)
	}
	if !c.Graph && c.Out == "" {
		return usagef("tasks needs -o OUT (or --graph)")
	}
	if err := c.validate(false); err != nil {
		return err
	}
	if c.Jobs < 1 {
		return usagef("-j must be positive")
	}
	specs, err := pipeline.Expand(sys.cwd, c.Paths)
	if err != nil {
		return err
	}
	type input struct {
		spec pipeline.Spec
		src  []byte
	}
	var inputs []input
	var results []pipeline.Checked
	for _, s := range specs {
		if s.IsStdin() {
			return usagef("tasks reads specs from files (their data files are beside them), not from standard input")
		}
		src, err := s.Read(sys.stdin)
		if err != nil {
			return fmt.Errorf("%s: %v", s.Name, err)
		}
		inputs = append(inputs, input{s, src})
		results = append(results, pipeline.CheckSource(s, src))
	}
	pipeline.MarkDuplicates(results)
	var diags compiler.Diagnostics
	for _, r := range results {
		if r.Diags.HasErrors() {
			diags = append(diags, r.Diags...)
		}
	}
	if len(diags) > 0 {
		fmt.Fprint(sys.stderr, diags.Text())
		fmt.Fprintf(sys.stderr, "worldc tasks: %d of %s do not check; nothing written\n", pipeline.WithErrors(results), text.Plural(len(results), "spec"))
		return exitError(exitFailure)
	}
	if c.Graph {
		return c.writeGraphs(sys, results)
	}
	out := absPath(sys.cwd, c.Out)
	for _, r := range results {
		if sameFile(filepath.Join(out, r.World.Name+pipeline.SpecExt), r.Spec.Path) {
			return usagef("-o %s would overwrite the spec it reads, %s: write elsewhere", c.Out, r.Spec.Name)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var summaries []tasks.Summary
	var pictured []report.TasksWorld // for OUT/tasks.html
	written := map[string]string{}   // data file in OUT → the spec it came from
	total := 0
	p := &tasksPrinter{sys: sys, quiet: c.JSON}
	p.start(len(results), "tasks", "worlds")
	defer p.finish()
	var llm *author.Client
	if c.Model != "" {
		o := c.clientOptions(new(int(c.Seed & math.MaxInt32)))
		if c.JSONOutput {
			o.Schema = taskwords.Schema()
		}
		llm = author.NewClient(o)
	}
	for i, r := range results {
		if err := sys.ctx.Err(); err != nil {
			return err
		}
		start := time.Now()
		dir := filepath.Dir(inputs[i].spec.Path)
		root, err := os.OpenRoot(dir)
		if err != nil {
			return err
		}
		res, err := tasks.Synthesize(r.World, inputs[i].src, tasks.Options{N: c.N, Seed: c.Seed, Level: c.Difficulty, Filename: r.Spec.Name, Data: root.FS()})
		if err != nil {
			root.Close()
			return fmt.Errorf("%s: %v", r.Spec.Name, err)
		}
		if llm != nil {
			err = c.words(sys, p, llm, r, res, out)
			if err != nil {
				root.Close()
				return fmt.Errorf("%s: %v", r.Spec.Name, err)
			}
		}
		err = writeTasks(out, r, root.FS(), dir, res, written)
		root.Close()
		if err != nil {
			return err
		}
		total += res.Summary.Kept
		summaries = append(summaries, res.Summary)
		pictured = append(pictured, pictureOf(res, tasks.BuildGraph(r.World).SVG()))
		p.print(tasksSummary(res.Summary, time.Since(start)))
		p.add()
	}
	p.finish()
	page, err := report.TasksHTML(pictured, "worldc tasks: "+text.Plural(len(results), "world"))
	if err != nil {
		return err
	}
	if err := safefs.WriteFile(filepath.Join(out, "tasks.html"), page); err != nil {
		return err
	}
	if c.JSON {
		data, err := json.MarshalIndent(summaries, "", "  ")
		if err != nil {
			return err
		}
		sys.stdout.Write(append(data, '\n'))
	}
	fmt.Fprintf(sys.stderr, "%s, %s written to %s (the report: %s)\n", text.Plural(len(results), "world"), text.Plural(total, "task"), displayPath(sys.cwd, out),
		displayPath(sys.cwd, filepath.Join(out, "tasks.html")))
	return nil
}

// words has the model write the words of the world's tasks
// (internal/taskwords), with a bar over its tasks; the traces go to
// OUT/traces/<world>.words.jsonl.
func (c *tasksCmd) words(sys *stdio, p *tasksPrinter, llm *author.Client, r pipeline.Checked, res *tasks.Result, out string) error {
	sub := &tasksPrinter{sys: sys, quiet: c.JSON}
	p.clear()
	sub.start(len(res.Tasks), "words "+r.World.Name, "")
	defer sub.finish()
	return taskwords.Write(sys.ctx, llm, res, taskwords.Options{
		World: r.World.Name, Title: r.World.Title, Jobs: c.Jobs,
		Traces:   filepath.Join(out, "traces", r.World.Name+".words.jsonl"),
		Progress: sub.add,
	})
}

// tasksPrinter prints the summary lines on stderr, with a progress bar
// below them on a terminal (none with --json, nor when stdout is not a
// terminal, as vet's).
type tasksPrinter struct {
	sys   *stdio
	quiet bool
	bar   *progressbar.ProgressBar
}

func (p *tasksPrinter) start(total int, desc, its string) {
	if p.sys.terminal && !p.quiet && total > 0 {
		p.bar = newBar(p.sys.stderr, total, desc, its)
	}
}

func (p *tasksPrinter) clear() {
	if p.bar != nil {
		p.bar.Clear()
	}
}

func (p *tasksPrinter) print(s string) {
	if p.quiet {
		return
	}
	p.clear()
	fmt.Fprint(p.sys.stderr, s)
}

func (p *tasksPrinter) add() {
	if p.bar != nil {
		p.bar.Add(1)
	}
}

func (p *tasksPrinter) finish() {
	if p.bar != nil {
		p.bar.Finish()
		p.bar.Clear()
		p.bar = nil
	}
}

// writeGraphs prints each world's graph on stdout, or with -o writes
// OUT/<world>.graph.<format>.
func (c *tasksCmd) writeGraphs(sys *stdio, results []pipeline.Checked) error {
	for _, r := range results {
		g := tasks.BuildGraph(r.World)
		var data []byte
		switch c.GraphFormat {
		case "json":
			data = g.JSON()
		case "svg":
			data = g.SVG()
		default:
			data = g.DOT()
		}
		if c.Out == "" {
			sys.stdout.Write(data)
			continue
		}
		out := absPath(sys.cwd, c.Out)
		p := filepath.Join(out, r.World.Name+".graph."+c.GraphFormat)
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		if err := safefs.NoSymlinks(out, out); err != nil {
			return err
		}
		if err := safefs.WriteFile(p, data); err != nil {
			return err
		}
		fmt.Fprintf(sys.stderr, "%s: graph written to %s\n", r.World.Name, displayPath(sys.cwd, p))
	}
	return nil
}

// writeTasks writes a world's spec and metadata into out, and the data
// files its check read (relative to the spec's directory, so that the
// spec in out finds them). A data file another spec wrote with other
// content is an error.
func writeTasks(out string, r pipeline.Checked, data fs.FS, dir string, res *tasks.Result, written map[string]string) error {
	write := func(rel string, content []byte) error {
		p := filepath.Join(out, rel)
		if err := safefs.Inside(out, p); err != nil {
			return err
		}
		if err := safefs.NoSymlinks(out, filepath.Dir(p)); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		// No link on the way; a link where the file goes is replaced.
		if err := safefs.NoSymlinks(out, filepath.Dir(p)); err != nil {
			return err
		}
		return safefs.WriteFile(p, content)
	}
	for _, d := range r.Deps {
		if d.SHA256 == "" {
			continue // looked for and absent
		}
		rel, err := filepath.Rel(dir, d.Path)
		if err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("%s: data file %s is outside the spec's directory", r.Spec.Name, d.Path)
		}
		content, err := fs.ReadFile(data, filepath.ToSlash(rel))
		if err != nil {
			return fmt.Errorf("%s: %v", r.Spec.Name, err)
		}
		if sameFile(filepath.Join(out, rel), d.Path) {
			continue // OUT is the spec's own directory: the file is there
		}
		key := filepath.Clean(rel)
		if prev, ok := written[key]; ok {
			old, err := os.ReadFile(filepath.Join(out, key))
			if err == nil && string(old) == string(content) {
				continue
			}
			return fmt.Errorf("%s: data file %s differs from the one %s reads under the same name", r.Spec.Name, rel, prev)
		}
		if err := write(rel, content); err != nil {
			return err
		}
		written[key] = r.Spec.Name
	}
	name := r.World.Name
	if err := write(name+pipeline.SpecExt, res.Spec); err != nil {
		return err
	}
	return write(name+".tasks.jsonl", tasks.JSONL(res.Tasks))
}

// sameFile reports whether the paths name one existing file.
func sameFile(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// tasksSummary is a world's lines of the summary: kept, dropped by
// reason, coverage of the writing tools, difficulty.
func tasksSummary(s tasks.Summary, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %d tasks (%s) in %d attempts, %.2fs\n", s.World, s.Kept, s.Wanted, counts(s.Origins), s.Attempts, took.Seconds())
	fmt.Fprintf(&b, "  writing tools covered: %d of %d (%.0f%%)", s.Covered, s.WritingTools, 100*s.Coverage())
	if len(s.Uncovered) > 0 {
		var not []string
		for _, t := range s.Uncovered {
			not = append(not, t+" ("+s.Why[t]+")")
		}
		fmt.Fprintf(&b, "; not: %s", strings.Join(not, ", "))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "  difficulty: %s\n", levels(s.Levels))
	var calls []string
	for _, n := range sortedInts(s.Calls) {
		calls = append(calls, fmt.Sprintf("%d:%d", n, s.Calls[n]))
	}
	fmt.Fprintf(&b, "  calls per task: %s\n", strings.Join(calls, " "))
	if len(s.Dropped) > 0 {
		fmt.Fprintf(&b, "  dropped: %s\n", counts(s.Dropped))
	}
	if w := s.Words; w != nil {
		fmt.Fprintf(&b, "  words: llm %d (repaired %d), template %d", w.LLM, w.Repaired, w.Template)
		if len(w.Fallbacks) > 0 {
			fmt.Fprintf(&b, " (%s)", counts(w.Fallbacks))
		}
		fmt.Fprintf(&b, "; %s (prompt %d, completion %d)\n", text.Plural(w.PromptTokens+w.CompletionTokens, "token"), w.PromptTokens, w.CompletionTokens)
	}
	for _, o := range sortedStrings(s.Few) {
		fmt.Fprintf(&b, "  few %s: %s\n", o, s.Few[o])
	}
	if s.Note != "" {
		fmt.Fprintf(&b, "  note: %s\n", s.Note)
	}
	return b.String()
}

// counts renders a count by name as "a 3, b 1", in name order.
func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + " " + strconv.Itoa(m[k])
	}
	return strings.Join(parts, ", ")
}

// levels renders the levels easy, medium, hard in that order.
func levels(m map[string]int) string {
	var parts []string
	for _, l := range []string{"easy", "medium", "hard"} {
		parts = append(parts, fmt.Sprintf("%s %d", l, m[l]))
	}
	return strings.Join(parts, ", ")
}

func sortedInts(m map[int]int) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sortedStrings are a map's keys in order.
func sortedStrings(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pictureOf is a world's synthesis as the report page shows it.
func pictureOf(res *tasks.Result, graph []byte) report.TasksWorld {
	s := res.Summary
	w := report.TasksWorld{
		World: s.World, Wanted: s.Wanted, Kept: s.Kept, WritingTools: s.WritingTools, Covered: s.Covered,
		Uncovered: s.Uncovered, Origins: s.Origins, Levels: s.Levels, Drops: s.Dropped, Calls: s.Calls, Note: s.Note,
		Graph: graph,
	}
	for _, m := range res.Tasks {
		w.Tasks = append(w.Tasks, report.TaskLine{ID: m.ID, Origin: m.Origin, Level: m.Difficulty.Level, Instruction: m.Instruction, Calls: m.Calls, Factors: m.Factors})
	}
	return w
}
