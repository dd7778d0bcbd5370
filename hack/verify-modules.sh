#!/usr/bin/env bash
# Fails when a module's go.mod or go.sum is not what `go mod tidy` makes of it (the main module, and the modules of
# test/kubeletcreds, whose requirements follow the main module's through a replace), or when vendor/ does not match
# go.mod and go.sum: vendor/ is committed and must be what `go mod vendor` produces.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for dir in . test/kubeletcreds; do
	# -diff reports what tidy would change and changes nothing.
	if ! (cd "$dir" && GOFLAGS=-mod=mod go mod tidy -diff >"$tmp/tidy.diff" 2>&1); then
		echo "$dir/go.mod or go.sum is not tidy: run 'go mod tidy' in $dir and commit the result" >&2
		head -40 "$tmp/tidy.diff" >&2
		exit 1
	fi
done

go mod vendor -o "$tmp/vendor"
if ! diff -r "$root/vendor" "$tmp/vendor" >/dev/null; then
	echo "vendor/ is out of date: run 'go mod tidy && go mod vendor' and commit the result" >&2
	diff -r "$root/vendor" "$tmp/vendor" | head -20 >&2
	exit 1
fi
