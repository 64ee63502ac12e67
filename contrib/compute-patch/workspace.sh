#!/bin/sh
# Prepares a Go workspace (go help work) in which github.com/gomlx/compute
# v0.1.14 is a copy of the module with the files under this directory laid
# over it (each PATH.go.in becomes PATH.go; README.md says which and why), and
# prints the workspace file's path for GOWORK. The Makefile uses it; plain
# `go build` and `go test` use the module as published and compute the same
# numbers, bit for bit, only slower.
# It refuses (exit 1, a message on stderr, nothing on stdout) when go.mod
# requires another version of the module, a file it replaces is not the one
# the patch was made from (upstream.sha256), or a file it adds exists
# upstream: the build then goes on without the patch.
# Usage: contrib/compute-patch/workspace.sh OUTDIR  (OUTDIR: the repository's build/)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: workspace.sh OUTDIR}
go=${GO:-go}
version=v0.1.14
files=$(cd "$here" && find . -name '*.go.in' | sed 's|^\./||; s|\.in$||' | sort)
current() { # the workspace exists, uses this checkout and holds every file of the patch and no other
	grep -qxF "use $root" "$out/go.work" 2>/dev/null || return 1
	[ "$(cat "$out/compute/.ugbench-patch" 2>/dev/null)" = "$files" ] || return 1
	for f in $files; do cmp -s "$here/$f.in" "$out/compute/$f" || return 1; done
}
if current; then
	(cd "$out" && pwd | sed 's|$|/go.work|')
	exit 0
fi
have=$(cd "$root" && GOWORK=off "$go" list -m -f '{{.Version}}' github.com/gomlx/compute)
if [ "$have" != "$version" ]; then
	echo "compute-patch: go.mod requires github.com/gomlx/compute $have, the patch is for $version; building without it" >&2
	exit 1
fi
dir=$(cd "$root" && GOWORK=off "$go" mod download -json "github.com/gomlx/compute@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if ! (cd "$dir" && sha256sum -c --quiet --status "$here/upstream.sha256"); then
	echo "compute-patch: $dir differs from the files the patch was made from (upstream.sha256); building without it" >&2
	exit 1
fi
for f in $files; do
	if [ -e "$dir/$f" ] && ! grep -q "  $f\$" "$here/upstream.sha256"; then
		echo "compute-patch: $f, which the patch adds, exists in $dir; building without it" >&2
		exit 1
	fi
done
mkdir -p "$out"
rm -rf "$out/compute"
cp -R "$dir" "$out/compute"
chmod -R u+w "$out/compute"
for f in $files; do cp "$here/$f.in" "$out/compute/$f"; done
echo "$files" > "$out/compute/.ugbench-patch" # what current() compares: a file the patch drops must go too
out=$(cd "$out" && pwd)
cat > "$out/go.work" <<WORK
go 1.27.3

use $root

replace github.com/gomlx/compute $version => ./compute
WORK
echo "$out/go.work"
