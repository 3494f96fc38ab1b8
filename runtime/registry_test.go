package runtime_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// testRegistry is worldtest's tools plus tools that misbehave.
func testRegistry() *runtime.Registry[*worldtest.State] {
	r := runtime.NewRegistry[*worldtest.State]()
	for _, t := range worldtest.World.Tools() {
		name := t.Name
		r.Register(runtime.Tool[*worldtest.State]{Name: t.Name, Service: t.Service, Description: t.Description, Parameters: t.Parameters,
			Handler: func(s *worldtest.State, args json.RawMessage) (any, error) {
				obs := worldtest.Registry.Call(s, name, args)
				if !obs.OK {
					return nil, obs.Error
				}
				return obs.Data, nil
			}})
	}
	// writes both tables (modify, insert, delete, sequence), then fails the
	// way the argument says
	r.Register(runtime.Tool[*worldtest.State]{Name: "write_then_fail", Service: "billing", Description: "test",
		Handler: func(s *worldtest.State, args json.RawMessage) (any, error) {
			inv, err := s.Invoices.Mut("inv1")
			if err != nil {
				return nil, err
			}
			inv.Amount = 1
			inv.Status = worldtest.InvoiceStatusPaid
			c, _ := s.Customers.Mut("acme")
			c.Tags[0] = "mutated in place" // a slice shared with the seed unless copied
			if err := s.Customers.Insert(&worldtest.Customer{ID: s.Customers.NextID("customer"), Name: "New"}); err != nil {
				return nil, err
			}
			if err := s.Invoices.Delete("inv2"); err != nil {
				return nil, err
			}
			if err := s.Invoices.Update(&worldtest.Invoice{ID: "inv1", Amount: 2}); err != nil {
				return nil, err
			}
			switch string(args) {
			case `"error"`:
				return nil, runtime.PreconditionFailed("the spec's message")
			case `"plain"`:
				return nil, errors.New("plain error")
			case `"panic"`:
				var m map[string]int
				m["x"] = 1 // a runtime error
			case `"nan"`:
				return math.NaN(), nil
			case `"leave-open"`:
				s.Journal().Begin()
				return nil, nil
			}
			return "done", nil
		}})
	return r
}

func episodeState(t *testing.T) *worldtest.State {
	t.Helper()
	ep, err := worldtest.World.NewEpisode("")
	if err != nil {
		t.Fatal(err)
	}
	return ep.(*worldtest.Episode).S
}

func TestCallIsAtomic(t *testing.T) {
	r := testRegistry()
	for _, c := range []struct{ args, code, msg string }{
		{`"error"`, runtime.CodePreconditionFailed, "the spec's message"},
		{`"plain"`, runtime.CodeInternal, "plain error"},
		{`"panic"`, runtime.CodeInternal, `tool "write_then_fail" panicked: assignment to entry in nil map`},
		{`"nan"`, runtime.CodeInternal, `tool "write_then_fail" returned data that cannot be encoded as JSON: json: unsupported value: NaN`},
		{`"leave-open"`, runtime.CodeInternal, `tool "write_then_fail" left a transaction open or closed one it did not begin`},
	} {
		s := episodeState(t)
		h0, snap0 := s.Hash(), string(s.Snapshot())
		obs := r.Call(s, "write_then_fail", json.RawMessage(c.args))
		if obs.OK || obs.Error.Code != c.code || obs.Error.Message != c.msg {
			t.Errorf("%s: got %+v", c.args, obs.Error)
		}
		if s.Hash() != h0 || string(s.Snapshot()) != snap0 {
			t.Errorf("%s: a failed call changed the state:\n%s\n%s", c.args, snap0, s.Snapshot())
		}
		if s.Journal().Active() || s.Journal().Pending() != 0 {
			t.Errorf("%s: journal left open", c.args)
		}
		// the seed is untouched too (the in-place slice write hit a copy)
		fresh := episodeState(t)
		if fresh.Hash() != h0 {
			t.Errorf("%s: the world seed changed", c.args)
		}
	}
	// and the same call succeeding keeps its writes
	s := episodeState(t)
	h0 := s.Hash()
	obs := r.Call(s, "write_then_fail", json.RawMessage(`"ok"`))
	if !obs.OK || string(obs.Data) != `"done"` {
		t.Fatal(obs)
	}
	if s.Hash() == h0 || s.Customers.Len() != 3 || s.Invoices.Has("inv2") {
		t.Fatal("the successful call's writes are missing")
	}
	if c, _ := s.Customers.Get("acme"); c.Tags[0] != "mutated in place" {
		t.Fatal("in-place write lost")
	}
	if episodeState(t).Hash() == s.Hash() {
		t.Fatal("the world seed changed")
	}
}

