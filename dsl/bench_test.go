package dsl

import (
	"bytes"
	"os"
	"testing"

	"github.com/worldc/worldc/internal/cpubench"
)

// benchSpec is a representative spec: a copy of an example world (five
// services, invariants, a seed and tasks; about 500 lines).
func benchSpec(b *testing.B) []byte {
	src, err := os.ReadFile("testdata/bench.world")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	return src
}

func BenchmarkParse(b *testing.B) {
	src := benchSpec(b)
	cpubench.Loop(b, func() {
		if _, err := Parse("bench.world", src); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkFormat(b *testing.B) {
	src := benchSpec(b)
	f, err := Parse("bench.world", src)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Format(f)
	}
}

// BenchmarkParseError parses the spec of BenchmarkParse with a mistake
// near its end (its last closing brace dropped): a spec with a syntax
// error costs what a good one does.
func BenchmarkParseError(b *testing.B) {
	src := benchSpec(b)
	end := bytes.LastIndexByte(src, '}')
	src = append(src[:end:end], src[end+1:]...)
	cpubench.Loop(b, func() {
		if _, err := Parse("bench.world", src); err == nil {
			b.Fatal("no error")
		}
	})
}
