package tasks

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler/ir"
)

// TestWordsRead: the template words read as a person would say them: no
// "name: value" lists, no tool names, no booleans as true or false, no
// value twice in one request, and the outcome of a write another tool's
// words could describe said.
func TestWordsRead(t *testing.T) {
	names := exampleWorlds(t)
	if testing.Short() {
		names = []string{"it_service_desk", "insurance_claims", "hospital_scheduling"}
	}
	// "reason: “…”", "fraud confirmed: false": a name, a colon, a value
	// (the action's own colon is followed by the record, "…: the claim").
	dump := regexp.MustCompile(`(^|[;—,] )[a-z][a-z0-9 ]*: ([^ ]+)`)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(worldsDir, name+".world")
			w, src := checkWorld(t, name)
			r, _, _ := synthesize(t, path, src, 40, 3)
			tools := map[string]*ir.Tool{}
			for _, tl := range w.Tools {
				tools[tl.Name] = tl
			}
			for _, m := range r.Tasks {
				in := m.Instruction
				for _, clause := range strings.Split(in, ". ") {
					for _, mm := range dump.FindAllStringSubmatch(clause, -1) {
						if mm[2] != "the" && mm[2] != "a" && mm[2] != "an" {
							t.Errorf("%s: a field dump in %q", m.ID, clause)
						}
					}
				}
				if strings.Contains(in, " — ") {
					t.Errorf("%s: the words still list values after a dash: %s", m.ID, in)
				}
				for _, tl := range m.Tools {
					if strings.Contains(tl, "_") && strings.Contains(in, tl) {
						t.Errorf("%s: the words name the tool %s: %s", m.ID, tl, in)
					}
				}
				for _, tl := range m.WriteTools {
					for _, p := range tools[tl].Params {
						if p.Type.Kind == ir.KindBool && (containsWord(in, "true") || containsWord(in, "false")) {
							t.Errorf("%s: a bool said as true or false: %s", m.ID, in)
						}
					}
				}
			}
		})
	}
}

// TestOutcomes: resolve_ticket and close_ticket both set a ticket's
// status to a value "close out … as fixed" describes; the words of every
// task that resolves or closes a ticket say which status it ends in, and
// the check refuses words that do not.
func TestOutcomes(t *testing.T) {
	w, src := checkWorld(t, "it_service_desk")
	os := rivalOutcomes(w)
	got := map[string]string{}
	for tl, o := range os {
		got[tl.Name] = o.field.Name + "=" + o.value + " not " + strings.Join(o.others, ",")
	}
	if got["resolve_ticket"] != "status=resolved not closed" || got["close_ticket"] != "status=closed not resolved" {
		t.Errorf("outcomes: %v", got)
	}
	if _, ok := got["assign_ticket"]; ok {
		t.Errorf("assign_ticket (in_progress) rivals no tool: %v", got)
	}
	path := filepath.Join(worldsDir, "it_service_desk.world")
	r, _, _ := synthesize(t, path, src, 60, 1)
	n := 0
	for _, m := range r.Tasks {
		for _, tl := range m.WriteTools {
			want := map[string]string{"resolve_ticket": "status is resolved, not closed", "close_ticket": "status is closed, not resolved"}[tl]
			if want == "" || m.Origin == OriginRefusal {
				continue
			}
			n++
			if !strings.Contains(m.Instruction, want) {
				t.Errorf("%s calls %s; its words do not say %q: %s", m.ID, tl, want, m.Instruction)
			}
		}
	}
	if n == 0 {
		t.Fatalf("no task resolves or closes a ticket")
	}
	// The check: the words of a resolve that leave the outcome out are
	// refused.
	x, err := newSynth(w, Options{N: 1})
	if err != nil {
		t.Fatal(err)
	}
	var resolve *ir.Tool
	for _, tl := range w.Tools {
		if tl.Name == "resolve_ticket" {
			resolve = tl
		}
	}
	c := &call{tool: resolve}
	task := &task{instruction: "Please close out the ticket as fixed.", calls: []*call{c}}
	if missing, _ := x.wordProblems(task, task.instruction); len(missing) != 1 || missing[0] != "status resolved" {
		t.Errorf("missing = %q, want [status resolved]", missing)
	}
	if missing, _ := x.wordProblems(task, "Please close out the ticket as fixed, so that its status is resolved."); len(missing) != 0 {
		t.Errorf("missing = %q, want none", missing)
	}
}

