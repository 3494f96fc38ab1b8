package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

// policySpec is a world with two invariants; %s is replaced by extra world
// header lines, %p1 and %p2 by the invariants' policy texts.
const policySpec = `world shop {
  title "Shop"
  today 2026-03-14
%s
}

service sales "Orders" {
  entity Order {
    total  money >= 0
    status enum { open paid } = open
  }
  tool get_order: get Order
  tool pay(order: ref Order) {
    set order.status = paid
  }
}

service books "Receipts" {
  entity Receipt {
    order  ref sales.Order
    amount money
  }
  tool list_receipts: list Receipt
  tool record(order: ref sales.Order, amount: money) {
    insert Receipt { order: order, amount: amount }
  }
}

invariant paid_orders_have_receipts {
  policy %p1
  for o in sales.Order where o.status == paid
  require exists(r in books.Receipt where r.order == o)
}

invariant receipts_match {
  policy %p2
  for r in books.Receipt
  require r.amount == r.order.total
}

seed {
  sales.Order o1 { total: 20 }
}
`

func policyWorld(header, p1, p2 string) string {
	s := strings.Replace(policySpec, "%s", header, 1)
	s = strings.Replace(s, "%p1", p1, 1)
	return strings.Replace(s, "%p2", p2, 1)
}

const policyDoc = "# Shop policy\n\nEvery paid order\n  has a receipt.\r\n\n- Receipts match\tthe order's `total` */ exactly.\n"

func TestPolicyDocument(t *testing.T) {
	files := fstest.MapFS{"docs/policy.md": {Data: []byte(policyDoc)}}
	src := policyWorld(`  policy from "./docs//policy.md"`, `"Every paid order has a receipt."`, `"Receipts match the order's `+"`total`"+` */ exactly."`)
	w, ds := CheckSource("spec.world", []byte(src), WithData(files))
	if w == nil {
		t.Fatal(ds.Text())
	}
	if w.Policy != policyDoc || w.PolicyFile != "docs/policy.md" {
		t.Errorf("policy %q from %q", w.Policy, w.PolicyFile)
	}
	// Without a document there is nothing to compare with.
	w, ds = CheckSource("spec.world", []byte(policyWorld("", `"Anything."`, `"Else."`)))
	if w == nil || w.Policy != "" || w.PolicyFile != "" {
		t.Fatalf("no policy document: %v\n%s", w, ds.Text())
	}
}

// TestPolicyTextNotInDocument is W024: each invariant's text, with runs of
// white space as one space, must occur in the document; nothing else is
// forgiven.
func TestPolicyTextNotInDocument(t *testing.T) {
	files := fstest.MapFS{"policy.md": {Data: []byte(policyDoc)}}
	tests := []struct {
		text string
		want string // "" when the text is in the document
	}{
		{`"Every paid order has a receipt."`, ""},
		{`"  Every   paid\norder has\ta receipt. "`, ""},
		{`"order"`, ""},
		{`"every paid order has a receipt."`, `it agrees with the document up to "e", then has "very paid order has a receipt." where the document has "ry paid order has a receipt. -…"`},
		{`"Every paid order has a receipt!"`, `it agrees with the document up to "Every paid order has a receipt", then has "!" where the document has ". - Receipts match the order's…"`},
		{`"Receipts match the order's ` + "`total`" + ` */ exactly. And more."`, `it agrees with the document up to "…he order's ` + "`total`" + ` */ exactly.", then has " And more." where the document ends`},
		{`"Every paid order has a receipt. Receipts match."`, `up to "…ery paid order has a receipt. ", then has "Receipts match." where the document has "- Receipts match the order's ` + "`" + `…"`},
		{`"Ünïcode everywhere"`, `the document has no passage starting with "Ünïcode everywhere"`},
	}
	for i, tt := range tests {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			src := policyWorld(`  policy from "policy.md"`, `"Every paid order has a receipt."`, tt.text)
			w, ds := CheckSource("spec.world", []byte(src), WithData(files))
			if tt.want == "" {
				if w == nil {
					t.Fatal(ds.Text())
				}
				return
			}
			if len(ds) != 1 || ds[0].Code != "W024" {
				t.Fatalf("got:\n%s\nwant one W024", ds.Text())
			}
			d := ds[0]
			if !strings.Contains(d.Message, "policy text of invariant receipts_match is not in the policy document \"policy.md\"") || !strings.Contains(d.Message, tt.want) {
				t.Errorf("message\n%s\nwant it to contain\n%s", d.Message, tt.want)
			}
			// At the policy string: line 36, after `  policy `.
			if d.Line != 36 || d.Col != 10 || d.End.Line != 36 || d.End.Col != 10+len([]rune(tt.text)) {
				t.Errorf("position %d:%d-%d:%d", d.Line, d.Col, d.End.Line, d.End.Col)
			}
		})
	}
}

