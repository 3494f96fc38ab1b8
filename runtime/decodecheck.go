package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// An ArgDecoder is a tool's generated argument decoder beside
// [DecodeArgs], for the differential checks of generated packages' tests
// ([CheckArgDecoders], [CheckArgDecoding]).
type ArgDecoder struct {
	Tool string
	// Fast is the generated decoder: the decoded arguments struct, and
	// whether it could decode raw.
	Fast func(raw []byte) (any, bool)
	// Slow decodes raw with DecodeArgs into the same struct.
	Slow func(raw []byte) (any, error)
}

// CheckArgDecoding checks one input: when the generated decoder accepts
// it, DecodeArgs must accept it too and give the same arguments (when it
// does not, the handler falls back to DecodeArgs, whose answer is the
// reference by construction).
func CheckArgDecoding(d ArgDecoder, raw []byte) error {
	fast, ok := d.Fast(raw)
	if !ok {
		return nil
	}
	slow, err := d.Slow(raw)
	if err != nil {
		return fmt.Errorf("%s: the generated decoder accepts %s, DecodeArgs rejects it: %v", d.Tool, raw, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		return fmt.Errorf("%s: arguments %s: the generated decoder gives %#v, DecodeArgs %#v", d.Tool, raw, fast, slow)
	}
	return nil
}

// ArgSamples are arguments of w's tools for the checks: those of the
// golden solutions of its tasks, each text once, and variations of each (a member left
// out, null, given twice or unknown; values of other types, with escapes,
// numbers in other spellings; other layouts; trailing data), by tool.
func ArgSamples(w World) map[string][][]byte {
	out := map[string][][]byte{}
	// Arguments given twice (a lookup many tasks make) are sampled once:
	// their variations are the same too.
	seen := map[string]map[string]bool{}
	for _, t := range w.Tasks() {
		for _, c := range t.Solution {
			if len(c.Args) == 0 || seen[c.Tool][string(c.Args)] {
				continue
			}
			if seen[c.Tool] == nil {
				seen[c.Tool] = map[string]bool{}
			}
			seen[c.Tool][string(c.Args)] = true
			out[c.Tool] = append(out[c.Tool], c.Args)
			out[c.Tool] = append(out[c.Tool], variations(c.Args)...)
		}
	}
	for _, t := range w.Tools() {
		out[t.Name] = append(out[t.Name], []byte(``), []byte(`null`), []byte(` {} `), []byte(`[]`), []byte(`{"a":1}`))
	}
	return out
}

// variations of a JSON object text.
func variations(raw []byte) [][]byte {
	var members []struct {
		k string
		v json.RawMessage
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil
		}
		members = append(members, struct {
			k string
			v json.RawMessage
		}{tok.(string), v})
	}
	obj := func(skip int, key func(i int, k string) string, val func(i int, v json.RawMessage) string, extra string) []byte {
		var b strings.Builder
		b.WriteByte('{')
		n := 0
		for i, m := range members {
			if i == skip {
				continue
			}
			if n > 0 {
				b.WriteByte(',')
			}
			n++
			k, _ := json.Marshal(m.k)
			b.WriteString(key(i, string(k)))
			b.WriteByte(':')
			b.WriteString(val(i, m.v))
		}
		if extra != "" {
			if n > 0 {
				b.WriteByte(',')
			}
			b.WriteString(extra)
		}
		b.WriteByte('}')
		return []byte(b.String())
	}
	sameKey := func(_ int, k string) string { return k }
	sameVal := func(_ int, v json.RawMessage) string { return string(v) }
	var out [][]byte
	var indented bytes.Buffer
	if json.Indent(&indented, raw, " ", "\t") == nil {
		out = append(out, indented.Bytes())
	}
	out = append(out, append(append([]byte(nil), raw...), " x"...), append([]byte("\n"), raw...))
	out = append(out, obj(-1, sameKey, sameVal, `"no_such_argument":1`))
	for i, m := range members {
		k, _ := json.Marshal(m.k)
		out = append(out, obj(i, sameKey, sameVal, ""))
		out = append(out, obj(-1, sameKey, sameVal, string(k)+":"+string(m.v)))
		out = append(out, obj(-1, func(j int, k string) string {
			if j == i && len(k) > 2 {
				return fmt.Sprintf(`"\u%04x%s`, k[1], k[2:])
			}
			return k
		}, sameVal, ""))
		for _, alt := range altValues(m.v) {
			out = append(out, obj(-1, sameKey, func(j int, v json.RawMessage) string {
				if j == i {
					return alt
				}
				return string(v)
			}, ""))
		}
	}
	return out
}

// altValues are values to put in place of v: of other types, and of the
// same type spelled otherwise.
func altValues(v json.RawMessage) []string {
	alts := []string{`null`, `5`, `"x"`, `true`, `[]`, `{}`, `1.5`, `-0`, `1e2`, `99999999999999999999`}
	s := string(v)
	switch {
	case strings.HasPrefix(s, `"`) && len(s) >= 2:
		body := s[1 : len(s)-1]
		alts = append(alts, `"\u00e9`+body+`"`, `"`+body+`\ud83d\ude00"`, `"\ud800`+body+`"`, `"\n"`, `"`+body+"\xff"+`"`, `"\/`+body+`"`)
	case strings.HasPrefix(s, `[`):
		alts = append(alts, `[null]`, `[1]`, `["a","b"]`, `[`+s+`]`)
	default:
		alts = append(alts, s+`.0`, s+`e0`, ` `+s+` `)
	}
	return alts
}

// CheckArgDecoders runs [CheckArgDecoding] on the samples of [ArgSamples],
// and checks that the generated decoders decode every argument of the
// golden solutions that DecodeArgs decodes (so that they are the path
// calls take, not only a path that always gives up).
func CheckArgDecoders(w World, decoders []ArgDecoder) []error {
	var errs []error
	samples := ArgSamples(w)
	golden := map[string][][]byte{}
	for _, t := range w.Tasks() {
		for _, c := range t.Solution {
			golden[c.Tool] = append(golden[c.Tool], c.Args)
		}
	}
	for _, d := range decoders {
		for _, raw := range samples[d.Tool] {
			if err := CheckArgDecoding(d, raw); err != nil {
				errs = append(errs, err)
			}
		}
		for _, raw := range golden[d.Tool] {
			if _, err := d.Slow(raw); err != nil {
				continue
			}
			if _, ok := d.Fast(raw); !ok {
				errs = append(errs, fmt.Errorf("%s: the generated decoder cannot decode %s, which DecodeArgs decodes", d.Tool, raw))
			}
		}
	}
	return errs
}
