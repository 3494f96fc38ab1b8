package runtime_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

func solution(t *testing.T) []runtime.Call {
	t.Helper()
	for _, task := range worldtest.World.Tasks() {
		if task.ID == "settle_acme" {
			return task.Solution
		}
	}
	t.Fatal("no task")
	return nil
}

func newEp(t *testing.T, task string) runtime.Episode {
	t.Helper()
	ep, err := worldtest.World.NewEpisode(task)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

func TestRunAndReplay(t *testing.T) {
	ep := newEp(t, "settle_acme")
	steps, err := runtime.Run(ep, solution(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 {
		t.Fatal(len(steps))
	}
	// the bound id of the created invoice reached the third call
	if string(steps[2].Args) != `{"id":"invoice_1"}` || !steps[2].Observation.OK {
		t.Fatalf("%s %+v", steps[2].Args, steps[2].Observation)
	}
	if steps[1].StateHash != ep.StateHash() || steps[0].StateHash == steps[1].StateHash {
		t.Fatal("state hashes")
	}

	var buf bytes.Buffer
	if err := runtime.WriteTrajectory(&buf, steps); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 3 {
		t.Fatalf("%d lines:\n%s", n, buf.String())
	}
	first := strings.SplitN(buf.String(), "\n", 2)[0]
	if !strings.HasPrefix(first, `{"tool":"mark_paid","args":{"invoice":"inv1"},"observation":{"ok":true,"data":{"id":"inv1",`) {
		t.Fatal(first)
	}
	read, err := runtime.ReadTrajectory(strings.NewReader("\n" + buf.String() + "\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != 3 {
		t.Fatal(len(read))
	}
	if err := runtime.Replay(newEp(t, "settle_acme"), read); err != nil {
		t.Fatalf("replay of a faithful recording: %v", err)
	}

	// a different observation is reported at its step
	tampered := append([]runtime.Step(nil), read...)
	tampered[1].Observation.Data = json.RawMessage(`{"id":"invoice_9"}`)
	err = runtime.Replay(newEp(t, "settle_acme"), tampered)
	var re *runtime.ReplayError
	if !errors.As(err, &re) || re.Step != 2 || re.Tool != "create_invoice" || re.What != "observation" ||
		!strings.Contains(re.Want, "invoice_9") || !strings.Contains(re.Got, "invoice_1") {
		t.Fatalf("%v", err)
	}
	if !strings.HasPrefix(err.Error(), "replay step 2 (create_invoice): observation differs:\n  recorded: ") {
		t.Fatal(err)
	}
	// a different state hash too
	tampered = append([]runtime.Step(nil), read...)
	tampered[2].StateHash = strings.Repeat("0", 64)
	err = runtime.Replay(newEp(t, "settle_acme"), tampered)
	if !errors.As(err, &re) || re.Step != 3 || re.What != "state hash" {
		t.Fatalf("%v", err)
	}
	// replay on the wrong start state fails at the first step that differs
	err = runtime.Replay(newEp(t, ""), read)
	if !errors.As(err, &re) || re.What != "state hash" || re.Step != 1 {
		t.Fatalf("%v", err)
	}
	// unrecorded hashes are not compared
	for i := range tampered {
		tampered[i].StateHash = ""
	}
	if err := runtime.Replay(newEp(t, "settle_acme"), tampered); err != nil {
		t.Fatal(err)
	}
}

func TestReadTrajectoryErrors(t *testing.T) {
	good := `{"tool":"a","args":{},"observation":{"ok":true,"data":null}}`
	for in, want := range map[string]string{
		good + "\n{bad\n":                         "trajectory line 2: invalid character 'b' looking for beginning of object key string",
		good + "\n\n" + `{"tool":"a"} 1`:          "trajectory line 3: more than one JSON value on the line",
		`{"args":{}}`:                             "trajectory line 1: step without a tool",
		`{"tool":"a","extra":1}`:                  `trajectory line 1: unknown field "extra"`,
		`{"tool":"a","observation":{}}`:           "trajectory line 1: failed observation without an error",
		`{"tool":"a","observation":{"ok":"yes"}}`: "trajectory line 1: cannot unmarshal string into Go struct field",
	} {
		_, err := runtime.ReadTrajectory(strings.NewReader(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q:\n got  %v\n want %s…", in, err, want)
		}
	}
	steps, err := runtime.ReadTrajectory(strings.NewReader(""))
	if err != nil || len(steps) != 0 {
		t.Fatal(steps, err)
	}
}

func TestResolveArgs(t *testing.T) {
	bound := map[string]string{"o": "order_1", "c": "cust \"x\""}
	for _, c := range []struct {
		call runtime.Call
		want string
	}{
		{runtime.Call{Args: json.RawMessage(`{"a":1}`)}, `{"a":1}`},
		{runtime.Call{}, `{}`},
		{runtime.Call{Args: json.RawMessage(`{"order":"PLACEHOLDER","n":2}`), Uses: []runtime.BoundArg{{Arg: "order", Name: "o"}}}, `{"order":"order_1","n":2}`},
		{runtime.Call{Args: json.RawMessage(`{"n":2}`), Uses: []runtime.BoundArg{{Arg: "order", Name: "o"}, {Arg: "cust", Name: "c"}}}, `{"n":2,"order":"order_1","cust":"cust \"x\""}`},
		{runtime.Call{Args: json.RawMessage(`null`), Uses: []runtime.BoundArg{{Arg: "order", Name: "o"}}}, `{"order":"order_1"}`},
	} {
		got, err := runtime.ResolveArgs(c.call, bound)
		if err != nil || string(got) != c.want {
			t.Errorf("%+v: %s %v, want %s", c.call, got, err, c.want)
		}
	}
	if _, err := runtime.ResolveArgs(runtime.Call{Uses: []runtime.BoundArg{{Arg: "x", Name: "nope"}}}, bound); err == nil ||
		err.Error() != `argument "x" uses "nope", which no earlier successful call bound` {
		t.Error(err)
	}
	if _, err := runtime.ResolveArgs(runtime.Call{Args: json.RawMessage(`[1]`), Uses: []runtime.BoundArg{{Arg: "x", Name: "o"}}}, bound); err == nil {
		t.Error("array args accepted")
	}
}

func TestRunBindErrors(t *testing.T) {
	// binding a call whose result has no id
	_, err := runtime.Run(newEp(t, "settle_acme"), []runtime.Call{
		{Tool: "find_invoices", Args: json.RawMessage(`{}`), Bind: "x"},
	})
	if err == nil || !strings.HasPrefix(err.Error(), `call 1 (find_invoices): binds "x" but its result has no string "id"`) {
		t.Fatal(err)
	}
	// using a name whose call failed
	steps, err := runtime.Run(newEp(t, "settle_acme"), []runtime.Call{
		{Tool: "create_invoice", Args: json.RawMessage(`{"customer":"nobody","amount":1}`), Bind: "o"},
		{Tool: "get_invoice", Args: json.RawMessage(`{}`), Uses: []runtime.BoundArg{{Arg: "id", Name: "o"}}},
	})
	if len(steps) != 1 || steps[0].Observation.OK || err == nil || !strings.HasPrefix(err.Error(), `call 2 (get_invoice): argument "id" uses "o"`) {
		t.Fatal(steps, err)
	}
}
