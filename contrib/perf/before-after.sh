#!/bin/sh
# Per-method before/after series of docs/speed.md: the heavy rows' phase
# benchmarks on COIL-DEL (UGNN's BenchmarkPhases: warm-up epoch,
# semi-supervised epoch, subgraph scoring; semisup's BenchmarkEpochCOILDEL:
# GraphCL's and RGCL's pretraining epoch, InfoGraph's pass of joint steps,
# GLA's pass; gin-topk's BenchmarkTrainEpochCOILDEL), one test binary per
# commit, alternating OLD and NEW (ABBA order) for ROUNDS rounds.
# Usage (from the repository root, on a quiet machine):
#   UGBENCH_DATA=/path/to/datasets contrib/perf/before-after.sh OLD NEW [ROUNDS]
# Like ratio.sh it refuses to start at a load average ≥ MAX_LOAD (default
# half the cores) unless FORCE=1, and prints the load before each binary.
set -eu
old=$1 new=$2 rounds=${3:-2}
max_load=${MAX_LOAD:-$(awk -v n="$(nproc)" 'BEGIN { print n / 2 }')}
load() { cut -d' ' -f1 /proc/loadavg; }
if awk -v l="$(load)" -v m="$max_load" 'BEGIN { exit !(l >= m) }' && [ "${FORCE:-0}" != 1 ]; then
  echo "before-after.sh: load average $(load) ≥ $max_load: the machine is busy (FORCE=1 overrides)" >&2
  exit 2
fi
: "${UGBENCH_DATA:?set UGBENCH_DATA to the directory holding COIL-DEL}"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3} GOEXPERIMENT=${GOEXPERIMENT:-simd}
tmp=$(mktemp -d)
for c in "$old" "$new"; do
  git worktree add -q --detach "$tmp/src-$c" "$c"
  for p in methods/ugnn baselines/semisup methods/gnn; do
    (cd "$tmp/src-$c" && go test -c -o "$tmp/$c-$(basename $p).test" "./$p")
  done
  git worktree remove --force "$tmp/src-$c"
done
run() { # commit
  echo "== $1 $(date -u +%T) load $(load)"
  "$tmp/$1-ugnn.test" -test.run NONE -test.bench 'Phases/COIL-DEL' -test.benchtime 2x | grep '^Benchmark'
  "$tmp/$1-semisup.test" -test.run NONE -test.bench 'EpochCOILDEL/.*/chunks3' -test.benchtime 1x | grep '^Benchmark'
  "$tmp/$1-gnn.test" -test.run NONE -test.bench 'TrainEpochCOILDEL/random-chunks3$' -test.benchtime 3x | grep '^Benchmark'
}
i=1
while [ "$i" -le "$rounds" ]; do
  if [ $((i % 2)) = 1 ]; then run "$old"; run "$new"; else run "$new"; run "$old"; fi
  i=$((i + 1))
done
