#!/usr/bin/env bash
# The paper's columns still to run (issue 31), cheapest rows first so that
# runs finish within a working session: COLORS-3 (every GNN row, both ratios:
# the supervised and UGNN rows, minutes a run, before the pooling and
# semi-supervised rows, up to an hour), then CIFAR10 alike. Each grid
# resumes by config hash, so rerunning this script after a stop or a crash
# goes on where it stopped (a run's state is saved every minute, at the end
# of an epoch: docs/cli.md, --resume-every). On a new machine the runs in
# flight continue from the saves contrib/runs/inflight.sh carried in the
# repository: run its restore first, and use the BENCH it prints.
#   contrib/runs/columns.sh DIR [GRID FLAGS...]
# e.g. `contrib/runs/columns.sh DIR --dry-run --estimate-from archive.db` for
# what is left and its estimated wall time.
# DIR (outside the repository) holds colors.db and cifar.db; on a new machine
# seed them from the archive first, so that archived runs are not run again:
#   bin/bench import --db DIR/colors.db docs/runs/*-colors-3.json.gz
#   bin/bench import --db DIR/cifar.db docs/runs/*-cifar10.json.gz
#   BENCH  the grid binary (default: a copy of bin/bench, DIR/bench-COMMIT, made
#          here from a clean checkout, so that a rebuild mid-grid changes nothing)
#   DATA   the datasets (default ../shared/datasets)
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 DIR [GRID FLAGS...]" >&2; exit 2; }
dir=$(cd "$1" && pwd)
shift
data=$(cd "${DATA:-../shared/datasets}" && pwd)
if [ -z "${BENCH:-}" ]; then
	[ -z "$(git status --porcelain --untracked-files=no)" ] || { echo "$0: the checkout has changes: commit them or set BENCH" >&2; exit 2; }
	make build >/dev/null
	BENCH=$dir/bench-$(git rev-parse --short HEAD)
	[ -x "$BENCH" ] || cp bin/bench "$BENCH"
fi
BENCH=$(realpath "$BENCH")
# Every v6 run used the AVX2 kernels; AVX-512 ones give other numbers
# (docs/speed.md, "CPU kernels").
export GOMLX_GO_SIMD_AVX512=false
cd "$dir"
common=(--data-dir "$data" --seeds 0-2 --quiet --restart-after-crash 3 --resume-every 1m "$@")
sup=gcn-topk,sage-topk,gin-topk,gin-sag
ugnn=ugnn,ugnn-plus,ugnn-wo-s,ugnn-wo-p,ugnn-wo-kp,ugnn-wo-up
semi=gin-asap,gla,graphcl,infograph,rgcl
set -x
"$BENCH" grid --db colors.db --datasets COLORS-3 --ratios low,high --methods "$sup,$ugnn" "${common[@]}"
"$BENCH" grid --db colors.db --datasets COLORS-3 --ratios low,high --methods "$semi" "${common[@]}"
"$BENCH" grid --db cifar.db --datasets CIFAR10 --ratios low,high --methods "$sup,$ugnn" "${common[@]}"
"$BENCH" grid --db cifar.db --datasets CIFAR10 --ratios low,high --methods "$semi" "${common[@]}"
