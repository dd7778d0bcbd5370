package framework

import (
	"context"
	"encoding/json"
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift/registries-controller/test/fixtures"
)

// Names of the built-in pools.
const (
	PoolMaster = "master"
	PoolWorker = "worker"
)

// ClusterVersionName is the name of the only ClusterVersion of a cluster.
const ClusterVersionName = "version"

// ReleaseVersion is the version CreateClusterVersion reports in status.desired.version (a required field).
const ReleaseVersion = "4.22.0"

// CreateBuiltinPools creates the master and worker pools the MCO creates (fixtures.Pool).
func (cp *ControlPlane) CreateBuiltinPools(ctx context.Context) error {
	for _, role := range []string{PoolMaster, PoolWorker} {
		_, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().Create(ctx, fixtures.Pool(role, true), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("creating MachineConfigPool %q: %w", role, err)
		}
	}
	return nil
}

// CreateBuiltinCluster creates what a cluster has before the controller runs: the built-in pools
// (CreateBuiltinPools) and the ClusterVersion of fixtures.ReleaseImage (CreateClusterVersion). Packages whose tests
// start from such a cluster call it in the setup they give Run.
func (cp *ControlPlane) CreateBuiltinCluster(ctx context.Context) error {
	if err := cp.CreateBuiltinPools(ctx); err != nil {
		return err
	}
	_, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage)
	return err
}

// fieldManager owns the fields the framework sets with server-side apply.
const fieldManager = "registries-controller-test-framework"

// CreateClusterVersion creates the ClusterVersion "version" and sets its status.desired.image to releaseImage
// (for example fixtures.ReleaseImage) and status.desired.version to ReleaseVersion, as the cluster-version-operator reports the release the cluster runs. It uses
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
