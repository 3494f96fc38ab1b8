package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/worldc/worldc/runtime"
	"github.com/worldc/worldc/runtime/internal/worldtest"
)

// stepWorld is the test world whose episodes report, as a world with an
// always-invariant does, a violation seen after their first call.
type stepWorld struct{ runtime.World }

func (w stepWorld) NewEpisode(task string) (runtime.Episode, error) {
	ep, err := w.World.NewEpisode(task)
	return &stepEpisode{Episode: ep}, err
}

type stepEpisode struct {
	runtime.Episode
	first string // the tool of the first call
}

func (e *stepEpisode) Call(tool string, args json.RawMessage) runtime.Observation {
	if e.first == "" {
		e.first = tool
	}
	return e.Episode.Call(tool, args)
}

func (e *stepEpisode) Grade() runtime.Grade {
	g := e.Episode.Grade()
	if e.first != "" {
		v := runtime.Violation{Invariant: "within_credit", Entity: "Invoice", ID: "inv1", Message: "over the limit", Step: 1, Tool: e.first}
		return runtime.NewGrade(g.Assertions, g.Violations, v)
	}
	return g
}

// TestGradeCarriesSteps: the grade the JSON API answers carries the
// violations of always-invariants along the episode, each with its step
// (the trajectory's line) and tool, beside those of the current state.
func TestGradeCarriesSteps(t *testing.T) {
	s, err := New([]runtime.World{stepWorld{worldtest.World}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(func() { ts.Close(); s.Close() })
	var ep EpisodeStart
	if st := do(t, "POST", ts.URL+"/v1/worlds/worldtest/episodes", `{"task":"settle_acme"}`, &ep); st != 201 {
		t.Fatalf("open: %d", st)
	}
	base := ts.URL + "/v1/episodes/" + ep.EpisodeID
	var g runtime.Grade
	if do(t, "POST", base+"/grade", "", &g); len(g.StepViolations) != 0 {
		t.Errorf("before any call: %+v", g.StepViolations)
	}
	do(t, "POST", base+"/calls", `{"tool":"mark_paid","arguments":{"invoice":"inv1"}}`, nil)
	resp, err := http.Post(base+"/grade", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `"step_violations":[{"invariant":"within_credit","entity":"Invoice","id":"inv1","message":"over the limit","step":1,"tool":"mark_paid"}]`
	if !strings.Contains(string(body), want) {
		t.Errorf("grade %s\nlacks %s", body, want)
	}
}
