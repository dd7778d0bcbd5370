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
# shellcheck source=hack/lib/toolcache.sh
. "$root/hack/lib/toolcache.sh"
module="$root/hack/tools/promtool"
version=$(awk '$1 == "github.com/prometheus/prometheus" {print $2}' "$module/go.mod")

dir=$(toolcache_dir promtool "$module/go.mod" "$module/go.sum")

if [ -x "$dir/promtool" ]; then
	echo "$dir/promtool"
	exit 0
fi

toolcache_begin promtool "$dir"
echo "promtool: building promtool of Prometheus $version, once (cached in $dir); progress every minute." >&2
# GOFLAGS is cleared: the repository's (-mod=vendor, build tags) are not the tool module's.
toolcache_step "compiling" bash -c 'cd "$1" && GOFLAGS= CGO_ENABLED=0 go build -trimpath -o "$2/promtool" github.com/prometheus/prometheus/cmd/promtool' \
	_ "$module" "$toolcache_tmp"
toolcache_commit promtool
echo "$dir/promtool"
