package gate

import (
	"slices"
	"strings"
	"testing"
)

// The go test -json stream, as go 1.24+ writes it: build output keyed by
// ImportPath, a package's final event naming the build that failed.
const testStream = `{"ImportPath":"ex/b [ex/b.test]","Action":"build-output","Output":"# ex/b [ex/b.test]\n"}
{"ImportPath":"ex/b [ex/b.test]","Action":"build-output","Output":"b/b_test.go:3:9: undefined: x\n"}
{"ImportPath":"ex/b [ex/b.test]","Action":"build-fail"}
{"ImportPath":"ex/dep","Action":"build-output","Output":"dep/dep.go:1:1: broken dependency\n"}
{"Action":"start","Package":"ex/a"}
{"Action":"run","Package":"ex/a","Test":"TestA"}
{"Action":"output","Package":"ex/a","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"ex/a","Test":"TestA","Output":"    a_test.go:9: world \"a\": first\n"}
{"Action":"output","Package":"ex/a","Test":"TestA","Output":"        continued\n"}
{"Action":"output","Package":"ex/a","Test":"TestA","Output":"--- FAIL: TestA (0.00s)\n"}
{"Action":"fail","Package":"ex/a","Test":"TestA","Elapsed":0}
{"Action":"output","Package":"ex/a","Output":"FAIL\n"}
{"Action":"output","Package":"ex/a","Output":"FAIL\tex/a\t0.01s\n"}
{"Action":"fail","Package":"ex/a","Elapsed":0.25}
{"Action":"output","Package":"ex/b","Output":"FAIL\tex/b [build failed]\n"}
{"Action":"fail","Package":"ex/b","Elapsed":0,"FailedBuild":"ex/b [ex/b.test]"}
{"Action":"output","Package":"ex/c","Output":"ok  \tex/c\t(cached)\n"}
{"Action":"pass","Package":"ex/c","Elapsed":0.5}
{"Action":"output","Package":"ex/d","Output":"?   \tex/d\t[no test files]\n"}
{"Action":"skip","Package":"ex/d","Elapsed":0}
{"Action":"fail","Package":"ex/e","Elapsed":0,"FailedBuild":"ex/dep"}
not json
`

func TestParseTestEvents(t *testing.T) {
	got := map[string]testOutcome{}
	var order []string
	err := parseTestEvents(strings.NewReader(testStream), func(path string, o testOutcome) {
		got[path] = o
		order = append(order, path)
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, " ") != "ex/a ex/b ex/c ex/d ex/e" {
		t.Errorf("order %v", order)
	}
	check := func(path string, ok bool, stage Stage, first string, n int) {
		t.Helper()
		o := got[path]
		if o.OK != ok || o.Stage != stage || len(o.Errors) != n || n > 0 && o.Errors[0].String() != first {
			t.Errorf("%s: %+v\nwant ok=%v stage=%q first=%q errors=%d", path, o, ok, stage, first, n)
		}
	}
	check("ex/a", false, StageTest, `a_test.go:9: world "a": first continued`, 1)
	check("ex/b", false, StageBuild, "b/b_test.go:3:9: undefined: x", 1)
	check("ex/c", true, "", "", 0)
	check("ex/d", true, "", "", 0)
	check("ex/e", false, StageBuild, "dep/dep.go:1:1: broken dependency", 1)
	if !got["ex/c"].Cached || got["ex/a"].Elapsed != 0.25 {
		t.Errorf("cached %v, elapsed %v", got["ex/c"].Cached, got["ex/a"].Elapsed)
	}
}

func TestBuildFlags(t *testing.T) {
	pkgs := []string{"worlds/a", "worlds/b"}
	for _, tt := range []struct {
		optimize bool
		want     []string
	}{
		{false, []string{"-ldflags=-w", "-gcflags=worlds/...=-N -l -dwarf=false"}},
		{true, []string{"-ldflags=-w", "-gcflags=worlds/...=-dwarf=false"}},
	} {
		got := buildFlags(pkgs, &VetOptions{Optimize: tt.optimize})
		if !slices.Equal(got, tt.want) {
			t.Errorf("optimize %v: %q, want %q", tt.optimize, got, tt.want)
		}
	}
}
