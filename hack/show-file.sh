#!/usr/bin/env bash
# Prints a file of a pool's generated MachineConfig as it lands on a node.
#   hack/show-file.sh [POOL] [PATH]     defaults: worker /etc/containers/registries.conf
# Uses $KUBECTL (or kubectl) with the current KUBECONFIG.
set -euo pipefail
pool=${1:-worker}
path=${2:-/etc/containers/registries.conf}
kubectl=${KUBECTL:-kubectl}
source=$("$kubectl" get machineconfig "99-${pool}-generated-registries" \
	-o jsonpath="{.spec.config.storage.files[?(@.path==\"${path}\")].contents.source}")
if [ -z "$source" ]; then
	echo "99-${pool}-generated-registries writes no ${path}" >&2
	exit 1
fi
printf '%s' "${source#*,}" | base64 -d
