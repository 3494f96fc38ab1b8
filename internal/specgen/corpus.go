package specgen

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
)

// A place a synthetic world is set in: a country and its currency.
type place struct{ country, currency string }

// Corpus metadata: what synthetic worlds are spread over, so that a corpus
// report has cells to fill.
var (
	industries   = []string{"retail", "logistics", "insurance", "healthcare", "telecom", "banking", "education", "hospitality", "manufacturing", "utilities"}
	places       = []place{{"DE", "EUR"}, {"FR", "EUR"}, {"US", "USD"}, {"GB", "GBP"}, {"CH", "CHF"}, {"IN", "INR"}, {"BR", "BRL"}, {"SG", "SGD"}}
	capabilities = []string{"tool_use", "state_management", "policy_following", "search", "multi_hop"}
	difficulties = []string{"single", "multi_step", "cross_service", "ambiguous"}
)

// CorpusSpec is world i of the synthetic corpus of seed: Spec of a seed
// derived from both, named synth_<seed>_<i>, set in an industry, country
// and currency, and with task tags, drawn from the same seed. The same
// (seed, i) is the same spec; different i are different worlds.
func CorpusSpec(seed uint64, i int) (name, spec string) {
	s := seed*1_000_003 + uint64(i)
	src := Spec(s)
	r := rand.New(rand.NewPCG(s, s^0x5bd1e995))
	old := fmt.Sprintf("random_%d", s)
	name = fmt.Sprintf("synth_%d_%d", seed, i)
	p := places[r.IntN(len(places))]
	industry := industries[r.IntN(len(industries))]
	src = strings.Replace(src, "world "+old+" {", "world "+name+" {", 1)
	src = header(src, "title", fmt.Sprintf("Synthetic world %d of corpus %d", i, seed))
	src = header(src, "industry", industry)
	src = header(src, "country", p.country)
	src = header(src, "currency", p.currency)
	src = strings.ReplaceAll(src, `domain "ToB/testing"`, fmt.Sprintf("domain %q", "ToB/"+industry))
	// Each task gets a capability and a difficulty of its own.
	var b strings.Builder
	rest := src
	for {
		j := strings.Index(rest, "capabilities [tool_use] difficulty [single]")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:j])
		fmt.Fprintf(&b, "capabilities [%s] difficulty [%s]", capabilities[r.IntN(len(capabilities))], difficulties[r.IntN(len(difficulties))])
		rest = rest[j+len("capabilities [tool_use] difficulty [single]"):]
	}
	return name, b.String()
}

// header sets the string of a world header line (`  key   "value"`, as
// the formatter aligns it).
func header(src, key, value string) string {
	re := regexp.MustCompile(`(?m)^(\s*` + key + `\s+)"[^"]*"`)
	done := false
	return re.ReplaceAllStringFunc(src, func(m string) string {
		if done {
			return m
		}
		done = true
		sub := re.FindStringSubmatch(m)
		return sub[1] + fmt.Sprintf("%q", value)
	})
}
