#!/usr/bin/env bash
# A real one-node Slurm test of sharded grids (`bench grid --shard`,
# `bench slurm`, `bench merge`). It installs Debian's slurm-wlm and munge if
# missing, starts munged, slurmctld and slurmd on this machine (each in its
# own foreground mode, as background processes of this script: no systemd),
# submits wl on Letter-high, low and high ratios × seeds 0-2, as a job array
# of 3 shards with a dependent merge job, waits, and checks that the merged
# database gives the same report tables as the same grid run unsharded, and
# that merging again changes nothing.
#
# Usage: contrib/slurm/test-one-node.sh   (as root; from anywhere)
# Env:   UGBENCH_DATA        datasets (default: ../shared/datasets beside the repo)
#        UGBENCH_SLURM_KEEP  1 keeps the work directory and its logs
#
# Exit status: 0 passed, or skipped with a line "slurm test: SKIPPED: ..."
# saying why Slurm could not be started here; 1 failed.
set -euo pipefail
start_time=$(date +%s)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA=${UGBENCH_DATA:-$ROOT/../shared/datasets}
PORT_BASE=${UGBENCH_SLURM_PORT:-16817}
export PATH="$PATH:/usr/local/go/bin:/usr/sbin:/sbin"

say() { echo "slurm test: $*"; }
skip() {
	say "SKIPPED: cannot start Slurm here: $*"
	exit 0
}
fail() {
	say "FAILED: $*"
	for f in "${WORK:-/nonexistent}"/*.log "${WORK:-/nonexistent}"/shared/logs/*; do
		[ -f "$f" ] && { echo "--- $f (last lines)"; tail -n 15 "$f"; }
	done
	exit 1
}

[ "$(id -u)" = 0 ] || skip "not root (installing packages and starting slurmd need root)"
[ -d "$DATA/Letter-high" ] || fail "no Letter-high in $DATA (set UGBENCH_DATA)"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
	command -v apt-get >/dev/null || skip "Slurm is not installed and there is no apt-get"
	say "installing slurm-wlm and munge"
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge; } >/tmp/ugbench-slurm-apt.log 2>&1 ||
		{ tail -n 5 /tmp/ugbench-slurm-apt.log; skip "apt-get install slurm-wlm munge failed (see above)"; }
fi

WORK=$(mktemp -d /tmp/ugbench-slurm-test.XXXXXX)
chmod 755 "$WORK"
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ "${UGBENCH_SLURM_KEEP:-}" = 1 ]; then say "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# munge: the key the package made (or a new one), and our own munged with
# its own socket, so that no other munged on this machine is touched.
MUNGE_SOCKET=$WORK/munge/munge.socket
mkdir -p "$WORK/munge"
if [ ! -s /etc/munge/munge.key ]; then
	mkdir -p /etc/munge
	if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key >/dev/null; else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none; fi
fi
munge_user=root
if id munge >/dev/null 2>&1; then munge_user=munge; fi
chown "$munge_user" /etc/munge/munge.key "$WORK/munge"
chmod 400 /etc/munge/munge.key
chmod 711 "$WORK/munge"
runuser -u "$munge_user" -- munged --foreground --force --socket="$MUNGE_SOCKET" \
	--pid-file="$WORK/munge/munged.pid" --seed-file="$WORK/munge/munge.seed" \
	--log-file="$WORK/munged.log" >>"$WORK/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	munge --socket="$MUNGE_SOCKET" -n 2>/dev/null | unmunge --socket="$MUNGE_SOCKET" >/dev/null 2>&1 && break
	sleep 0.2
done
munge --socket="$MUNGE_SOCKET" -n 2>/dev/null | unmunge --socket="$MUNGE_SOCKET" >/dev/null 2>&1 ||
	{ tail -n 5 "$WORK/munged.log"; skip "munged did not start (log above)"; }

# Slurm: one node, this machine, with its own configuration, ports, state
# and logs under $WORK.
host=$(uname -n | cut -d. -f1)
ncpu=$(nproc)
mkdir -p "$WORK/state" "$WORK/spool"
export SLURM_CONF=$WORK/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=ugbenchtest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$MUNGE_SOCKET
CredType=cred/munge
SlurmctldPort=$PORT_BASE
SlurmdPort=$((PORT_BASE + 1))
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/slurmctld.log
SlurmdLogFile=$WORK/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$ncpu State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >>"$WORK/slurmctld.log" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" >>"$WORK/slurmd.log" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 60); do
	state=$(sinfo -h -n "$host" -o %T 2>/dev/null || true)
	[ "$state" = idle ] && break
	sleep 1
done
if [ "$state" != idle ]; then
	for f in "$WORK/slurmctld.log" "$WORK/slurmd.log"; do echo "--- $f"; tail -n 10 "$f"; done
	skip "the node did not become idle within 60 s (state '${state:-none}'; logs above)"
fi
say "Slurm $(sinfo --version | awk '{print $2}') up on $host with $ncpu CPUs ($(($(date +%s) - start_time)) s so far)"

# From here on Slurm runs: any problem is a failure.
say "building bench"
make -s -C "$ROOT" build >"$WORK/build.log" 2>&1 || fail "make build failed: $(tail -n 5 "$WORK/build.log")"
say "built bench ($(($(date +%s) - start_time)) s so far)"
BENCH=$ROOT/bin/bench
GRID=(--methods wl --datasets Letter-high --ratios low,high --seeds 0-2 --data-dir "$DATA")
SHARED=$WORK/shared
"$BENCH" slurm --shards 3 --dir "$SHARED" --bench "$BENCH" --time 0:10:00 --merge-time 0:05:00 \
	-o "$WORK/grid.sh" -- "${GRID[@]}" || fail "bench slurm failed"
submitted=$(bash "$WORK/grid.sh") || fail "submitting the grid failed"
echo "$submitted"
merge_job=$(sed -n 's/.*merge job \([0-9]*\).*/\1/p' <<<"$submitted")
array_job=$(sed -n 's/.*job array \([0-9]*\).*/\1/p' <<<"$submitted")
[ -n "$merge_job" ] && [ -n "$array_job" ] || fail "no job ids in: $submitted"
for _ in $(seq 300); do
	[ -z "$(squeue -h -j "$array_job,$merge_job" -o %i 2>/dev/null)" ] && break
	sleep 1
done
[ -z "$(squeue -h -j "$array_job,$merge_job" -o %i 2>/dev/null)" ] && [ -z "$(squeue -h -o %i)" ] ||
	fail "jobs still queued or running after 300 s: $(squeue -h)"
# One line per array task and for the merge job: each must have completed
# with exit code 0.
jobs=$(scontrol -o show job "$array_job"; scontrol -o show job "$merge_job")
[ "$(grep -c . <<<"$jobs")" = 4 ] || fail "want 3 array tasks and a merge job, scontrol shows: $jobs"
bad=$(grep -v 'JobState=COMPLETED .*ExitCode=0:0' <<<"$jobs" | grep -o 'JobId=[0-9]*\|JobState=[A-Z]*\|ExitCode=[0-9:]*' | tr '\n' ' ' || true)
[ -z "$bad" ] || fail "jobs that did not complete with exit code 0: $bad"
for i in 0 1 2; do
	[ -f "$SHARED/shards/shard-$i-of-3.db" ] || fail "shard $i wrote no database"
done
say "the array's 3 tasks and the merge job completed ($(($(date +%s) - start_time)) s so far)"

MERGED=$SHARED/ugbench.db
"$BENCH" grid "${GRID[@]}" --db "$WORK/unsharded.db" --quiet 2>"$WORK/unsharded.log" || fail "the unsharded grid failed"
n=$("$BENCH" runs --db "$MERGED" --format csv | grep -c ',finished,' || true)
[ "$n" = 6 ] || fail "the merged database has $n finished runs, want 6"
compare() {
	local t
	for t in accuracy f1 "metric ood_auroc" "metric known_acc"; do
		# shellcheck disable=SC2086 # $t is a table name and its argument
		diff <("$BENCH" report $t --db "$MERGED" --format csv) <("$BENCH" report $t --db "$WORK/unsharded.db" --format csv) ||
			fail "report $t of the merged shards differs from the unsharded grid's ($1)"
	done
}
compare "after the merge job"
# Merging again (e.g. a resubmitted merge job) changes nothing.
before=$("$BENCH" runs --db "$MERGED" --format csv)
bash "$WORK/grid.sh" merge >"$WORK/merge-again.log" 2>&1 || fail "a second merge failed: $(cat "$WORK/merge-again.log")"
grep -q '0 added, 0 replaced' "$WORK/merge-again.log" || fail "a second merge changed runs: $(cat "$WORK/merge-again.log")"
[ "$before" = "$("$BENCH" runs --db "$MERGED" --format csv)" ] || fail "a second merge changed bench runs' listing"
compare "after merging again"
"$BENCH" report accuracy --db "$MERGED"
say "PASSED: wl on Letter-high, 2 ratios × 3 seeds, as 3 Slurm array tasks ($(for i in 0 1 2; do "$BENCH" runs --db "$SHARED/shards/shard-$i-of-3.db" --format csv | grep -c ',finished,' || true; done | tr '\n' ' ')runs) merged = unsharded, in $(($(date +%s) - start_time)) s"
