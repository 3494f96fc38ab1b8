package runtime

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type tier string

func (v *tier) UnmarshalJSON(b []byte) error {
	return UnmarshalEnum(b, (*string)(v), []string{"bronze", "silver", "gold"})
}

type payArgs struct {
	Invoice string   `json:"invoice"`
	Amount  float64  `json:"amount"`
	Count   int64    `json:"count"`
	Small   int8     `json:"small"`
	Units   uint16   `json:"units"`
	Express bool     `json:"express"`
	Note    *string  `json:"note"`
	Due     *Date    `json:"due"`
	At      DateTime `json:"at"`
	Tier    tier     `json:"tier"`
	Tags    []string `json:"tags"`
	Lines   []struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	} `json:"lines"`
	Skip    string `json:"-"`
	private string
}

func TestDecodeArgsOK(t *testing.T) {
	var a payArgs
	raw := `{"invoice":"inv_1","amount":12.5,"count":-3,"small":127,"units":65535,"express":true,"note":"caf\u00e9 \"x\"",
		"due":"2026-03-14","at":"2026-03-14T10:30:00+01:00","tier":"gold","tags":["a","b"],"lines":[{"sku":"x","qty":2}]}`
	if err := DecodeArgs(json.RawMessage(raw), &a, "invoice", "amount"); err != nil {
		t.Fatal(err)
	}
	if a.Invoice != "inv_1" || a.Amount != 12.5 || a.Count != -3 || a.Small != 127 || a.Units != 65535 || !a.Express ||
		*a.Note != `café "x"` || a.Due.String() != "2026-03-14" || a.At.String() != "2026-03-14T09:30:00Z" ||
		a.Tier != "gold" || len(a.Tags) != 2 || a.Lines[0].Qty != 2 {
		t.Fatalf("%+v", a)
	}
	// null and absent are the same; empty, blank and null args are {}
	for _, raw := range []string{``, `  `, `null`, ` {} `, `{"note":null,"due":null}`} {
		var b payArgs
		if err := DecodeArgs(json.RawMessage(raw), &b); err != nil {
			t.Fatalf("%q: %v", raw, err)
		}
		if b.Note != nil || b.Due != nil {
			t.Fatalf("%q: %+v", raw, b)
		}
	}
}