func TestPolicyMismatch(t *testing.T) {
	tests := []struct{ doc, text, want string }{
		{"abc", "abd", `it agrees with the document up to "ab", then has "d" where the document has "c"`},
		{"abc", "abcd", `it agrees with the document up to "abc", then has "d" where the document ends`},
		{"xyz", "abc", `the document has no passage starting with "abc"`},
		// A prefix cut inside a rune is backed off to the rune's start.
		{"aé", "aè", `it agrees with the document up to "a", then has "è" where the document has "é"`},
		{strings.Repeat("x", 40) + "y", strings.Repeat("x", 40) + "z" + strings.Repeat("w", 40),
			`up to "…` + strings.Repeat("x", 30) + `", then has "z` + strings.Repeat("w", 29) + `…" where the document has "y"`},
	}
	for _, tt := range tests {
		if got := policyMismatch(tt.doc, tt.text); !strings.Contains(got, tt.want) {
			t.Errorf("policyMismatch(%q, %q)\n got %s\nwant %s", tt.doc, tt.text, got, tt.want)
		}
	}
}

// TestPolicyDocumentProblems covers the header and the document file.
func TestPolicyDocumentProblems(t *testing.T) {
	ok := `"Every paid order has a receipt."`
	tests := []struct {
		name, header string
		files        fstest.MapFS
		want         string // code: message part
		line, col    int
	}{
		{"missing", `  policy from "policy.md"`, nil, `W023: no policy document "policy.md" in the spec's directory`, 4, 3},
		{"escape", `  policy from "../policy.md"`, nil, `W023: policy document path "../policy.md" leaves the spec's directory`, 4, 3},
		{"absolute", `  policy from "/etc/passwd"`, nil, `W023: policy document path "/etc/passwd" is absolute`, 4, 3},
		{"backslash", `  policy from "docs\\policy.md"`, nil, `separate directories with /`, 4, 3},
		{"control character", `  policy from "a\nb"`, nil, `W023: the path of a policy document contains a control character`, 4, 3},
		{"directory", `  policy from "docs"`, fstest.MapFS{"docs/p.md": {}}, `W023: policy document "docs" is not a regular file`, 4, 3},
		{"too large", `  policy from "p.md"`, fstest.MapFS{"p.md": {Data: []byte(strings.Repeat("a", MaxPolicySize+1))}}, fmt.Sprintf(`W019: policy document "p.md" has %d bytes; the limit is %d`, MaxPolicySize+1, MaxPolicySize), 4, 3},
		{"NUL", `  policy from "p.md"`, fstest.MapFS{"p.md": {Data: []byte("Every paid order has a receipt.\nab\x00c")}}, `W023: NUL byte in policy document "p.md"; it must be UTF-8 text`, 2, 3},
		{"not UTF-8", `  policy from "p.md"`, fstest.MapFS{"p.md": {Data: []byte("Every paid order has a receipt.\n\n  é\xffx")}}, `W023: invalid UTF-8 byte 0xff in policy document "p.md"`, 3, 4},
		{"blank", `  policy from "p.md"`, fstest.MapFS{"p.md": {Data: []byte(" \n\t\n")}}, `W023: policy document "p.md" is empty`, 4, 3},
		{"inline text", `  policy "Every paid order has a receipt."`, nil, `W020: the world policy is a document next to the spec: policy from "policy.md"`, 4, 3},
		{"other key from a file", `  industry from "industry.txt"`, nil, `W020: world industry is written as a value, not read from a file; only the policy and the holidays are`, 4, 3},
		{"twice", "  policy from \"p.md\"\n  policy from \"p.md\"", fstest.MapFS{"p.md": {Data: []byte(ok)}}, `W002: duplicate world property "policy"`, 5, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := tt.files
			if files == nil {
				files = fstest.MapFS{}
			}
			_, ds := CheckSource("spec.world", []byte(policyWorld(tt.header, ok, ok)), WithData(files))
			if len(ds) != 1 || !strings.Contains(string(ds[0].Code)+": "+ds[0].Message, tt.want) {
				t.Fatalf("got:\n%s\nwant one %s", ds.Text(), tt.want)
			}
			if ds[0].Line != tt.line || ds[0].Col != tt.col {
				t.Errorf("at %d:%d, want %d:%d", ds[0].Line, ds[0].Col, tt.line, tt.col)
			}
		})
	}
}

