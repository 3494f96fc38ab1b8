package serve

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPFastPath: a tools/call answered by the fast path is the answer
// the SDK gives for the same call (one with a progress token goes through
// the SDK), for successful and failed calls, decoded by the official Go
// SDK's client.
func TestMCPFastPath(t *testing.T) {
	s, url := start(t, Options{})
	ctx := context.Background()
	connect := func() *mcp.ClientSession {
		client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
		sess, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url + "/mcp/worldtest?task=settle_acme"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		return sess
	}
	fast, slow := connect(), connect()
	cases := append(calls, [2]string{"get_invoice", `{"id":"nope"}`}, [2]string{"mark_paid", `{"invoice":7}`}, [2]string{"find_invoices", `{}`}, [2]string{"get_invoice", `{"id":"a \"quoted\" <tag> & \u2028 é"}`})
	for _, c := range cases {
		var args map[string]any
		json.Unmarshal([]byte(c[1]), &args)
		before := s.m.mcpFast.Get()
		a, err := fast.CallTool(ctx, &mcp.CallToolParams{Name: c[0], Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		if s.m.mcpFast.Get() != before+1 {
			t.Errorf("%s: not answered by the fast path", c[0])
		}
		p := &mcp.CallToolParams{Name: c[0], Arguments: args}
		p.SetProgressToken("p1")
		b, err := slow.CallTool(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if s.m.mcpFast.Get() != before+1 {
			t.Errorf("%s with a progress token: answered by the fast path", c[0])
		}
		if !reflect.DeepEqual(a, b) {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			t.Errorf("%s %s: fast path %s, SDK %s", c[0], c[1], ja, jb)
		}
	}
	// An unknown tool is the SDK's to answer (a protocol error).
	before := s.m.mcpFast.Get()
	if _, err := fast.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool", Arguments: map[string]any{}}); err == nil {
		t.Error("an unknown tool: no error")
	}
	if s.m.mcpFast.Get() != before {
		t.Error("an unknown tool went through the fast path")
	}
}
