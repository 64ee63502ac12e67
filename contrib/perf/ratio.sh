#!/bin/sh
# One alternating series: Go's gin-topk epoch (BenchmarkTrainEpochCOILDEL/random-chunks3:
# hidden 128, batch 256, 3 size-sorted chunks, COIL-DEL low, 1,600 graphs) against the
# PyTorch reference of the same model and padded shapes (gin_topk_ref.py, dense and
# sparse layouts). Needs Debian's python3-torch and libopenblas0-openmp:
#   apt-get install python3-torch libopenblas0-openmp
# Usage (from the repository root, on a quiet machine):
#   UGBENCH_DATA=/path/to/datasets contrib/perf/ratio.sh [ROUNDS]
set -eu
rounds=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
: "${UGBENCH_DATA:?set UGBENCH_DATA to the directory holding COIL-DEL}"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3} GOEXPERIMENT=${GOEXPERIMENT:-simd}
bin=$(mktemp -d)/gnn.test
go test -c -o "$bin" ./methods/gnn
blas=/usr/lib/x86_64-linux-gnu/openblas-openmp # OpenBLAS-OpenMP, not the reference BLAS
i=1
while [ "$i" -le "$rounds" ]; do
  echo "round $i $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg)"
  "$bin" -test.run NONE -test.bench 'TrainEpochCOILDEL/random-chunks3$' -test.benchtime 3x | grep Benchmark
  for layout in dense sparse; do
    LD_LIBRARY_PATH=$blas /usr/bin/python3 "$here/gin_topk_ref.py" --data "$UGBENCH_DATA" \
      --split "$here/coildel_low_split.txt" --layout $layout --epochs 3 | grep RESULT
  done
  i=$((i + 1))
done
