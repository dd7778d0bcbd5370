#!/usr/bin/env bash
# Prints the path of a container registry binary (distribution's `registry`), built from the module pinned in
# hack/tools/registry, for the tests that pull and push real images on loopback (test/e2e/pulls,
# test/e2e/image). Like hack/test-assets.sh, the binary lives in the user's cache in a directory keyed by the
# tool module's go.mod/go.sum and the Go version, and its own key, so that a changed registry pin does not
# rebuild kube-apiserver. The build happens in a temporary directory that is renamed into place only when
# complete.
#
# Usage: hack/test-registry.sh          # prints the binary's path, building it when missing (a few minutes, once)
#        REGISTRIES_CONTROLLER_TEST_REGISTRY=$(hack/test-registry.sh) go test ./test/e2e/...
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module="$root/hack/tools/registry"
version=$(awk '$1 == "github.com/distribution/distribution/v3" {print $2}' "$module/go.mod")

key=$( { cat "$module/go.mod" "$module/go.sum"; go env GOVERSION; } | sha256sum | cut -c1-16)
cache="${REGISTRIES_CONTROLLER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/registries-controller}"
dir="$cache/test-registry/$key"

if [ -x "$dir/registry" ]; then
	echo "$dir/registry"
	exit 0
fi

mkdir -p "$cache/test-registry"
tmp=$(mktemp -d "$cache/test-registry/.build-XXXXXX")
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

start=$SECONDS
echo "test-registry: building distribution's registry $version, once (cached in $dir); about 3 minutes on an idle 2-core machine." >&2
(cd "$module" && GOFLAGS= CGO_ENABLED=0 go build -trimpath \
	-ldflags "-X github.com/distribution/distribution/v3/version.version=$version" \
	-o "$tmp/registry" github.com/distribution/distribution/v3/cmd/registry)
echo "test-registry: built in $((SECONDS - start))s" >&2

# Another run may have finished first; both builds are equivalent, keep the one already in place.
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	[ -x "$dir/registry" ] || { echo "test-registry: cannot move build into $dir" >&2; exit 1; }
fi
trap - EXIT
echo "$dir/registry"
