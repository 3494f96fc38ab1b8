package runtime

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// stdEncode is the reference: encoding/json without HTML escaping.
func stdEncode(t testing.TB, v any) string {
	t.Helper()
	b, err := marshalJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkString(t testing.TB, s string) {
	t.Helper()
	if got, want := string(AppendString([]byte("x"), s)), "x"+stdEncode(t, s); got != want {
		t.Fatalf("AppendString(%q) = %s, encoding/json %s", s, got, want)
	}
}

func checkFloat(t testing.TB, f float64) {
	t.Helper()
	if got, want := string(AppendFloat(nil, f)), stdEncode(t, f); got != want {
		t.Fatalf("AppendFloat(%v) = %s, encoding/json %s", f, got, want)
	}
}

func TestAppendStringAsEncodingJSON(t *testing.T) {
	for b := range 256 {
		checkString(t, string([]byte{byte(b)}))
		checkString(t, "a"+string([]byte{byte(b)})+"é")
	}
	for _, s := range []string{"", "<a href=\"x\">&amp;</a>", "\u2028\u2029", "\xe2\x80", "日本語", "😀\xff", "\\\"/", "\x00\x1f\x7f"} {
		checkString(t, s)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		checkString(t, string(b))
	}
	// mostly safe ASCII, up to 40 bytes, with a byte of each kind that
	// needs a look (control, '"', '\\', not ASCII) at every position:
	// AppendString reads eight bytes at a time
	for n := range 41 {
		b := []byte(strings.Repeat("abcdefgh", 6)[:n])
		checkString(t, string(b))
		for i := range b {
			for _, c := range []byte{0, 0x1f, ' ', '!', '"', '#', '[', '\\', ']', 0x7f, 0x80, 0xc3, 0xe2, 0xff} {
				saved := b[i]
				b[i] = c
				checkString(t, string(b))
				b[i] = saved
			}
		}
	}
}

func TestAppendFloatAsEncodingJSON(t *testing.T) {
	for _, f := range []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 1e-9, -1e-10, 5e-324, math.MaxFloat64, 123.456, 1e100} {
		checkFloat(t, f)
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) || math.IsInf(f, 0) {
			continue
		}
		checkFloat(t, f)
		checkFloat(t, float64(r.IntN(1_000_000))/100)
		// prices and amounts: the cents fast path, and its edges
		checkFloat(t, float64(r.Int64N(4e15)-2e15)/100)
		checkFloat(t, float64(r.Int64N(2e6)-1e6)/10)
		checkFloat(t, float64(r.Int64N(2e6)-1e6)/1000)
		checkFloat(t, math.Nextafter(float64(r.IntN(1_000_000))/100, math.Inf(1)))
	}
	for _, f := range []float64{0.01, -0.01, 0.1 + 0.2, 0.29, 1.005, 9999999999999.99, 99999999999999.99, 1e13, 1e15, -1e15 + 1, 2.5e-7, 4503599627370495.5} {
		checkFloat(t, f)
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		_, err := AppendJSONOf(nil, floatValue(f))
		_, werr := marshalJSON(f)
		var ee *EncodeError
		if !errors.As(err, &ee) || werr == nil || err.Error() != werr.Error() {
			t.Errorf("AppendFloat(%v): error %v, encoding/json %v", f, err, werr)
		}
	}
}

func TestAppendCompositesAsEncodingJSON(t *testing.T) {
	m := map[string]float64{"b": 1, "a": 2.5, "é": 3, "A": 1e-9, "<": 0}
	big := map[string]string{}
	for i := range 40 {
		big[strings.Repeat("k", i%7)+string(rune('a'+i%26))+string(rune('0'+i/26))] = "v"
	}
	cases := []struct {
		got  []byte
		want any
	}{
		{AppendMap(nil, m, AppendFloat), m},
		{AppendMap(nil, big, AppendString), big},
		{AppendMap(nil, map[string]string(nil), AppendString), map[string]string(nil)},
		{AppendMap(nil, map[string]string{}, AppendString), map[string]string{}},
		{AppendList(nil, []int64{1, -2, 3}, AppendInt), []int64{1, -2, 3}},
		{AppendList(nil, []bool(nil), AppendBool), []bool(nil)},
		{AppendList(nil, []bool{}, AppendBool), []bool{}},
		{AppendList(nil, []Date{MustDate("2026-01-02"), MustDate("1999-12-31")}, AppendValue[Date]), []Date{MustDate("2026-01-02"), MustDate("1999-12-31")}},
		{AppendOptional(nil, (*string)(nil), AppendString), (*string)(nil)},
		{AppendOptional(nil, Ptr("x"), AppendString), Ptr("x")},
		{MustDateTime("2026-03-14T09:30:00Z").AppendJSON(nil), MustDateTime("2026-03-14T09:30:00Z")},
		{Date(-800000).AppendJSON(nil), Date(-800000)},
	}
	for _, c := range cases {
		if want := stdEncode(t, c.want); string(c.got) != want {
			t.Errorf("got %s, encoding/json %s", c.got, want)
		}
	}
}

