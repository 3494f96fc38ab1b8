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

// caseWorld compares strings ignoring case in every form the generator
// compiles without building lowered strings (lower(a) == lower(b),
// lower(a) == b, b != upper(a), lower(a) == "literal", contains(lower(a),
// b), contains(upper(a), upper(b)), a search tool's filter) and returns the mapped strings themselves.
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

  tool has_lower(a: string, b: string) "contains(lower(a), b)" {
    require contains(lower(a), b) else "absent"
    return "present"
  }

  tool has_upper(a: string, b: string) "contains(upper(a), upper(b))" {
    require contains(upper(a), upper(b)) else "absent"
    return "present"
  }

  tool search_names: search Name by text

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
	words := []string{"", "straße", "STRASSE", "Strasse", "ΟΔΟΣ", "οδος", "οδοσ", "ΟΔΟΣ'", "İstanbul", "i̇stanbul", "istanbul", "Yusuf", "YUSUF", "yusuf ", "ﬁ", "FI", "ǅ", "\u00e9", "e\u0301", "σ", "ς ", "SS", "\u0307s"}
	pairTools := []string{"eq_lower", "ne_upper", "is_lower", "not_upper", "mapped", "has_lower", "has_upper"}
	type call struct {
		tool, args string
		py         string // Python's observation, when the table gives it
	}
	var calls []call
	for _, a := range words {
		for _, b := range words {
			args, _ := json.Marshal(map[string]string{"a": a, "b": b})
			for _, tool := range pairTools {
				calls = append(calls, call{tool: tool, args: string(args)})
			}
		}
		args, _ := json.Marshal(map[string]string{"a": a})
		calls = append(calls, call{tool: "literal", args: string(args)})
		args, _ = json.Marshal(map[string]string{"text": a})
		calls = append(calls, call{tool: "find", args: string(args)})
		calls = append(calls, call{tool: "search_names", args: string(args)})
	}
	// Strings of Python's table (runtime/testdata/case_python.txt), each
	// against its neighbour, its neighbour's mappings and pieces of its own
	// mappings: the observations Python's str.lower() and str.upper() give
	// are known.
	py := pythonCaseSamples(t)
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for i, s := range py[:80] {
		next := py[i+1]
		lr, ur := []rune(s[1]), []rune(s[2])
		for _, b := range []string{next[0], next[1], next[2], s[1], s[2], string(lr[len(lr)/3 : 2*len(lr)/3]), string(ur[len(ur)/2:])} {
			args, _ := json.Marshal(map[string]string{"a": s[0], "b": b})
			lb, ub, known := pyMap(py, b)
			for _, tool := range pairTools {
				c := call{tool: tool, args: string(args)}
				res := func(ok bool, yes, no string) string {
					if ok {
						return `{"ok":true,"data":"` + yes + `"}`
					}
					return `{"ok":false,"error":{"code":"precondition_failed","message":"` + no + `"}}`
				}
				switch tool {
				case "eq_lower":
					if known {
						c.py = res(s[1] == lb, "same", "differ")
					}
				case "ne_upper":
					if known {
						c.py = res(s[2] != ub, "differ", "same")
					}
				case "is_lower":
					c.py = res(s[1] == b, "same", "differ")
				case "not_upper":
					c.py = res(b != s[2], "differ", "same")
				case "mapped":
					if known {
						c.py = `{"ok":true,"data":` + quote(s[1]+" "+ub) + `}`
					}
				case "has_lower":
					c.py = res(strings.Contains(s[1], b), "present", "absent")
				case "has_upper":
					if known {
						c.py = res(strings.Contains(s[2], ub), "present", "absent")
					}
				}
				calls = append(calls, c)
			}
		}
		args, _ := json.Marshal(map[string]string{"text": s[0]})
		calls = append(calls, call{tool: "search_names", args: string(args)})
	}
	st, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	var table strings.Builder
	found, total := map[string]int{}, map[string]int{}
	checked := 0
	for _, c := range calls {
		data, terr := st.CallJSON(c.tool, []byte(c.args))
		obs := string(eval.ObservationJSON(data, terr))
		total[c.tool]++
		if terr == nil && !strings.Contains(obs, "neither") && obs != `{"ok":true,"data":[]}` {
			found[c.tool]++
		}
		if c.py != "" {
			checked++
			if obs != c.py {
				t.Errorf("compiler/eval %s(%s) = %s, Python %s", c.tool, c.args, obs, c.py)
			}
		}
		fmt.Fprintf(&table, "\t{%q, %q, %q},\n", c.tool, c.args, obs)
	}
	if checked < 2000 {
		t.Errorf("%d calls checked against Python, want 2,000 or more", checked)
	}
	for _, tool := range []string{"eq_lower", "ne_upper", "is_lower", "not_upper", "has_lower", "has_upper", "literal", "find", "search_names"} {
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
	for _, want := range []string{"runtime.EqualLower(", "runtime.IsLower(", "!runtime.IsUpper(", "runtime.PyLower(", "runtime.ContainsLower(", "runtime.ContainsUpper("} {
		if !strings.Contains(string(files["tools.go"]), want) {
			t.Errorf("tools.go does not call %s", want)
		}
	}
	files["agree_test.go"] = []byte(test)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
	t.Logf("%d calls agree", len(calls))
}

// pythonCaseSamples are the sample strings of Python's case table
// (runtime/testdata/case_python.txt, written by CPython): each string, its
// lower() and its upper().
func pythonCaseSamples(t *testing.T) [][3]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "runtime", "testdata", "case_python.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out [][3]string
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(line, "S ")
		if !ok {
			continue
		}
		d := json.NewDecoder(strings.NewReader(rest))
		var s [3]string
		for i := range s {
			if err := d.Decode(&s[i]); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
		}
		out = append(out, s)
	}
	if len(out) < 100 {
		t.Fatalf("%d samples in case_python.txt", len(out))
	}
	return out
}

// pyMap is Python's lower() and upper() of s, when the table has s as a
// sample.
func pyMap(samples [][3]string, s string) (lower, upper string, ok bool) {
	for _, x := range samples {
		if x[0] == s {
			return x[1], x[2], true
		}
	}
	return "", "", false
}