func TestCallErrors(t *testing.T) {
	r := testRegistry()
	s := episodeState(t)
	obs := r.Call(s, "mark_payed", nil)
	if obs.OK || obs.Error.Code != runtime.CodeUnknownTool || !strings.Contains(obs.Error.Message, `did you mean "mark_paid"?`) {
		t.Fatal(obs.Error)
	}
	obs = r.Call(nil, "mark_paid", json.RawMessage(`{"invoice":"inv1"}`))
	if obs.OK || obs.Error.Code != runtime.CodeInternal {
		t.Fatalf("nil state: %+v", obs)
	}
	obs = r.Call(&worldtest.State{}, "mark_paid", json.RawMessage(`{"invoice":"inv1"}`))
	if obs.OK || obs.Error.Code != runtime.CodeInternal || !strings.Contains(obs.Error.Message, "no journal") {
		t.Fatalf("state without journal: %+v", obs)
	}
	names := []string{}
	for _, ti := range r.Tools() {
		names = append(names, ti.Name)
	}
	if strings.Join(names, ",") != "get_invoice,find_invoices,mark_paid,create_invoice,write_then_fail" {
		t.Fatal(names)
	}
}

func TestRegisterMisuse(t *testing.T) {
	h := func(*worldtest.State, json.RawMessage) (any, error) { return nil, nil }
	for _, tool := range []runtime.Tool[*worldtest.State]{
		{Name: "", Handler: h}, {Name: "has space", Handler: h}, {Name: strings.Repeat("x", 65), Handler: h}, {Name: "ok"},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%q registered", tool.Name)
				}
			}()
			runtime.NewRegistry[*worldtest.State]().Register(tool)
		}()
	}
	r := runtime.NewRegistry[*worldtest.State]()
	r.Register(runtime.Tool[*worldtest.State]{Name: "a", Handler: h})
	defer func() {
		if recover() == nil {
			t.Error("duplicate registered")
		}
	}()
	r.Register(runtime.Tool[*worldtest.State]{Name: "a", Handler: h})
}

func TestToolInfoFormats(t *testing.T) {
	ti := runtime.ToolInfo{Name: "get_x", Service: "s", Description: "Get <x> & y", Parameters: json.RawMessage(`{"type":"object","properties":{},"required":[],"additionalProperties":false}`)}
	if got := string(ti.OpenAI()); got != `{"type":"function","function":{"name":"get_x","description":"Get <x> & y","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}}` {
		t.Error(got)
	}
	if got := string(ti.MCP()); got != `{"name":"get_x","description":"Get <x> & y","inputSchema":{"type":"object","properties":{},"required":[],"additionalProperties":false}}` {
		t.Error(got)
	}
	ti.Parameters = json.RawMessage(`{broken`)
	if !json.Valid(ti.OpenAI()) || !json.Valid(ti.MCP()) {
		t.Error("invalid JSON from a broken schema")
	}
}

