package compiler

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/worldc/worldc/compiler/ir"
)

// loadSpec is a world whose seed comes from data files; %s is replaced by
// the seed's load lines.
const loadSpec = `world shop {
  title "Shop"
  today 2026-03-14
}

service catalog "Products" {
  record Variant {
    item_id   string
    options   map<string, string>
    price     decimal >= 0
  }
  entity Product key product_id {
    product_id string
    name       string
    variants   map<string, Variant>
  }
  tool get_product: get Product
}

service crm "Customers" {
  record PaymentMethod by source {
    id string
    case gift_card { balance decimal >= 0 }
    case paypal {}
  }
  entity Customer {
    name    string
    tier    enum { bronze silver gold } = bronze
    since   date?
    credit  money?
    methods map<string, PaymentMethod>?
    likes   list<ref catalog.Product>?
  }
  tool get_customer: get Customer
}

seed {
%s
}
`

func checkWithData(t *testing.T, loads string, files fstest.MapFS) (*ir.World, Diagnostics) {
	t.Helper()
	spec := strings.Replace(loadSpec, "%s", loads, 1)
	return CheckSource("spec.world", []byte(spec), WithData(files))
}

func TestLoadJSONAndCSV(t *testing.T) {
	files := fstest.MapFS{
		"data/db.json": {Data: []byte(`{
  "products": {
    "P1": {"product_id": "P1", "name": "Shoes", "variants": {
      "I2": {"item_id": "I2", "options": {"size": "10"}, "price": 12.5},
      "I1": {"item_id": "I1", "options": {"size": "9", "color": "red"}, "price": 10}
    }},
    "P2": {"name": "Hat", "variants": {}}
  },
  "customers": [
    {"id": "c1", "name": "Ann", "tier": "gold", "since": "2025-01-02", "credit": 100,
     "methods": {"g": {"source": "gift_card", "id": "g", "balance": 5}, "p": {"source": "paypal", "id": "p"}},
     "likes": ["P2", "P1"]}
  ]
}`)},
		"customers.csv": {Data: []byte("\ufeffcustomer_id,Full Name,tier,since,credit\nc2,Bob,,,\nc3,\"Cid, Jr.\",silver,2024-12-31,7.5\n")},
	}
	w, ds := checkWithData(t, `  load catalog.Product from "data/db.json" at "products"
  load crm.Customer from "data/db.json" at "customers"
  load crm.Customer from "./customers.csv" { id: "customer_id", name: "Full Name" }
  crm.Customer dan { name: "Dan", likes: ["P1", P2] }`, files)
	if w == nil {
		t.Fatal(ds.Text())
	}
	got := map[string]*ir.Record{}
	var order []string
	for _, r := range w.Seed {
		got[r.ID] = r
		order = append(order, r.ID)
	}
	if strings.Join(order, " ") != "dan P1 P2 c1 c2 c3" {
		t.Errorf("seed order (records written out, then loads in order): %v", order)
	}
	p2 := got["P2"]
	if p2.Values[0].Str != "P2" || p2.Pos.Filename != "data/db.json" || p2.Pos.Line != 7 || p2.Pos.Column != 11 {
		t.Errorf("P2: key from the object key, position in the data file: %+v at %v", p2.Values[0], p2.Pos)
	}
	variants := got["P1"].Values[2]
	if len(variants.Entries) != 2 || variants.Entries[0].Key != "I1" || variants.Entries[0].Value.Fields[1].Entries[0].Key != "color" {
		t.Errorf("nested map of records, sorted: %+v", variants.Entries)
	}
	c1 := got["c1"]
	if c1.Values[1].Str != "gold" || c1.Values[2].Str != "2025-01-02" || c1.Values[3].Num != 100 {
		t.Errorf("c1 scalars: %+v", c1.Values)
	}
	if g := c1.Values[4].Entries[0].Value; g.Fields[0].Str != "gift_card" || g.Fields[2].Num != 5 {
		t.Errorf("variant from JSON: %+v", g.Fields)
	}
	if likes := c1.Values[5].List; len(likes) != 2 || likes[0].Kind != ir.KindRef || likes[0].Str != "P2" {
		t.Errorf("refs by id: %+v", likes)
	}
	c2, c3 := got["c2"], got["c3"]
	if c2.Values[0].Str != "Bob" || c2.Values[1].Str != "bronze" || c2.Values[2].Kind != ir.KindNull || c2.Values[3].Kind != ir.KindNull {
		t.Errorf("c2 from CSV (empty cells: default, null): %+v", c2.Values)
	}
	if c3.Values[0].Str != "Cid, Jr." || c3.Values[3].Num != 7.5 || c3.Pos.Filename != "customers.csv" || c3.Pos.Line != 3 || c3.Pos.Column != 1 {
		t.Errorf("c3 from CSV: %+v at %v", c3.Values, c3.Pos)
	}
	if likes := got["dan"].Values[5].List; likes[1].Str != "P2" {
		t.Errorf("a bare name that is an id: %+v", likes[1])
	}
	if c2.Pos.Line != 2 {
		t.Errorf("c2 at %v", c2.Pos)
	}
}

