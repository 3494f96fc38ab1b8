package runtime

import (
	"cmp"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCompositeHelpers(t *testing.T) {
	// nil (null) stays nil, empty stays empty and non-nil.
	if CloneSlice[int](nil, func(x int) int { return x }) != nil || CloneMap[int](nil, nil) != nil || ClonePtr[int](nil, nil) != nil {
		t.Error("a clone of null is not null")
	}
	if c := CloneSlice([]int{}, func(x int) int { return x }); c == nil || len(c) != 0 {
		t.Error("a clone of [] is not []")
	}
	type rec struct{ xs []string }
	deep := func(r rec) rec { r.xs = slices.Clone(r.xs); return r }
	src := []rec{{xs: []string{"a"}}}
	c := CloneSlice(src, deep)
	c[0].xs[0] = "b"
	if src[0].xs[0] != "a" {
		t.Error("CloneSlice shares memory")
	}
	m := map[string]rec{"k": {xs: []string{"a"}}}
	cm := CloneMap(m, deep)
	cm["k"].xs[0] = "b"
	if m["k"].xs[0] != "a" {
		t.Error("CloneMap shares memory")
	}
	// Appended never writes into the backing array of its argument.
	base := make([]int, 1, 10)
	a, b := Appended(base, 1), Appended(base, 2)
	if a[1] != 1 || b[1] != 2 || cap(base) != 10 {
		t.Errorf("Appended aliases: %v %v", a, b)
	}
	if got := SortedKeys(map[string]int{"b": 1, "a": 2, "B": 3}); !slices.Equal(got, []string{"B", "a", "b"}) {
		t.Errorf("SortedKeys = %v", got)
	}
	if got := SortedKeys(map[string]int{}); got == nil {
		t.Error("keys of an empty map are null")
	}
	var keys []string
	mm := map[string]int{"c": 3, "a": 1, "b": 2}
	for k, v := range InKeyOrder(mm) {
		keys = append(keys, k)
		if k == "a" {
			delete(mm, "b") // deleted before its turn: skipped
		}
		_ = v
	}
	if !slices.Equal(keys, []string{"a", "c"}) {
		t.Errorf("InKeyOrder visited %v", keys)
	}
	var idx []int64
	for i := range Indexed([]string{"x", "y"}) {
		idx = append(idx, i)
	}
	if !slices.Equal(idx, []int64{0, 1}) {
		t.Errorf("Indexed = %v", idx)
	}
	nan := math.NaN()
	fs := Sorted([]float64{2, nan, -1, 0})
	if !math.IsNaN(fs[0]) || fs[1] != -1 || fs[3] != 2 {
		t.Errorf("Sorted floats = %v (NaN first, as compiler/eval)", fs)
	}
	if s := Sorted([]string{"b", "B", "a"}); !slices.Equal(s, []string{"B", "a", "b"}) {
		t.Errorf("Sorted strings = %v", s)
	}
	if !HasKey(map[string]int{"k": 0}, "k") || HasKey(map[string]int(nil), "k") {
		t.Error("HasKey")
	}
	if _, err := At([]int{1}, 1); err == nil || err.Error() != "internal: list index 1 out of range (length 1)" {
		t.Errorf("At: %v", err)
	}
	if _, err := At([]int{1}, -1); err == nil {
		t.Error("At(-1) succeeded")
	}
	if _, err := Lookup(map[string]int{}, `a"b`); err == nil || err.Error() != `internal: map has no key "a\"b"` {
		t.Errorf("Lookup: %v", err)
	}
	one, two := 1, 1
	if !EqualPtr(&one, &two) || EqualPtr(&one, nil) || !EqualPtr[int](nil, nil) {
		t.Error("EqualPtr")
	}
	if EqualLists([]int{}, nil) || !EqualLists([]int{}, []int{}) || !EqualLists[int](nil, nil) || EqualLists([]float64{nan}, []float64{nan}) {
		t.Error("EqualLists: [] is not null, NaN is unequal")
	}
	if EqualMaps(map[string]int{}, nil) || !EqualMaps(map[string]int{"a": 1}, map[string]int{"a": 1}) {
		t.Error("EqualMaps")
	}
	if !EqualListsFunc([]rec{{xs: []string{"a"}}}, []rec{{xs: []string{"a"}}}, func(a, b rec) bool { return slices.Equal(a.xs, b.xs) }) {
		t.Error("EqualListsFunc")
	}
	if got := Members([]byte(`{"a":1,"b":null,"c":{"d":2}}`)); !got["a"] || got["b"] || !got["c"] || got["d"] {
		t.Errorf("Members = %v", got)
	}
}

func TestVariantTag(t *testing.T) {
	cases := []string{"gift_card", "paypal"}
	for _, c := range []struct{ in, want, err string }{
		{`{"source":"paypal","id":"x"}`, "paypal", ""},
		{` { "id" : "x" , "source" : "gift_card" } `, "gift_card", ""},
		{`{"id":"x"}`, "", `missing required field "source"`},
		{`{"source":null}`, "", `missing required field "source"`},
		{`{"source":"cash"}`, "", `field "source": expected one of "gift_card", "paypal", got "cash"`},
		{`{"source":1}`, "", `field "source": expected one of "gift_card", "paypal", got number 1`},
		{`[1]`, "", `expected an object, got an array`},
		{`{"source":`, "", `expected an object`},
	} {
		got, err := VariantTag([]byte(c.in), "source", cases)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("VariantTag(%s) = %q, %v; want %q, %q", c.in, got, err, c.want, c.err)
		}
		if err != nil && AsToolError(err).Code != CodeInvalidArguments {
			t.Errorf("VariantTag(%s): code %s", c.in, AsToolError(err).Code)
		}
	}
}

