package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/diag"
)

// errorMarker is an inline expectation: `// ERROR "regexp"` on the line a
// diagnostic is reported at (several may follow one `//`). Inside the
// quotes, \" stands for a quote.
var errorMarker = regexp.MustCompile(`ERROR "((?:[^"\\]|\\.)*)"`)

type expectation struct {
	line int
	rx   *regexp.Regexp
}

func expectations(t *testing.T, src []byte) []expectation {
	t.Helper()
	var out []expectation
	for i, line := range strings.Split(string(src), "\n") {
		_, comment, ok := strings.Cut(line, "// ")
		if !ok {
			continue
		}
		for _, m := range errorMarker.FindAllStringSubmatch(comment, -1) {
			rx, err := regexp.Compile(strings.ReplaceAll(m[1], `\"`, `"`))
			if err != nil {
				t.Fatalf("line %d: bad ERROR regexp: %v", i+1, err)
			}
			out = append(out, expectation{line: i + 1, rx: rx})
		}
	}
	return out
}

// checkExpectations matches every diagnostic with an ERROR marker on its
// line, and every marker with a diagnostic.
func checkExpectations(t *testing.T, name string, src []byte, ds Diagnostics) {
	t.Helper()
	exps := expectations(t, src)
	used := make([]bool, len(exps))
	for _, d := range ds {
		matched := false
		for i, e := range exps {
			if e.line == d.Line && e.rx.MatchString(d.Message) {
				used[i], matched = true, true
			}
		}
		if !matched {
			t.Errorf("%s: unexpected diagnostic %s", name, d)
		}
	}
	for i, e := range exps {
		if !used[i] {
			t.Errorf("%s:%d: no diagnostic matching %q", name, e.line, e.rx)
		}
	}
}

// TestValidatorExamples proves that every validator's example triggers that
// validator and only it, where the example's ERROR markers say.
func TestValidatorExamples(t *testing.T) {
	t.Parallel()
	for _, v := range Validators() {
		t.Run(string(v.Code), func(t *testing.T) {
			src, err := Example(v.Code)
			if err != nil {
				t.Fatal(err)
			}
			name := string(v.Code) + ".world"
			_, ds := CheckSource(name, []byte(src), WithData(ExampleFiles()))
			if len(ds) == 0 {
				t.Fatalf("%s: no diagnostics", name)
			}
			for _, d := range ds {
				if d.Code != v.Code {
					t.Errorf("%s: diagnostic of another validator: %s", name, d)
				}
				if d.Hint != v.Hint {
					t.Errorf("%s: hint %q, want the validator's %q", name, d.Hint, v.Hint)
				}
			}
			checkExpectations(t, name, []byte(src), ds)
		})
	}
}

// TestValidatorRegistry checks that codes are unique, ordered and documented.
func TestValidatorRegistry(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for _, v := range Validators() {
		code := string(v.Code)
		if seen[code] || seen[v.Name] {
			t.Errorf("duplicate validator %s %s", v.Code, v.Name)
		}
		seen[code], seen[v.Name] = true, true
		if !regexp.MustCompile(`^W\d{3}$`).MatchString(code) || code <= prev {
			t.Errorf("code %s out of order or malformed", v.Code)
		}
		prev = code
		if v.Doc == "" || v.Hint == "" || strings.Contains(v.Doc, "\n") {
			t.Errorf("%s: doc must be one line and the hint non-empty", v.Code)
		}
	}
	if len(seen)/2 < 15 {
		t.Errorf("only %d validators", len(seen)/2)
	}
}

// TestCheckCases runs the inline-expectation cases of testdata/check.
func TestCheckCases(t *testing.T) {
	files, _ := filepath.Glob("testdata/check/*.world")
	if len(files) == 0 {
		t.Fatal("no cases in testdata/check")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, ds := CheckSource(f, src)
			checkExpectations(t, f, src, ds)
		})
	}
}