// TestLoadErrors pins diagnostics of bad data, positioned inside the data
// files.
func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		loads string
		files fstest.MapFS
		want  []string
	}{
		{"type errors at the value",
			`  load catalog.Product from "db.json"`,
			fstest.MapFS{"db.json": {Data: []byte("[\n  {\"product_id\": \"P1\", \"name\": 7, \"variants\": {}},\n  {\"product_id\": \"P2\", \"name\": \"x\", \"variants\": {\"I\": {\"item_id\": \"I\", \"options\": {}, \"price\": -1}}}\n]")}},
			[]string{
				`db.json:2:32: error[W004]: expected string, got number 7`,
				`db.json:3:96: error[W008]: Variant.price is -1, must be >= 0`,
			}},
		{"unknown fields, missing fields, enums, dates, dangling refs",
			`  load crm.Customer from "c.json" at "a/b~1c"`,
			fstest.MapFS{"c.json": {Data: []byte(`{"a": {"b/c": [
{"id": "c1", "nme": "Ann"},
{"id": "c2", "name": "Bob", "tier": "platinum", "since": "2025-02-30"},
{"id": "c3", "name": "Cid", "likes": ["P9"], "methods": {"x": {"source": "paypal", "id": "x", "balance": 1}}},
{"name": "Dan"},
{"id": "c4", "name": "Eve"},
{"id": "c4", "name": "Fay"}
]}}`)}},
			[]string{
				`c.json:2:1: error[W006]: this Customer record does not give required field "name"`,
				`c.json:2:14: error[W003]: Customer has no field "nme"; did you mean name?`,
				`c.json:3:37: error[W005]: "platinum" is not a value of Customer.tier; values: bronze, silver, gold`,
				`c.json:3:58: error[W004]: expected a date such as 2026-03-14, got "2025-02-30"`,
				`c.json:4:39: error[W009]: no Product record "P9" in the seed`,
				`c.json:4:106: error[W003]: PaymentMethod.balance belongs to case gift_card, not to paypal`,
				`c.json:5:1: error[W006]: this Customer record has no id: records in an array need their id in "id"`,
				`c.json:7:1: error[W007]: two Customer records have the id "c4" (the other is the record at c.json:6:1)`,
			}},
		{"keys: mismatch and duplicates across files",
			`  load catalog.Product from "a.json"
  load catalog.Product from "b.json"`,
			fstest.MapFS{
				"a.json": {Data: []byte(`{"P1": {"product_id": "P2", "name": "x", "variants": {}}, "P3": {"name": "y", "variants": {}}}`)},
				"b.json": {Data: []byte(`[{"product_id": "P3", "name": "z", "variants": {}}]`)},
			},
			[]string{
				`a.json:1:23: error[W004]: the key "P2" differs from the record's key "P1" in the object`,
				`b.json:1:2: error[W007]: Product.product_id is the key and must be unique: the record at a.json:1:65 has "P3" too`,
			}},
		{"JSON syntax",
			`  load catalog.Product from "bad.json"`,
			fstest.MapFS{"bad.json": {Data: []byte("[\n  {\"product_id\": \"P1\",}\n]")}},
			[]string{`bad.json:2:23: error[W023]: invalid JSON: unexpected '}' (expected a string key)`}},
		{"at path and shape",
			`  load catalog.Product from "x.json" at "products"
  load crm.Customer from "y.json" at "list"`,
			fstest.MapFS{"x.json": {Data: []byte(`{"items": []}`)}, "y.json": {Data: []byte(`{"list": 3}`)}},
			[]string{
				`x.json:1:1: error[W023]: at "products": no key "products" in this object`,
				`y.json:1:10: error[W023]: expected the records of Customer: an object of records by id or an array of records, got a number`,
			}},
		{"CSV: columns and cells",
			`  load crm.Customer from "c.csv" { name: "Name", nothing: "x" }
  load crm.Customer from "d.csv"
  load crm.Customer from "e.csv"`,
			fstest.MapFS{
				"c.csv": {Data: []byte("id,Name,credit\nc1,Ann,lots\n")},
				"d.csv": {Data: []byte("id,name,methods\n")},
				"e.csv": {Data: []byte("name\nAnn\n")},
			},
			[]string{
				`d.csv:1:9: error[W004]: a CSV cell cannot hold the map<string, PaymentMethod>? of Customer.methods; load it from a JSON file`,
				`e.csv:1:1: error[W006]: no "id" column: the records of Customer need their ids`,
				`spec.world:38:50: error[W003]: Customer has no field "nothing"`,
			}},
		{"CSV cells",
			`  load crm.Customer from "c.csv"`,
			fstest.MapFS{"c.csv": {Data: []byte("id,name,credit,tier\nc1,Ann,lots,gold\nc2,\"Bob\",1,\n\"c3\",Cid,\"x\ny\",\n")}},
			[]string{
				`c.csv:2:8: error[W004]: expected a number, got "lots"`,
				`c.csv:4:10: error[W004]: expected a number, got "x\ny"`,
			}},
		{"CSV syntax",
			`  load crm.Customer from "c.csv"`,
			fstest.MapFS{"c.csv": {Data: []byte("id,name\nc1,Ann,extra\n")}},
			[]string{`c.csv:2:1: error[W023]: invalid CSV: wrong number of fields`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := checkWithData(t, tt.loads, tt.files)
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestLoadPaths checks that a data file can only be read from the spec's
// directory: no absolute paths, no .., no symlink out of it.
func TestLoadPaths(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.json")
	must(os.WriteFile(secret, []byte(`[{"product_id": "S", "name": "secret", "variants": {}}]`), 0o644))
	must(os.MkdirAll(filepath.Join(dir, "data", "sub"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "data", "ok.json"), []byte(`[{"product_id": "P", "name": "ok", "variants": {}}]`), 0o644))
	linkOut := filepath.Join(dir, "data", "out.json")
	if err := os.Symlink(secret, linkOut); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	must(os.Symlink("ok.json", filepath.Join(dir, "data", "in.json")))
	must(os.Symlink(filepath.Join(dir, "data", "ok.json"), filepath.Join(dir, "data", "abs.json")))
	must(os.Symlink(outside, filepath.Join(dir, "data", "outdir")))

	tests := []struct{ from, want string }{
		{"data/ok.json", ""},
		{"data/sub/../ok.json", `leaves the spec's directory`},
		{"../" + filepath.Base(outside) + "/secret.json", `leaves the spec's directory`},
		{secret, `is absolute`},
		{`data\ok.json`, `separate directories with /`},
		{"data/in.json", ""},
		{"data/abs.json", `cannot read data file "data/abs.json"`}, // os.Root refuses absolute symlinks
		{"data/out.json", `cannot read data file "data/out.json"`},
		{"data/outdir/secret.json", `cannot read data file "data/outdir/secret.json"`},
		{"data/missing.json", `no data file "data/missing.json" in the spec's directory`},
		{"data/sub", `data file "data/sub" is not a regular file`},
		{"data/ok.txt", `no data file`},
		{"", `the path of a data file is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			spec := filepath.Join(dir, "shop.world")
			src := strings.Replace(loadSpec, "%s", "  load catalog.Product from \""+strings.ReplaceAll(tt.from, `\`, `\\`)+"\"", 1)
			must(os.WriteFile(spec, []byte(src), 0o644))
			// The world has no customers to get: only where its products
			// come from is the point.
			w, ds := CheckFile(spec, WithoutReachability())
			if tt.want == "" {
				if w == nil {
					t.Fatalf("diagnostics:\n%s", ds.Text())
				}
				if w.Seed[0].Pos.Filename != filepath.ToSlash(filepath.Join(dir, tt.from)) {
					t.Errorf("position file %q", w.Seed[0].Pos.Filename)
				}
				return
			}
			if len(ds) != 1 || ds[0].Code != "W023" || !strings.Contains(ds[0].Message, tt.want) {
				t.Fatalf("got:\n%s\nwant one W023 containing %q", ds.Text(), tt.want)
			}
			if strings.Contains(ds[0].Message, "secret") && strings.Contains(tt.from, "secret") == false {
				t.Errorf("message leaks the outside file: %s", ds[0].Message)
			}
		})
	}
}

func TestLoadLimits(t *testing.T) {
	big := make([]byte, MaxDataFileSize+1)
	_, ds := checkWithData(t, `  load catalog.Product from "big.json"`, fstest.MapFS{"big.json": {Data: big}})
	if len(ds) != 1 || ds[0].Code != "W019" {
		t.Errorf("big file: %s", ds.Text())
	}
	deep := strings.Repeat("[", MaxDataNesting+2) + strings.Repeat("]", MaxDataNesting+2)
	_, ds = checkWithData(t, `  load catalog.Product from "deep.json"`, fstest.MapFS{"deep.json": {Data: []byte(deep)}})
	if len(ds) != 1 || ds[0].Code != "W023" || !strings.Contains(ds[0].Message, "nested deeper") {
		t.Errorf("deep file: %s", ds.Text())
	}
	// A spec without WithData reads from the directory of its file name;
	// a load that names nothing there is an error, not a crash.
	_, ds = CheckSource(filepath.Join(t.TempDir(), "x.world"), []byte(strings.Replace(loadSpec, "%s", `  load catalog.Product from "p.json"`, 1)))
	if len(ds) != 1 || ds[0].Code != "W023" {
		t.Errorf("missing file: %s", ds.Text())
	}
}

// TestParseJSON compares the offset-keeping parser with encoding/json.
func TestParseJSON(t *testing.T) {
	valid := []string{
		`{}`, `[]`, `0`, `-0.5e+3`, `"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00"`, `"\ud800"`, `true`, `null`,
		`{"a": [1, 2.5, {"b": null}], "c": "é"}`, " \n [ 1 , 2 ] \n", "\ufeff[1]",
	}
	for _, src := range valid {
		n, err := parseJSON([]byte(src), 10)
		if err != nil {
			t.Errorf("%q: %v", src, err)
			continue
		}
		var want any
		if err := json.Unmarshal(bytes.TrimPrefix([]byte(src), []byte("\ufeff")), &want); err != nil {
			t.Fatal(err)
		}
		if got := toAny(n); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %#v, want %#v", src, got, want)
		}
	}
	invalid := []string{``, `{`, `[1,]`, `{"a" 1}`, `01`, `1.`, `1e`, `-`, `"abc`, `"a` + "\n" + `"`, `"\x"`, `"\u12"`, `tru`, `[1] 2`, `{"a":1,}`, "\"\xff\"", `+1`}
	for _, src := range invalid {
		if _, err := parseJSON([]byte(src), 10); err == nil {
			t.Errorf("%q: no error", src)
		}
	}
}

// FuzzParseJSON checks the parser against encoding/json: both accept the
// same documents, with the same values.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a": [1, "b", null, true]}`, `"\u00e9"`, `[1e5, -0.0]`, `{"a":{"b":{}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if bytes.HasPrefix(src, []byte("\ufeff")) {
			return
		}
		n, err := parseJSON(src, 1000)
		if !utf8.Valid(src) {
			// encoding/json replaces invalid UTF-8; data files refuse it.
			if err == nil {
				t.Fatalf("%q: invalid UTF-8 accepted", src)
			}
			return
		}
		var want any
		werr := json.Unmarshal(src, &want)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: parseJSON error %v, encoding/json error %v", src, err, werr)
		}
		if err == nil && !reflect.DeepEqual(toAny(n), want) {
			t.Fatalf("%q: got %#v, want %#v", src, toAny(n), want)
		}
	})
}

