#!/usr/bin/env bash
# Prints a file of a pool's generated MachineConfigs as it lands on a node: the registries one
# (99-<pool>-generated-registries) or the credential providers one (97-<pool>-generated-credentialproviderconfig),
# whichever writes PATH.
#   hack/show-file.sh [POOL] [PATH]     defaults: worker /etc/containers/registries.conf
# Uses $KUBECTL (or kubectl) with the current KUBECONFIG.
set -euo pipefail
pool=${1:-worker}
path=${2:-/etc/containers/registries.conf}
kubectl=${KUBECTL:-kubectl}
names=("99-${pool}-generated-registries" "97-${pool}-generated-credentialproviderconfig")
for name in "${names[@]}"; do
	source=$("$kubectl" get machineconfig "$name" --ignore-not-found \
		-o jsonpath="{.spec.config.storage.files[?(@.path==\"${path}\")].contents.source}")
	if [ -n "$source" ]; then
		printf '%s' "${source#*,}" | base64 -d
		exit 0
	fi
done
echo "neither ${names[*]} writes ${path}" >&2
exit 1