func TestDecodeArgsErrors(t *testing.T) {
	cases := []struct {
		raw      string
		required []string
		want     string // the whole message
	}{
		{`{"amount":"abc","invoice":"i"}`, nil, `argument "amount": expected a number, got string "abc"`},
		{`{"amout":5,"invoice":"i"}`, nil, `unknown argument "amout" (did you mean "amount"?); known arguments: amount, at, count, due, express, invoice, lines, note, small, tags, tier, units`},
		{`{"amount":5}`, []string{"invoice", "amount"}, `missing required argument "invoice"`},
		{`{"invoice":null}`, []string{"invoice"}, `required argument "invoice" must not be null`},
		{`{"invoice":"a","invoice":"b"}`, nil, `argument "invoice" given more than once`},
		{`[1,2]`, nil, `arguments must be a JSON object, got an array`},
		{`"x"`, nil, `arguments must be a JSON object, got string "x"`},
		{`42`, nil, `arguments must be a JSON object, got number 42`},
		{`true`, nil, `arguments must be a JSON object, got boolean true`},
		{`{"invoice":"a"} {}`, nil, `arguments are not valid JSON: invalid character '{' after top-level value (at byte 17)`},
		{`{"invoice":`, nil, `arguments are not valid JSON: unexpected end of JSON input (at byte 11)`},
		{`{'invoice':1}`, nil, `arguments are not valid JSON: invalid character '\'' looking for beginning of object key string (at byte 2)`},
		{`{"count":1.5}`, nil, `argument "count": expected an integer, got number 1.5`},
		{`{"count":1e3}`, nil, `argument "count": expected an integer, got number 1e3`},
		{`{"count":99999999999999999999}`, nil, `argument "count": expected an integer, got number 99999999999999999999 (out of range)`},
		{`{"small":128}`, nil, `argument "small": expected an integer, got number 128 (out of range)`},
		{`{"units":-1}`, nil, `argument "units": expected a non-negative integer, got number -1`},
		{`{"units":70000}`, nil, `argument "units": expected a non-negative integer, got number 70000 (out of range)`},
		{`{"amount":1e999}`, nil, `argument "amount": expected a number, got number 1e999 (out of range)`},
		{`{"invoice":12}`, nil, `argument "invoice": expected a string, got number 12`},
		{`{"express":"yes"}`, nil, `argument "express": expected a boolean (true or false), got string "yes"`},
		{`{"express":1}`, nil, `argument "express": expected a boolean (true or false), got number 1`},
		{`{"due":"14/03/2026"}`, nil, `argument "due": expected a date "YYYY-MM-DD", got "14/03/2026"`},
		{`{"due":"2026-02-30"}`, nil, `argument "due": invalid date "2026-02-30": 2026-02 has no day 30`},
		{`{"due":20260314}`, nil, `argument "due": expected a date "YYYY-MM-DD", got number 20260314`},
		{`{"at":"2026-03-14 10:30"}`, nil, `argument "at": expected a date-time "YYYY-MM-DDThh:mm:ssZ", got "2026-03-14 10:30"`},
		{`{"tier":"platinum"}`, nil, `argument "tier": expected one of "bronze", "silver", "gold", got "platinum"`},
		{`{"tier":"Gold"}`, nil, `argument "tier": expected one of "bronze", "silver", "gold", got "Gold" (did you mean "gold"?)`},
		{`{"tier":3}`, nil, `argument "tier": expected one of "bronze", "silver", "gold", got number 3`},
		{`{"tags":"a"}`, nil, `argument "tags": expected an array, got string`},
		{`{"tags":[1]}`, nil, `argument "tags": expected a string, got number`},
		{`{"lines":[{"sku":"x","qtty":1}]}`, nil, `argument "lines": unknown field "qtty"`},
		{`{"lines":[{"qty":"2"}]}`, nil, `argument "lines": field "qty": expected an integer, got string`},
		{`{"Skip":"x"}`, nil, `unknown argument "Skip"; known arguments: amount, at, count, due, express, invoice, lines, note, small, tags, tier, units`},
		{`{"private":"x"}`, nil, `unknown argument "private"; known arguments: amount, at, count, due, express, invoice, lines, note, small, tags, tier, units`},
		{`{"AMOUNT":1}`, nil, `unknown argument "AMOUNT" (did you mean "amount"?); known arguments: amount, at, count, due, express, invoice, lines, note, small, tags, tier, units`},
		// several problems at once, in order
		{`{"amount":"x","zzz":1}`, []string{"invoice"}, `argument "amount": expected a number, got string "x"; unknown argument "zzz"; missing required argument "invoice"; known arguments: amount, at, count, due, express, invoice, lines, note, small, tags, tier, units`},
	}
	for _, c := range cases {
		var a payArgs
		err := DecodeArgs(json.RawMessage(c.raw), &a, c.required...)
		te, ok := err.(*ToolError)
		if !ok || te.Code != CodeInvalidArguments {
			t.Errorf("%s: got %v, want invalid_arguments", c.raw, err)
			continue
		}
		if te.Message != c.want {
			t.Errorf("%s:\n got  %s\n want %s", c.raw, te.Message, c.want)
		}
	}
}

func TestDecodeArgsEscapedKeyAndStrings(t *testing.T) {
	var a payArgs
	if err := DecodeArgs(json.RawMessage(`{"inv\u006fice":"a\nb","note":"\ud83d\ude00"}`), &a, "invoice"); err != nil {
		t.Fatal(err)
	}
	if a.Invoice != "a\nb" || *a.Note != "😀" {
		t.Fatalf("%+v", a)
	}
}

func TestDecodeArgsNoArgsTool(t *testing.T) {
	var none struct{}
	if err := DecodeArgs(json.RawMessage(`{}`), &none); err != nil {
		t.Fatal(err)
	}
	err := DecodeArgs(json.RawMessage(`{"x":1}`), &none)
	if err == nil || err.(*ToolError).Message != `unknown argument "x"; this tool takes no arguments` {
		t.Fatal(err)
	}
}

func TestDecodeArgsMisuse(t *testing.T) {
	var a payArgs
	for _, dst := range []any{nil, a, new(int), (*payArgs)(nil)} {
		if err := DecodeArgs(json.RawMessage(`{}`), dst); err == nil || err.(*ToolError).Code != CodeInternal {
			t.Errorf("%T: %v", dst, err)
		}
	}
	if err := DecodeArgs(json.RawMessage(`{}`), &a, "nope"); err == nil || err.(*ToolError).Code != CodeInternal {
		t.Error(err)
	}
}

func TestDecodeArgsEmbedded(t *testing.T) {
	type Base struct {
		ID string `json:"id"`
	}
	var a struct {
		Base
		N int `json:"n"`
	}
	if err := DecodeArgs(json.RawMessage(`{"id":"x","n":2}`), &a, "id"); err != nil || a.ID != "x" || a.N != 2 {
		t.Fatal(err, a)
	}
}

func TestUnmarshalEnumNull(t *testing.T) {
	v := tier("silver")
	if err := json.Unmarshal([]byte(`null`), &v); err != nil || v != "silver" {
		t.Fatal(err, v)
	}
}

