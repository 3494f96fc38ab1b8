package eval_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// TestExampleWorlds evaluates the example corpus: every seed and task start
// state keeps its constraints and invariants, every golden solution reaches
// reward 1 with every invariant holding and replays to the same hashes, and
// every tool answers bad arguments with an error, never a panic, leaving
// the state unchanged.
func TestExampleWorlds(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/worlds/*.world")
	if len(files) == 0 {
		t.Fatal("no example worlds in ../../testdata/worlds")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".world"), func(t *testing.T) {
			t.Parallel()
			if testing.Short() && strings.HasPrefix(filepath.Base(file), "tau2_retail") {
				t.Skip("the tau2 world takes most of this test's time: make test runs it, -short does not")
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			w, ds := compiler.CheckSource(file, src)
			if w == nil {
				t.Fatalf("the world does not check:\n%s", ds.Text())
			}
			checkWorld(t, w)
			randomCalls(t, w)
		})
	}
}

func checkWorld(t *testing.T, w *ir.World) {
	seed, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := seed.CheckConstraints(); len(p) > 0 {
		t.Errorf("seed constraint problems: %v", p)
	}
	if v := seed.Violations(); len(v) > 0 {
		t.Errorf("seed violations: %v", v)
	}
	for _, tool := range w.Tools {
		for _, args := range []string{`{}`, `{"zz_unknown":1}`, `{"id":"no_such_record"}`} {
			before := seed.Hash()
			_, terr := seed.CallJSON(tool.Name, []byte(args))
			if terr != nil && terr.Code == eval.CodeInternal {
				t.Errorf("%s(%s): %v", tool.Name, args, terr)
			}
			if terr != nil && seed.Hash() != before {
				t.Errorf("%s(%s) failed but changed the state", tool.Name, args)
			}
			if terr == nil {
				seed, _ = eval.NewState(w, nil) // a tool without required arguments wrote: start over
			}
		}
	}
	replayed := 0
	defer func() { t.Logf("%d tasks, %d golden solutions replayed", len(w.Tasks), replayed) }()
	for _, task := range w.Tasks {
		start, err := eval.NewState(w, task)
		if err != nil {
			t.Errorf("task %s: %v", task.Name, err)
			continue
		}
		if p := start.CheckConstraints(); len(p) > 0 {
			t.Errorf("task %s: start state constraint problems: %v", task.Name, p)
		}
		if task.Solution == nil {
			continue
		}
		res, err := eval.RunSolution(w, task)
		if err != nil {
			t.Errorf("task %s: %v", task.Name, err)
			continue
		}
		if !res.OK() {
			t.Errorf("task %s: the golden solution is not golden: %s", task.Name, res.Problem())
			continue
		}
		replayed++
		if p := res.Final.CheckConstraints(); len(p) > 0 {
			t.Errorf("task %s: final state constraint problems: %v", task.Name, p)
		}
		for i, st := range res.Steps {
			if !json.Valid(st.Data.JSON()) {
				t.Errorf("task %s step %d: invalid JSON %s", task.Name, i+1, st.Data.JSON())
			}
		}
		again, _ := eval.RunSolution(w, task)
		for i := range res.Steps {
			if again.Steps[i].Hash != res.Steps[i].Hash || again.Steps[i].Data.String() != res.Steps[i].Data.String() {
				t.Errorf("task %s: replay differs at step %d", task.Name, i+1)
			}
		}
	}
}

// randomCalls makes a deterministic series of calls with plausible and
// implausible arguments (existing and missing ids, enum values and
// misspellings, boundary numbers, bad dates, nulls, omissions). No call may
// panic; a failed call leaves the state unchanged; a successful one keeps
// every field constraint.
func randomCalls(t *testing.T, w *ir.World) {
	s, err := eval.NewState(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := func(e *ir.Entity) []string {
		var out []string
		for _, r := range w.Seed {
			if r.Entity == e {
				out = append(out, r.ID)
			}
		}
		return out
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(w.Name))))
	pick := func(xs ...any) any { return xs[rng.IntN(len(xs))] }
	value := func(p *ir.Param) any {
		switch rng.IntN(10) {
		case 0:
			return nil // omitted
		case 1:
			return json.RawMessage("null")
		}
		switch p.Type.Kind {
		case ir.KindRef:
			if known := ids(p.Type.Entity); len(known) > 0 && rng.IntN(5) > 0 {
				return known[rng.IntN(len(known))]
			}
			return "no_such_id"
		case ir.KindEnum:
			if rng.IntN(6) == 0 {
				return "bogus"
			}
			return p.Type.Enum.Values[rng.IntN(len(p.Type.Enum.Values))]
		case ir.KindInt:
			return pick(0, 1, -1, 3, 30, 1<<40, 2.5, "7")
		case ir.KindDecimal, ir.KindMoney:
			return pick(0, 0.01, -5, 12.5, 100, 1e6, 99999.99, "12")
		case ir.KindBool:
			return pick(true, false, 1)
		case ir.KindDate:
			return pick(w.Today, "2026-01-01", "2026-12-31", "2025-02-28", "2026-02-30", "yesterday", 20260101)
		case ir.KindDateTime:
			return pick("2026-03-14T09:30:00Z", "2026-03-14T09:30", "bad")
		}
		return pick("x", "", "Acme", "DE", "SEPA-1", fmt.Sprint(rng.IntN(100)), "  padded  ")
	}
	calls, failures := 0, 0
	for i := 0; i < 400; i++ {
		tool := w.Tools[rng.IntN(len(w.Tools))]
		args := map[string]any{}
		for _, p := range tool.Params {
			if v := value(p); v != nil {
				args[p.Name] = v
			}
		}
		raw, _ := json.Marshal(args)
		before := s.Hash()
		d, terr := s.CallJSON(tool.Name, raw)
		calls++
		if terr != nil {
			failures++
			if terr.Code == eval.CodeInternal && strings.Contains(terr.Message, "panicked") {
				t.Fatalf("%s(%s): %v", tool.Name, raw, terr)
			}
			if s.Hash() != before {
				t.Fatalf("%s(%s) failed (%v) but changed the state", tool.Name, raw, terr)
			}
			continue
		}
		if !json.Valid(d.JSON()) {
			t.Fatalf("%s(%s): invalid JSON %s", tool.Name, raw, d.JSON())
		}
		if p := s.CheckConstraints(); len(p) > 0 {
			t.Fatalf("%s(%s) broke constraints: %v", tool.Name, raw, p)
		}
		_ = s.Violations()
	}
	t.Logf("%d random calls, %d failed", calls, failures)
}
