# ugbench — see README.md. `make demo` runs a small real grid; `make test` runs the tests.
GO ?= go
# go.mod needs Go >= 1.27 (gomlx/compute v0.1.14 declares it). Pinned to the
# toolchain the figures in RESULTS.md and docs/speed.md were measured with; the go command fetches
# it once through the module proxy (Go >= 1.21 on the PATH is enough). Plain
# `go build`/`go test` need the same: `export GOTOOLCHAIN=go1.27.3`.
export GOTOOLCHAIN ?= go1.27.3
# GoMLX's pure-Go backend has SIMD matmul kernels behind Go's simd experiment
# (amd64 only): a gin-topk epoch on COIL-DEL took 2.4 s with it, 6.2 s without.
ifeq ($(shell GOTOOLCHAIN=$(GOTOOLCHAIN) $(GO) env GOARCH),amd64)
export GOEXPERIMENT ?= simd
endif
# Datasets: ../shared/datasets when it exists (developers, CI), else
# $UGBENCH_DATA, else ./data. On a fresh clone neither exists and the demo
# uses the Letter-high copy compiled into bin/bench (datasets/embedded);
# `bin/bench data fetch NAME|all` downloads the others into ./data.
DATA ?= $(shell if [ -d ../shared/datasets ]; then echo ../shared/datasets; else echo $${UGBENCH_DATA:-./data}; fi)
DB ?= demo.db
DEMO_GRID = --methods gin-topk,wl --datasets Letter-high --ratios low,high --seeds 0,1,2

.PHONY: build demo results test slurm-test bench fuzz vet clean

build:
	$(GO) build -buildvcs=auto -o bin/bench ./cmd/bench

# A small real grid (2 methods × Letter-high × low/high × 3 seeds), then the
# paper's accuracy and OOD-F1 tables. Rerunning skips finished runs; an
# interrupted demo resumes where it stopped.
demo: build
	./bin/bench grid $(DEMO_GRID) --db $(DB) --data-dir $(DATA)
	./bin/bench report accuracy --db $(DB)
	./bin/bench report f1 --db $(DB)

# The results document from a database of runs (RESULTS.md):
# make results RESULTS_DB=/path/to/runs.db
RESULTS_DB ?= $(DB)
results: build
	./bin/bench report results --db $(RESULTS_DB) > RESULTS.md

# Tests that need the datasets skip without them; their count comes last.
test: vet
	@rm -f .test-skipped
	UGBENCH_DATA=$(abspath $(DATA)) UGBENCH_SKIP_LOG=$(abspath .test-skipped) $(GO) test -count=1 -timeout 25m ./...
	@if [ -s .test-skipped ]; then echo "make test: $$(wc -l < .test-skipped) test(s) SKIPPED for lack of data (names in .test-skipped); a full run needs bin/bench data fetch all (or ../shared/datasets)"; fi

# A real one-node Slurm (installed with apt if missing; needs root): a
# sharded wl grid as a job array, merged, equal to the unsharded grid.
# Prints "slurm test: SKIPPED: ..." and succeeds where Slurm cannot start.
slurm-test:
	UGBENCH_DATA=$(abspath $(DATA)) bash contrib/slurm/test-one-node.sh

vet:
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "not gofmt-formatted:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...
	# The GPU path must not rot: type-check the XLA-tagged binary (not run here).
	$(GO) vet -tags xla ./methods/gnn ./cmd/bench

# Go benchmarks (one gin-topk epoch on COIL-DEL, UGNN phases on COIL-DEL and
# COLORS-3, WL feature maps, TU loading); the UGNN phases take ~15 min here.
bench:
	UGBENCH_DATA=$(abspath $(DATA)) $(GO) test -run NONE -bench . -benchtime 3x ./...

fuzz:
	$(GO) test -run NONE -fuzz FuzzParseLine -fuzztime 60s ./datasets

clean:
	rm -rf bin $(DB) $(DB)-wal $(DB)-shm
