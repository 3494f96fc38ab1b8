package gen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
	"github.com/worldc/worldc/runtime"
)

// hostile is text an LLM-written spec may hold: comment terminators,
// backticks, quotes, line breaks, directives and a byte order mark.
const hostile = "ends */ here /* opens `raw` \"quoted\" \\ back\nslash\r\n//go:generate rm -rf / \u2028 \ufeff tab\t end"

// TestHostileStrings generates a world whose every spec string is hostile
// and requires the package to build, vet and pass its own tests.
func TestHostileStrings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := northwind()
	w.Title, w.Industry = hostile, hostile
	for _, s := range w.Services {
		s.Doc = hostile
	}
	for _, e := range w.Entities {
		e.Doc = hostile
		for _, f := range e.Fields {
			f.Doc = hostile
		}
	}
	for _, tl := range w.Tools {
		tl.Doc = hostile
		for _, p := range tl.Params {
			p.Doc = hostile
		}
		ir.WalkStmts(tl.Body, func(st ir.Stmt) {
			if r, ok := st.(*ir.Require); ok {
				r.Message += " " + hostile
			}
		}, nil)
	}
	for _, inv := range w.Invariants {
		inv.Policy = hostile
		// An always-invariant's checkers and the Episode's checks carry
		// spec text too. (The solutions post an invoice after paying it:
		// paid_invoices_are_posted stays a rule of the final state.)
		inv.Always = inv.Name != "paid_invoices_are_posted"
	}
	for _, tk := range w.Tasks {
		tk.Persona, tk.Instruction, tk.Domain = hostile, hostile, hostile
		for _, a := range tk.Assertions {
			a.Text += " " + hostile
		}
	}
	// An enum value with a space, quotes and a backtick, used by the seed.
	tier := w.customer.Field("tier")
	odd := "pla`ti\"num */ x"
	tier.Type.Enum.Values = append(tier.Type.Enum.Values, odd)
	w.Seed[0].Values[2] = vEnum(odd)
	w.Seed[0].Values[0] = vStr(hostile)

	files := mustGenerate(t, w.World)
	for name, content := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		for _, line := range strings.Split(string(content), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//go:generate") {
				t.Errorf("%s: spec text became a directive: %s", name, line)
			}
		}
	}
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
}

// TestBrokenSolutionFails breaks a golden solution on purpose: the
// generated tests must fail, naming the task and the assertion.
func TestBrokenSolutionFails(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := northwind()
	task := w.Tasks[0]
	task.Solution = task.Solution[:1] // mark_paid without post_entry
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, mustGenerate(t, w.World))
	rel, _ := filepath.Rel(moduleRoot(t), dir)
	out, ok := goCmd(t, "test", "-count=1", "./"+filepath.ToSlash(rel))
	if ok {
		t.Fatalf("go test passed on a broken solution:\n%s", out)
	}
	for _, want := range []string{task.Name, task.Assertions[1].Text, "TestConformance/solutions"} {
		if !strings.Contains(out, want) {
			t.Errorf("the failure does not mention %q:\n%s", want, out)
		}
	}
}