// toAny converts a jnode to what encoding/json decodes into an any.
func toAny(n *jnode) any {
	switch n.kind {
	case jBool:
		return n.b
	case jNumber:
		var f float64
		json.Unmarshal([]byte(n.str), &f)
		return f
	case jString:
		return n.str
	case jArray:
		out := []any{}
		for _, e := range n.elems {
			out = append(out, toAny(e))
		}
		return out
	case jObject:
		out := map[string]any{}
		for _, m := range n.members {
			out[m.key] = toAny(m.val)
		}
		return out
	}
	return nil
}

// TestLoadedRecordNamedByHandle: a rubric that names a loaded record by its
// id as a bare name, as a handle, is told that loaded records have no
// handle and to write the id as a string.
func TestLoadedRecordNamedByHandle(t *testing.T) {
	spec := strings.Replace(loadSpec, "%s", `  load crm.Customer from "c.json"`, 1) + `
task t {
  persona     "p"
  instruction "i"
  expect {
    crm.Customer[c1].tier == gold
    count(c in crm.Customer where c == c1) == 1
    crm.Customer[c9].tier == gold
  }
}
`
	_, ds := CheckSource("spec.world", []byte(spec), WithData(fstest.MapFS{"c.json": {Data: []byte(`[{"id": "c1", "name": "Ann"}]`)}}))
	want := []string{
		`spec.world:45:18: error[W003]: unknown name "c1": the Customer whose id is "c1" has no handle (it is loaded from a data file); write its id as a string, "c1"`,
		`spec.world:46:40: error[W003]: unknown name "c1": the Customer whose id is "c1" has no handle (it is loaded from a data file); write its id as a string, "c1"`,
		`spec.world:47:18: error[W003]: unknown name "c9"`,
	}
	var got []string
	for _, d := range ds {
		if d.Code == "W003" {
			got = append(got, d.String())
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got:\n%s\nwant:\n%s\nall:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"), ds.Text())
	}
	for _, d := range ds {
		if d.Code == "W003" && strings.Contains(d.Message, "no handle") && !strings.Contains(d.Hint, `"c1"`) {
			t.Errorf("%s: hint %q", d, d.Hint)
		}
	}
}
