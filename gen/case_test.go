package gen

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
)

// caseWorld compares strings ignoring case in every form the generator
// compiles without building lowered strings (lower(a) == lower(b),
// lower(a) == b, b != upper(a), lower(a) == "literal") and returns the
// mapped strings themselves.
const caseWorld = `world case_desk {
  title    "Case desk"
  industry "testing"
  country  "DE"
  currency "EUR"
  today    2026-03-14
}

service desk "Names" {
  entity Name "A name" {
    text string
  }

  tool get_name: get Name

  tool eq_lower(a: string, b: string) "lower(a) == lower(b)" {
    require lower(a) == lower(b) else "differ"
    return "same"
  }

  tool ne_upper(a: string, b: string) "upper(a) != upper(b)" {
    require upper(a) != upper(b) else "same"
    return "differ"
  }

  tool is_lower(a: string, b: string) "lower(a) == b" {
    require lower(a) == b else "differ"
    return "same"
  }

  tool not_upper(a: string, b: string) "b != upper(a)" {
    require b != upper(a) else "same"
    return "differ"
  }

  tool literal(a: string) "lower(a) == a literal" {
    if lower(a) == "straße" {
      return "strasse"
    }
    if upper(a) == "ΟΔΟΣ" {
      return "odos"
    }
    return "neither"
  }

  tool mapped(a: string, b: string) "lower(a) and upper(b)" {
    return lower(a) + " " + upper(b)
  }

  tool find(text: string) "Find a name ignoring case" {
    require exists(n in Name where lower(n.text) == lower(text)) else "no such name"
    return first(n in Name where lower(n.text) == lower(text))
  }
}

seed {
  desk.Name n1 { text: "Straße" }
  desk.Name n2 { text: "ΟΔΟΣ" }
  desk.Name n3 { text: "İstanbul" }
}
`

// TestCaseAgrees generates caseWorld and runs, in the generated package,
// the calls whose observations compiler/eval computed (lower and upper are
// Python's str.lower and str.upper in both).
func TestCaseAgrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w, diags := compiler.CheckSource("case_desk.world", []byte(caseWorld))
	if w == nil || len(diags) > 0 {
		t.Fatalf("case_desk does not check:\n%s", diags.Text())
	}
	words := []string{"", "straße", "STRASSE", "Strasse", "ΟΔΟΣ", "οδος", "οδοσ", "ΟΔΟΣ'", "İstanbul", "i̇stanbul", "istanbul", "Yusuf", "YUSUF", "yusuf ", "ﬁ", "FI", "ǅ", "\u00e9", "e\u0301"}
	type call struct{ tool, args string }
	var calls []call
	for _, a := range words {
		for _, b := range words {
			args, _ := json.Marshal(map[string]string{"a": a, "b": b})
			for _, tool := range []string{"eq_lower", "ne_upper", "is_lower", "not_upper", "mapped"} {
				calls = append(calls, call{tool, string(args)})
			}
		}
		args, _ := json.Marshal(map[string]string{"a": a})
		calls = append(calls, call{"literal", string(args)})
		args, _ = json.Marshal(map[string]string{"text": a})
		calls = append(calls, call{"find", string(args)})
	}
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	found, total := map[string]int{}, map[string]int{}
	for _, c := range calls {
		data, terr := st.CallJSON(c.tool, []byte(c.args))
		total[c.tool]++
		if terr == nil && !strings.Contains(string(eval.ObservationJSON(data, terr)), "neither") {
			found[c.tool]++
		}
		fmt.Fprintf(&table, "\t{%q, %q, %q},\n", c.tool, c.args, eval.ObservationJSON(data, terr))
	}
	for _, tool := range []string{"eq_lower", "ne_upper", "is_lower", "not_upper", "literal", "find"} {
		if n := found[tool]; n < 3 || n > total[tool]-3 {
			t.Errorf("%s succeeds %d times: the table should hold successes and failures", tool, n)
		}
	}
	test := fmt.Sprintf(`package case_desk

import (
	"encoding/json"
	"testing"
)

// Written by gen's TestCaseAgrees: calls and the observations
// compiler/eval gave.
var agreeCalls = []struct{ tool, args, want string }{
%s}

func TestAgreesWithEval(t *testing.T) {
	ep, err := New().NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range agreeCalls {
		got, err := ep.Call(c.tool, json.RawMessage(c.args)).AppendJSON(nil)
		if err != nil || string(got) != c.want {
			t.Errorf("%%s(%%s):\n got  %%s\n want %%s", c.tool, c.args, got, c.want)
		}
	}
}
`, table.String())
	dir := filepath.Join(scratch(t), w.Name)
	files := mustGenerate(t, w)
	for _, want := range []string{"runtime.EqualLower(", "runtime.IsLower(", "!runtime.IsUpper(", "runtime.PyLower("} {
		if !strings.Contains(string(files["tools.go"]), want) {
			t.Errorf("tools.go does not call %s", want)
		}
	}
	files["agree_test.go"] = []byte(test)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
	t.Logf("%d calls agree", len(calls))
}
