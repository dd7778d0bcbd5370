#!/usr/bin/env bash
# Copies the OpenShift CRDs the controller and its tests need from the github.com/openshift/api module, at the
# version go.mod selects, into pkg/crds/, byte for byte. The copies are never edited by hand: bump
# github.com/openshift/api in go.mod, then run this script.
#
# Usage: hack/update-crds.sh           # refresh pkg/crds/
#        hack/update-crds.sh --verify  # fail when pkg/crds/ differs from the module (make verify)
#
# Every CRD that ships in feature-set variants has one name for all variants: exactly one variant of each is
# listed here (the Default one, or SelfManagedHA for MachineConfigPool and CRIOCredentialProviderConfig, which have no
# Default variant).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest="$root/pkg/crds"
module=github.com/openshift/api

# Paths inside the module, relative to its root.
crds=(
	config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusteroperators.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_00_cluster-version-operator_01_clusterversions-Default.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_clusterimagepolicies.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_criocredentialproviderconfigs-SelfManagedHA.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_featuregates.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_imagepolicies.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_imagedigestmirrorsets.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_images.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_imagetagmirrorsets.crd.yaml
	config/v1/zz_generated.crd-manifests/0000_10_config-operator_01_infrastructures-Default.crd.yaml
	operator/v1alpha1/zz_generated.crd-manifests/0000_10_config-operator_01_imagecontentsourcepolicies.crd.yaml
	machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_containerruntimeconfigs.crd.yaml
	machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_controllerconfigs-Default.crd.yaml
	machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigpools-SelfManagedHA.crd.yaml
	machineconfiguration/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigs.crd.yaml
	operator/v1/zz_generated.crd-manifests/0000_80_machine-config_01_machineconfigurations.crd.yaml
)
# Files in pkg/crds/ that do not come from the module: the README, the Go package that embeds the copies, and
# stand-ins for prometheus-operator's ServiceMonitor and PrometheusRule CRDs (that module's CRD manifests are not
# served by the module proxy), so that `kubectl apply -f manifests/` works on the test control plane; see
# pkg/crds/README.md.
local_files=(README.md crds.go crds_test.go monitoring.coreos.com_servicemonitors.crd.yaml monitoring.coreos.com_prometheusrules.crd.yaml)

verify=false
case "${1:-}" in
	"") ;;
	--verify) verify=true ;;
	*) echo "usage: $0 [--verify]" >&2; exit 2 ;;
esac

cd "$root"
# -mod=mod: read the version from go.mod even when a vendor/ directory exists (vendor/ holds no YAML).
ref=$(GOFLAGS=-mod=mod go list -m -f '{{with .Replace}}{{.Path}}@{{.Version}}{{else}}{{.Path}}@{{.Version}}{{end}}' "$module")
case "$ref" in
	*@) echo "update-crds: $module is replaced by a local directory in go.mod; refusing to copy from it" >&2; exit 1 ;;
esac
# Downloads through the module proxy when the module cache does not hold it yet (clean clones in CI).
src=$(go mod download -json "$ref" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
if [ -z "$src" ] || [ ! -d "$src" ]; then
	echo "update-crds: could not find the directory of $ref (go mod download -json $ref)" >&2
	exit 1
fi

if ! $verify; then
	mkdir -p "$dest"
	for crd in "${crds[@]}"; do
		cp "$src/$crd" "$dest/"
		chmod 644 "$dest/$(basename "$crd")"
	done
fi

problems=()
want=("${local_files[@]}")
for crd in "${crds[@]}"; do
	name=$(basename "$crd")
	want+=("$name")
	if [ ! -f "$dest/$name" ]; then
		problems+=("pkg/crds/$name is missing (from $ref/$crd)")
	elif ! cmp -s "$src/$crd" "$dest/$name"; then
		problems+=("pkg/crds/$name differs from $ref/$crd")
	fi
done
if [ -d "$dest" ]; then
	for f in "$dest"/* "$dest"/.[!.]*; do
		[ -e "$f" ] || continue
		name=$(basename "$f")
		found=false
		for w in "${want[@]}"; do
			if [ "$w" = "$name" ]; then found=true; break; fi
		done
		$found || problems+=("pkg/crds/$name is not a CRD copied from $module: remove it or list it in $0")
	done
fi

if [ "${#problems[@]}" -gt 0 ]; then
	printf 'update-crds: %s\n' "${problems[@]}" >&2
	echo "update-crds: pkg/crds/ does not match $ref: run hack/update-crds.sh (or make crds)" >&2
	exit 1
fi
if $verify; then
	echo "pkg/crds/ matches $ref" >&2
else
	echo "copied ${#crds[@]} CRDs from $ref into pkg/crds/" >&2
fi
