package framework

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
)

// Reset puts the cluster back as the setup of a test package leaves it (CreateBuiltinPools, CreateClusterVersion),
// so that each test starts from the same cluster. It deletes every object of every input kind of the controller
// (inputs.Kinds: the mirror kinds, the signature policies, the Image, the FeatureGate, the Infrastructure, the
// CRIOCredentialProviderConfig...), whatever its name or namespace, and waits until they are gone, except:
//   - the ClusterVersion, which it keeps, and creates again with fixtures.ReleaseImage when a test deleted it;
//   - the pools, of which it deletes all but the built-in master and worker.
//
// Then it deletes every MachineConfig and every event. It is driven by inputs.Kinds, so that a kind added there
// is deleted here without a change. It fails the test when a delete fails, e.g. when a CRD is not installed.
func (cp *ControlPlane) Reset(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	var resources []string
	for _, k := range inputs.Kinds {
		switch k.Name {
		case inputs.KindClusterVersion, inputs.KindMachineConfigPool:
			continue // the objects of the setup, handled below
		}
		resources = append(resources, k.Resource+"."+k.GroupVersion.Group)
	}
	// kubectl's --wait=true waits for each object in turn (minutes for the 5,000 of the scale benchmark); one list
	// of every resource until it is empty waits for all of them at once.
	all := strings.Join(append(resources, "machineconfigs.machineconfiguration.openshift.io"), ",")
	cp.RunKubectl(t, "delete", all, "--all", "--all-namespaces", "--wait=false")
	Eventually(t, 2*time.Minute, "every input object and MachineConfig deleted", func() (bool, string) {
		left := strings.TrimSpace(cp.RunKubectl(t, "get", all, "--all-namespaces", "--ignore-not-found", "-o", "name"))
		if n := strings.Count(left, "\n") + 1; n > 5 {
			left = fmt.Sprintf("%d objects left, e.g. %s", n, left[:strings.Index(left, "\n")])
		}
		return left == "", left
	})
	cp.RunKubectl(t, "delete", "events", "--all", "--all-namespaces")

	pools, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigPools().List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var extra []string
	for _, p := range pools.Items {
		if p.Name != PoolMaster && p.Name != PoolWorker {
			extra = append(extra, p.Name)
		}
	}
	if len(extra) > 0 {
		pool := inputs.KindNamed(inputs.KindMachineConfigPool)
		cp.RunKubectl(t, slices.Concat([]string{"delete", pool.Resource + "." + pool.GroupVersion.Group}, extra, []string{"--wait=true"})...)
	}

	if _, err := cp.Config.ConfigV1().ClusterVersions().Get(ctx, ClusterVersionName, metav1.GetOptions{}); apierrors.IsNotFound(err) {
		if _, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage); err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
}
