package eval

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// FuzzCall runs scripts of tool calls with arbitrary arguments on the
// fixture world and the shop world (composite values). Each line is one
// call: the first byte picks the tool (of either world), the rest are the
// JSON arguments. No call may panic (recovered as internal), a failed call
// must leave the state unchanged, a successful one must leave every field
// constraint holding, every rendering must be valid JSON, and nothing a
// call writes may reach a value shared with anything else: a clone taken
// before the call and every earlier observation keep their JSON.
func FuzzCall(f *testing.F) {
	x := newFixture(f)
	y := newShop(f)
	bases := []*State{x.state(f), y.state(f)}
	type entry struct {
		name  string
		world int
	}
	var tools []entry
	index := map[string]byte{}
	for wi, w := range []*ir.World{x.w, y.w} {
		for _, tool := range w.Tools {
			index[tool.Name] = byte(len(tools))
			tools = append(tools, entry{tool.Name, wi})
		}
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
		{line("get_order", `{"id":"#W1"}`), line("cancel_order", `{"order_id":"#W1"}`), line("get_user", `{"id":"ann"}`)},
		{line("create_order", `{"order_id":"#Q","user":"bob","items":[{"item_id":"kb_linear","product":"p_kb","price":100,"options":{"a":"b"}},{"item_id":"kb_tactile","product":"p_kb","price":120.5,"options":{}}],"status":"pending","history":[]}`),
			line("modify_items", `{"order_id":"#Q","item_ids":["kb_linear","kb_tactile"],"new_ids":["kb_tactile","kb_silent"]}`), line("summary", `{"order_id":"#Q"}`)},
		{line("add_method", `{"user":"bob","method":{"source":"gift_card","id":"g","balance":5}}`), line("set_balance", `{"user":"bob","method":"g","balance":-1}`), line("set_balance", `{"user":"bob","method":"cc_1","balance":1}`)},
		{line("set_item", `{"order_id":"#W3","index":0,"item":{"item_id":"x","product":"p_kb","price":1,"options":{"k":"v"},"qty":3}}`), line("copies", `{"order_id":"#W3"}`), line("find_orders", `{"items":[]}`)},
		{line("set_address", `{"user":"ann","address":{"line1":"L","city":"C","zip":"Z"}}`), line("move_city", `{"user":"ann","city":"Lyon"}`), line("tag_user", `{"user":"ann","tags":["new","vip"]}`)},
		{line("return_items", `{"order_id":"#W2","item_ids":["b","a"]}`), line("update_order", `{"id":"#W2","order_id":"#W2","note":null}`), line("delete_order", `{"id":"#W2"}`), line("delete_review", `{"id":"rev_1"}`), line("delete_order", `{"id":"#W2"}`)},
		{line("find_item", `{"item_id":"sh_9"}`), line("product_types", `{}`), line("list_orders", `{}`), line("create_review", `{"order":"#W2","stars":6}`)},
	} {
		f.Add([]byte(joinLines(script)))
	}
	f.Fuzz(func(t *testing.T, script []byte) {
		states := []*State{bases[0].Clone(), bases[1].Clone()}
		type seen struct {
			d    Data
			json string
		}
		var observed []seen
		for i, l := range bytes.Split(script, []byte{'\n'}) {
			if i == 16 {
				break
			}
			if len(l) == 0 {
				continue
			}
			tool := tools[int(l[0])%len(tools)]
			s := states[tool.world]
			before := s.Hash()
			clone := s.Clone()
			d, err := s.CallJSON(tool.name, l[1:])
			if clone.Hash() != before {
				t.Fatalf("%s(%s) changed a clone taken before it", tool.name, l[1:])
			}
			if err != nil {
				if err.Code == CodeInternal && strings.Contains(err.Message, "panicked") {
					t.Fatalf("%s(%s): %v", tool.name, l[1:], err)
				}
				if s.Hash() != before || !s.Equal(clone) {
					t.Fatalf("%s(%s) failed (%v) but changed the state", tool.name, l[1:], err)
				}
				continue
			}
			if !json.Valid(d.JSON()) {
				t.Fatalf("%s(%s): invalid JSON %s", tool.name, l[1:], d.JSON())
			}
			if p := s.CheckConstraints(); len(p) > 0 {
				t.Fatalf("%s(%s) broke a constraint: %v", tool.name, l[1:], p)
			}
			observed = append(observed, seen{d, string(d.JSON())})
		}
		for _, o := range observed {
			if got := string(o.d.JSON()); got != o.json {
				t.Fatalf("an observation changed:\n%s\n%s", o.json, got)
			}
		}
		for _, s := range states {
			if !json.Valid(s.JSON()) {
				t.Fatalf("invalid state JSON %s", s.JSON())
			}
			_ = s.Violations()
		}
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
