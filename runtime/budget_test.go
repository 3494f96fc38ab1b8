package runtime

import (
	"encoding/json"
	"strings"
	"testing"
)

// limitOf runs f and returns the error of the limit it exceeded, or nil.
func limitOf(f func()) (err *ToolError) {
	defer func() {
		if v := recover(); v != nil {
			err = v.(limitExceeded).err
		}
	}()
	f()
	return nil
}

// TestBudget: a call's steps are counted by Tick, Cat and Counted up to
// MaxCallSteps, and a concatenation may build at most MaxStringBytes.
func TestBudget(t *testing.T) {
	j := NewJournal()
	if err := limitOf(func() {
		for range MaxCallSteps {
			j.Tick()
		}
	}); err != nil {
		t.Fatalf("%d ticks: %v", MaxCallSteps, err)
	}
	if err := limitOf(j.Tick); err == nil || err.Code != CodeInternal || err.Message != "evaluation exceeded 50000000 steps" {
		t.Errorf("one tick more: %v", err)
	}
	j.steps = 0
	half := strings.Repeat("x", MaxStringBytes/2)
	if got := j.Cat(half, half); len(got) != MaxStringBytes || j.steps != 2*int64(len(half)/64) {
		t.Errorf("Cat of two halves: %d bytes, %d steps", len(got), j.steps)
	}
	if err := limitOf(func() { j.Cat(half, half+"y") }); err == nil || err.Message != "evaluation built a string of more than 1048576 bytes" {
		t.Errorf("a byte more: %v", err)
	}
	j.steps = MaxCallSteps - 3
	if err := limitOf(func() { Counted(j, []int{1, 2, 3}) }); err != nil {
		t.Errorf("3 elements with 3 steps left: %v", err)
	}
	if err := limitOf(func() { CountedMap(j, map[string]int{"a": 1}) }); err == nil {
		t.Error("an entry with no step left went uncounted")
	}
}

// TestRegistryLimit: a tool beyond its budget fails with the limit's error
// and its writes undone, and the next call has a budget of its own.
func TestRegistryLimit(t *testing.T) {
	j := NewJournal()
	tbl := NewTable("Row", func(r *string) string { return *r }, func(r *string) *string { c := *r; return &c }, j)
	st := journalState{j}
	r := NewRegistry[journalState]()
	r.Register(Tool[journalState]{Name: "spin", Description: "spin", Service: "s", Handler: func(_ journalState, _ json.RawMessage) (any, error) {
		row := "a"
		if err := tbl.Insert(&row); err != nil {
			return nil, err
		}
		for {
			j.Tick()
		}
	}})
	r.Register(Tool[journalState]{Name: "one", Description: "one", Service: "s", Handler: func(_ journalState, _ json.RawMessage) (any, error) {
		for range 10 {
			j.Tick()
		}
		return tbl.Len(), nil
	}})
	obs := r.Call(st, "spin", nil)
	if obs.OK || obs.Error.Code != CodeInternal || obs.Error.Message != "evaluation exceeded 50000000 steps" {
		t.Errorf("spin: %+v", obs)
	}
	if obs := r.Call(st, "one", nil); !obs.OK || string(obs.Data) != "0" {
		t.Errorf("after spin: %+v %s", obs, obs.Data)
	}
}

type journalState struct{ j *Journal }

func (s journalState) Journal() *Journal { return s.j }