func TestDecodeRecord(t *testing.T) {
	type address struct {
		City string  `json:"city"`
		Zip  *string `json:"zip"`
		N    int64   `json:"n"`
	}
	for _, c := range []struct{ in, err string }{
		{`{"city":"Paris","zip":"75001","n":2}`, ""},
		{`{"city":"Paris","n":2}`, ""},
		{`{"city":"Paris","zip":null,"n":2}`, ""},
		{`{"zip":"1","n":2}`, `missing required field "city"`},
		{`{"city":null,"n":2}`, `required field "city" must not be null`},
		{`{"city":"P","cty":"x","n":2}`, `unknown field "cty" (did you mean "city"?); known fields: city, n, zip`},
		{`{"city":5,"n":2}`, `field "city": expected a string, got number 5`},
		{`{"city":"P","n":2.5}`, `field "n": expected an integer, got number 2.5`},
		{`null`, `expected an object, got null`},
		{`"x"`, `expected an object, got string "x"`},
	} {
		var a address
		err := DecodeRecord([]byte(c.in), &a, nil, "city", "n")
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("DecodeRecord(%s) = %v, want %q", c.in, err, c.err)
		}
	}
	// allowed restricts the fields (a variant's case).
	var a address
	if err := DecodeRecord([]byte(`{"city":"P","zip":"1","n":1}`), &a, []string{"city", "n"}, "city"); err == nil || !strings.Contains(err.Error(), `unknown field "zip"`) {
		t.Errorf("a field outside allowed: %v", err)
	}
	// Nested records report through their argument.
	type args struct {
		Address address `json:"address"`
	}
	var x struct {
		Address addressWithMethod `json:"address"`
	}
	err := DecodeArgs(json.RawMessage(`{"address":{"city":1}}`), &x, "address")
	if err == nil || !strings.Contains(err.Error(), `argument "address": field "city": expected a string, got number 1`) {
		t.Errorf("nested: %v", err)
	}
	_ = args{}
}

// addressWithMethod decodes itself with DecodeRecord, as generated records
// do.
type addressWithMethod struct {
	City string `json:"city"`
}

type addressFields addressWithMethod

func (a *addressWithMethod) UnmarshalJSON(data []byte) error {
	return DecodeRecord(data, (*addressFields)(a), nil, "city")
}

func TestMatchPattern(t *testing.T) {
	for _, c := range []struct {
		pattern, msg string
		want         bool
	}{
		{"Item not found", "Item not found", true},
		{"Variant " + Hole + " not found", "Variant 123 not found", true},
		{"Variant " + Hole + " not found", "Variant  not found", true},
		{"Variant " + Hole + " not found", "Variant 123 not founds", false},
		{Hole + " not found", "1001 not found", true},
		{"Number of " + Hole, "Number of x.", true},
		{"a" + Hole + "b" + Hole + "c", "a1b2c", true},
		{"a" + Hole + "b" + Hole + "c", "a1c", false},
	} {
		if got := requireIndex([]string{c.pattern}, c.msg) == 0; got != c.want {
			t.Errorf("%q matches %q: %v, want %v", c.pattern, c.msg, got, c.want)
		}
	}
}