func TestBoolPhrase(t *testing.T) {
	for _, c := range []struct {
		name string
		v    bool
		want string
	}{
		{"fraud_confirmed", false, "fraud not confirmed"},
		{"fraud_confirmed", true, "fraud confirmed"},
		{"with_conditions", false, "without conditions"},
		{"with_conditions", true, "with conditions"},
		{"temperature_ok", false, "temperature not ok"},
		{"on_hold", true, "on hold"},
		{"on_hold", false, "not on hold"},
		{"accept", false, "accept set to no"},
		{"is_active", true, "active set to yes"},
	} {
		if got := boolPhrase(c.name, c.v); got != c.want {
			t.Errorf("boolPhrase(%s, %v) = %q, want %q", c.name, c.v, got, c.want)
		}
		// The check finds the bool by the words of its name.
		p := &ir.Param{Name: c.name, Type: &ir.Type{Kind: ir.KindBool}}
		if !inText(strings.ToLower("Please do it, "+boolPhrase(c.name, c.v)+"."), "false", p) {
			t.Errorf("inText does not find %q", boolPhrase(c.name, c.v))
		}
	}
}

func TestValueText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"27500", "27,500"}, {"1899", "1,899"}, {"950", "950"}, {"1234567.5", "1,234,567.5"}, {"-12000", "-12,000"},
	} {
		if got := groupThousands(c.in); got != c.want {
			t.Errorf("groupThousands(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	money := &ir.Param{Name: "amount", Type: &ir.Type{Kind: ir.KindMoney}}
	if !inText("pay 27,500 eur", "27500", money) || !inText("pay 27500 eur", "27500", money) || inText("pay 2750 eur", "27500", money) {
		t.Errorf("inText reads amounts wrong")
	}
	str := &ir.Type{Kind: ir.KindString}
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"SIN-2026-0431", false}, {"Camille Lefèvre", false}, {"P2 High", false}, {"o.lambert@texa.fr", false},
		{"Found it cheaper", true}, {"Outpatients A, Room 1", true}, {"Kagoshima Unagi Co.", true}, {"", true},
	} {
		if got := needsQuotes(c.s, str); got != c.want {
			t.Errorf("needsQuotes(%q) = %v, want %v", c.s, got, c.want)
		}
	}
	if !needsQuotes("Camille", &ir.Type{Kind: ir.KindText}) {
		t.Errorf("text is always quoted")
	}
}

// TestSetWords: words written for a task by another writer pass the
// same check as the template's — a value left out, an internal id, a
// line break are refused — and replace them in the spec and the metadata,
// marked llm, with the written spec checking clean.
func TestSetWords(t *testing.T) {
	path := filepath.Join(worldsDir, "insurance_claims.world")
	_, src := checkWorld(t, "insurance_claims")
	r, _, _ := synthesize(t, path, src, 12, 5)
	reqs := r.WordsRequests()
	if len(reqs) != len(r.Tasks) {
		t.Fatalf("%d requests for %d tasks", len(reqs), len(r.Tasks))
	}
	// A task with a value to give and an internal id in its solution.
	k := -1
	for i, q := range reqs {
		if len(q.Values) > 0 && len(q.Forbidden) > 0 {
			k = i
			break
		}
	}
	if k < 0 {
		t.Fatalf("no task with values and forbidden ids: %+v", reqs)
	}
	q := reqs[k]
	for _, s := range q.Steps {
		for _, id := range q.Forbidden {
			if strings.Contains(s, id) {
				t.Errorf("step %q shows the internal id %s", s, id)
			}
		}
	}
	own := Words{Persona: "A claims handler", Instruction: "Hello. " + r.Tasks[k].Instruction}
	if p := r.CheckWords(k, own); !p.OK() {
		t.Fatalf("the template's words, reworded, fail: %+v", p)
	}
	v := q.Values[0]
	noValue := Words{Persona: own.Persona, Instruction: strings.ReplaceAll(own.Instruction, v, "it")}
	if p := r.CheckWords(k, noValue); len(p.Missing) == 0 || p.Reason() != "missing" {
		t.Errorf("words without %q pass: %+v", v, p)
	}
	leak := Words{Persona: own.Persona, Instruction: own.Instruction + " (ref " + q.Forbidden[0] + ")"}
	if p := r.CheckWords(k, leak); !slices.Contains(p.Leaked, q.Forbidden[0]) || p.Reason() != "leak" {
		t.Errorf("words with %s pass: %+v", q.Forbidden[0], p)
	}
	if p := r.CheckWords(k, Words{Persona: "x\ny", Instruction: own.Instruction}); p.Reason() != "form" {
		t.Errorf("a persona with a line break passes: %+v", p)
	}
	if err := r.SetWords(make([]Words, len(r.Tasks)+1), WordsCount{}); err == nil {
		t.Errorf("SetWords takes words for more tasks than there are")
	}
	bad := make([]Words, len(r.Tasks))
	bad[k] = leak
	if err := r.SetWords(bad, WordsCount{}); err == nil {
		t.Errorf("SetWords takes words that leak an id")
	}
	ws := make([]Words, len(r.Tasks))
	ws[k] = own
	if err := r.SetWords(ws, WordsCount{Model: "m", LLM: 1, Template: len(ws) - 1}); err != nil {
		t.Fatal(err)
	}
	if m := r.Tasks[k]; m.InstructionSource != "llm" || m.Instruction != own.Instruction || m.Persona != own.Persona {
		t.Errorf("metadata after SetWords: %+v", m)
	}
	if r.Tasks[(k+1)%len(ws)].InstructionSource != "template" {
		t.Errorf("a task without new words is not marked template")
	}
	if r.Summary.Words == nil || r.Summary.Words.LLM != 1 || r.Summary.Kept != len(ws) {
		t.Errorf("summary after SetWords: %+v", r.Summary)
	}
	if !strings.Contains(string(r.Spec), `instruction_source: "llm"`) || !strings.Contains(string(r.Spec), strconvQuote(own.Instruction)) {
		t.Errorf("the spec does not hold the new words")
	}
}

