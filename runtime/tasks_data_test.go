package runtime_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// TestArgSamplesOnce: arguments two golden solutions give (a lookup many
// tasks make) are sampled once, with their variations once; arguments that
// differ are each sampled.
func TestArgSamplesOnce(t *testing.T) {
	base := runtime.ArgSamples(worldtest.World)
	w := &broken{World: worldtest.World, tasks: func(ts []runtime.TaskInfo) []runtime.TaskInfo {
		return append(ts, ts...) // every task twice
	}}
	twice := runtime.ArgSamples(w)
	if !reflect.DeepEqual(base, twice) {
		t.Errorf("the same tasks twice give other samples: %d tools, %d", len(base), len(twice))
	}
	if len(base) == 0 {
		t.Fatal("no samples")
	}
}

// TestDecodeTasks: tasks.json's form of a task decodes to the TaskInfo it
// was written from — an empty solution stays empty, none stays nil, meta
// values keep their types — and to its rubric's data.
func TestDecodeTasks(t *testing.T) {
	want := []runtime.TaskData{{
		TaskInfo: runtime.TaskInfo{
			ID: "a", Persona: "p", Instruction: "Do <it> & \"more\"",
			Tags:     runtime.TaskTags{Domain: "d", Capabilities: []string{"tool_use"}, Difficulty: []string{}},
			Solution: []runtime.Call{{Tool: "get", Args: json.RawMessage(`{"id":"x<1>"}`), Bind: "o", BindKey: "code"}, {Tool: "set", Args: json.RawMessage(`{}`), Uses: []runtime.BoundArg{{Arg: "order", Name: "o"}}, Fails: "no"}},
			Meta:     runtime.Meta{{Key: "n", Value: int64(3)}, {Key: "f", Value: 2.0}, {Key: "s", Value: "x"}, {Key: "b", Value: true}, {Key: "l", Value: []string{"train"}}},
			Answer:   true,
		},
		Rubric: []runtime.AssertionData{
			{Kind: "expr", Text: "E[x] == E { … }", Record: &runtime.RecordData{Entity: "E", ID: "x", Value: json.RawMessage(`{"id":"x","n":1}`)}},
			{Kind: "unchanged", Text: "unchanged except E[x]", Except: map[string][]string{"E": {"x"}}},
			{Kind: "invariant", Text: "invariant i", Invariant: "i", Always: "i"},
			{Kind: "answer", Text: "answer count(E)", Grader: "answerA1"},
		},
	}, {
		TaskInfo: runtime.TaskInfo{ID: "b", Tags: runtime.TaskTags{Capabilities: []string{}, Difficulty: []string{}}, Solution: []runtime.Call{}},
		Rubric:   []runtime.AssertionData{{Kind: "unchanged", Text: "unchanged"}},
	}, {
		TaskInfo: runtime.TaskInfo{ID: "c", Tags: runtime.TaskTags{Capabilities: []string{}, Difficulty: []string{}}},
		Rubric:   []runtime.AssertionData{},
	}}
	// As the generator writes them: the solution written (as []) when
	// the task has one, HTML left unescaped.
	lines := []string{
		`{"id":"a","persona":"p","instruction":"Do <it> & \"more\"","tags":{"domain":"d","capabilities":["tool_use"],"difficulty":[]},"solution":[{"tool":"get","args":{"id":"x<1>"},"bind":"o","bind_key":"code"},{"tool":"set","args":{},"uses":[{"arg":"order","name":"o"}],"fails":"no"}],"meta":{"n":3,"f":2.0,"s":"x","b":true,"l":["train"]},"answer":true,"rubric":[{"kind":"expr","text":"E[x] == E { … }","record":{"entity":"E","id":"x","value":{"id":"x","n":1}}},{"kind":"unchanged","text":"unchanged except E[x]","except":{"E":["x"]}},{"kind":"invariant","text":"invariant i","always":"i","invariant":"i"},{"kind":"answer","text":"answer count(E)","grader":"answerA1"}]}`,
		`{"id":"b","persona":"","instruction":"","tags":{"domain":"","capabilities":[],"difficulty":[]},"solution":[],"rubric":[{"kind":"unchanged","text":"unchanged"}]}`,
		`{"id":"c","persona":"","instruction":"","tags":{"domain":"","capabilities":[],"difficulty":[]},"rubric":[]}`,
	}
	got := runtime.DecodeTasks("[\n" + lines[0] + ",\n" + lines[1] + ",\n" + lines[2] + "\n]\n")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded:\n%#v\nwant:\n%#v", got, want)
	}
	if got[1].Solution == nil || got[2].Solution != nil {
		t.Errorf("solutions: b's %#v (want empty), c's %#v (want nil)", got[1].Solution, got[2].Solution)
	}
	if got := runtime.ExceptSet(map[string][]string{"E": {"x", "y"}, "F": {}}); !reflect.DeepEqual(got, map[string]map[string]bool{"E": {"x": true, "y": true}, "F": {}}) {
		t.Errorf("ExceptSet: %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("DecodeTasks of bad data did not panic")
		}
	}()
	runtime.DecodeTasks(`[{"id":3}]`)
}
