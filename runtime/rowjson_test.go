package runtime

import (
	"encoding/json"
	"sync"
	"testing"
)

// jrow is a row with an AppendJSON method, as generated records have.
type jrow struct {
	ID   string            `json:"id"`
	Tags map[string]string `json:"tags"`
}

func (r *jrow) AppendJSON(dst []byte) []byte {
	if r == nil {
		return AppendNull(dst)
	}
	dst = AppendKeyString(dst, `{"id":`, r.ID)
	return append(AppendMap(AppendKey(dst, `,"tags":`), r.Tags, AppendString), '}')
}

type jstate struct {
	j    *Journal
	rows *Table[*jrow]
}

func (s *jstate) Journal() *Journal { return s.j }

func newJState() *jstate {
	j := NewJournal()
	return &jstate{j: j, rows: NewTable("Row", func(r *jrow) string { return r.ID }, func(r *jrow) *jrow {
		c := *r
		c.Tags = map[string]string{}
		for k, v := range r.Tags {
			c.Tags[k] = v
		}
		return &c
	}, j)}
}

func (s *jstate) clone() *jstate {
	j := NewJournal()
	return &jstate{j: j, rows: s.rows.Clone(j)}
}

// TestRowJSONOfBase: a tool returning a row of the frozen base answers
// with the row's JSON, written once for every clone of the base; a row
// the episode changed, a row inserted after the base, a null record and
// other data are encoded as they are.
func TestRowJSONOfBase(t *testing.T) {
	seed := newJState()
	must(t, seed.rows.InsertAll([]*jrow{{ID: "a", Tags: map[string]string{"k": "v"}}, {ID: "b"}}))
	seed.j.Freeze()
	reg := NewRegistry[*jstate]()
	reg.Register(Tool[*jstate]{Name: "get", Handler: func(s *jstate, args json.RawMessage) (any, error) {
		id := string(args[1 : len(args)-1])
		if id == "null" {
			return (*jrow)(nil), nil
		}
		return s.rows.Lookup(id)
	}})
	reg.Register(Tool[*jstate]{Name: "set", Handler: func(s *jstate, args json.RawMessage) (any, error) {
		r, err := s.rows.Mut("a")
		if err != nil {
			return nil, err
		}
		r.Tags["k"] = "changed"
		return r, nil
	}})
	reg.Register(Tool[*jstate]{Name: "add", Handler: func(s *jstate, args json.RawMessage) (any, error) {
		r := &jrow{ID: "c"}
		return r, s.rows.Insert(r)
	}})
	obs := func(s *jstate, tool, args string) string {
		t.Helper()
		o := reg.Call(s, tool, json.RawMessage(args))
		b, err := o.AppendJSON(nil)
		if err != nil || !o.OK {
			t.Fatalf("%s(%s): %s, %v", tool, args, b, err)
		}
		return string(b)
	}
	e1, e2 := seed.clone(), seed.clone()
	want := `{"ok":true,"data":{"id":"a","tags":{"k":"v"}}}`
	if got := obs(e1, "get", `"a"`); got != want {
		t.Fatalf("get a: %s, want %s", got, want)
	}
	if p := seed.rows.c.base.jsons[0].Load(); p == nil || string(*p) != `{"id":"a","tags":{"k":"v"}}` {
		t.Fatal("the base keeps no JSON of row a")
	}
	if got := obs(e2, "get", `"a"`); got != want {
		t.Fatalf("get a in another episode: %s, want %s", got, want)
	}
	// the observation is the caller's: changing it changes no other
	o := reg.Call(e1, "get", json.RawMessage(`"a"`))
	o.Data[2] = 'X'
	if got := obs(e2, "get", `"a"`); got != want {
		t.Fatalf("after an observation was changed: %s", got)
	}
	if got, w := obs(e1, "set", `""`), `{"ok":true,"data":{"id":"a","tags":{"k":"changed"}}}`; got != w {
		t.Fatalf("set: %s, want %s", got, w)
	}
	if got, w := obs(e1, "get", `"a"`), `{"ok":true,"data":{"id":"a","tags":{"k":"changed"}}}`; got != w {
		t.Fatalf("get a after set: %s, want %s", got, w)
	}
	if got := obs(e2, "get", `"a"`); got != want {
		t.Fatalf("get a in the other episode after set: %s, want %s", got, want)
	}
	if got, w := obs(e1, "add", `""`), `{"ok":true,"data":{"id":"c","tags":null}}`; got != w {
		t.Fatalf("add: %s, want %s", got, w)
	}
	if got, w := obs(e1, "get", `"null"`), `{"ok":true,"data":null}`; got != w {
		t.Fatalf("a null record: %s, want %s", got, w)
	}
	// episodes of one seed fill its rows' JSON concurrently (go test -race)
	seed2 := newJState()
	must(t, seed2.rows.InsertAll([]*jrow{{ID: "a", Tags: map[string]string{"k": "v"}}, {ID: "b"}}))
	seed2.j.Freeze()
	var wg sync.WaitGroup
	for range 8 {
		e := seed2.clone()
		wg.Go(func() {
			for range 50 {
				if o := reg.Call(e, "get", json.RawMessage(`"a"`)); !o.OK || string(o.Data) != `{"id":"a","tags":{"k":"v"}}` {
					t.Errorf("concurrent get: %s", o.Data)
				}
			}
		})
	}
	wg.Wait()
	raw := json.RawMessage(`"b"`)
	if n := testing.AllocsPerRun(100, func() { reg.Call(e2, "get", raw) }); n != 1 {
		t.Errorf("get of a base row: %v allocations, want 1 (the observation)", n)
	}
}
