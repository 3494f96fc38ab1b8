package tasks

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
)

// processCPU is the CPU time this process has used, garbage collection
// included: what `worldc tasks` costs a world (issue 21 asks for under 2
// CPU-seconds for 100 tasks).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSynthesize measures Synthesize of 100 tasks (seed 1, as
// `worldc tasks -n 100` makes them) on each example world, the final
// check of the written spec included; cpu-ns/op is the process's CPU time
// per world. Compare runs with benchstat:
//
//	go test ./compiler/tasks -run '^$' -bench Synthesize -count 6 -benchtime 2x
func BenchmarkSynthesize(b *testing.B) {
	names, err := filepath.Glob(filepath.Join(worldsDir, "*.world"))
	if err != nil || len(names) == 0 {
		b.Fatalf("no example worlds in %s: %v", worldsDir, err)
	}
	for _, path := range names {
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		data := os.DirFS(filepath.Dir(path))
		w, ds := compiler.CheckSource(path, src, compiler.WithData(data))
		if ds.HasErrors() {
			b.Fatalf("%s does not check:\n%s", path, ds.Text())
		}
		b.Run(filepath.Base(path[:len(path)-len(".world")]), func(b *testing.B) {
			b.ReportAllocs()
			c0 := processCPU()
			for b.Loop() {
				r, err := Synthesize(w, src, Options{N: 100, Seed: 1, Filename: path, Data: data})
				if err != nil {
					b.Fatal(err)
				}
				if len(r.Tasks) == 0 {
					b.Fatal("no tasks")
				}
			}
			b.ReportMetric(float64(processCPU()-c0)/float64(b.N), "cpu-ns/op")
		})
	}
}
