#!/usr/bin/env bash
# Fails when vendor/ does not match go.mod and go.sum: vendor/ is committed and must be what
# `go mod vendor` produces.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go mod vendor -o "$tmp/vendor"
if ! diff -r vendor "$tmp/vendor" >/dev/null; then
	echo "vendor/ is out of date: run 'go mod tidy && go mod vendor' and commit the result" >&2
	diff -r vendor "$tmp/vendor" | head -20 >&2
	exit 1
fi