// fuzzArgs has one field of every kind DecodeArgs handles.
type fuzzArgs struct {
	S   string            `json:"s"`
	F   float64           `json:"f"`
	F32 float32           `json:"f32"`
	I   int64             `json:"i"`
	I8  int8              `json:"i8"`
	U   uint32            `json:"u"`
	B   bool              `json:"b"`
	PS  *string           `json:"ps"`
	PF  *float64          `json:"pf"`
	D   Date              `json:"d"`
	PD  *Date             `json:"pd"`
	T   DateTime          `json:"t"`
	E   tier              `json:"e"`
	L   []string          `json:"l"`
	M   map[string]int    `json:"m"`
	A   any               `json:"a"`
	N   struct{ X int }   `json:"n"`
	R   json.RawMessage   `json:"r"`
	LL  [][]float64       `json:"ll"`
	PP  **int             `json:"pp"`
	MM  map[string]string `json:"mm"`
}

func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `{"s":"x","f":1.5,"i":3,"b":true}`, `{"s":1}`, `{"x":1}`, `{"s":"a","s":"b"}`,
		`{"d":"2026-03-14","pd":"2024-02-29","t":"2026-03-14T09:30:00Z","e":"gold"}`, `{"e":"GOLD"}`, `{"i":1e3}`,
		`{"l":["a",1]}`, `{"m":{"a":1}}`, `{"n":{"X":1,"Y":2}}`, `{"r":{"any":[1,2]}}`, `{"ll":[[1,2],[3]]}`,
		`{"pp":5}`, `{"s":"\u0000\ud800"}`, "{\"s\":\"\xff\"}", `{"f":-0.0e-5}`, `{"u":-1}`, `{} x`, `{"a":`,
		`{"s":"x"}   `, `{"\u0073":"escaped key"}`, `{"i8":-129}`, `{"f32":1e39}`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, raw []byte, reqMask uint8) {
		var required []string
		for i, name := range []string{"s", "f", "i", "b", "d", "e", "l", "n"} {
			if reqMask&(1<<i) != 0 {
				required = append(required, name)
			}
		}
		var got fuzzArgs
		err := DecodeArgs(raw, &got, required...)
		if err != nil {
			te, ok := err.(*ToolError)
			if !ok || te.Code != CodeInvalidArguments || te.Message == "" {
				t.Fatalf("error %#v is not an invalid_arguments ToolError", err)
			}
			return
		}
		// Accepted input is a JSON object (or nothing/null) that
		// encoding/json decodes to exactly the same value.
		trimmed := bytes.TrimSpace(raw)
		if len(trimmed) == 0 || string(trimmed) == "null" {
			if !reflect.DeepEqual(got, fuzzArgs{}) {
				t.Fatalf("empty args gave %+v", got)
			}
			return
		}
		if !json.Valid(raw) || trimmed[0] != '{' {
			t.Fatalf("accepted %q", raw)
		}
		var want fuzzArgs
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("accepted %q, which encoding/json rejects: %v", raw, err)
		}
		if want.R != nil && got.R != nil && json.Valid(want.R) {
			// RawMessage keeps the bytes: both must be the same text.
			if !bytes.Equal(want.R, got.R) {
				t.Fatalf("raw differs: %q vs %q", got.R, want.R)
			}
		}
		if !reflect.DeepEqual(normFuzz(got), normFuzz(want)) {
			t.Fatalf("input %q\n DecodeArgs    %+v\n encoding/json %+v", raw, got, want)
		}
		for _, r := range required {
			if !strings.Contains(string(raw), r) && !strings.Contains(string(raw), `\u`) {
				t.Fatalf("required %q accepted without being in %q", r, raw)
			}
		}
	})
}

// normFuzz makes values comparable where encoding/json and DecodeArgs
// legitimately differ: nothing, today (RawMessage spacing is compared
// above).
func normFuzz(a fuzzArgs) fuzzArgs {
	a.R = nil
	return a
}

func TestDecodeArgsHostile(t *testing.T) {
	var b strings.Builder
	b.WriteString("{")
	for i := range 20000 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + strings.Repeat("k", 200) + string(rune('a'+i%26)) + `":1`)
	}
	b.WriteString(`,"amount":"x"}`)
	var a payArgs
	err := DecodeArgs(json.RawMessage(b.String()), &a, "invoice")
	msg := err.(*ToolError).Message
	if len(msg) > 2000 || strings.Contains(msg, "did you mean") || !strings.Contains(msg, "and 19994 more problems; known arguments:") {
		t.Fatalf("%d bytes: %.300s…%s", len(msg), msg, msg[max(0, len(msg)-200):])
	}
	if e := UnknownTool(strings.Repeat("x", 10000), []string{"a"}); len(e.Message) > 200 {
		t.Fatal(len(e.Message))
	}
}
