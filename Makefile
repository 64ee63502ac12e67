# ugbench — see README.md. `make demo` runs a small real grid; `make test` runs the tests.
GO ?= go
# GoMLX's pure-Go backend has SIMD matmul kernels behind Go's simd experiment
# (amd64 only): a gin-topk epoch on COIL-DEL took 2.4 s with it, 6.2 s without.
ifeq ($(shell $(GO) env GOARCH),amd64)
export GOEXPERIMENT ?= simd
endif
# Datasets: ../shared/datasets when it exists (developers, CI), else
# $UGBENCH_DATA, else ./data. On a fresh clone neither exists and the demo
# uses the Letter-high copy compiled into bin/bench (datasets/embedded);
# `bin/bench data fetch NAME|all` downloads the others into ./data.
DATA ?= $(shell if [ -d ../shared/datasets ]; then echo ../shared/datasets; else echo $${UGBENCH_DATA:-./data}; fi)
DB ?= demo.db
DEMO_GRID = --methods gin-topk,wl --datasets Letter-high --ratios low,high --seeds 0,1,2

.PHONY: build demo test bench fuzz vet clean

build:
	$(GO) build -buildvcs=auto -o bin/bench ./cmd/bench

# A small real grid (2 methods × Letter-high × low/high × 3 seeds), then the
# paper's accuracy and OOD-F1 tables. Rerunning skips finished runs; an
# interrupted demo resumes where it stopped.
demo: build
	./bin/bench grid $(DEMO_GRID) --db $(DB) --data-dir $(DATA)
	./bin/bench report accuracy --db $(DB)
	./bin/bench report f1 --db $(DB)

test: vet
	UGBENCH_DATA=$(abspath $(DATA)) $(GO) test -count=1 -timeout 25m ./...

vet:
	@bad=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "not gofmt-formatted:"; echo "$$bad"; exit 1; fi
	$(GO) vet ./...

# Go benchmarks (one gin-topk epoch on COIL-DEL, UGNN phases on COIL-DEL and
# COLORS-3, WL feature maps, TU loading); the UGNN phases take ~15 min here.
bench:
	UGBENCH_DATA=$(abspath $(DATA)) $(GO) test -run NONE -bench . -benchtime 3x ./...

fuzz:
	$(GO) test -run NONE -fuzz FuzzParseLine -fuzztime 60s ./datasets

clean:
	rm -rf bin $(DB) $(DB)-wal $(DB)-shm
