package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestMetaJSON(t *testing.T) {
	m := Meta{
		{"split", []string{"train", "base"}},
		{"id", "7 <&> \"q\""},
		{"weight", -2.5},
		{"whole", 2.0},
		{"tiny", 1e-7},
		{"huge", 1e300},
		{"n", int64(-3)},
		{"ok", true},
		{"empty", []string{}},
		{"nil", []string(nil)},
		{"a", false},
	}
	b, err := marshalJSON(TaskInfo{ID: "t", Meta: m}) // no HTML escaping
	if err != nil {
		t.Fatal(err)
	}
	want := `"meta":{"split":["train","base"],"id":"7 <&> \"q\"","weight":-2.5,"whole":2.0,"tiny":1e-7,"huge":1e+300,"n":-3,"ok":true,"empty":[],"nil":[],"a":false}`
	if !strings.Contains(string(b), want) {
		t.Errorf("JSON\n got %s\nwant …%s…", b, want)
	}
	var back TaskInfo
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	m[9].Value = []string{} // nil is written as []
	if !reflect.DeepEqual(back.Meta, m) {
		t.Errorf("round trip\n got %#v\nwant %#v", back.Meta, m)
	}
	if b, _ := json.Marshal(TaskInfo{ID: "t"}); strings.Contains(string(b), "meta") {
		t.Errorf("no meta is left out: %s", b)
	}
	if b, _ := json.Marshal(Meta{}); string(b) != "{}" {
		t.Errorf("empty meta: %s", b)
	}
}

func TestMetaJSONErrors(t *testing.T) {
	for _, m := range []Meta{{{"x", 1}}, {{"x", []int{1}}}, {{"x", nil}}, {{"x", map[string]string{}}}} {
		if b, err := json.Marshal(m); err == nil {
			t.Errorf("%#v marshals as %s", m, b)
		}
	}
	for _, src := range []string{`[]`, `{"a":null}`, `{"a":{}}`, `{"a":[1]}`, `{"a":1,"a":2}`, `{"a":1`, `"x"`} {
		var m Meta
		if err := json.Unmarshal([]byte(src), &m); err == nil {
			t.Errorf("%s reads as %#v", src, m)
		}
	}
	var m Meta
	if err := json.Unmarshal([]byte(`{"big":9223372036854775808,"n":10,"f":1E2}`), &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m[0].Value.(float64); !ok {
		t.Errorf("an integer beyond int64 reads as %T", m[0].Value)
	}
	if m[1].Value != int64(10) || m[2].Value != 100.0 {
		t.Errorf("numbers: %#v", m)
	}
}

func TestMetaGetClone(t *testing.T) {
	m := Meta{{"split", []string{"train"}}, {"n", int64(1)}}
	if v, ok := m.Get("n"); !ok || v != int64(1) {
		t.Errorf("Get n: %v %v", v, ok)
	}
	if _, ok := m.Get("missing"); ok {
		t.Error("Get of a missing key")
	}
	c := m.Clone()
	c[0].Value.([]string)[0] = "changed"
	c[1].Value = int64(2)
	if m[0].Value.([]string)[0] != "train" || m[1].Value != int64(1) {
		t.Errorf("the clone shares with the original: %#v", m)
	}
	if Meta(nil).Clone() != nil {
		t.Error("clone of nil")
	}
}
