package jsonobj

import (
	"encoding/json"
	"testing"
)

func TestObjectKeepsOrder(t *testing.T) {
	o := Object{M("z", 1), M("a", Object{M("y", "x\"")}), M("m", []int{1})}
	got, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"z":1,"a":{"y":"x\""},"m":[1]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := json.Marshal(Object{M("f", func() {})}); err == nil {
		t.Error("a value JSON cannot encode gave no error")
	}
}
