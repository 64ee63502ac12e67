#!/bin/sh
# The cost table of docs/speed.md: per dataset and method, the planned wall time of
# one run and of the method's whole cell block (both ratios × seeds 0–2), from
# `bench grid --dry-run` on a results database (runs.EstimateSeconds: finished runs
# of the same row and dataset scaled to the protocol's steps, else relative costs
# to other rows on other datasets). A finished run counts its stored wall time.
# Needs the sqlite3 command-line tool (finished runs' seconds).
# Usage: contrib/perf/cost-table.sh DB [BENCH] [DATASETS]
set -eu
db=${1:?usage: cost-table.sh DB [BENCH] [DATASETS]}
bench=${2:-bin/bench}
datasets=${3:-COIL-DEL COLORS-3 MNIST CIFAR10}
methods=$("$bench" methods | awk '/^[a-z]/ { print $1 }')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in $datasets; do
	"$bench" grid --methods all --datasets "$d" --seeds 0-2 --db "$db" --dry-run > "$tmp/$d.txt" 2>&1
	# A finished run's seconds, by hash, for the done lines.
	sqlite3 "$db" "select hash, seconds from runs where status = 'finished' and dataset = '$d'" > "$tmp/$d.secs"
done
printf '| row |'
for d in $datasets; do printf ' %s: one run | %s: 6 runs |' "$d" "$d"; done
printf '\n|---|'
for d in $datasets; do printf -- '---|---|'; done
printf '\n'
for m in $methods; do
	printf '| %s |' "$m"
	for d in $datasets; do
		awk -v m="$m" -F'|' 'FNR == NR { secs[$1] = $2; next }
			$0 ~ "^[0-9a-f]+ +(todo|done|running)" {
				split($0, f, " +"); if (f[3] != m) next
				if (f[2] == "done") { s = secs[f[1]]; fin++ }
				else if (match($0, / est [^(]*/)) { e = substr($0, RSTART + 5, RLENGTH - 6); s = dur(e) }
				else next
				if (s == "" || s < 0) { unknown++; next }
				total += s; n++; if (f[2] != "done") one = s
			}
			function dur(e,   h, mm, ss) {
				if (e == "?") return -1
				h = 0; mm = 0; ss = 0
				if (e ~ /h/) { h = e; sub(/h.*/, "", h); sub(/^[^h]*h/, "", e) }
				if (e ~ /m/) { mm = e; sub(/m.*/, "", mm); sub(/^[^m]*m/, "", e) }
				if (e ~ /s/) { ss = e; sub(/s.*/, "", ss) }
				return h * 3600 + mm * 60 + ss
			}
			function fmt(s) { return s >= 3600 ? sprintf("%.1f h", s / 3600) : sprintf("%.0f min", s / 60) }
			END {
				if (n == 0) { printf " ? | ? |"; exit }
				if (one == "") one = total / n
				printf " %s | %s%s%s |", fmt(one), fmt(total), (unknown ? " + " unknown " ?" : ""), (fin ? " (" fin " done)" : "")
			}' "$tmp/$d.secs" "$tmp/$d.txt"
	done
	printf '\n'
done
printf '| **column** |'
for d in $datasets; do
	t=$(sed -n 's/^estimated wall time of the runs to do, one after another: //p' "$tmp/$d.txt")
	printf ' | %s to do |' "${t:-?}"
done
printf '\n'
