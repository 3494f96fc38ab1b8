package tasks

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/worldc/worldc/compiler"
	"github.com/worldc/worldc/dsl"
	"github.com/worldc/worldc/internal/specgen"
)

// TestEmitIsTheLayoutOfTheWhole: emit, which formats the spec once and the
// task blocks apart, writes the bytes the formatter gives the spec and the
// blocks as one file — on the example worlds, random worlds, and specs
// out of the canonical layout — and its output is in the canonical
// layout. One difference is meant: a comment after the spec's last
// declaration stays where it is, a blank line before the first task,
// where formatting the whole made it that task's doc comment when the
// spec did not end in a newline.
func TestEmitIsTheLayoutOfTheWhole(t *testing.T) {
	type spec struct {
		name    string
		src     []byte
		closing bool // a comment after the last declaration
	}
	var specs []spec
	for _, name := range exampleWorlds(t) {
		src, err := os.ReadFile(filepath.Join(worldsDir, name+".world"))
		if err != nil {
			t.Fatal(err)
		}
		specs = append(specs, spec{name, src, false})
		// Out of layout; then also with comments after the last
		// declaration and no newline at the end.
		messy := bytes.ReplaceAll(src, []byte("\n\n"), []byte("\n\n\n"))
		specs = append(specs, spec{name + "_messy", messy, false})
		closing := append(slices.Clone(messy), "\n// a closing comment\n\n   // and another, indented"...)
		specs = append(specs, spec{name + "_closing", closing, true})
	}
	for _, seed := range []uint64{3, 11} {
		specs = append(specs, spec{fmt.Sprintf("random_%d", seed), []byte(specgen.Spec(seed)), false})
	}
	dir := t.TempDir()
	for _, sp := range specs {
		closing := sp.closing
		t.Run(sp.name, func(t *testing.T) {
			path := filepath.Join(worldsDir, sp.name+".world")
			if bytes.HasPrefix([]byte(sp.name), []byte("random_")) {
				path = filepath.Join(dir, sp.name+".world")
			}
			w, ds := compiler.CheckSource(path, sp.src, compiler.WithData(os.DirFS(worldsDir)))
			if ds.HasErrors() {
				t.Fatalf("does not check:\n%s", ds.Text())
			}
			x, err := newSynth(w, Options{N: 12, Seed: 1, Filename: path})
			if err != nil {
				t.Fatal(err)
			}
			cands := x.sample()
			if len(cands) == 0 {
				t.Fatal("no candidates")
			}
			x.name(cands, map[string]bool{})
			for _, n := range []int{0, 1, len(cands)} {
				got, err := x.emit(sp.src, cands[:n])
				if err != nil {
					t.Fatal(err)
				}
				var whole bytes.Buffer
				whole.Write(sp.src)
				for _, c := range cands[:n] {
					whole.WriteString("\n" + x.block(c))
				}
				want, err := dsl.FormatSource(path, whole.Bytes())
				if err != nil {
					t.Fatal(err)
				}
				if again, err := dsl.FormatSource(path, got); err != nil || !bytes.Equal(again, got) {
					t.Errorf("%d tasks: emit's output is not in the canonical layout (%v)\n%s", n, err, firstDiff(got, again))
				}
				if !bytes.Equal(got, want) && !closing {
					t.Errorf("%d tasks: emit differs from the layout of the whole (%d vs %d bytes)\n%s", n, len(got), len(want), firstDiff(got, want))
				}
			}
		})
	}
}

// firstDiff shows where two outputs first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d:\n got: %q\nwant: %q", i, a[from:min(len(a), i+80)], b[from:min(len(b), i+80)])
}
