#!/usr/bin/env bash
# make run: the controller live on a local control plane, in one command.
#
# Starts etcd + kube-apiserver with the OpenShift CRDs, the master and worker pools, a ClusterVersion and the
# MCO simulator, which rolls 3 simulated machines per pool (hack/local-up), applies examples/, and runs the
# controller in the foreground. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-_output/bin/registries-controller}
state=_output/local-up
mkdir -p "$state" _output/bin
rm -f "$state/kubeconfig.ready"

go build -o _output/bin/local-up ./hack/local-up
_output/bin/local-up --kubeconfig "$state/kubeconfig" >"$state/local-up.out" 2>"$state/local-up.err" &
localup=$!
cleanup() {
	trap - EXIT INT TERM
	kill -INT "$localup" 2>/dev/null || true
	wait "$localup" 2>/dev/null || true
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "starting a local control plane (the first run builds kube-apiserver, etcd and kubectl: a few minutes)..."
tail -f "$state/local-up.err" --pid "$localup" >&2 &
until [ -f "$state/kubeconfig.ready" ]; do
	if ! kill -0 "$localup" 2>/dev/null; then
		echo "local-up failed; see $state/local-up.err" >&2
		exit 1
	fi
	sleep 0.5
done
eval "$(grep '^export ' "$state/local-up.out")"
"$KUBECTL" apply -f examples/

cat <<MSG

The controller runs below, against the local control plane. In another terminal:

  export KUBECONFIG=$KUBECONFIG
  alias kubectl=$KUBECTL
  $bin preview -f my-imagedigestmirrorset.yaml   # before applying: what changes on each pool's nodes, and the action (read-only)
  kubectl apply -f my-imagedigestmirrorset.yaml        # more mirror objects
  $bin wait                 # blocks until every node runs them (simulated MCO: 3 machines per pool, 2s each)
  kubectl describe imagedigestmirrorset release-mirror # RolledOut once live; problems show up as events here
  kubectl get machineconfigs                           # 99-master/99-worker-generated-registries, rendered-*
  hack/show-file.sh worker /etc/containers/registries.conf   # the file a worker node gets
  $bin explain quay.io/openshift-release-dev/ocp-release@sha256:<digest> --manifests examples
  $bin explain --kubeconfig \$KUBECONFIG registry.example.com/tools/kubectl:v1   # against the files the workers run now
  $bin migrate-icsp --kubeconfig $KUBECONFIG -o /tmp/idms   # ImageContentSourcePolicy -> ImageDigestMirrorSet, proven neutral
  kubectl get clusteroperator registries-controller     # Available, Progressing, Degraded, and why (-o yaml)

Metrics: http://127.0.0.1:8080/metrics (plain HTTP on loopback here; HTTPS with a token in a cluster)
Ctrl-C stops the controller and the control plane.

MSG
# The version the ClusterOperator reports: the cluster-version operator sets RELEASE_VERSION to the release's.
RELEASE_VERSION=$("$KUBECTL" get clusterversion version -o jsonpath='{.status.desired.version}') \
	"$bin" start --kubeconfig "$KUBECONFIG" --leader-elect=false --listen-address 127.0.0.1:8080 --insecure-loopback-metrics
