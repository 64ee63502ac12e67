#!/bin/sh
# The scaling series of docs/speed.md ("Scaling on 16 cores"): one gin-topk
# epoch and UGNN's three phases on COIL-DEL low at GOMAXPROCS 1, 2, 4, ...
# up to the machine's cores, then 16 gin-topk runs on Letter-high (500 steps)
# with `bench grid --devices cpu:N` for N = 1, 2, 4, ... up to the cores.
# GOMAXPROCS is set through the environment for every value: for benchmarks
# written with b.Loop, Go's testing measures the first value of -test.cpu
# before it sets GOMAXPROCS (golang/go#49980).
# Usage (from the repository root, after `make build`, on a quiet machine):
#   UGBENCH_DATA=/path/to/datasets contrib/perf/scaling.sh
# Like ratio.sh it refuses to start at a load average ≥ half the cores
# unless FORCE=1. The grids write fresh databases under a temporary folder.
set -eu
cores=$(nproc)
load=$(cut -d' ' -f1 /proc/loadavg)
if awk -v l="$load" -v n="$cores" 'BEGIN { exit !(l >= n / 2) }' && [ "${FORCE:-0}" != 1 ]; then
  echo "scaling.sh: load average $load ≥ $cores/2: the machine is busy (FORCE=1 overrides)" >&2
  exit 2
fi
: "${UGBENCH_DATA:?set UGBENCH_DATA to the directory holding COIL-DEL}"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3} GOEXPERIMENT=${GOEXPERIMENT:-simd}
export GOMLX_GO_SIMD_AVX512=${GOMLX_GO_SIMD_AVX512:-false} # the kernels the grids use
[ -x bin/bench ] || { echo "scaling.sh: run make build first" >&2; exit 2; }
# The patched gomlx/compute workspace that make builds with, when it is there.
if [ -z "${GOWORK:-}" ] && [ -f build/go.work ]; then export GOWORK="$PWD/build/go.work"; fi
tmp=$(mktemp -d)
for p in methods/gnn methods/ugnn; do
  go test -c -o "$tmp/$(basename $p).test" "./$p"
done
echo "$(grep -m1 'model name' /proc/cpuinfo), $cores cores, load $load, commit $(git rev-parse --short HEAD)"
procs=1
while [ "$procs" -le "$cores" ]; do
  (cd methods/gnn && GOMAXPROCS=$procs "$tmp/gnn.test" -test.run NONE \
    -test.bench 'TrainEpochCOILDEL/random-chunks3$' -test.benchtime 3x | sed -n "s/^Benchmark/GOMAXPROCS=$procs Benchmark/p")
  (cd methods/ugnn && GOMAXPROCS=$procs "$tmp/ugnn.test" -test.run NONE \
    -test.bench 'Phases/COIL-DEL' -test.benchtime 2x | sed -n "s/^Benchmark/GOMAXPROCS=$procs Benchmark/p")
  procs=$((procs * 2))
done
n=1
while [ "$n" -le "$cores" ]; do
  start=$(date +%s.%N)
  bin/bench grid --methods gin-topk --datasets Letter-high --ratios low,high --seeds 0-7 \
    --cache-dir off --devices cpu:$n --db "$tmp/devices$n.db" > "$tmp/devices$n.log" 2>&1
  echo "devices cpu:$n: 16 runs in $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s wall"
  n=$((n * 2))
done