// oddWords are wordings the templates must not write: a flag said as a
// parameter's value after "marked" ("marked active set to yes"), a date
// field read as a noun ("whose requested on is 2026-04-30"), a word
// twice ("with status issued issued on …"), a placeholder for a person
// ("the analyst “Analyst as agreed”").
var oddWords = []struct {
	re  *regexp.Regexp
	why string
}{
	{regexp.MustCompile(`marked [^,.;:]*set to (yes|no)`), "a flag as a value"},
	{regexp.MustCompile(`whose [a-z]+(?: [a-z]+)? (?:on|at|until|since|by|from|to) is `), "a date field as a noun"},
	{regexp.MustCompile(`(?i)the ([a-z]+) “([a-z]+) as agreed”`), "a placeholder for a person"},
}

// oddities are the odd wordings of an instruction.
func oddities(s string) []string {
	var out []string
	ws := strings.Fields(s)
	for i := 1; i < len(ws); i++ {
		if len(ws[i]) >= 3 && ws[i] == ws[i-1] && strings.ToLower(ws[i]) == ws[i] {
			out = append(out, "a word twice: "+ws[i]+" "+ws[i])
		}
	}
	for _, o := range oddWords {
		for _, m := range o.re.FindAllStringSubmatch(s, -1) {
			switch {
			case strings.HasPrefix(o.why, "a placeholder"):
				if strings.EqualFold(m[1], m[2]) {
					out = append(out, o.why+": "+m[0])
				}
			default:
				out = append(out, o.why+": "+m[0])
			}
		}
	}
	return out
}

// recordTexts are the string values of the records of w's seed: a free
// text a task passes must be the user's words, not one of these.
func recordTexts(t *testing.T, w *ir.World) map[string]bool {
	t.Helper()
	if texts, ok := textsOf[w]; ok {
		return texts
	}
	texts := map[string]bool{}
	for _, r := range w.Seed {
		for _, v := range r.Values {
			if v != nil && (v.Kind == ir.KindString || v.Kind == ir.KindText) && len(v.Str) > 12 {
				texts[v.Str] = true
			}
		}
	}
	textsOf[w] = texts
	return texts
}

var textsOf = map[*ir.World]map[string]bool{}

// TestOddities: the odd wordings the examples had are caught, and the
// phrases that replace them are not.
func TestOddities(t *testing.T) {
	for _, s := range []string{
		"Go through every rate card marked active set to yes: …",
		"the assessment whose requested on is 2026-04-30 for the claim SIN-2026-0412",
		"the freight invoice with status issued issued on 2026-02-20",
		"with the analyst “Analyst as agreed”",
	} {
		if len(oddities(s)) == 0 {
			t.Errorf("oddities(%q) finds nothing", s)
		}
	}
	x := &synth{w: &ir.World{}}
	wd := newWording()
	date := &ir.Type{Kind: ir.KindDate}
	for _, c := range []struct {
		field string
		v     any
		t     *ir.Type
		want  string
	}{
		{"active", true, &ir.Type{Kind: ir.KindBool}, "marked as active"},
		{"on_hold", false, &ir.Type{Kind: ir.KindBool}, "not marked as on hold"},
		{"with_conditions", true, &ir.Type{Kind: ir.KindBool}, "with conditions"},
		{"fraud_confirmed", false, &ir.Type{Kind: ir.KindBool}, "with fraud not confirmed"},
		{"requested_on", "2026-04-30", date, "requested on 2026-04-30"},
		{"ends_on", "2026-03-31", date, "that ends on 2026-03-31"},
		{"session_date", "2026-04-21", date, "whose session date is 2026-04-21"},
	} {
		got := x.qualifier(c.field, c.v, c.t, wd)
		if got != c.want {
			t.Errorf("qualifier(%s, %v) = %q, want %q", c.field, c.v, got, c.want)
		}
		if odd := oddities("the record " + got); len(odd) > 0 {
			t.Errorf("qualifier(%s) reads oddly: %v", c.field, odd)
		}
	}
}
