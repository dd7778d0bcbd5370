package framework

import (
	"context"
	"encoding/json"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Labels of the MachineConfigPools the machine-config-operator creates.
const (
	// LabelBuiltInPool marks the pools the MCO creates itself (master, worker, arbiter); its value is "".
	LabelBuiltInPool = "machineconfiguration.openshift.io/mco-built-in"
	// LabelPoolPrefix followed by the pool name labels every MCO pool, e.g.
	// pools.operator.machineconfiguration.openshift.io/worker: "".
	LabelPoolPrefix = "pools.operator.machineconfiguration.openshift.io/"
	// LabelRole on a MachineConfig selects the pools whose machineConfigSelector matches it, e.g.
	// machineconfiguration.openshift.io/role: worker.
	LabelRole = "machineconfiguration.openshift.io/role"
	// labelRequiredForUpgrade marks the master pool as gating upgrades, as on a real cluster.
	labelRequiredForUpgrade = "operator.machineconfiguration.openshift.io/required-for-upgrade"
)

// Names of the built-in pools.
const (
	PoolMaster = "master"
	PoolWorker = "worker"
)

// ClusterVersionName is the name of the only ClusterVersion of a cluster.
const ClusterVersionName = "version"

// ReleaseImage is a fixed release image pull spec for ClusterVersion status.desired.image.
const ReleaseImage = "quay.io/openshift-release-dev/ocp-release@sha256:" +
	"7f1c3f3e2c5e4b1f9a6d8e0b2c4a6e8f0a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d"

// ReleaseVersion is the version CreateClusterVersion reports in status.desired.version (a required field).
const ReleaseVersion = "4.22.0"

// BuiltinPool returns the MachineConfigPool the MCO creates for role (PoolMaster or PoolWorker), labelled as
// built-in, selecting the MachineConfigs labelled machineconfiguration.openshift.io/role=<role> and the nodes
// labelled node-role.kubernetes.io/<role>.
func BuiltinPool(role string) *mcfgv1.MachineConfigPool {
	labels := map[string]string{LabelBuiltInPool: "", LabelPoolPrefix + role: ""}
	if role == PoolMaster {
		labels[labelRequiredForUpgrade] = ""
	}
	return &mcfgv1.MachineConfigPool{
		ObjectMeta: metav1.ObjectMeta{Name: role, Labels: labels},
		Spec: mcfgv1.MachineConfigPoolSpec{
			MachineConfigSelector: &metav1.LabelSelector{MatchLabels: map[string]string{LabelRole: role}},
			NodeSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"node-role.kubernetes.io/" + role: ""},
			},
		},
	}
}

// CreateBuiltinPools creates the master and worker pools of BuiltinPool.
func (cp *ControlPlane) CreateBuiltinPools(ctx context.Context) error {
	for _, role := range []string{PoolMaster, PoolWorker} {
		_, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Create(ctx, BuiltinPool(role), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating MachineConfigPool %q: %w", role, err)
		}
	}
	return nil
}

// fieldManager owns the fields the framework sets with server-side apply.
const fieldManager = "registries-controller-test-framework"

// CreateClusterVersion creates the ClusterVersion "version" and sets its status.desired.image to releaseImage
// (for example ReleaseImage) and status.desired.version to ReleaseVersion, as the cluster-version-operator reports the release the cluster runs. It uses
// server-side apply of plain JSON: the typed ClusterVersion always carries spec.signatureStores, which the
// Default CRD variant does not know, and the API server would warn about it.
func (cp *ControlPlane) CreateClusterVersion(ctx context.Context, releaseImage string) (*configv1.ClusterVersion, error) {
	object := map[string]any{
		"apiVersion": configv1.GroupVersion.String(),
		"kind":       "ClusterVersion",
		"metadata":   map[string]any{"name": ClusterVersionName},
	}
	object["spec"] = map[string]any{"clusterID": "6d5c6d9e-3a8b-4f2e-9c1d-0b7a2e4f6c8d"}
	if err := cp.applyClusterVersion(ctx, object); err != nil {
		return nil, fmt.Errorf("creating ClusterVersion %q: %w", ClusterVersionName, err)
	}
	delete(object, "spec")
	object["status"] = map[string]any{
		"desired":            map[string]any{"image": releaseImage, "version": ReleaseVersion},
		"availableUpdates":   []any{},
		"observedGeneration": 1,
		"versionHash":        "local",
	}
	if err := cp.applyClusterVersion(ctx, object, "status"); err != nil {
		return nil, fmt.Errorf("setting the status of ClusterVersion %q: %w", ClusterVersionName, err)
	}
	return cp.Config.ConfigV1().ClusterVersions().Get(ctx, ClusterVersionName, metav1.GetOptions{})
}

// applyClusterVersion server-side applies object to the ClusterVersion or one of its subresources.
func (cp *ControlPlane) applyClusterVersion(ctx context.Context, object map[string]any, subresources ...string) error {
	body, err := json.Marshal(object)
	if err != nil {
		return err
	}
	return cp.Config.ConfigV1().RESTClient().Patch(types.ApplyPatchType).
		Resource("clusterversions").Name(ClusterVersionName).SubResource(subresources...).
		Param("fieldManager", fieldManager).Body(body).Do(ctx).Error()
}
