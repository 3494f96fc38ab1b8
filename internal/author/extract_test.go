package author

import (
	"strings"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/internal/gate"
)

func TestExtract(t *testing.T) {
	for _, c := range []struct{ name, in, want, err string }{
		{"world fence", "Here:\n```world\nworld a {\n}\n```\nDone.", "world a {\n}\n", ""},
		{"world fence among others", "```json\n{}\n```\n```world\nworld b {}\n```", "world b {}\n", ""},
		{"only fence", "```\nworld c {}\n```", "world c {}\n", ""},
		{"two untagged fences", "```\nx\n```\n```\ny\n```", "", "holds no spec"},
		{"bare spec", "world d {}\n", "world d {}\n", ""},
		{"bare spec after comment", "// a world\nworld e {}", "// a world\nworld e {}\n", ""},
		{"json", `{"spec": "world f {}"}`, "world f {}\n", ""},
		{"json without spec", `{"text": "world f {}"}`, "", `no "spec" member`},
		{"malformed json", `{"spec": "world f {`, "", "not valid JSON"},
		{"prose", "Sorry, I cannot.", "", "holds no spec"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Extract(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Extract = %q, %v; want an error with %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Extract = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestRenameWorld(t *testing.T) {
	src := "// header\nworld   other_name {\n  title \"x\"\n}\n"
	got, old := renameWorld("a.world", src, "acme")
	if got != "// header\nworld   acme {\n  title \"x\"\n}\n" || old != "other_name" {
		t.Fatalf("renameWorld = %q, %q", got, old)
	}
	if got, old := renameWorld("a.world", got, "acme"); old != "" || got != "// header\nworld   acme {\n  title \"x\"\n}\n" {
		t.Fatalf("a world already named is renamed: %q %q", got, old)
	}
	if got, old := renameWorld("a.world", "world {", "acme"); old != "" || got != "world {" {
		t.Fatal("a spec that does not parse is changed")
	}
}

func TestWorldName(t *testing.T) {
	for in, want := range map[string]string{
		"acme":                  "acme",
		"Retail DE 007":         "retail_de_007",
		"007-retail":            "w_007_retail",
		"--":                    "world",
		strings.Repeat("a", 70): strings.Repeat("a", 64),
	} {
		if got := WorldName(in); got != want {
			t.Errorf("WorldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSignatureIgnoresPositions(t *testing.T) {
	a := []Finding{{Code: "W003", Message: "unknown x", Line: 3}, {Code: "W005", Message: "bad y", Line: 9}}
	b := []Finding{{Code: "W005", Message: "bad y", Line: 10}, {Code: "W003", Message: "unknown x", Line: 4}}
	if Signature(a) != Signature(b) {
		t.Error("the same findings at other lines have another signature")
	}
	if Signature(a) == Signature(a[:1]) {
		t.Error("fewer findings have the same signature")
	}
}

func TestGateFindingsWithoutPosition(t *testing.T) {
	fs := GateFindings(gate.WorldResult{Reason: "build failed"}, "", nil)
	if len(fs) != 1 || fs[0].Message != "build failed" || fs[0].Severity != compiler.SeverityError {
		t.Fatalf("%+v", fs)
	}
}
