package compiler

import (
	"os"
	"testing"

	"github.com/worldc/worldc/compiler/diag"
)

// TestWithoutLints: the lints it names are left out, and no other code.
func TestWithoutLints(t *testing.T) {
	src, err := os.ReadFile("testdata/validators/W028.world")
	if err != nil {
		t.Fatal(err)
	}
	has := func(ds Diagnostics, code diag.Code) bool {
		for _, d := range ds {
			if d.Code == code {
				return true
			}
		}
		return false
	}
	if _, ds := CheckSource("W028.world", src); !has(ds, "W028") {
		t.Fatalf("the W028 example does not give W028:\n%s", ds.Text())
	}
	if _, ds := CheckSource("W028.world", src, WithoutLints("W028")); has(ds, "W028") {
		t.Error("WithoutLints(W028) kept W028")
	}
	bad := []byte("world w {\n  title \"x\"\n  today 2026-01-01\n}\nservice s \"S\" {\n  tool get_x: get Missing\n}\n")
	if _, ds := CheckSource("bad.world", bad, WithoutLints("W003", "W028")); !has(ds, "W003") {
		t.Errorf("WithoutLints left out W003, which is not a lint:\n%s", ds.Text())
	}
}