// TestPolicyDocumentInsideRoot reads the document from the spec's directory
// through os.Root: a symlink out of it is refused, and the document counts
// towards the data files' budget.
func TestPolicyDocumentInsideRoot(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	if err := os.WriteFile(secret, []byte("Every paid order has a receipt."), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "out.md")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in.md"), []byte("Every paid order has a receipt."), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := `"Every paid order has a receipt."`
	for _, tt := range []struct{ file, want string }{{"in.md", ""}, {"out.md", `cannot read policy document "out.md"`}} {
		spec := filepath.Join(dir, "shop.world")
		if err := os.WriteFile(spec, []byte(policyWorld(`  policy from "`+tt.file+`"`, ok, ok)), 0o644); err != nil {
			t.Fatal(err)
		}
		w, ds := CheckFile(spec)
		if tt.want == "" {
			if w == nil || w.Policy != "Every paid order has a receipt." {
				t.Errorf("%s: %v\n%s", tt.file, w, ds.Text())
			}
			continue
		}
		if len(ds) != 1 || ds[0].Code != "W023" || !strings.Contains(ds[0].Message, tt.want) {
			t.Errorf("%s: got\n%s\nwant one W023 %q", tt.file, ds.Text(), tt.want)
		}
	}
}

// taskMetaSpec is a world with one task; %s is replaced by its meta block.
const taskMetaSpec = `world shop {
  title "Shop"
  today 2026-03-14
}

service sales "Orders" {
  entity Order {
    status enum { open paid } = open
  }
  tool get_order: get Order
  tool pay(order: ref Order) {
    set order.status = paid
  }
}

seed {
  sales.Order o1 {}
}

task pay_o1 {
  persona     "Clerk"
  instruction "Pay o1."
%s
  expect {
    sales.Order[o1].status == paid
  }
}
`

