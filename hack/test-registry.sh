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
# shellcheck source=hack/lib/toolcache.sh
. "$root/hack/lib/toolcache.sh"
module="$root/hack/tools/registry"
version=$(awk '$1 == "github.com/distribution/distribution/v3" {print $2}' "$module/go.mod")

dir=$(toolcache_dir test-registry "$module/go.mod" "$module/go.sum")

if [ -x "$dir/registry" ]; then
	echo "$dir/registry"
	exit 0
fi

toolcache_begin test-registry "$dir"
echo "test-registry: building distribution's registry $version, once (cached in $dir); about 3 minutes on an idle 2-core machine." >&2
toolcache_step "compiling" bash -c 'cd "$1" && GOFLAGS= CGO_ENABLED=0 go build -trimpath \
	-ldflags "-X github.com/distribution/distribution/v3/version.version=$2" \
	-o "$3/registry" github.com/distribution/distribution/v3/cmd/registry' _ "$module" "$version" "$toolcache_tmp"
toolcache_commit registry
echo "$dir/registry"
