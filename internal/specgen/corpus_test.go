package specgen

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
)

// TestCorpus: corpus worlds are deterministic, distinct, check clean, and
// spread over industries, countries and tags.
func TestCorpus(t *testing.T) {
	industriesSeen, capsSeen := map[string]bool{}, map[string]bool{}
	specs := map[string]bool{}
	for i := range 12 {
		name, src := CorpusSpec(7, i)
		if n2, again := CorpusSpec(7, i); n2 != name || again != src {
			t.Fatalf("world %d is not deterministic", i)
		}
		if specs[src] {
			t.Fatalf("world %d repeats another", i)
		}
		specs[src] = true
		w, diags := compiler.CheckSource(name+".world", []byte(src))
		if w == nil {
			t.Fatalf("%s does not check clean:\n%s\n%s", name, diags.Text(), src)
		}
		if w.Name != name || strings.Contains(src, "random_") || strings.Contains(src, `"testing"`) {
			t.Errorf("%s: world %s, or leftovers of the random spec", name, w.Name)
		}
		industriesSeen[w.Industry] = true
		for _, task := range w.Tasks {
			for _, c := range task.Capabilities {
				capsSeen[c] = true
			}
		}
	}
	if len(industriesSeen) < 4 || len(capsSeen) < 3 {
		t.Errorf("12 worlds cover %d industries and %d capabilities", len(industriesSeen), len(capsSeen))
	}
}