func TestTaskMeta(t *testing.T) {
	src := strings.Replace(taskMetaSpec, "%s", `  meta {
    split:   ["train", "base"]
    id:      "7"
    weight:  -2.50
    zero:    -0.0
    n:       -3
    big:     9223372036854775807
    ok:      true
    no:      false
    empty:   []
    quoted:  "a \"b\"\n"
  }`, 1)
	w, ds := CheckSource("spec.world", []byte(src))
	if w == nil {
		t.Fatal(ds.Text())
	}
	var got []string
	for _, e := range w.Tasks[0].Meta {
		got = append(got, fmt.Sprintf("%s=%T:%#v", e.Key, e.Value, e.Value))
	}
	want := []string{
		`split=[]string:[]string{"train", "base"}`, `id=string:"7"`, `weight=float64:-2.5`, `zero=float64:0`,
		`n=int64:-3`, `big=int64:9223372036854775807`, `ok=bool:true`, `no=bool:false`, `empty=[]string:[]string{}`,
		`quoted=string:"a \"b\"\n"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("meta\n got %v\nwant %v", got, want)
	}
	if v := w.Tasks[0].Meta[3].Value.(float64); 1/v < 0 {
		t.Error("-0.0 stays negative zero")
	}
	if e := w.Tasks[0].Meta[1]; e.Pos.Line != 25 {
		t.Errorf("entry position %v", e.Pos)
	}
	for _, body := range []string{"", "  meta {}"} {
		w, ds = CheckSource("spec.world", []byte(strings.Replace(taskMetaSpec, "%s", body, 1)))
		if w == nil || w.Tasks[0].Meta != nil {
			t.Errorf("meta of %q: %v\n%s", body, w, ds.Text())
		}
	}
}

func TestTaskMetaErrors(t *testing.T) {
	src := strings.Replace(taskMetaSpec, "%s", `  meta {
    a: 1
    a: 2
    m: { "k": "v" }
    r: Order { status: open }
    l: ["x", 1, ["y"]]
    d: 2026-01-01
    t: 2026-01-01T10:00Z
    z: null
    i: train
    o: 9223372036854775808
    f: 1`+strings.Repeat("0", 400)+`.5
  }`, 1)
	_, ds := CheckSource("spec.world", []byte(src))
	var got []string
	for _, d := range ds {
		got = append(got, fmt.Sprintf("%d:%d %s %s", d.Line, d.Col, d.Code, d.Message))
	}
	want := []string{
		`25:5 W002 duplicate meta key "a", first at 24:5`,
		`26:8 W004 meta m: meta values are strings, numbers, booleans or lists of strings, not maps or records`,
		`27:8 W004 meta r: meta values are strings, numbers, booleans or lists of strings, not maps or records`,
		`28:14 W004 meta l: a list in meta holds strings only; quote the element`,
		`28:17 W004 meta l: a list in meta holds strings only; quote the element`,
		`29:8 W004 meta d: meta values are strings, numbers, booleans or lists of strings; write it as a string: "2026-01-01"`,
		`30:8 W004 meta t: meta values are strings, numbers, booleans or lists of strings; write it as a string: "2026-01-01T10:00Z"`,
		`31:8 W004 meta z: meta values are strings, numbers, booleans or lists of strings; write it as a string: "null"`,
		`32:8 W004 meta i: meta values are strings, numbers, booleans or lists of strings; write a name as a string: "train"`,
		`33:8 W022 integer 9223372036854775808 is out of the 64-bit range`,
		`34:8 W022 number 1` + strings.Repeat("0", 400) + `.5 is out of range`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTaskMetaLimits(t *testing.T) {
	var b strings.Builder
	b.WriteString("  meta {\n")
	for i := range MaxMetaEntries + 1 {
		fmt.Fprintf(&b, "    k%d: %d\n", i, i)
	}
	fmt.Fprintf(&b, "    long: %q\n", strings.Repeat("x", MaxTextLength+1))
	fmt.Fprintf(&b, "    list: [%s\"x\"]\n  }", strings.Repeat(`"x", `, MaxMetaEntries))
	_, ds := CheckSource("spec.world", []byte(strings.Replace(taskMetaSpec, "%s", b.String(), 1)))
	var got []string
	for _, d := range ds {
		got = append(got, string(d.Code)+" "+d.Message)
	}
	want := []string{
		fmt.Sprintf("W019 %d meta entries in task pay_o1; the limit is %d", MaxMetaEntries+3, MaxMetaEntries),
		fmt.Sprintf("W019 text of %d bytes; the limit is %d", MaxTextLength+1, MaxTextLength),
		fmt.Sprintf("W019 %d strings in a meta list; the limit is %d", MaxMetaEntries+1, MaxMetaEntries),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics\n got %s\nwant %s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
