#!/usr/bin/env bash
# Carry the runs in flight of contrib/runs/columns.sh's grids from one
# machine to the next (docs/runs/README.md, "Runs in flight"). A session's
# machine may not be kept: the runs it had started, and their 5-minute
# saves (docs/clusters.md, "Resuming a running run"), go with it, and a run
# longer than a session (CIFAR10's InfoGraph and RGCL) could never finish.
#
#   contrib/runs/inflight.sh save DIR
# packs the newest complete save of every run under DIR's cache that the
# grid binary wrote into docs/runs/inflight/ (states.tar, one gzip'd save a
# run, and MANIFEST: the binary's commit, checkout path and SHA-256, and each
# state's method, config hash and epoch), replacing what was there. Run it
# while the grid runs, near the end of a session: saves are written to a
# temporary directory and renamed, and a save pruned while it is copied is
# copied again.
#
#   contrib/runs/inflight.sh restore DIR
# on the next machine, before columns.sh: rebuilds the binary that wrote the
# saves (a state is keyed by the SHA-256 of the executable that wrote it:
# suite.ResumeKey) from the manifest's commit in this checkout, which must be
# at the manifest's path (the build records source paths) and clean, checks
# its SHA-256 against the manifest's, and unpacks the saves into DIR's cache.
# It then prints the columns.sh command that continues them; the grid finds
# each save by its key, whatever its database says.
#
#   DIR    the grids' directory (columns.sh's): the cache is DIR/ugbench-cache
#   BENCH  save: the grid binary (default: DIR/bench-* when there is one)
#   OUT    save, restore: the carried files (default docs/runs/inflight)
set -euo pipefail

die() { echo "$0: $*" >&2; exit 2; }

# Newest complete generation (gen-* with suite.json and SHA256SUMS) of a
# state directory, or nothing.
newest_gen() {
	local g
	for g in $(ls -1d "$1"/gen-* 2>/dev/null | sort -r); do
		[ -f "$g/suite.json" ] && [ -f "$g/SHA256SUMS" ] && { echo "$g"; return; }
	done
}

