package difftest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/generated/tau2_retail"
	"github.com/worldc/worldc/runtime"
)

// The generated encoders (AppendJSON, HashFields) against encoding/json,
// on every record and entity type of every example world: the rows of
// the seeds, random values, and values built from fuzz input.

var (
	appenderType = reflect.TypeFor[runtime.JSONAppender]()
	hashableType = reflect.TypeFor[runtime.Hashable]()
	tableType    = reflect.TypeFor[interface{ Len() int }]()
)

// recordTypes lists the Go types of a world's entities (pointers) and the
// value records they hold, by reflection on its State, sorted by name.
func recordTypes(t testing.TB, w runtime.World) []reflect.Type {
	t.Helper()
	ep, err := w.NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	sv := reflect.ValueOf(ep).MethodByName("State").Call(nil)[0].Elem()
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(rt reflect.Type) {
		switch rt.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			walk(rt.Elem())
			return
		case reflect.Struct:
		default:
			return
		}
		if seen[rt] || rt.PkgPath() == reflect.TypeFor[runtime.Date]().PkgPath() {
			return
		}
		seen[rt] = true
		for i := range rt.NumField() {
			walk(rt.Field(i).Type)
		}
	}
	var entities []reflect.Type
	for i := range sv.NumField() {
		ft := sv.Type().Field(i)
		if !ft.IsExported() || !ft.Type.Implements(tableType) {
			continue
		}
		// *runtime.Table[*X]: the row type is the result of Get.
		m, _ := ft.Type.MethodByName("Get")
		row := m.Type.Out(0)
		entities = append(entities, row)
		walk(row)
	}
	if len(entities) == 0 {
		t.Fatalf("%s: no tables found in its State", w.Info().Name)
	}
	var out []reflect.Type
	for rt := range seen {
		out = append(out, rt)
	}
	slices.SortFunc(out, func(a, b reflect.Type) int { return strings.Compare(a.Name(), b.Name()) })
	for i, rt := range out {
		if slices.Contains(entities, reflect.PointerTo(rt)) {
			out[i] = reflect.PointerTo(rt)
		}
	}
	return out
}

// stdJSON is the reference: encoding/json without HTML escaping, as
// observations were written before the generated encoders.
func stdJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// hashStream is what v's HashFields writes, through the runtime's row
// digest (the digest of the stream).
func hashStream(v runtime.Hashable) string {
	h := runtime.NewHasher()
	h.WriteValue(v)
	return h.Sum()
}

// checkEncoding compares v's AppendJSON with encoding/json: the same bytes,
// or both failing.
func checkEncoding(t *testing.T, label string, v any) {
	t.Helper()
	want, werr := stdJSON(v)
	a, ok := v.(runtime.JSONAppender)
	if !ok {
		t.Fatalf("%s: %T has no AppendJSON", label, v)
	}
	prefix := []byte("prefix")
	got, gerr := runtime.AppendJSONOf(slices.Clip(prefix), a)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%s: encoding/json error %v, AppendJSON error %v (got %s)", label, werr, gerr, got)
	}
	if werr != nil {
		return
	}
	if !bytes.HasPrefix(got, prefix) || !bytes.Equal(got[len(prefix):], want) {
		t.Fatalf("%s: AppendJSON of %T differs from encoding/json:\n got %s\nwant %s", label, v, got, want)
	}
}

// TestEncodersSeedRows: every row of every example world's seed encodes
// as encoding/json encodes it.
func TestEncodersSeedRows(t *testing.T) {
	for _, name := range sortedWorlds() {
		w := compiled[name]
		t.Run(name, func(t *testing.T) {
			ep, err := w.NewEpisode("")
			if err != nil {
				t.Fatal(err)
			}
			sv := reflect.ValueOf(ep).MethodByName("State").Call(nil)[0].Elem()
			rows := 0
			for i := range sv.NumField() {
				f := sv.Field(i)
				if !sv.Type().Field(i).IsExported() || !f.Type().Implements(tableType) {
					continue
				}
				// range over Table.All(), an iter.Seq of the rows
				seq := f.MethodByName("All").Call(nil)[0]
				yield := reflect.MakeFunc(seq.Type().In(0), func(args []reflect.Value) []reflect.Value {
					checkEncoding(t, fmt.Sprintf("row %d", rows), args[0].Interface())
					rows++
					return []reflect.Value{reflect.ValueOf(true)}
				})
				seq.Call([]reflect.Value{yield})
			}
			if rows == 0 {
				t.Fatal("no seed rows")
			}
			t.Logf("%d rows", rows)
		})
	}
}

