package gen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// TestTasksJSONRoundTrip: tasks.json decodes (runtime.DecodeTasks) to each
// task's TaskInfo as the generator makes it from the IR, every field
// included (an empty solution stays empty, meta values keep their types, a
// task's clock), and to one rubric row per assertion of the same kind and
// text, graded by exactly one of its grader, record, except or invariant,
// or by its kind — on the example worlds, the generator's test worlds and
// synthetic ones.
func TestTasksJSONRoundTrip(t *testing.T) {
	n := 0
	for _, w := range positionWorlds(t) {
		files := mustGenerate(t, w)
		got := runtime.DecodeTasks(string(files["tasks.json"]))
		if len(got) != len(w.Tasks) {
			t.Errorf("%s: %d tasks decoded, %d in the world", w.Name, len(got), len(w.Tasks))
			continue
		}
		g, err := newGenerator(w)
		if err != nil {
			t.Fatal(err)
		}
		for i, task := range w.Tasks {
			d := got[i]
			if want := g.taskInfoData(task); !reflect.DeepEqual(d.TaskInfo, want) {
				t.Errorf("%s: task %s decodes to\n%#v\nwant\n%#v", w.Name, task.Name, d.TaskInfo, want)
			}
			if (task.Solution == nil) != (d.Solution == nil) {
				t.Errorf("%s: task %s: solution nil %v, decoded nil %v", w.Name, task.Name, task.Solution == nil, d.Solution == nil)
			}
			if len(d.Rubric) != len(task.Assertions) {
				t.Errorf("%s: task %s: %d rubric rows for %d assertions", w.Name, task.Name, len(d.Rubric), len(task.Assertions))
				continue
			}
			for j, a := range task.Assertions {
				r := d.Rubric[j]
				set := 0
				for _, b := range []bool{r.Grader != "", r.Record != nil, r.Except != nil, r.Invariant != ""} {
					if b {
						set++
					}
				}
				if r.Kind != string(a.Kind) || r.Text != a.Text || set > 1 || (set == 0 && a.Kind != ir.AssertUnchanged && a.Kind != ir.AssertRule) {
					t.Errorf("%s: task %s assertion %d: %+v for %s %q", w.Name, task.Name, j+1, r, a.Kind, a.Text)
				}
				if r.Grader != "" && !strings.Contains(string(files["tasks.go"]), "func "+r.Grader+"(") {
					t.Errorf("%s: task %s assertion %d names grader %s, which tasks.go lacks", w.Name, task.Name, j+1, r.Grader)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no assertion")
	}
}
