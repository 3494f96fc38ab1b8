package gen

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/ir"
)

// exampleRx finds the examples the tool schemas give: (e.g. "ph_example").
var exampleRx = regexp.MustCompile(`\(e\.g\. (\\?"[^"\\]*\\?")\)`)

// TestSchemaExamplesAreNoRecords: no example value in the tool schemas of
// an example world is a record, of the world's seed or of a task's seed,
// nor a value any task's solution passes: an agent that read a real id
// there could skip the lookups the task tests. The examples keep the form
// of the ids (a prefix, digits).
func TestSchemaExamplesAreNoRecords(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join(moduleRoot(t), "testdata", "worlds", "*.world"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example worlds: %v", err)
	}
	total := 0
	for _, spec := range specs {
		src, err := os.ReadFile(spec)
		if err != nil {
			t.Fatal(err)
		}
		w, diags := compiler.CheckSource(spec, src, compiler.WithData(os.DirFS(filepath.Dir(spec))))
		if w == nil || diags.HasErrors() {
			t.Fatalf("%s does not check:\n%s", spec, diags.Text())
		}
		used := map[string]bool{}
		for _, r := range w.Seed {
			used[r.ID] = true
		}
		for _, task := range w.Tasks {
			for _, r := range task.Seed {
				used[r.ID] = true
			}
			for _, s := range task.Solution {
				for _, a := range s.Args {
					if a.Value != nil && a.Value.Str != "" {
						used[a.Value.Str] = true
					}
				}
			}
		}
		files := mustGenerate(t, w)
		for _, m := range exampleRx.FindAllSubmatch(files["tools.json"], -1) {
			raw := string(m[1])
			if raw[0] == '\\' {
				raw = raw[1:len(raw)-2] + `"`
			}
			ex, err := strconv.Unquote(raw)
			if err != nil {
				t.Fatalf("%s: example %s: %v", w.Name, m[1], err)
			}
			total++
			if used[ex] {
				t.Errorf("%s: the tool schemas give %q as an example, a record or a value a task uses", w.Name, ex)
			}
		}
	}
	if total == 0 {
		t.Fatal("no example in any tool schema: the test tests nothing")
	}
}

// TestExampleID: the example keeps the form of the first seed record's id
// and is no record's.
func TestExampleID(t *testing.T) {
	e := &ir.Entity{Name: "Order"}
	other := &ir.Entity{Name: "Claim"}
	for _, c := range []struct {
		ids  []string
		want string
	}{
		{[]string{"ph_lefevre", "ph_martin"}, "ph_example"},
		{[]string{"#W2378156"}, "#W0000000"},
		{[]string{"W0000000", "W1"}, "W00000002"},
		{[]string{"acme"}, "acme_example"},
		{[]string{"o_1", "o_example", "o_example2"}, "o_example3"},
		{nil, ""},
	} {
		w := &ir.World{}
		w.Seed = append(w.Seed, &ir.Record{Entity: other, ID: "zz_other"})
		for _, id := range c.ids {
			w.Seed = append(w.Seed, &ir.Record{Entity: e, ID: id})
		}
		g := &generator{w: w}
		if got := g.exampleID(e); got != c.want {
			t.Errorf("exampleID(%v) = %q, want %q", c.ids, got, c.want)
		}
	}
}
