package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzCall runs scripts of tool calls with arbitrary arguments on the
// fixture world. Each line is one call: the first byte picks the tool, the
// rest are the JSON arguments. No call may panic (recovered as internal),
// a failed call must leave the state unchanged, a successful one must leave
// every field constraint holding, and every rendering must be valid JSON.
func FuzzCall(f *testing.F) {
	x := newFixture(f)
	base := x.state(f)
	var names []string
	index := map[string]byte{}
	for _, tool := range x.w.Tools {
		index[tool.Name] = byte(len(names))
		names = append(names, tool.Name)
	}
	line := func(tool, args string) string { return string([]byte{index[tool]}) + args }
	for _, script := range [][]string{
		{line("set_tier", `{"customer":"acme","tier":"gold"}`)},
		{line("mark_paid", `{"invoice":"inv1"}`), line("post_entry", `{"invoice":"inv1","amount":1200}`)},
		{line("create_customer", `{"name":"N","email":"n@n","tier":"gold","credit_limit":1,"parent":"acme"}`), line("delete_customer", `{"id":"customer_1"}`)},
		{line("create_invoice", `{"customer":"bolt","amount":3}`), line("clone_drafts", `{}`), line("void_drafts", `{}`)},
		{line("update_customer", `{"id":"bolt","email":"ap@acme.example"}`), line("insert_then_fail", `{"customer":"acme","victim":"inv2"}`)},
		{line("find_customers", `{"name":"a","active":true}`), line("list_customers", `{"offset":1}`)},
		{line("touch", `{"invoice":"inv2","on":"2026-01-01"}`), line("fail_deep", `{"n":0}`), line("rename_all", `{"suffix":"\u00e9"}`)},
		{line("delete_invoice", `{"id":"inv2"}`), line("get_invoice", `{"id":"inv2"}`)},
	} {
		f.Add([]byte(joinLines(script)))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		s := base.Clone()
		for i, l := range bytes.Split(script, []byte{'\n'}) {
			if i == 16 {
				break
			}
			if len(l) == 0 {
				continue
			}
			name := names[int(l[0])%len(names)]
			before := s.Hash()
			d, err := s.CallJSON(name, l[1:])
			if err != nil {
				if err.Code == CodeInternal && strings.Contains(err.Message, "panicked") {
					t.Fatalf("%s(%s): %v", name, l[1:], err)
				}
				if s.Hash() != before {
					t.Fatalf("%s(%s) failed (%v) but changed the state", name, l[1:], err)
				}
				continue
			}
			if !json.Valid(d.JSON()) {
				t.Fatalf("%s(%s): invalid JSON %s", name, l[1:], d.JSON())
			}
			if p := s.CheckConstraints(); len(p) > 0 {
				t.Fatalf("%s(%s) broke a constraint: %v", name, l[1:], p)
			}
		}
		if !json.Valid(s.JSON()) {
			t.Fatalf("invalid state JSON %s", s.JSON())
		}
		_ = s.Violations()
	})
}

func joinLines(lines []string) string {
	var b bytes.Buffer
	for i, l := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}
