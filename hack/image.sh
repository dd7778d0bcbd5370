#!/usr/bin/env bash
# Assembles the registries-controller container image from a statically linked binary and manifests/, with the
# image tool in hack/tools/image (go-containerregistry, pinned there): no container engine and no base image.
# It writes the OCI image layout _output/image/oci (tag "latest") and the `docker load` tarball
# _output/image/registries-controller.tar. make image builds the binary and runs this.
#
# Usage: hack/image.sh BINARY VERSION
#        skopeo copy oci:_output/image/oci:latest docker://REGISTRY/openshift/registries-controller:TAG
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 BINARY VERSION" >&2
	exit 2
fi
binary=$1
version=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out="$root/_output/image"
tool="$root/_output/bin/image"
# The commit's time, so that the same commit gives the same digests.
created=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || echo 0)}

mkdir -p "$out" "$root/_output/bin"
(cd "$root/hack/tools/image" && GOFLAGS= go build -o "$tool" .)
"$tool" --binary "$binary" --manifests "$root/manifests" --version "$version" --arch "$(go env GOARCH)" \
	--created "$created" --layout "$out/oci" --tarball "$out/registries-controller.tar"
