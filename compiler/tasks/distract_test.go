package tasks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/compiler/eval"
	"github.com/worldc/worldc/compiler/ir"
)

// accountsSpec is a world whose seed holds no two records a lookup could
// confuse: three customers of three names. A distractor — a second
// customer of the same name — can only come from a task's seed.
const accountsSpec = `world accounts {
  title    "Accounts"
  industry "retail"
  country  "DE"
  currency "EUR"
  today    2026-03-14
}

service crm "Customer accounts" {
  entity Customer "A customer account" {
    name   string
    email  string unique
    city   string
    status enum { active on_hold } = active
  }
  tool find_customers: search Customer by name "Find customers by name"
  tool put_on_hold(customer: ref Customer, reason: string) "Put a customer account on hold" {
    require customer.status == active else "the account is already on hold"
    set customer.status = on_hold
    return customer
  }
}

seed {
  crm.Customer c_weber { name: "Anna Weber", email: "anna.weber@example.com", city: "Hamburg" }
  crm.Customer c_vogt { name: "Ben Vogt", email: "ben.vogt@example.com", city: "Bremen" }
  crm.Customer c_aksoy { name: "Cem Aksoy", email: "cem.aksoy@example.com", city: "Kiel" }
}
`

// TestDistractorSeed: on a world whose seed gives no distractor, the
// synthesis makes tasks whose own seed adds one (a customer of the same
// name in another city); the words name the customer and the city that
// tells the two apart, the golden solution acts on the right one, and an
// agent that acts on the distractor fails the rubric.
func TestDistractorSeed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "accounts.world")
	if err := os.WriteFile(path, []byte(accountsSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	w, ds := compiler.CheckSource(path, []byte(accountsSpec))
	if ds.HasErrors() {
		t.Fatalf("the accounts world does not check:\n%s", ds.Text())
	}
	// Three seeds' draws, so that the property is seen whatever one
	// seed's sampling happens to draw.
	seeded, distractors := 0, 0
	for seed := uint64(1); seed <= 3; seed++ {
		r, err := Synthesize(w, []byte(accountsSpec), Options{N: 8, Seed: seed, Filename: path})
		if err != nil {
			t.Fatal(err)
		}
		w2, ds := compiler.CheckSource(path, r.Spec)
		if ds.HasErrors() {
			t.Fatalf("the written spec does not check:\n%s", ds.Text())
		}
		verify(t, r, w, w2)
		byName := map[string]*ir.Task{}
		for _, task := range w2.Tasks {
			byName[task.Name] = task
		}
		customer := w2.Entities[0]
		for _, m := range r.Tasks {
			task := byName[m.ID]
			if m.SeedRecords != len(task.Seed) {
				t.Errorf("%s: metadata says %d seed records, the task has %d", m.ID, m.SeedRecords, len(task.Seed))
			}
			if len(task.Seed) == 0 {
				if m.Difficulty.Distractors > 0 && m.Origin != OriginProgram && m.Origin != OriginSolver && m.Origin != OriginQuestion {
					t.Errorf("%s: %d distractors without a task seed, in a world whose seed has none", m.ID, m.Difficulty.Distractors)
				}
				continue
			}
			seeded++
			if m.Difficulty.Distractors < len(task.Seed) {
				t.Errorf("%s: %d seed records, %d distractors", m.ID, len(task.Seed), m.Difficulty.Distractors)
			}
			start, err := eval.NewState(w2, task)
			if err != nil {
				t.Fatal(err)
			}
			// The records the writes act on (the target, or a copy the words
			// tell apart too), and the seed records none acts on: the
			// distractors, which share a written record's name.
			writes := map[string]int{} // id → index of the step
			names := map[string]string{}
			for i, s := range task.Solution {
				if s.Tool.Name != "put_on_hold" {
					continue
				}
				id := s.Args[0].Value.Str
				writes[id] = i
				rec := decode(mustJSON(t, start, customer, id)).(map[string]any)
				names[id] = rec["name"].(string)
				if !strings.Contains(task.Instruction, names[id]) {
					t.Errorf("%s: the instruction %q does not name %s", m.ID, task.Instruction, names[id])
				}
			}
			for _, sr := range task.Seed {
				if !strings.HasPrefix(sr.ID, "c_") {
					t.Errorf("%s: seed record id %s is not of the world's form c_…", m.ID, sr.ID)
				}
				if _, written := writes[sr.ID]; written {
					continue
				}
				d := decode(mustJSON(t, start, customer, sr.ID)).(map[string]any)
				target := ""
				for id, n := range names {
					if n == d["name"] && (target == "" || writes[id] < writes[target]) {
						target = id
					}
				}
				if target == "" {
					t.Errorf("%s: seed record %s is called %v, no customer the task writes is", m.ID, sr.ID, d["name"])
					continue
				}
				distractors++
				// The agent that acts on the distractor instead fails.
				wrong := *task
				wrong.Solution = slices.Clone(task.Solution)
				write := task.Solution[writes[target]]
				bad := *write
				bad.Args = slices.Clone(write.Args)
				bad.Args[0] = &ir.Arg{Param: write.Args[0].Param, Value: &ir.Value{Kind: ir.KindRef, Str: sr.ID}}
				wrong.Solution[writes[target]] = &bad
				res, err := eval.RunSolution(w2, &wrong)
				if err != nil {
					t.Fatal(err)
				}
				if res.Grade.Reward >= 1 {
					t.Errorf("%s: acting on the distractor %s instead of %s earns reward %v", m.ID, sr.ID, target, res.Grade.Reward)
				}
			}
		}
	}
	if distractors == 0 {
		t.Errorf("no seed record is a distractor no write acts on")
	}
	if seeded == 0 {
		t.Fatalf("no task with a seed in three seeds' draws")
	}
}

func mustJSON(t *testing.T, st *eval.State, e *ir.Entity, id string) []byte {
	t.Helper()
	b, ok := st.RecordJSON(e, id)
	if !ok {
		t.Fatalf("no %s %q", e.Name, id)
	}
	return b
}

// TestFreshLike: new values keep the form of the value they copy.
func TestFreshLike(t *testing.T) {
	x := &synth{}
	taken := map[string]bool{"clm_0406": true, "ph_lefevre2": true}
	for in, want := range map[string]string{
		"clm_0405":                    "clm_0407",
		"SIN-2026-0405":               "SIN-2026-0406",
		"ph_lefevre":                  "ph_lefevre3",
		"anna.weber@ex.com":           "anna.weber2@ex.com",
		"FR7617515900000800123456789": "", // too long a number to count up
	} {
		if got := x.freshLike(in, func(s string) bool { return taken[s] }); got != want {
			t.Errorf("freshLike(%q) = %q, want %q", in, got, want)
		}
	}
}
