package author

import (
	"context"
	"fmt"
	"testing"

	"github.com/worldc/worldc/internal/author/fakellm"
)

// BenchmarkLoopOverhead is the loop's own cost per brief against the fake
// endpoint, which answers at once: prompt rendering, HTTP, extraction,
// check, traces and results, for a first draft with errors and its repair
// (two requests), stopping at check. The gate's cost is that of worldc
// build on one world (see TestGateFailureIsRepaired).
func BenchmarkLoopOverhead(b *testing.B) {
	script := fakellm.Script{}
	var briefs []Brief
	for i := range b.N {
		id := fmt.Sprintf("brief_%06d", i)
		script[id] = []fakellm.Reply{
			{Content: replyFile(b, "broken.world"), Fence: true},
			{Content: replyFile(b, "good.world"), Fence: true},
		}
		briefs = append(briefs, brief(id))
	}
	srv := fakellm.New(script)
	defer srv.Close()
	p, err := LoadPrompts()
	if err != nil {
		b.Fatal(err)
	}
	r := &Runner{Prompts: p, Client: NewClient(testClientOptions(srv.BaseURL())), Opts: Options{Out: b.TempDir(), Rounds: 3, CheckOnly: true, Jobs: 1}}
	b.ResetTimer()
	s, err := r.Run(context.Background(), briefs)
	if err != nil {
		b.Fatal(err)
	}
	if s.Checked != b.N {
		b.Fatalf("%d of %d briefs checked", s.Checked, b.N)
	}
}
