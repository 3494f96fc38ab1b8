package runtime

import (
	"encoding/json"
	"math/rand/v2"
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
	alphabet := []string{`"`, `\`, `u`, `d8`, `00`, `dc`, `a`, `0`, `1`, `.`, `e`, `-`, `+`, "\xff", "é", ` `, `n`, `/`}
	for range 20000 {
		s := ""
		if rng.IntN(2) == 0 {
			s = `"`
		}
		for range rng.IntN(8) {
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

func FuzzJSONReader(f *testing.F) {
	f.Add(`"a\u00e9\ud800"`)
	f.Add(`-1.5e-3`)
	f.Fuzz(func(t *testing.T, s string) { checkReaderValue(t, s) })
}
