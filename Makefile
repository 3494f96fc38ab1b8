# worldc — common tasks. `make demo` runs the main job on the example worlds;
# `make test` is everything CI checks.

GO       ?= go
WORLDC   := bin/worldc
WORLDS   := testdata/worlds
FUZZTIME ?= 30s
BENCH    ?= .
# Every package of the repository: worldc's module, and the runtime, a
# module of its own (runtime/go.mod) that worldc's go.mod replaces with
# ./runtime, so that the go command reaches it by its import path.
PKGS     := ./... github.com/worldc/worldc/runtime/...
# The packages with concurrency of their own, tested again under the race
# detector: the runtime and its server (with its agent loop), the pipeline (parallel checks,
# the gate's verdicts), the gate, the cache, and the authoring loop (its
# gated runs are the full tier's; -short here keeps the rest).
RACE     := github.com/worldc/worldc/runtime github.com/worldc/worldc/runtime/serve/... ./internal/pipeline ./internal/gate ./internal/cache
RACE_SHORT := ./internal/author

.PHONY: all build demo generate gen-check check test vet fmt-check fmt bench fuzz scale measure-tasks clean

all: build

build:
	$(GO) build -o $(WORLDC) ./cmd/worldc

# The main job on the bundled example worlds: check, generate into
# generated/, and vet (type-check and go test) every world.
demo: build
	$(WORLDC) build $(WORLDS)

# Regenerate generated/ from the example worlds.
generate: build
	$(WORLDC) gen $(WORLDS)

# Fails listing the files of generated/ that differ from what the example
# worlds generate.
gen-check: build
	$(WORLDC) gen --check $(WORLDS)

# The quick tier for the inner loop: go vet and go test -short.
check:
	$(GO) vet $(PKGS)
	$(GO) test -short $(PKGS)

# Everything CI checks: vet, gofmt, the canonical layout of the example
# worlds, generated/ up to date with them, and every test (the generated
# packages' own included: go test ./... covers ./generated/...).
test: build vet fmt-check gen-check
	$(GO) test $(PKGS)
	$(GO) test -race $(RACE)
	$(GO) test -race -short $(RACE_SHORT)

vet:
	$(GO) vet $(PKGS)

# Fails listing the files whose layout is not canonical.
fmt-check: build
	@out="$$(gofmt -l $$($(GO) list -f '{{.Dir}}' $(PKGS) | sort -u) | sed 's|^$(CURDIR)/||' | sort -u)"; \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	@out="$$($(WORLDC) fmt -l $(WORLDS))"; \
	if [ -n "$$out" ]; then echo "worldc fmt needed:"; echo "$$out"; exit 1; fi

# Rewrite Go sources and the example worlds in their canonical layout.
fmt: build
	gofmt -w $$($(GO) list -f '{{.Dir}}' $(PKGS) | sort -u)
	$(WORLDC) fmt -w $(WORLDS)

# The gate at scale: N synthetic worlds cold, warm and unchanged (see
# internal/gate/testdata/scale/scale.sh); prints the table.
N ?= 200
scale: build
	sh internal/gate/testdata/scale/scale.sh $(WORLDC) $(N)

# Task synthesis measured (docs/tasks.md, "What tasks cost"): the example
# worlds and SYNTH synthetic ones, the gate timed at 5 and 100 tasks on the
# example worlds and GATE_SAMPLE synthetic ones, GATE_RUNS runs each.
SYNTH ?= 200
GATE_SAMPLE ?= 4
GATE_RUNS ?= 3
measure-tasks: build
	$(GO) run ./cmd/taskcost -worldc $(WORLDC) -worlds $(WORLDS) -synth $(SYNTH) -gate-sample $(GATE_SAMPLE) -gate-runs $(GATE_RUNS) -json taskcost.json

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem $(PKGS)

# A short run of every fuzz target in the repository (FUZZTIME each).
fuzz:
	@set -e; for pkg in $$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $(PKGS)); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target\$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

clean:
	rm -rf bin