// TestExampleWorlds checks the bundled example corpus: every world is valid.
func TestExampleWorlds(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../testdata/worlds/*.world")
	if len(files) == 0 {
		t.Fatal("no example worlds in ../testdata/worlds")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			w, ds := CheckSource(f, src)
			if len(ds) > 0 || w == nil {
				t.Fatalf("diagnostics:\n%s", ds.Text())
			}
		})
	}
}

// TestSeveralMistakesInOrder feeds a spec with independent mistakes in
// every part of the language and expects all of them, in source order.
func TestSeveralMistakesInOrder(t *testing.T) {
	src, err := os.ReadFile("testdata/check/many_mistakes.world")
	if err != nil {
		t.Fatal(err)
	}
	_, ds := CheckSource("many_mistakes.world", src)
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d:%s", d.Line, d.Code))
	}
	want := []string{"5:W020", "11:W005", "16:W004", "18:W003", "24:W003", "29:W010", "34:W008", "35:W002"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diagnostics\n got %v\nwant %v\n%s", got, want, ds.Text())
	}
}

// TestSolutionProblemSaysViolationsOnce: a golden solution that breaks an
// invariant its rubric asserts is W021 with the violation said once (the
// failed `invariant NAME` assertion states it; the final state's list of
// violations said it again).
func TestSolutionProblemSaysViolationsOnce(t *testing.T) {
	src := `world books {
  title "Books"
  today 2026-03-14
}

service sales "Orders" {
  entity Order {
    total money >= 0
  }
  tool get_order: get Order
}

service billing "Invoices" {
  entity Invoice {
    order  ref sales.Order
    amount money >= 0
  }
  tool list_invoices: list Invoice
  tool invoice(order: ref sales.Order, amount: money) "Invoice an order" {
    let i = insert Invoice { order: order, amount: amount }
    return i
  }
}

invariant invoice_equals_order {
  policy "An invoice is for its order's total."
  for i in billing.Invoice
  require i.amount == i.order.total
}

seed {
  sales.Order o1 { total: 20 }
}

task bill_o1 {
  persona     "Clerk"
  instruction "Invoice order o1."
  expect {
    exists(i in billing.Invoice where i.order == o1)
    invariant invoice_equals_order
  }
  solution {
    invoice(order: o1, amount: 21)
  }
}
`
	_, ds := CheckSource("books.world", []byte(src))
	var msg string
	for _, d := range ds {
		if d.Code == diag.SolutionFails {
			msg = d.Message
		}
	}
	const v = `invariant invoice_equals_order violated by Invoice "invoice_1"`
	if n := strings.Count(msg, v); n != 1 {
		t.Errorf("W021 states the violation %d times, want once:\n%s", n, ds.Text())
	}
}

// TestTaskSeedStartState checks that a task's seed records are part of the
// start state its rubric and solution are judged on: pay_o2 is golden only
// with the order its seed adds, and the rubric of paid_o3 holds before the
// agent acts only because of its seed.
func TestTaskSeedStartState(t *testing.T) {
	src := `world corner_shop {
  title "Corner Shop"
  today 2026-03-14
}

service sales "Orders" {
  entity Order {
    customer string
    total    money >= 0
    status   enum { open paid } = open
  }
  tool get_order: get Order
  tool pay_order(order: ref Order) "Mark an order as paid" {
    require order.status == open else "order is not open"
    set order.status = paid
    return order
  }
}

seed {
  sales.Order o1 { customer: "Ana", total: 20 }
}

task pay_o2 {
  persona     "Shop owner"
  instruction "Ben paid his order. Record it."
  seed {
    sales.Order o2 { customer: "Ben", total: 30 }
  }
  expect {
    sales.Order[o2].status == paid
  }
  solution {
    pay_order(order: o2)
  }
}

task paid_o3 {
  persona     "Shop owner"
  instruction "Check that Cleo's order is paid."
  seed {
    sales.Order o3 { customer: "Cleo", total: 40, status: paid }
  }
  expect {
    sales.Order[o3].status == paid
  }
}
`
	_, ds := CheckSource("task_seed.world", []byte(src))
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d:%s", d.Line, d.Code))
	}
	if want := []string{"38:W014"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("diagnostics\n got %v\nwant %v\n%s", got, want, ds.Text())
	}
}

// TestHintsFitTheCause checks the hints of testdata/check/hints.world:
// where the validator's general hint would mislead (W004's is about
// optional values, W006's about fields), the diagnostic carries one for
// its cause.
func TestHintsFitTheCause(t *testing.T) {
	src, err := os.ReadFile("testdata/check/hints.world")
	if err != nil {
		t.Fatal(err)
	}
	_, ds := CheckSource("hints.world", src)
	want := map[int]string{
		28: `^Rename it \(confirmed → is_confirmed`,
		36: `^Rename it \(confirmed → is_confirmed`,
		40: `^Rename it \(confirmed → is_confirmed`,
		29: `^A parameter named like an enum value hides that value .*rename the parameter \(e\.g\. owner_member\), or write the value as a string, "owner"\.$`,
		30: "^Two enum types are distinct even when they share values: convert one by its name with `as` \\(x as Member.state\\)",
		31: `^A record or ref compares with a record or ref of its entity .*compare ids on both sides`,
		37: `^A parameter named like an enum value hides that value .*viewer_string`,
		41: `^A parameter named like an enum value hides that value .*rename the parameter \(e\.g\. active_bool\), or write the value as a string, "active"\.$`,
		42: `^A parameter named like an enum value hides that value .*active_bool`,
		49: "^A var declared without a type has the type of its first value: declare the type, var total: decimal = …$",
		56: `^Rename or remove one of the two declarations\.$`,
		61: `^Declare the name`,
		68: `^Declare the name`,
		84: `^Pass every required parameter of the tool in the call \(p: …\), or make the parameter optional in the tool \(p: ref Project\?\)\.$`,
	}
	if len(ds) != len(want) {
		t.Errorf("%d diagnostics, want %d:\n%s", len(ds), len(want), ds.Text())
	}
	for _, d := range ds {
		rx, ok := want[d.Line]
		if !ok {
			t.Errorf("unexpected %s", d)
			continue
		}
		if !regexp.MustCompile(rx).MatchString(d.Hint) {
			t.Errorf("%s\nhint %q, want it to match %q", d, d.Hint, rx)
		}
		if strings.Contains(d.Hint, "optional values need") || strings.Contains(d.Hint, "make the field optional") {
			t.Errorf("%s: the general hint %q does not fit", d, d.Hint)
		}
	}
}

// TestWorldNamesTheGoCommandReads: a world's name is its package's
// directory and package name, so vendor, testdata and names ending in _test
// are W017 (a world named vendor broke its whole output module; x_test
// made a test package no one could import).
func TestWorldNamesTheGoCommandReads(t *testing.T) {
	src, err := os.ReadFile("../testdata/worlds/telecom_plans.world")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"vendor":     `world name "vendor" names a directory the go command takes for the module's vendored dependencies`,
		"testdata":   `world name "testdata" names a directory the go command leaves out of ./... patterns`,
		"plans_test": `world name "plans_test" ends in _test, which makes its Go package a test package`,
		"testing":    "",
	} {
		spec := strings.Replace(string(src), "world telecom_plans {", "world "+name+" {", 1)
		_, ds := CheckSource("w.world", []byte(spec))
		var got []string
		for _, d := range ds {
			got = append(got, string(d.Code)+" "+d.Message)
		}
		if want == "" && len(ds) > 0 || want != "" && (len(ds) != 1 || got[0] != "W017 "+want) {
			t.Errorf("world %s: %q, want %q", name, got, want)
		}
	}
}
