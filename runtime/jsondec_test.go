package runtime

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"
)

// checkReaderValue: when the reader takes text as a string, a float or an
// integer, encoding/json decodes it to the same value.
func checkReaderValue(t testing.TB, text string) {
	t.Helper()
	r := NewJSONReader(text)
	if s := r.String(); r.End() {
		var want string
		if err := json.Unmarshal([]byte(text), &want); err != nil || want != s {
			t.Fatalf("String(%q) = %q; encoding/json %q, %v", text, s, want, err)
		}
	}
	r = NewJSONReader(text)
	if f := r.Float(); r.End() {
		var want float64
		if err := json.Unmarshal([]byte(text), &want); err != nil || want != f {
			t.Fatalf("Float(%q) = %v; encoding/json %v, %v", text, f, want, err)
		}
	}
	r = NewJSONReader(text)
	if n := r.Int(); r.End() {
		var want int64
		if err := json.Unmarshal([]byte(text), &want); err != nil || want != n {
			t.Fatalf("Int(%q) = %v; encoding/json %v, %v", text, n, want, err)
		}
	}
}

func TestJSONReaderAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`"abc"`, `"a\"b"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, `"\udc00\ud800"`, "\"\xff\"", "\"\xe2\x80\"",
		`"\/\b\f\n\r\t"`, `"\x"`, `"a`, "\"\x01\"", `0`, `-0`, `1.5e3`, `01`, `1.`, `.5`, `-`, `1e`, `1e+2`, `99999999999999999999`, `1e400`,
		` "x" `, `"x" y`, `true`, `null`,
	} {
		checkReaderValue(t, s)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []string{`"`, `\`, `u`, `d8`, `00`, `dc`, `a`, `0`, `1`, `.`, `e`, `-`, `+`, "\xff", "é", ` `, `n`, `/`, "\x1f", "abcdefgh"}
	for range 20000 {
		s := ""
		if rng.IntN(2) == 0 {
			s = `"`
		}
		n := rng.IntN(8)
		if rng.IntN(4) == 0 {
			n = rng.IntN(40) // long enough for String's eight bytes at a time
		}
		for range n {
			s += alphabet[rng.IntN(len(alphabet))]
		}
		if rng.IntN(2) == 0 {
			s += `"`
		}
		checkReaderValue(t, s)
	}
}

func TestJSONReaderObjects(t *testing.T) {
	r := NewJSONReader(` { "a" : [1, 2.5e0] , "b\u0063":{"x":null}} `)
	var keys []string
	if !r.BeginObject() {
		t.Fatal("not an object")
	}
	for first := true; r.NextMember(first); first = false {
		keys = append(keys, r.Key())
		switch r.Key() {
		case "a":
			if got := ReadList(&r, false, ReadFloat); len(got) != 2 || got[1] != 2.5 {
				t.Errorf("a = %v", got)
			}
		case "bc":
			if got := ReadMap(&r, false, func(r *JSONReader) *string { return ReadOptional(r, ReadString) }); len(got) != 1 || got["x"] != nil {
				t.Errorf("bc = %v", got)
			}
		}
	}
	if !r.End() || len(keys) != 2 || keys[1] != "bc" {
		t.Errorf("keys %q, failed %v", keys, r.Failed())
	}
	for _, bad := range []string{`{"a":1,}`, `{"a" 1}`, `{,"a":1}`, `[1,]`, `{"a":[1 2]}`, `{"a":1}}`} {
		r := NewJSONReader(bad)
		r.BeginObject()
		for first := true; r.NextMember(first); first = false {
			ReadList(&r, true, ReadInt)
		}
		if r.End() {
			t.Errorf("%s: read without failing", bad)
		}
	}
}

// TestReadListSizes: lists of many sizes, and the empty list, which is
// not null.
func TestReadListSizes(t *testing.T) {
	for n := range 20 {
		text := "["
		for i := range n {
			if i > 0 {
				text += ","
			}
			text += strconv.Itoa(i)
		}
		text += "]"
		r := NewJSONReader(text)
		got := ReadList(&r, false, ReadInt)
		var want []int64
		if err := json.Unmarshal([]byte(text), &want); err != nil || !r.End() || !slices.Equal(got, want) || got == nil {
			t.Fatalf("%s: %v, encoding/json %v", text, got, want)
		}
	}
}

// TestSeedReaderSharesMaps: a reader of a seed reads the same text of an
// object of strings into one map, and nothing else into a shared value.
func TestSeedReaderSharesMaps(t *testing.T) {
	text := `[{"a":"x","b":"y"},{"a":"x","b":"y"},{"a":"x", "b":"y"},{"b":"y","a":"x"},{"a":"x\"}{[","b":"y"},{"a":"x\"}{[","b":"y"},{}]`
	r := NewSeedReader(text)
	ms := ReadList(&r, false, func(r *JSONReader) map[string]string { return ReadStringMap(r, false) })
	if !r.End() || len(ms) != 7 {
		t.Fatalf("read %v, failed %v", ms, r.Failed())
	}
	var want []map[string]string
	if err := json.Unmarshal([]byte(text), &want); err != nil || !reflect.DeepEqual(ms, want) {
		t.Fatalf("read %v, encoding/json %v", ms, want)
	}
	same := func(a, b map[string]string) bool {
		return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
	}
	for _, c := range []struct {
		i, j  int
		share bool
	}{{0, 1, true}, {0, 2, false}, {0, 3, false}, {4, 5, true}, {0, 4, false}} {
		if same(ms[c.i], ms[c.j]) != c.share {
			t.Errorf("maps %d and %d: shared %v, want %v", c.i, c.j, !c.share, c.share)
		}
	}
	// maps of lists (ReadMap) are not shared; a plain reader shares nothing
	text = `[{"a":[1]},{"a":[1]}]`
	r = NewSeedReader(text)
	ls := ReadList(&r, false, func(r *JSONReader) map[string][]int64 {
		return ReadMap(r, false, func(r *JSONReader) []int64 { return ReadList(r, false, ReadInt) })
	})
	if !r.End() || reflect.ValueOf(ls[0]).UnsafePointer() == reflect.ValueOf(ls[1]).UnsafePointer() {
		t.Error("maps of lists shared")
	}
	r = NewJSONReader(`[{"a":"x"},{"a":"x"}]`)
	ms = ReadList(&r, false, func(r *JSONReader) map[string]string { return ReadStringMap(r, false) })
	if !r.End() || same(ms[0], ms[1]) {
		t.Error("a plain reader shares maps")
	}
	// null, when the map may be null
	r = NewSeedReader(`[{"a":"x"},null]`)
	ms = ReadList(&r, false, func(r *JSONReader) map[string]string { return ReadStringMap(r, true) })
	if !r.End() || len(ms) != 2 || ms[1] != nil || ms[0]["a"] != "x" {
		t.Errorf("with null: %v, failed %v", ms, r.Failed())
	}
	// a bad map after a good one of the same start still fails
	r = NewSeedReader(`[{"a":"x"},{"a":"x"]`)
	ReadList(&r, false, func(r *JSONReader) map[string]string { return ReadStringMap(r, false) })
	if r.End() {
		t.Error("an unterminated map read without failing")
	}
}

func FuzzJSONReader(f *testing.F) {
	f.Add(`"a\u00e9\ud800"`)
	f.Add(`-1.5e-3`)
	f.Fuzz(func(t *testing.T, s string) { checkReaderValue(t, s) })
}