save() {
	local dir=$1 cache=$1/ugbench-cache
	[ -d "$cache/resume" ] || die "$cache/resume: no saved state"
	if [ -z "${BENCH:-}" ]; then
		local found=("$dir"/bench-*)
		[ ${#found[@]} -eq 1 ] && [ -x "${found[0]}" ] || die "set BENCH: the grid binary (found ${found[*]})"
		BENCH=${found[0]}
	fi
	BENCH=$(realpath "$BENCH")
	local sha commit modified
	sha=$(sha256sum "$BENCH" | cut -d' ' -f1)
	commit=$(go version -m "$BENCH" | sed -n 's/^\tbuild\tvcs.revision=//p')
	modified=$(go version -m "$BENCH" | sed -n 's/^\tbuild\tvcs.modified=//p')
	[ -n "$commit" ] && [ "$modified" = false ] || die "$BENCH: not built from a clean commit (vcs.revision=$commit, vcs.modified=$modified): it cannot be rebuilt"
	mkdir -p "$tmp/resume"
	{
		echo "# contrib/runs/inflight.sh save, $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"
		echo "binary $commit $sha $(git rev-parse --show-toplevel)"
	} > "$tmp/MANIFEST"
	local n=0 state key gen try st
	for state in "$cache"/resume/*/; do
		state=${state%/}
		key=$(basename "$state")
		for try in 1 2 3; do
			gen=$(newest_gen "$state")
			[ -n "$gen" ] || break
			rm -rf "${tmp:?}/resume/$key"
			mkdir -p "$tmp/resume/$key"
			# A copy checked against the save's own checksums, else pruned
			# or replaced mid-copy: take the newer one.
			if cp -rp "$gen" "$tmp/resume/$key/" 2>/dev/null &&
				(cd "$tmp/resume/$key/$(basename "$gen")" && sha256sum --quiet -c SHA256SUMS >/dev/null 2>&1); then
				break
			fi
			gen=
		done
		[ -n "$gen" ] || { echo "$key: no complete save, skipped" >&2; rm -rf "${tmp:?}/resume/$key"; continue; }
		st="$tmp/resume/$key/$(basename "$gen")/suite.json"
		if [ "$(jq -r .executable "$st")" != "$sha" ]; then
			echo "$key: saved by another binary, skipped" >&2
			rm -rf "${tmp:?}/resume/$key"
			continue
		fi
		echo "state $key $(jq -r '"\(.hash) epoch \(.epoch)/\(.epochs) \(.seconds|floor)s"' "$st") saved $(date -u -r "$st" +%Y-%m-%dT%H:%M:%SZ)" >> "$tmp/MANIFEST"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ] || die "no complete save of $BENCH under $cache/resume"
	(cd "$tmp" && find resume -type f | LC_ALL=C sort | tar -cf - --owner=0 --group=0 -T - | gzip -n > states.tar.gz)
	rm -rf "${OUT:?}"
	mkdir -p "$OUT"
	cp "$tmp/MANIFEST" "$tmp/states.tar.gz" "$OUT/"
	echo "$OUT: $n saved runs ($(du -h "$OUT/states.tar.gz" | cut -f1)) of $BENCH"
	cat "$OUT/MANIFEST"
}

restore() {
	local dir=$1 cache=$1/ugbench-cache
	[ -f "$OUT/MANIFEST" ] && [ -f "$OUT/states.tar.gz" ] || die "$OUT: nothing carried (no MANIFEST and states.tar.gz)"
	local commit sha path top
	read -r _ commit sha path < <(grep '^binary ' "$OUT/MANIFEST")
	top=$(git rev-parse --show-toplevel)
	[ "$top" = "$path" ] || die "this checkout is at $top, the binary was built at $path: a build elsewhere has another SHA-256; clone there"
	tar -xzf "$OUT/states.tar.gz" -C "$tmp"
	local bench=$dir/bench-${commit:0:7}
	if [ ! -x "$bench" ] || [ "$(sha256sum "$bench" | cut -d' ' -f1)" != "$sha" ]; then
		[ -z "$(git status --porcelain)" ] || die "the checkout has changes or untracked files: the build would record them (vcs.modified); commit or remove them"
		local back
		back=$(git symbolic-ref -q --short HEAD || git rev-parse HEAD)
		echo "building $commit (the binary that saved the states), then back to $back"
		git checkout -q --detach "$commit"
		local ok=0
		make build >/dev/null && cp bin/bench "$tmp/bench" && ok=1
		git checkout -q "$back"
		make build >/dev/null
		[ "$ok" = 1 ] || die "make build at $commit failed"
		[ "$(sha256sum "$tmp/bench" | cut -d' ' -f1)" = "$sha" ] ||
			die "the rebuilt binary's SHA-256 is $(sha256sum "$tmp/bench" | cut -d' ' -f1), not $sha: another toolchain, C compiler or module? The carried runs cannot continue; they start over"
		cp "$tmp/bench" "$bench"
	fi
	mkdir -p "$cache/resume"
	local key state n=0
	for state in "$tmp"/resume/*/; do
		key=$(basename "$state")
		if [ -n "$(newest_gen "$cache/resume/$key")" ]; then
			echo "$key: already saved here, kept"
			continue
		fi
		rm -rf "${cache:?}/resume/$key"
		cp -rp "$state" "$cache/resume/$key"
		n=$((n + 1))
	done
	echo "$n saved runs into $cache/resume; continue them with:"
	echo "  BENCH=$bench contrib/runs/columns.sh $dir"
}

[ $# -eq 2 ] || die "usage: $0 save|restore DIR"
[ -d "$2" ] || die "$2: no such directory"
cmd=$1 dir=$(realpath "$2")
cd "$(dirname "$0")/../.."
OUT=$(realpath -m "${OUT:-docs/runs/inflight}")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# restore checks out another commit, which rewrites this file: bash reads a
# script as it runs, so the whole call is on the line it reads last.
case $cmd in save) save "$dir" ;; restore) restore "$dir" ;; *) die "usage: $0 save|restore DIR" ;; esac; exit
