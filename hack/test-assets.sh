#!/usr/bin/env bash
# Prints a directory holding kube-apiserver, etcd and kubectl, built from the pinned tool modules in
# hack/tools/{k8s,etcd}. The directory lives in the user's cache, keyed by the tool modules' go.mod/go.sum and
# the Go version, so a warm machine pays nothing and a changed pin builds a fresh set. The build happens in a
# temporary directory that is renamed into place only when complete: an interrupted build never leaves a
# half-filled directory behind.
#
# Usage: hack/test-assets.sh            # prints the directory, building it when missing
#        KUBEBUILDER_ASSETS=$(hack/test-assets.sh) go test ./...
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
tools="$root/hack/tools"
k8s_version=$(awk '$1 == "k8s.io/kubernetes" {print $2}' "$tools/k8s/go.mod")
etcd_version=$(awk '$1 == "go.etcd.io/etcd/server/v3" {print $2}' "$tools/etcd/go.mod")

key=$( { cat "$tools/k8s/go.mod" "$tools/k8s/go.sum" "$tools/etcd/go.mod" "$tools/etcd/go.sum"; go env GOVERSION; } \
	| sha256sum | cut -c1-16)
cache="${REGISTRIES_CONTROLLER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/registries-controller}"
dir="$cache/test-assets/$key"

if [ -x "$dir/kube-apiserver" ] && [ -x "$dir/etcd" ] && [ -x "$dir/kubectl" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$cache/test-assets"
tmp=$(mktemp -d "$cache/test-assets/.build-XXXXXX")
chmod 755 "$tmp"
ticker=""
trap 'rm -rf "$tmp"; if [ -n "$ticker" ]; then kill "$ticker" 2>/dev/null || true; fi' EXIT

minor=${k8s_version#v1.}
minor=${minor%%.*}
ldflags=""
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
	ldflags+=" -X $pkg.gitVersion=$k8s_version -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
	ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

start=$SECONDS
echo "test-assets: building kube-apiserver and kubectl $k8s_version, etcd $etcd_version, once (cached in $dir)." >&2
echo "test-assets: on a fresh 2-core machine this takes about 9 minutes when the machine is otherwise idle, up to 30 when it is busy; progress is printed every minute." >&2
# A line a minute while a step runs, so a long first run is visibly alive.
progress() {
	local step=$1
	while sleep 60; do echo "test-assets: $step: $((SECONDS - start))s so far" >&2; done
}
run_step() {
	local step=$1
	shift
	echo "test-assets: $step" >&2
	progress "$step" &
	ticker=$!
	if ! "$@"; then
		echo "test-assets: $step failed" >&2
		return 1
	fi
	kill "$ticker" 2>/dev/null || true
	ticker=""
	echo "test-assets: $step done at $((SECONDS - start))s" >&2
}
run_step "1/4 downloading the kube-apiserver and kubectl modules" \
	bash -c 'cd "$1" && go mod download' _ "$tools/k8s"
run_step "2/4 downloading the etcd modules" \
	bash -c 'cd "$1" && go mod download' _ "$tools/etcd"
run_step "3/4 compiling kube-apiserver and kubectl" \
	bash -c 'cd "$1" && CGO_ENABLED=0 go build -trimpath -tags selinux,notest,grpcnotrace -ldflags "$2" -o "$3/" \
		k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kubectl' _ "$tools/k8s" "$ldflags" "$tmp"
run_step "4/4 compiling etcd" \
	bash -c 'cd "$1" && CGO_ENABLED=0 go build -trimpath -o "$2/etcd" go.etcd.io/etcd/server/v3' _ "$tools/etcd" "$tmp"
echo "test-assets: built in $((SECONDS - start))s" >&2

# Another run may have finished first; both builds are equivalent, keep the one already in place.
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	[ -x "$dir/kube-apiserver" ] || { echo "test-assets: cannot move build into $dir" >&2; exit 1; }
fi
trap - EXIT
echo "$dir"