func sortedWorlds() []string {
	var names []string
	for n := range compiled {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// A valueSource makes the choices of a random value: from a PRNG, or from
// fuzz input (then 0 when it runs out).
type valueSource struct {
	r    *rand.Rand
	data []byte
}

func (s *valueSource) intn(n int) int {
	if n <= 1 {
		return 0
	}
	if s.r != nil {
		return s.r.IntN(n)
	}
	if len(s.data) == 0 {
		return 0
	}
	v := int(s.data[0])
	if n > 256 && len(s.data) > 1 {
		v = v<<8 | int(s.data[1])
		s.data = s.data[1:]
	}
	s.data = s.data[1:]
	return v % n
}

func (s *valueSource) uint64() uint64 {
	if s.r != nil {
		return s.r.Uint64()
	}
	var u uint64
	for range 8 {
		u = u<<8 | uint64(s.intn(256))
	}
	return u
}

// pieces of strings that encoding/json escapes or handles specially.
var stringPieces = []string{
	"", "a", "Zoë", "<", ">", "&", `"`, `\`, "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
	"\u2028", "\u2029", "\xff", "\xe2\x80", "é", "日本", "😀", "\ufffd", "#W2378156", " ", "İ", "ß", "Σ",
}

func (s *valueSource) string() string {
	var b strings.Builder
	for range s.intn(6) {
		if s.intn(3) == 0 {
			b.WriteByte(byte(s.intn(256)))
		} else {
			b.WriteString(stringPieces[s.intn(len(stringPieces))])
		}
	}
	return b.String()
}

var floatSamples = []float64{0, math.Copysign(0, -1), 1, -1, 0.1, 52.88, 1e-6, 9.99e-7, 1e20, 1e21, 123456789012345678901.0, 5e-324, math.MaxFloat64, -3.5e-9, 2.5, 1e100}

func (s *valueSource) float() float64 {
	switch s.intn(3) {
	case 0:
		return floatSamples[s.intn(len(floatSamples))]
	case 1:
		return float64(int64(s.uint64()%2000000)-1000000) / 100
	}
	f := math.Float64frombits(s.uint64())
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 1.5
	}
	return f
}

// fill sets v (settable) to a random value of its type. A variant record
// (a struct with a MarshalJSON method and a Valid tag) gets one of its
// cases with that case's fields set.
func (s *valueSource) fill(v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.String:
		if m := v.Addr().MethodByName("UnmarshalJSON"); m.IsValid() && v.Type() != reflect.TypeFor[string]() {
			// an enum: usually one of its values
			if vals := enumValues(v.Type()); len(vals) > 0 && s.intn(8) != 0 {
				v.SetString(vals[s.intn(len(vals))])
				return
			}
		}
		v.SetString(s.string())
	case reflect.Bool:
		v.SetBool(s.intn(2) == 1)
	case reflect.Int64, reflect.Int32:
		switch v.Type() {
		case reflect.TypeFor[runtime.Date]():
			v.SetInt(int64(s.intn(2_000_000)) - 700_000)
			return
		case reflect.TypeFor[runtime.DateTime]():
			v.SetInt(int64(s.uint64()%(400_000_000_000)) - 62_000_000_000)
			return
		}
		n := int64(s.uint64())
		if s.intn(2) == 0 {
			n %= 1000
		}
		v.SetInt(n)
	case reflect.Float64:
		v.SetFloat(s.float())
	case reflect.Pointer:
		if depth > 3 || s.intn(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		s.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		if s.intn(5) == 0 || depth > 3 {
			return // nil
		}
		n := s.intn(4)
		sl := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			s.fill(sl.Index(i), depth+1)
		}
		v.Set(sl)
	case reflect.Map:
		if s.intn(5) == 0 || depth > 3 {
			return // nil
		}
		m := reflect.MakeMap(v.Type())
		for range s.intn(5) {
			e := reflect.New(v.Type().Elem()).Elem()
			s.fill(e, depth+1)
			m.SetMapIndex(reflect.ValueOf(s.string()), e)
		}
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				s.fill(v.Field(i), depth+1)
			}
		}
	}
}

// enumValues are the values of a generated enum type, found through its
// UnmarshalJSON: the message for a wrong value lists them.
func enumValues(t reflect.Type) []string {
	p := reflect.New(t)
	err := p.Interface().(json.Unmarshaler).UnmarshalJSON([]byte(`"\u0000"`))
	if err == nil {
		return nil
	}
	msg := err.Error()
	_, list, ok := strings.Cut(msg, "expected one of ")
	if !ok {
		return nil
	}
	list, _, _ = strings.Cut(list, `, got`)
	var out []string
	for _, q := range strings.Split(list, ", ") {
		var v string
		if json.Unmarshal([]byte(q), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// randomValue is a random value of rt (a pointer for entities).
func (s *valueSource) value(rt reflect.Type) any {
	if rt.Kind() == reflect.Pointer {
		p := reflect.New(rt.Elem())
		s.fill(p.Elem(), 0)
		return p.Interface()
	}
	v := reflect.New(rt).Elem()
	s.fill(v, 0)
	return v.Interface()
}

// checkValue compares both encoders of v: AppendJSON with encoding/json,
// and, for a pair of values, that HashFields tells apart values whose
// JSON differs.
func checkValue(t *testing.T, label string, v any, hashes map[string][]byte) {
	t.Helper()
	checkEncoding(t, label, v)
	hv, ok := v.(runtime.Hashable)
	if !ok {
		t.Fatalf("%s: %T has no HashFields", label, v)
	}
	j, err := stdJSON(v)
	if err != nil {
		return
	}
	d := hashStream(hv)
	if prev, ok := hashes[d]; ok && !bytes.Equal(prev, j) {
		t.Fatalf("%s: two values hash the same:\n%s\n%s", label, prev, j)
	}
	hashes[d] = j
}

// TestEncodersRandom: random values of every record and entity type of
// every example world encode as encoding/json encodes them, and values
// with different encodings hash differently.
func TestEncodersRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 40
	}
	for _, name := range sortedWorlds() {
		t.Run(name, func(t *testing.T) {
			types := recordTypes(t, compiled[name])
			s := &valueSource{r: rand.New(rand.NewPCG(1, uint64(len(name))))}
			for _, rt := range types {
				if !rt.Implements(appenderType) || !rt.Implements(hashableType) {
					t.Fatalf("%v lacks AppendJSON or HashFields", rt)
				}
				hashes := map[string][]byte{}
				for i := range n {
					checkValue(t, fmt.Sprintf("%v #%d", rt, i), s.value(rt), hashes)
				}
			}
			t.Logf("%d types", len(types))
		})
	}
}

// FuzzEncoders builds a value of a record type of an example world from
// the fuzz input and compares its encoders with encoding/json.
func FuzzEncoders(f *testing.F) {
	var all []reflect.Type
	for _, name := range sortedWorlds() {
		all = append(all, recordTypes(f, compiled[name])...)
	}
	f.Add([]byte{0})
	f.Add([]byte("\x05\x01\x02<&>\xe2\x80\xa8 order"))
	f.Add(bytes.Repeat([]byte{7, 200, 3}, 40))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := &valueSource{data: data}
		rt := all[s.intn(len(all))]
		checkValue(t, rt.String(), s.value(rt), map[string][]byte{})
	})
}

// TestEncodersCoverTheWorlds: the types the random test reaches include
// every entity and value record of every example world (compared by
// name with the IR).
func TestEncodersCoverTheWorlds(t *testing.T) {
	for _, w := range specs(t) {
		gw := compiled[w.Name]
		if gw == nil {
			continue
		}
		have := map[string]bool{}
		for _, rt := range recordTypes(t, gw) {
			if rt.Kind() == reflect.Pointer {
				rt = rt.Elem()
			}
			have[strings.ToLower(rt.Name())] = true
		}
		for _, e := range w.Entities {
			if !have[strings.ToLower(strings.ReplaceAll(e.Name, "_", ""))] {
				t.Errorf("%s: entity %s not reached", w.Name, e.Name)
			}
		}
		for _, sd := range w.Structs {
			if !have[strings.ToLower(strings.ReplaceAll(sd.Name, "_", ""))] {
				t.Errorf("%s: record %s not reached", w.Name, sd.Name)
			}
		}
	}
}

var updateHashes = flag.Bool("update-hashes", false, "rewrite testdata/state_hashes.golden")

// TestStateHashesGolden pins the state hashes of every example world: its
// seed, and the start state of each of its tasks. The canonical form of
// rows (runtime.FieldHasher) depends on nothing but the values, so these
// are the same on every platform and in every run; a change here changes
// every recorded trajectory's hashes and must be deliberate
// (-update-hashes).
func TestStateHashesGolden(t *testing.T) {
	var b strings.Builder
	for _, name := range sortedWorlds() {
		w := compiled[name]
		ids := []string{""}
		for _, task := range w.Tasks() {
			ids = append(ids, task.ID)
		}
		for _, id := range ids {
			ep, err := w.NewEpisode(id)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %q %s\n", name, id, ep.StateHash())
		}
	}
	// Rows changed since the seed live in the state's overlay, not its
	// frozen base: they hash the same there as after a Freeze.
	ep, err := tau2_retail.NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		`{"name":"cancel_pending_order","args":{"order_id":"#W5918442","reason":"no longer needed"}}`,
		`{"name":"modify_user_address","args":{"user_id":"ethan_khan_3904","address1":"1 <Main> & St","address2":"","city":"Zürich","state":"ZH","country":"CH","zip":"8001"}}`,
		`{"name":"modify_pending_order_payment","args":{"order_id":"#W2378156","payment_method_id":"gift_card_7245904"}}`,
	} {
		var call struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		}
		if err := json.Unmarshal([]byte(c), &call); err != nil {
			t.Fatal(err)
		}
		o := ep.Call(call.Name, call.Args)
		fmt.Fprintf(&b, "tau2_retail after %s (ok %v) %s\n", call.Name, o.OK, ep.StateHash())
	}
	frozen := ep.State().Clone()
	frozen.Freeze()
	if h, f := ep.StateHash(), frozen.Hash(); h != f {
		t.Errorf("tau2_retail: state hash %s, %s after Freeze", h, f)
	}
	path := filepath.Join("testdata", "state_hashes.golden")
	if *updateHashes {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("state hashes differ from %s (run with -update-hashes if the change is deliberate); first:\n got %s\nwant %s", path, gl[i], wl[i])
			}
		}
		t.Fatalf("state hashes differ from %s: %d lines, want %d", path, len(gl), len(wl))
	}
}
