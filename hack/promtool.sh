#!/usr/bin/env bash
# Prints the path of promtool, built from the Prometheus module pinned in hack/tools/promtool. The binary lives in
# the user's cache, keyed by the tool module's go.mod/go.sum and the Go version, as hack/test-assets.sh keeps
# kube-apiserver: built once (a few minutes: Prometheus is a large module), then reused. The build happens in a
# temporary directory renamed into place only when complete.
#
# Usage: hack/promtool.sh                      # prints the path, building the binary when missing
#        PROMTOOL=$(hack/promtool.sh) go test ./test/alerts
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module="$root/hack/tools/promtool"
version=$(awk '$1 == "github.com/prometheus/prometheus" {print $2}' "$module/go.mod")

key=$( { cat "$module/go.mod" "$module/go.sum"; go env GOVERSION; } | sha256sum | cut -c1-16)
cache="${REGISTRIES_CONTROLLER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/registries-controller}"
dir="$cache/promtool/$key"

if [ -x "$dir/promtool" ]; then
	echo "$dir/promtool"
	exit 0
fi

mkdir -p "$cache/promtool"
tmp=$(mktemp -d "$cache/promtool/.build-XXXXXX")
chmod 755 "$tmp"
ticker=""
trap 'rm -rf "$tmp"; if [ -n "$ticker" ]; then kill "$ticker" 2>/dev/null || true; fi' EXIT

start=$SECONDS
echo "promtool: building promtool of Prometheus $version, once (cached in $dir); progress every minute." >&2
(while sleep 60; do echo "promtool: building: $((SECONDS - start))s so far" >&2; done) &
ticker=$!
# GOFLAGS is cleared: the repository's (-mod=vendor, build tags) are not the tool module's.
(cd "$module" && GOFLAGS= CGO_ENABLED=0 go build -trimpath -o "$tmp/promtool" github.com/prometheus/prometheus/cmd/promtool)
kill "$ticker" 2>/dev/null || true
ticker=""
echo "promtool: built in $((SECONDS - start))s" >&2

# Another run may have finished first; both builds are equivalent, keep the one already in place.
if mv -T "$tmp" "$dir" 2>/dev/null; then
	trap - EXIT
elif [ ! -x "$dir/promtool" ]; then
	echo "promtool: cannot move the build into $dir" >&2
	exit 1
fi
echo "$dir/promtool"
