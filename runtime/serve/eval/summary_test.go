package eval

import (
	"encoding/json"
	"math"
	"testing"
)

// TestPassHat: C(c,k)/C(n,k), tau2-bench's estimator.
func TestPassHat(t *testing.T) {
	for _, c := range []struct {
		n, c, k int
		want    float64
	}{
		{4, 2, 1, 0.5}, {4, 2, 2, 1.0 / 6}, {4, 2, 3, 0}, {4, 4, 4, 1}, {5, 3, 2, 0.3}, {3, 0, 1, 0}, {2, 2, 3, 0},
	} {
		if got := PassHat(c.n, c.c, c.k); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("PassHat(%d,%d,%d) = %v, want %v", c.n, c.c, c.k, got, c.want)
		}
	}
}

// TestSummarize: pass^k averaged over tasks, by world, origin and
// difficulty (a task under each of its tags); curriculum episodes apart.
func TestSummarize(t *testing.T) {
	var rs []Result
	add := func(world, task, origin string, diff []string, solved ...bool) {
		for i, s := range solved {
			r := Result{World: world, Task: task, Trial: i, Origin: origin, Difficulty: diff, Solved: s, End: EndAnswered}
			if s {
				r.Reward = 1
			}
			rs = append(rs, r)
		}
	}
	add("a", "t1", "hand-written", []string{"multi_step"}, true, true, false, false) // 0.5, 1/6
	add("a", "t2", "dag", []string{"multi_step", "cross_service"}, true, true, true, true)
	add("b", "t3", "dag", nil, false, false, false, false)
	rs = append(rs, Result{World: "b", Task: "t3", Prefix: 1, Curriculum: true, Solved: true, Reward: 1, End: EndAnswered})
	s := Summarize(rs, SummaryInfo{Trials: 4})
	want := []float64{(0.5 + 1 + 0) / 3, (1.0/6 + 1) / 3, 1.0 / 3, 1.0 / 3}
	for k := range want {
		if math.Abs(s.PassHatK[k]-want[k]) > 1e-12 {
			t.Errorf("pass^%d = %v, want %v", k+1, s.PassHatK[k], want[k])
		}
	}
	if s.Episodes != 12 || s.Tasks != 3 || math.Abs(s.MeanReward-0.5) > 1e-12 {
		t.Errorf("overall: %+v", s.Group)
	}
	groups := func(gs []Group) map[string]float64 {
		m := map[string]float64{}
		for _, g := range gs {
			m[g.Name] = g.PassHatK[0]
		}
		return m
	}
	if g := groups(s.ByWorld); g["a"] != 0.75 || g["b"] != 0 || len(g) != 2 {
		t.Errorf("by world: %v", g)
	}
	if g := groups(s.ByOrigin); g["dag"] != 0.5 || g["hand-written"] != 0.5 {
		t.Errorf("by origin: %v", g)
	}
	if g := groups(s.ByDifficulty); g["multi_step"] != 0.75 || g["cross_service"] != 1 || g["(none)"] != 0 {
		t.Errorf("by difficulty: %v", g)
	}
	if len(s.Curriculum) != 1 || *s.Curriculum[0].SolvedFrom != 1 {
		t.Errorf("curriculum: %+v", s.Curriculum)
	}
	// pass^k keys in numeric order, and read back.
	p := PassK{1, 0.5, 0.25, 0, 0, 0, 0, 0, 0, 0, 0.125}
	b, _ := json.Marshal(p)
	if string(b) != `{"1":1,"2":0.5,"3":0.25,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0.125}` {
		t.Errorf("%s", b)
	}
	var back PassK
	if err := json.Unmarshal(b, &back); err != nil || len(back) != 11 || back[10] != 0.125 {
		t.Errorf("%v %v", back, err)
	}
}
