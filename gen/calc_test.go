package gen

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
)

// calcWorld uses calc and str where expressions are evaluated: a return,
// a let, a require and its message, a set, an if and an insert, with
// failures before and after a write (the call must leave the state as it
// was). Its solution replays failures with Python's messages (W021 in the
// evaluator, the generated package's own test at run time).
const calcWorld = `world calc_desk {
  title    "Calculator desk"
  industry "testing"
  country  "DE"
  currency "EUR"
  today    2026-03-14
  numbers  "float"
}

service desk "Worksheets" {
  entity Sheet "A worksheet" {
    title string
    total decimal = 0
    note  string?
  }

  tool get_sheet: get Sheet

  tool calculate(expression: string) "Evaluate an arithmetic expression, as tau2's calculate" {
    return str(round(calc(expression), 2))
  }

  tool add(sheet: ref Sheet, expression: string, note: string) "Add a value to a sheet, then note another" {
    let v = calc(expression)
    require v >= 0 else "negative: " + str(v)
    set sheet.total = sheet.total + v
    if calc(note) > 100 {
      set sheet.note = "big " + str(calc(note))
    } else {
      set sheet.note = str(round(calc(note), 1))
    }
    return sheet
  }

  tool check(expression: string, limit: int) "Fail when the value is over the limit" {
    require calc(expression) <= limit else "over " + str(limit) + ": " + str(calc(expression))
    return str(limit * 2)
  }

  tool new_sheet(title: string, expression: string) "Start a sheet at a value" {
    let s = insert Sheet { title: title, total: calc(expression) }
    return s
  }
}

seed {
  desk.Sheet s1 { title: "First" }
}

task sums {
  persona     "Clerk"
  instruction "Add 1.5 + 2 to the first sheet, noting 2**10."
  tags        { domain "ToB/testing" capabilities [tool_use] difficulty [single_write] }
  expect {
    desk.Sheet[s1].total == 3.5
    desk.Sheet[s1].note == "big 1024.0"
  }
  solution {
    calculate(expression: "3131.1 + 4777.75 + 367.38")
    calculate(expression: "1/0") fails "division by zero"
    calculate(expression: "(1 2") fails "'(' was never closed (<string>, line 1)"
    add(sheet: s1, expression: "-1", note: "1") fails "negative: -1.0"
    add(sheet: s1, expression: "1", note: "1//0") fails "integer division or modulo by zero"
    check(expression: "2**0.5", limit: 1) fails "over 1: 1.4142135623730951"
    new_sheet(title: "t", expression: "10**400") fails "int too large to convert to float"
    add(sheet: s1, expression: "1.5 + 2", note: "2**10")
  }
}
`

// TestCalcAgrees generates calcWorld and runs, in the generated package, a
// test written here: a sequence of calls whose observations, and the final
// state, compiler/eval computed. calculate gets the pycalc corpus' table
// and edge expressions and a sample of the others (every error class);
// the other tools get values and failures in each position.
func TestCalcAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w, diags := compiler.CheckSource("calc_desk.world", []byte(calcWorld))
	if w == nil || len(diags) > 0 {
		t.Fatalf("calc_desk does not check:\n%s", diags.Text())
	}
	type call struct{ tool, args string }
	var calls []call
	arg := func(kv ...string) string {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		b, _ := json.Marshal(m)
		return string(b)
	}
	raw, err := os.ReadFile("../runtime/pycalc/testdata/probes.json")
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct {
		Probes []struct{ Expr, Kind string } `json:"probes"`
	}
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	for i, p := range corpus.Probes {
		if p.Kind == "table" || p.Kind == "edge" || p.Kind == "limit" || i%10 == 0 {
			calls = append(calls, call{"calculate", arg("expression", p.Expr)})
		}
	}
	for _, e := range []string{"1.5 + 2", "-1", "1/0", "10**308*10.0", "2**0.5", "()", "(1"} {
		for _, n := range []string{"1", "2**10", "1//0", "(-8)**0.5", "10**308*10.0*0"} {
			calls = append(calls, call{"add", arg("sheet", "s1", "expression", e, "note", n)})
		}
		calls = append(calls, call{"check", fmt.Sprintf(`{"expression":%q,"limit":1}`, e)})
		calls = append(calls, call{"new_sheet", arg("title", "t", "expression", e)})
	}
	calls = append(calls, call{"get_sheet", arg("id", "s1")})

	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	failures := 0
	for _, c := range calls {
		data, terr := st.CallJSON(c.tool, []byte(c.args))
		if terr != nil {
			failures++
		}
		fmt.Fprintf(&table, "\t{%q, %q, %q},\n", c.tool, c.args, eval.ObservationJSON(data, terr))
	}
	if failures < len(calls)/4 || failures == len(calls) {
		t.Fatalf("%d of %d calls fail: the table should hold both", failures, len(calls))
	}
	test := fmt.Sprintf(`package calc_desk

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Written by gen's TestCalcAgrees: calls and the observations
// compiler/eval gave, then the final state.
var agreeCalls = []struct{ tool, args, want string }{
%s}

const agreeFinal = %q

func TestAgreesWithEval(t *testing.T) {
	ep, err := New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range agreeCalls {
		got, err := json.Marshal(ep.Call(c.tool, json.RawMessage(c.args)))
		if err != nil || !sameJSON(got, []byte(c.want)) {
			t.Errorf("%%s(%%s):\n got  %%s\n want %%s", c.tool, c.args, got, c.want)
		}
	}
	if got := ep.Snapshot(); !sameJSON(got, []byte(agreeFinal)) {
		t.Errorf("final state:\n got  %%s\n want %%s", got, agreeFinal)
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
`, table.String(), st.JSON())
	dir := filepath.Join(scratch(t), w.Name)
	files := mustGenerate(t, w)
	files["agree_test.go"] = []byte(test)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
	t.Logf("%d calls (%d failing) agree", len(calls), failures)
}
