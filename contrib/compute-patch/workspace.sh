#!/bin/sh
# Prepares a Go workspace (go help work) in which github.com/gomlx/compute
# v0.1.14 is a copy of the module with one file patched for speed
# (dense_vjp.go.in beside this script, see README.md), and prints the
# workspace file's path for GOWORK. The Makefile uses it; plain `go build` and
# `go test` use the module as published and compute the same numbers, bit for
# bit, only slower.
# It refuses (exit 1, a message on stderr, nothing on stdout) when go.mod
# requires another version of the module or its file is not the one the patch
# was made from (upstream.sha256): the build then goes on without the patch.
# Usage: contrib/compute-patch/workspace.sh OUTDIR  (OUTDIR: the repository's build/)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: workspace.sh OUTDIR}
go=${GO:-go}
version=v0.1.14
sum=$(cat "$here/upstream.sha256")
patched=$out/compute/internal/gobackend/fusedops/dense/dense_vjp.go
if [ -f "$out/go.work" ] && [ -f "$patched" ] && cmp -s "$patched" "$here/dense_vjp.go.in"; then
	(cd "$out" && pwd | sed 's|$|/go.work|')
	exit 0
fi
have=$(cd "$root" && GOWORK=off "$go" list -m -f '{{.Version}}' github.com/gomlx/compute)
if [ "$have" != "$version" ]; then
	echo "compute-patch: go.mod requires github.com/gomlx/compute $have, the patch is for $version; building without it" >&2
	exit 1
fi
dir=$(cd "$root" && GOWORK=off "$go" mod download -json "github.com/gomlx/compute@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
if [ "$(sha256sum "$dir/internal/gobackend/fusedops/dense/dense_vjp.go" | cut -d' ' -f1)" != "$sum" ]; then
	echo "compute-patch: $dir's dense_vjp.go is not the file the patch was made from; building without it" >&2
	exit 1
fi
mkdir -p "$out"
rm -rf "$out/compute"
cp -R "$dir" "$out/compute"
chmod -R u+w "$out/compute"
cp "$here/dense_vjp.go.in" "$patched"
out=$(cd "$out" && pwd)
cat > "$out/go.work" <<WORK
go 1.27.3

use $root

replace github.com/gomlx/compute $version => ./compute
WORK
echo "$out/go.work"
