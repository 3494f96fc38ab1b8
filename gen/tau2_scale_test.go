package gen

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/worldc/worldc/compiler"
)

// tau2BenchFile holds the benchmarks TestTau2Scale runs inside the
// generated tau2_retail package.
const tau2BenchFile = `package tau2_retail

import (
	"bytes"
	"encoding/json"
	"testing"
)

var sink any

func BenchmarkSeedDecodeAndBuild(b *testing.B) {
	for b.Loop() {
		d := json.NewDecoder(bytes.NewReader(seedJSON))
		d.DisallowUnknownFields()
		var sd seedData
		if err := d.Decode(&sd); err != nil {
			b.Fatal(err)
		}
		s := NewState()
		if err := s.insert(&sd.World); err != nil {
			b.Fatal(err)
		}
		s.Freeze()
		sink = s
	}
}

func BenchmarkReset(b *testing.B) {
	NewEpisode("")
	for b.Loop() {
		sink, _ = NewEpisode("")
	}
}

func call(b *testing.B, tool, args string, fresh bool) {
	e, _ := NewEpisode("")
	raw := json.RawMessage(args)
	if o := e.Call(tool, raw); !o.OK {
		b.Fatal(o.Err())
	}
	for b.Loop() {
		if fresh {
			e, _ = NewEpisode("")
		}
		if o := e.Call(tool, raw); !o.OK {
			b.Fatal(o.Err())
		}
	}
}

func BenchmarkGetOrderDetails(b *testing.B) {
	call(b, "get_order_details", ` + "`" + `{"order_id":"#W9911714"}` + "`" + `, false)
}

func BenchmarkGetUserDetails(b *testing.B) {
	call(b, "get_user_details", ` + "`" + `{"user_id":"ethan_garcia_1261"}` + "`" + `, false)
}

func BenchmarkGetProductDetails(b *testing.B) {
	call(b, "get_product_details", ` + "`" + `{"product_id":"1656367028"}` + "`" + `, false)
}

func BenchmarkFindUserByNameZip(b *testing.B) {
	call(b, "find_user_id_by_name_zip", ` + "`" + `{"first_name":"Ethan","last_name":"Garcia","zip":"80280"}` + "`" + `, false)
}

func BenchmarkModifyItemsFreshEpisode(b *testing.B) {
	call(b, "modify_pending_order_items", ` + "`" + `{"order_id":"#W9911714","item_ids":["9791469541","1340995114"],"new_item_ids":["4107812777","1421289881"],"payment_method_id":"gift_card_4332117"}` + "`" + `, true)
}

func BenchmarkModifyAddressRepeated(b *testing.B) {
	call(b, "modify_user_address", ` + "`" + `{"user_id":"ethan_garcia_1261","address1":"1 A St","address2":"","city":"Denver","state":"CO","country":"USA","zip":"80280"}` + "`" + `, false)
}

func BenchmarkHashAfterWrite(b *testing.B) {
	e, _ := NewEpisode("")
	e.Call("modify_user_address", json.RawMessage(` + "`" + `{"user_id":"ethan_garcia_1261","address1":"1 A St","address2":"","city":"Denver","state":"CO","country":"USA","zip":"80280"}` + "`" + `))
	e.StateHash()
	for b.Loop() {
		sink = e.StateHash()
	}
}

func BenchmarkCheckInvariants(b *testing.B) {
	s, _ := Seed()
	for b.Loop() {
		sink = s.CheckInvariants()
	}
}

func BenchmarkValidate(b *testing.B) {
	s, _ := Seed()
	for b.Loop() {
		sink = s.Validate()
	}
}
`

const tau2MainFile = `package main

import (
	"fmt"

	"github.com/worldc/worldc/%s"
)

func main() {
	e, err := tau2_retail.NewEpisode("")
	fmt.Println(e != nil, err)
}
`

const runtimeOnlyMainFile = `package main

import (
	"encoding/json"
	"fmt"

	"github.com/worldc/worldc/runtime"
)

func main() {
	r := runtime.NewRegistry[runtime.Stateful]()
	fmt.Println(r.Tools(), json.Valid(nil))
}
`

// TestTau2Scale measures the generated package of the tau2-bench retail
// world (testdata/worlds/tau2_retail.world: a seed of 1,550 records with
// nested lists, maps and variants, 114 tasks): generation, build time,
// binary size against a program using the runtime alone, seed decoding,
// and tool calls on nested records. It runs only with WORLDC_BENCH=1;
// figures go to the log. (Its fidelity to tau2 is gen/difftest's
// TestTau2Fidelity.)
func TestTau2Scale(t *testing.T) {
	if os.Getenv("WORLDC_BENCH") == "" {
		t.Skip("set WORLDC_BENCH=1 to measure the tau2 retail package")
	}
	spec := filepath.Join(moduleRoot(t), "testdata", "worlds", "tau2_retail.world")
	start := time.Now()
	w, diags := compiler.CheckFile(spec)
	if w == nil {
		t.Fatalf("%s does not check:\n%s", spec, diags.Text())
	}
	t.Logf("check (with the seed loaded and the solutions replayed): %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	files := mustGenerate(t, w)
	t.Logf("%d seed records, %d tasks: Generate %v; seed.json %d KiB; Go sources %d KiB", len(w.Seed), len(w.Tasks), time.Since(start).Round(time.Millisecond),
		len(files["seed.json"])>>10, goBytes(files)>>10)
	root := scratch(t)
	dir := filepath.Join(root, w.Name)
	writeFiles(t, dir, files)
	if err := os.WriteFile(filepath.Join(dir, "bench_test.go"), []byte(tau2BenchFile), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(moduleRoot(t), dir)
	pkg := "./" + filepath.ToSlash(rel)
	if out, ok := goCmd(t, "build", "./runtime"); !ok { // warm the cache for runtime
		t.Fatal(out)
	}
	start = time.Now()
	if out, ok := goCmd(t, "build", pkg); !ok {
		t.Fatal(out)
	}
	t.Logf("go build of the package (runtime cached): %v", time.Since(start).Round(time.Millisecond))
	for _, m := range []struct{ name, src string }{
		{"main_world", fmt.Sprintf(tau2MainFile, filepath.ToSlash(rel))},
		{"main_runtime", runtimeOnlyMainFile},
	} {
		mdir := filepath.Join(root, m.name)
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(mdir, "main.go"), []byte(m.src), 0o644); err != nil {
			t.Fatal(err)
		}
		mrel, _ := filepath.Rel(moduleRoot(t), mdir)
		bin := filepath.Join(root, m.name+".bin")
		start = time.Now()
		if out, ok := goCmd(t, "build", "-o", bin, "./"+filepath.ToSlash(mrel)); !ok {
			t.Fatal(out)
		}
		st, err := os.Stat(bin)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: binary %d KiB (go build %v)", m.name, st.Size()>>10, time.Since(start).Round(time.Millisecond))
	}
	out, ok := goCmd(t, "test", "-count=1", pkg)
	t.Log(strings.TrimSpace(out))
	if !ok {
		t.Fatal("the generated tests failed")
	}
	out, ok = goCmd(t, "test", "-run=^$", "-bench=.", "-benchmem", "-benchtime=200x", pkg)
	t.Log(out)
	if !ok {
		t.Fatal("benchmarks failed")
	}
}

// goBytes is the size of the generated Go sources.
func goBytes(files map[string][]byte) int {
	n := 0
	for name, b := range files {
		if strings.HasSuffix(name, ".go") {
			n += len(b)
		}
	}
	return n
}