func TestStrictSchema(t *testing.T) {
	strict := `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"required":["b"],"additionalProperties":false},"l":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"s":{"type":"string","enum":["x"]}},"required":["s"],"additionalProperties":false},{"type":"null"}]}}},"required":["a","l"],"additionalProperties":false}`
	if err := StrictSchema(json.RawMessage(strict)); err != nil {
		t.Errorf("a strict schema: %v", err)
	}
	withMap := `{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},"required":["m"],"additionalProperties":false}`
	if err := StrictSchema(json.RawMessage(withMap)); err == nil || !strings.Contains(err.Error(), "property m: a map") {
		t.Errorf("a map: %v", err)
	}
	ti := ToolInfo{Name: "t", Parameters: json.RawMessage(withMap)}
	if !strings.Contains(string(ti.OpenAI()), `"strict":false`) {
		t.Errorf("a tool with a map is offered in strict mode: %s", ti.OpenAI())
	}
	ti.Parameters = json.RawMessage(strict)
	if !strings.Contains(string(ti.OpenAI()), `"strict":true`) {
		t.Errorf("a strict tool is not: %s", ti.OpenAI())
	}
	loose := `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"},"c":{"type":"string"}},"required":["b"]}},"required":["a"],"additionalProperties":false}`
	errs := nestedSchemaProblems(json.RawMessage(loose))
	if len(errs) != 2 || !strings.Contains(errs[0].Error(), `property a: want "additionalProperties": false`) || !strings.Contains(errs[1].Error(), `property a: property "c" is not listed`) {
		t.Errorf("nested problems: %v", errs)
	}
	if errs := nestedSchemaProblems(json.RawMessage(withMap)); len(errs) != 0 {
		t.Errorf("a map is a nested problem: %v", errs)
	}
}

func TestNullElements(t *testing.T) {
	var a struct {
		Ints  []int64            `json:"ints"`
		Opt   []*string          `json:"opt"`
		Nest  map[string][]int64 `json:"nest"`
		Lists [][]string         `json:"lists"`
	}
	for _, c := range []struct{ in, err string }{
		{`{"ints":[1,2],"opt":["a",null],"nest":{"k":[1]},"lists":[null,["x"]]}`, ""},
		{`{"ints":[1,null]}`, `argument "ints": [1]: expected an integer, got null`},
		{`{"nest":{"a":[1],"b":[null]}}`, `argument "nest": ["b"][0]: expected an integer, got null`},
		{`{"lists":[["a", null]]}`, `argument "lists": [0][1]: expected a string, got null`},
	} {
		err := DecodeArgs(json.RawMessage(c.in), &a)
		if (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("DecodeArgs(%s) = %v, want %q", c.in, err, c.err)
		}
	}
}

// TestFieldDiff pins the report of a failed match: the members of want
// (or the named ones) that differ as JSON values, in order; an absent
// member is null; numbers compare by value.
func TestFieldDiff(t *testing.T) {
	type order struct {
		ID     string   `json:"id"`
		Status string   `json:"status"`
		Total  float64  `json:"total"`
		Items  []string `json:"items"`
		Reason *string  `json:"reason"`
	}
	why := "changed my mind"
	got := &order{ID: "o1", Status: "pending", Total: 10, Items: []string{"a"}}
	want := &order{ID: "o1", Status: "cancelled", Total: 10.0, Items: []string{"a", "b"}, Reason: &why}
	if d := FieldDiff(got, want); d != `status is "pending", want "cancelled"; items is ["a"], want ["a","b"]; reason is null, want "changed my mind"` {
		t.Errorf("whole record: %s", d)
	}
	partial := map[string]any{"total": 12, "status": "pending", "note": nil}
	if d := FieldDiff(got, partial, "status", "total", "note"); d != "total is 10, want 12" {
		t.Errorf("named fields: %s", d)
	}
	if d := FieldDiff(got, map[string]any{"total": math.NaN()}, "total"); !strings.HasPrefix(d, "left side is {") {
		t.Errorf("NaN falls back to both sides: %s", d)
	}
	if d := FieldDiff(json.RawMessage(`{"a":{"x":1,"y":[1,2.0]}}`), json.RawMessage(`{"a":{"y":[1.0,2],"x":1.0}}`), "a"); !strings.HasPrefix(d, "left side is") {
		t.Errorf("equal JSON values differ: %s", d)
	}
}

// TestSortedAsSlices: Sorted, which sorts with sort.Stable so that the
// sort compiles once, orders as slices.SortStableFunc with cmp.Compare
// would: NaNs first, -0 and 0 equal (kept in their order), stable.
func TestSortedAsSlices(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []float64{math.NaN(), math.Copysign(0, -1), 0, 1, -1, 2.5, math.Inf(1), math.Inf(-1), 1e-300}
	for n := range 40 {
		fs := make([]float64, n)
		for i := range fs {
			fs[i] = pool[rng.IntN(len(pool))]
		}
		want := slices.Clone(fs)
		slices.SortStableFunc(want, cmp.Compare[float64])
		got := Sorted(fs)
		for i := range want {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("Sorted(%v) = %v, want %v", fs, got, want)
			}
		}
		ss := make([]string, n)
		for i := range ss {
			ss[i] = string(rune('a' + rng.IntN(5)))
		}
		if got, want := Sorted(ss), slices.Sorted(slices.Values(ss)); !slices.Equal(got, want) {
			t.Fatalf("Sorted(%q) = %q, want %q", ss, got, want)
		}
	}
}
