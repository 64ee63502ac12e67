#!/bin/sh
# One alternating series: Go's gin-topk epoch (BenchmarkTrainEpochCOILDEL/random-chunks3:
# hidden 128, batch 256, 3 size-sorted chunks, COIL-DEL low, 1,600 graphs) against the
# PyTorch reference of the same model and padded shapes (gin_topk_ref.py, dense and
# sparse layouts). Needs Debian's python3-torch and libopenblas0-openmp:
#   apt-get install python3-torch libopenblas0-openmp
# Usage (from the repository root, on a quiet machine):
#   UGBENCH_DATA=/path/to/datasets contrib/perf/ratio.sh [ROUNDS]
# It refuses to start when the 1-minute load average is at or above MAX_LOAD (default
# half the cores: 1.0 on 2 cores), and flags every round in which other processes kept
# more than MAX_BUSY cores busy (default 0.25) over the 2 s before it: PyTorch's OpenMP
# threads collapse beside another process (the same reference epoch took 0.66 s idle
# and 8.25 s beside a grid), so a loaded series is no figure. (The load average cannot
# judge a round: it still holds the series' own previous round.) FORCE=1 runs anyway
# and marks every result line LOADED.
set -eu
rounds=${1:-5}
max_load=${MAX_LOAD:-$(awk -v n="$(nproc)" 'BEGIN { print n / 2 }')}
load() { cut -d' ' -f1 /proc/loadavg; }
busy() { awk -v l="$(load)" -v m="$max_load" 'BEGIN { exit !(l >= m) }'; }
max_busy=${MAX_BUSY:-0.25}
# others: cores kept busy over 2 s by every process (run when none of ours is).
ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
others() {
  a=$(ticks); sleep 2; b=$(ticks)
  echo "$a $b" | awk -v n="$(nproc)" '{ busy = $3 - $1; all = busy + $4 - $2; printf "%.2f", (all > 0 ? n * busy / all : 0) }'
}
if busy && [ "${FORCE:-0}" != 1 ]; then
  echo "ratio.sh: load average $(load) ≥ $max_load: the machine is busy, a timing now is no figure (see top; FORCE=1 overrides)" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
: "${UGBENCH_DATA:?set UGBENCH_DATA to the directory holding COIL-DEL}"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3} GOEXPERIMENT=${GOEXPERIMENT:-simd}
bin=$(mktemp -d)/gnn.test
go test -c -o "$bin" ./methods/gnn
blas=/usr/lib/x86_64-linux-gnu/openblas-openmp # OpenBLAS-OpenMP, not the reference BLAS
i=1
while [ "$i" -le "$rounds" ]; do
  flag="" cores=$(others)
  if awk -v c="$cores" -v m="$max_busy" 'BEGIN { exit !(c > m) }'; then flag="  LOADED (others kept $cores cores busy > $max_busy)"; fi
  echo "round $i $(date -u +%T) load $(load), others busy $cores cores$flag"
  "$bin" -test.run NONE -test.bench 'TrainEpochCOILDEL/random-chunks3$' -test.benchtime 3x | grep Benchmark | sed "s/\$/$flag/"
  for layout in dense sparse; do
    LD_LIBRARY_PATH=$blas /usr/bin/python3 "$here/gin_topk_ref.py" --data "$UGBENCH_DATA" \
      --split "$here/coildel_low_split.txt" --layout $layout --epochs 3 | grep RESULT | sed "s/\$/$flag/"
  done
  i=$((i + 1))
done
