#!/usr/bin/env bash
# Archive a session's new finished runs (docs/runs/README.md):
#   contrib/runs/archive.sh SUFFIX NAME DB [DB...]
# writes the finished runs of the first DB that the archive database lacks
# to docs/runs/SUFFIX-NAME.json.gz (e.g. 2026-12-01-colors-3), adds them to
# the archive database, then checks every DB against it: each finished run
# must be archived with the same results. Exit 1 on a run missing from the
# archive or stored there with other results.
#   ARCHIVE  the archive database (default archive.db: make runs-db RESULTS_DB=archive.db)
#   BENCH    the bench binary (default bin/bench)
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: $0 SUFFIX NAME DB [DB...]" >&2; exit 2; }
suffix=$1 name=$2; shift 2
# Paths given relative to the caller's directory stay so after the cd below;
# the defaults are the repository's.
dbs=(); for db in "$@"; do dbs+=("$(realpath "$db")"); done
set -- "${dbs[@]}"
[ -z "${ARCHIVE:-}" ] || ARCHIVE=$(realpath "$ARCHIVE")
[ -z "${BENCH:-}" ] || BENCH=$(realpath "$BENCH")
cd "$(dirname "$0")/../.."
ARCHIVE=${ARCHIVE:-archive.db} BENCH=${BENCH:-bin/bench}
[ -f "$ARCHIVE" ] || { echo "$0: archive database $ARCHIVE not found (make runs-db RESULTS_DB=$ARCHIVE)" >&2; exit 2; }
out=docs/runs/$suffix-$name.json.gz
[ ! -e "$out" ] || { echo "$0: $out exists: pick another suffix" >&2; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$BENCH" export --db "$1" --status finished --not-in "$ARCHIVE" --out "$tmp/new.json.gz"
n=$(zcat "$tmp/new.json.gz" | grep -c '"hash":' || true)
if [ "$n" -eq 0 ]; then
	echo "$1: no finished run that $ARCHIVE lacks; nothing written"
else
	cp "$tmp/new.json.gz" "$out"
	"$BENCH" import --db "$ARCHIVE" "$out"
	echo "$out: $n runs"
fi

bad=0
for db in "$@"; do
	cp "$ARCHIVE" "$tmp/check.db"
	"$BENCH" export --db "$db" --status finished --out "$tmp/all.json.gz"
	said=$("$BENCH" import --db "$tmp/check.db" "$tmp/all.json.gz")
	added=$(sed -n 's/.*: \([0-9]*\) added,.*/\1/p' <<<"$said")
	other=$(sed -n 's/.* \([0-9]*\) there with other results.*/\1/p' <<<"$said")
	kept=$(sed -n 's/.* \([0-9]*\) already there.*/\1/p' <<<"$said")
	echo "$db: $kept finished runs archived alike, $added not archived, $other archived with other results"
	[ "$added" = 0 ] && [ "$other" = 0 ] || bad=1
	rm -f "$tmp/check.db" "$tmp/check.db-wal" "$tmp/check.db-shm"
done
exit $bad