// TestAppendMapSizes: maps of every size around the one-pass path's
// bound, with keys that sort in every order, as encoding/json writes them.
func TestAppendMapSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := range 2*smallMap + 2 {
		for range 50 {
			m := map[string]string{}
			for len(m) < n {
				k := make([]byte, r.IntN(4))
				for i := range k {
					k[i] = "aAb\xc3\xa9 "[r.IntN(6)]
				}
				m[string(k)] = string(k) + "v"
			}
			if got, want := string(AppendMap(nil, m, AppendString)), stdEncode(t, m); got != want {
				t.Fatalf("AppendMap: %s, encoding/json %s", got, want)
			}
		}
	}
}

// TestAppendMapAllocates nothing for a small map.
func TestAppendMapAllocatesNothing(t *testing.T) {
	m := map[string]string{"color": "black", "size": "S", "material": "cotton", "style": "crew neck"}
	buf := make([]byte, 0, 256)
	if n := testing.AllocsPerRun(100, func() { buf = AppendMap(buf[:0], m, AppendString) }); n != 0 {
		t.Errorf("AppendMap: %v allocations", n)
	}
}

type appenderRow struct {
	Name string  `json:"name"`
	X    float64 `json:"x"`
}

func (r *appenderRow) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"name":`...)
	dst = AppendString(dst, r.Name)
	dst = append(dst, `,"x":`...)
	dst = AppendFloat(dst, r.X)
	return append(dst, '}')
}

// TestEncodeObservation: the registry's encoding of every kind of data is
// what encoding/json (without HTML escaping) writes, and the observation's
// encoding is that of MarshalJSON before it was written once (compacting
// Data).
func TestEncodeObservation(t *testing.T) {
	for _, data := range []any{nil, "a<b>\u2028", int64(-42), 2.5, true, &appenderRow{"<x>", 1e21}, []string{"a"}, map[string]int{"b": 1, "a": 2}} {
		enc, err := encodeObservation(data)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"ok":true,"data":` + stdEncode(t, data) + `}`
		if string(enc) != want {
			t.Errorf("%T: %s, want %s", data, enc, want)
		}
		o := okEncoded(enc)
		got, err := o.AppendJSON([]byte("pre"))
		if err != nil || string(got) != "pre"+want {
			t.Errorf("%T: AppendJSON %s, %v", data, got, err)
		}
		// The same observation decoded (no encoding kept) writes the same.
		var back Observation
		if err := json.Unmarshal(enc, &back); err != nil {
			t.Fatal(err)
		}
		if back.encoded() {
			t.Fatal("a decoded observation claims an encoding")
		}
		if m, err := back.MarshalJSON(); err != nil || string(m) != want {
			t.Errorf("%T: decoded MarshalJSON %s, %v", data, m, err)
		}
		// Data replaced after the call is what is written.
		o.Data = json.RawMessage(`{ "z" : 1 }`)
		if m, _ := o.MarshalJSON(); string(m) != `{"ok":true,"data":{"z":1}}` {
			t.Errorf("replaced Data: %s", m)
		}
	}
	if _, err := encodeObservation(&appenderRow{X: math.NaN()}); err == nil || !strings.Contains(err.Error(), "unsupported value: NaN") {
		t.Errorf("NaN data: %v", err)
	}
	te := PreconditionFailed("a <b> & \"c\"\u2028")
	got, err := ErrorObservation(te).MarshalJSON()
	if want := `{"ok":false,"error":` + stdEncode(t, te) + `}`; err != nil || string(got) != want {
		t.Errorf("error observation: %s, want %s", got, want)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a<b>&\u2028\xff")
	f.Fuzz(func(t *testing.T, s string) { checkString(t, s) })
}

func FuzzAppendFloat(f *testing.F) {
	f.Add(uint64(0x3ff0000000000000))
	f.Fuzz(func(t *testing.T, bits uint64) {
		x := math.Float64frombits(bits)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return
		}
		checkFloat(t, x)
	})
}