// TestRetailHostileStrings does the same for value records, variants and
// composite seed values: docs of records and their fields, an enum value of
// a record field, a case name, and map keys of the seed.
func TestRetailHostileStrings(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := retail()
	for _, sd := range w.Structs {
		sd.Doc = hostile
		for _, f := range sd.AllFields() {
			f.Doc = hostile
		}
	}
	for _, e := range w.Entities {
		e.Doc = hostile
		for _, f := range e.Fields {
			f.Doc = hostile
		}
	}
	// An enum value of a record field, a case name, a map key.
	odd := "re`fu\"nd */ x"
	tx := w.payment.Fields[0]
	tx.Type.Enum.Values = append(tx.Type.Enum.Values, odd)
	w.pm.Cases[2].Name = "pay pal */ `x`"
	w.pm.Tag.Type.Enum.Values[2] = w.pm.Cases[2].Name
	for _, r := range w.Seed {
		for i, f := range r.Entity.Fields {
			v := r.Values[i]
			if f.Name == "payment_methods" {
				for j, e := range v.Entries {
					if e.Value.Fields[0].Str == "paypal" {
						e.Value.Fields[0] = vEnum(w.pm.Cases[2].Name)
						v.Entries[j] = e
					}
				}
			}
			if f.Name == "tags" {
				r.Values[i] = vMap(hostile, vList(vStr(hostile)))
			}
			if f.Name == "payment_history" && len(v.List) > 0 {
				v.List[0].Fields[0] = vEnum(odd)
			}
		}
	}
	for _, tk := range w.Tasks {
		for _, st := range tk.Solution {
			if st.Fails != nil && strings.HasSuffix(*st.Fails, "not paypal") {
				msg := strings.TrimSuffix(*st.Fails, "paypal") + w.pm.Cases[2].Name
				st.Fails = &msg
			}
		}
	}
	files := mustGenerate(t, w.World)
	for name, content := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		for _, line := range strings.Split(string(content), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//go:generate") {
				t.Errorf("%s: spec text became a directive: %s", name, line)
			}
		}
	}
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
}

// TestHostilePolicyAndMeta generates a world whose policy document and task
// metadata are hostile (comment terminators, backticks, a NUL byte, a
// directive, invalid UTF-8, and a document larger than the checker allows)
// and requires the package to build and vet, and a test placed beside it
// to find the document byte for byte in World.Policy and the metadata in
// Tasks, as JSON.
func TestHostilePolicyAndMeta(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	w := northwind()
	doc := hostile + "\x00 \xff\n//go:embed x\n```go\n}\n```\n" + strings.Repeat("ends */ `x` ", 200_000)
	w.PolicyFile, w.Policy = "policy.md", doc
	meta := runtime.Meta{{Key: hostile, Value: hostile}, {Key: "list", Value: []string{hostile, "", "*/"}}, {Key: "n", Value: int64(-9223372036854775808)}, {Key: "f", Value: 1e-300}}
	for _, e := range meta {
		w.Tasks[0].Meta = append(w.Tasks[0].Meta, ir.MetaEntry{Key: e.Key, Value: e.Value})
	}
	files := mustGenerate(t, w.World)
	if !bytes.Equal(files["policy.md"], []byte(doc)) {
		t.Fatal("policy.md is not the document")
	}
	for name, content := range files {
		if strings.HasSuffix(name, ".go") && bytes.Contains(content, []byte("ends */ `x` ends")) {
			t.Errorf("%s: the document is written into Go source", name)
		}
	}
	wantMeta, err := json.Marshal(meta)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(doc))
	files["policy_meta_test.go"] = []byte(fmt.Sprintf(`package %s

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
)

func TestPolicyAndMeta(t *testing.T) {
	if got := sha256.Sum256([]byte((World{}).Policy())); hex.EncodeToString(got[:]) != %q {
		t.Errorf("Policy() is not the document (%%d bytes)", len(World{}.Policy()))
	}
	tasks := World{}.Tasks()
	got, err := json.Marshal(tasks[0].Meta)
	if err != nil || string(got) != %q {
		t.Errorf("meta %%s, %%v", got, err)
	}
	tasks[0].Meta[1].Value.([]string)[0] = "changed"
	if (World{}).Tasks()[0].Meta[1].Value.([]string)[0] == "changed" {
		t.Error("Tasks shares its meta lists")
	}
	if tasks[1].Meta != nil {
		t.Error("a task without meta has some")
	}
}
`, w.Name, hex.EncodeToString(sum[:]), wantMeta))
	dir := filepath.Join(scratch(t), w.Name)
	writeFiles(t, dir, files)
	vetAndTest(t, dir)
}