func FuzzRegistryCall(f *testing.F) {
	tools := worldtest.World.Tools()
	for i, args := range []string{`{"invoice":"inv1"}`, `{"id":"inv2"}`, `{"status":"paid"}`, `{"customer":"acme","amount":5}`,
		`{"customer":"acme","amount":-1,"issued_on":"2026-02-29"}`, `[]`, `null`, `{"customer":"nope","amount":1e400}`} {
		f.Add(uint8(i), "", []byte(args))
	}
	f.Add(uint8(0), "mark_paid", []byte(`{"invoice":"inv2"}`))
	f.Add(uint8(0), "no such tool", []byte(`{}`))
	f.Fuzz(func(t *testing.T, pick uint8, name string, args []byte) {
		if name == "" {
			name = tools[int(pick)%len(tools)].Name
		}
		ep, err := worldtest.World.NewEpisode("settle_acme")
		if err != nil {
			t.Fatal(err)
		}
		h0 := ep.StateHash()
		obs := ep.Call(name, args)
		b, err := json.Marshal(obs)
		if err != nil || !json.Valid(b) {
			t.Fatalf("observation does not encode: %v", err)
		}
		if obs.OK {
			if !json.Valid(obs.Data) {
				t.Fatalf("ok data is not JSON: %q", obs.Data)
			}
			return
		}
		switch obs.Error.Code {
		case runtime.CodeUnknownTool, runtime.CodeInvalidArguments, runtime.CodeNotFound, runtime.CodePreconditionFailed, runtime.CodeConstraintViolation:
		default:
			t.Fatalf("%s %q: unexpected %v", name, args, obs.Error)
		}
		if obs.Error.Message == "" {
			t.Fatal("empty message")
		}
		if ep.StateHash() != h0 {
			t.Fatalf("%s %q: failed call changed the state", name, args)
		}
	})
}

// TestConcurrentEpisodes: episodes cloned from one frozen seed run in
// parallel (run with -race).
func TestConcurrentEpisodes(t *testing.T) {
	sol := solution(t)
	want := ""
	{
		ep := newEp(t, "settle_acme")
		if _, err := runtime.Run(ep, sol); err != nil {
			t.Fatal(err)
		}
		want = ep.StateHash()
	}
	done := make(chan string)
	for range 8 {
		go func() {
			ep, err := worldtest.World.NewEpisode("settle_acme")
			if err != nil {
				done <- err.Error()
				return
			}
			_ = ep.StateHash() // shares the base's cached row digests
			if _, err := runtime.Run(ep, sol); err != nil {
				done <- err.Error()
				return
			}
			done <- ep.StateHash()
		}()
	}
	for range 8 {
		if got := <-done; got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}

// TestRegistryOf: a registry built from tool descriptions as JSON and a
// table of handlers (what generated worlds do) holds the tools in order,
// with their parameters byte for byte, calls the right handler, and
// decodes the descriptions only when first used; bad data panics then.
func TestRegistryOf(t *testing.T) {
	data := `[
{"name":"one","service":"a","description":"first","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false}},
{"name":"two","service":"b","description":"second <&>","parameters":{"type":"object", "properties":{}}}
]`
	handler := func(v string) func(*worldtest.State, json.RawMessage) (any, error) {
		return func(*worldtest.State, json.RawMessage) (any, error) { return v, nil }
	}
	r := runtime.RegistryOf(data, []func(*worldtest.State, json.RawMessage) (any, error){handler("1"), handler("2")})
	tools := r.Tools()
	if len(tools) != 2 || tools[0].Name != "one" || tools[1].Name != "two" || tools[1].Service != "b" || tools[1].Description != "second <&>" {
		t.Fatalf("tools = %+v", tools)
	}
	if got := string(tools[1].Parameters); got != `{"type":"object", "properties":{}}` {
		t.Errorf("parameters = %s, want them byte for byte", got)
	}
	if obs := r.Call(worldtest.NewState(), "two", json.RawMessage(`{}`)); !obs.OK || string(obs.Data) != `"2"` {
		t.Errorf("two: %+v", obs)
	}

	bad := runtime.RegistryOf(`[{"name":"one"}]`, []func(*worldtest.State, json.RawMessage) (any, error){handler("1"), handler("2")})
	defer func() {
		if v := recover(); v == nil || !strings.Contains(fmt.Sprint(v), "1 tool descriptions for 2 handlers") {
			t.Errorf("a mismatch panics on first use with %v", v)
		}
	}()
	bad.Tools()
}
