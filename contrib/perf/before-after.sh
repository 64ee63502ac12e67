#!/bin/sh
# Per-method before/after series of docs/speed.md: the heavy rows' phase
# benchmarks on COIL-DEL (UGNN's BenchmarkPhases: warm-up epoch,
# semi-supervised epoch, subgraph scoring; semisup's BenchmarkEpochCOILDEL:
# GraphCL's and RGCL's pretraining epoch, InfoGraph's pass of joint steps,
# GLA's pass; gin-topk's BenchmarkTrainEpochCOILDEL), one test binary per
# commit, alternating OLD and NEW (ABBA order) for ROUNDS rounds.
# Usage (from the repository root, on a quiet machine):
#   UGBENCH_DATA=/path/to/datasets contrib/perf/before-after.sh OLD NEW [ROUNDS]
# Each commit is built as its `make` builds it: in its patched gomlx/compute
# workspace where it has one (contrib/compute-patch), else against the module
# as published. BINS=DIR keeps the test binaries in DIR and reuses those
# already there; BUILD_ONLY=1 builds them and stops, so that a busy machine
# can build while the series waits for it to be quiet.
# OLD_ENV and NEW_ENV (e.g. OLD_ENV=GOMLX_GO_SIMD_AVX512=false) are
# variables each side's binaries run under, so that one commit against
# itself compares two settings of the process: the CPU kernels of
# docs/speed.md ("CPU kernels") are `before-after.sh HEAD HEAD` with
# OLD_ENV=GOMLX_GO_SIMD_AVX512=false on an AVX-512 machine.
# Like ratio.sh it refuses to start the series at a load average ≥ MAX_LOAD
# (default half the cores) unless FORCE=1, and prints the load before each
# binary.
set -eu
old=$1 new=$2 rounds=${3:-2}
max_load=${MAX_LOAD:-$(awk -v n="$(nproc)" 'BEGIN { print n / 2 }')}
load() { cut -d' ' -f1 /proc/loadavg; }
: "${UGBENCH_DATA:?set UGBENCH_DATA to the directory holding COIL-DEL}"
export GOTOOLCHAIN=${GOTOOLCHAIN:-go1.27.3} GOEXPERIMENT=${GOEXPERIMENT:-simd}
tmp=$(mktemp -d)
bins=${BINS:-$tmp}
mkdir -p "$bins"
for c in "$old" "$new"; do
  if [ -x "$bins/$c-ugnn.test" ] && [ -x "$bins/$c-semisup.test" ] && [ -x "$bins/$c-gnn.test" ]; then
    continue
  fi
  git worktree add -q --detach "$tmp/src-$c" "$c"
  work=off
  if [ -x "$tmp/src-$c/contrib/compute-patch/workspace.sh" ]; then
    work=$("$tmp/src-$c/contrib/compute-patch/workspace.sh" "$tmp/src-$c/build") || work=off
  fi
  echo "== build $c (GOWORK=$work)"
  for p in methods/ugnn baselines/semisup methods/gnn; do
    (cd "$tmp/src-$c" && GOWORK=$work go test -c -o "$bins/$c-$(basename $p).test" "./$p")
  done
  git worktree remove --force "$tmp/src-$c"
done
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
if awk -v l="$(load)" -v m="$max_load" 'BEGIN { exit !(l >= m) }' && [ "${FORCE:-0}" != 1 ]; then
  echo "before-after.sh: load average $(load) ≥ $max_load: the machine is busy (FORCE=1 overrides)" >&2
  exit 2
fi
run() { # commit [VAR=VALUE...]
  c=$1
  shift
  echo "== $c${*:+ $*} $(date -u +%T) load $(load)"
  env "$@" "$bins/$c-ugnn.test" -test.run NONE -test.bench 'Phases/COIL-DEL' -test.benchtime 2x | grep '^Benchmark'
  env "$@" "$bins/$c-semisup.test" -test.run NONE -test.bench 'EpochCOILDEL/.*/chunks3' -test.benchtime 1x | grep '^Benchmark'
  env "$@" "$bins/$c-gnn.test" -test.run NONE -test.bench 'TrainEpochCOILDEL/random-chunks3$' -test.benchtime 3x | grep '^Benchmark'
}
i=1
# shellcheck disable=SC2086 # OLD_ENV and NEW_ENV are lists of VAR=VALUE words.
while [ "$i" -le "$rounds" ]; do
  if [ $((i % 2)) = 1 ]; then run "$old" ${OLD_ENV:-}; run "$new" ${NEW_ENV:-}; else run "$new" ${NEW_ENV:-}; run "$old" ${OLD_ENV:-}; fi
  i=$((i + 1))
done
