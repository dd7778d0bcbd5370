package framework_test

import (
	"context"
	"slices"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// resetObjects holds an object of each input kind that a test may create, by kind name: Reset must delete them
// all. A kind added to inputs.Kinds without an object here fails TestResetDeletesAnObjectOfEveryInputKind.
var resetObjects = map[string]inputs.Object{
	inputs.KindImageContentSourcePolicy: fixtures.ICSP("reset", fixtures.Mirror("quay.io/reset", "m.local/reset")),
	inputs.KindImageDigestMirrorSet:     fixtures.IDMS("reset", fixtures.Mirror("quay.io/reset", "m.local/reset")),
	inputs.KindImageTagMirrorSet:        fixtures.ITMS("reset", fixtures.Mirror("quay.io/reset", "m.local/reset")),
	inputs.KindClusterImagePolicy: fixtures.CIP("reset",
		fixtures.PublicKey([]byte("-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n")), "quay.io/reset"),
	inputs.KindImagePolicy: fixtures.IP("default", "reset",
		fixtures.PublicKey([]byte("-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n")), "quay.io/reset"),
	inputs.KindImage:                  fixtures.Image(fixtures.Blocked("docker.io")),
	inputs.KindFeatureGate:            &configv1.FeatureGate{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}},
	inputs.KindMachineConfigPool:      fixtures.Pool("infra", false),
	inputs.KindInfrastructure:         fixtures.Infrastructure(configv1.AWSPlatformType),
	inputs.KindCRIOCredentialProvider: fixtures.CRIOCredentialProviderConfig("quay.io"),
	inputs.KindContainerRuntimeConfig: &mcfgv1.ContainerRuntimeConfig{
		TypeMeta:   metav1.TypeMeta{APIVersion: "machineconfiguration.openshift.io/v1", Kind: "ContainerRuntimeConfig"},
		ObjectMeta: metav1.ObjectMeta{Name: "reset"},
		Spec: mcfgv1.ContainerRuntimeConfigSpec{
			MachineConfigPoolSelector: &metav1.LabelSelector{MatchLabels: map[string]string{fixtures.LabelPoolPrefix + "worker": ""}},
			ContainerRuntimeConfig:    &mcfgv1.ContainerRuntimeConfiguration{LogLevel: "debug"},
		},
	},
}

// TestResetDeletesAnObjectOfEveryInputKind creates an object of every input kind and a MachineConfig, deletes the
// ClusterVersion, and checks that Reset leaves the cluster of the setup: the built-in pools and the ClusterVersion,
// created again, and nothing else.
func TestResetDeletesAnObjectOfEveryInputKind(t *testing.T) {
	ctx := context.Background()
	// TestTheBuiltinPoolsAndClusterVersionFixturesAreAccepted, when it ran before, created them.
	if err := cp.CreateBuiltinPools(ctx); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	if _, err := cp.CreateClusterVersion(ctx, fixtures.ReleaseImage); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range inputs.Kinds {
		if k.Name == inputs.KindClusterVersion {
			continue // the setup's, deleted below
		}
		o, ok := resetObjects[k.Name]
		if !ok {
			t.Fatalf("no object of kind %s in resetObjects: add one, so that Reset is shown to delete it", k.Name)
		}
		data, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.DeepCopyObject())
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: data}
		u.SetAPIVersion(k.GroupVersion.String())
		u.SetKind(k.Name)
		u.SetUID("")
		if _, err := client.Resource(k.GroupVersionResource()).Namespace(u.GetNamespace()).Create(ctx, u, metav1.CreateOptions{}); err != nil {
			t.Fatalf("creating %s %s: %v", k.Name, u.GetName(), err)
		}
	}
	if _, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Create(ctx,
		fixtures.MachineConfig("99-worker-reset", framework.PoolWorker, fixtures.File("/etc/reset", "x")), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cp.RunKubectl(t, "delete", "clusterversion", framework.ClusterVersionName)

	cp.Reset(t)

	for _, k := range inputs.Kinds {
		list, err := client.Resource(k.GroupVersionResource()).List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, o := range list.Items {
			names = append(names, o.GetName())
		}
		slices.Sort(names)
		var want []string
		switch k.Name {
		case inputs.KindClusterVersion:
			want = []string{framework.ClusterVersionName}
		case inputs.KindMachineConfigPool:
			want = []string{framework.PoolMaster, framework.PoolWorker}
		}
		if !slices.Equal(names, want) {
			t.Errorf("after Reset, %s: %q, want %q", k.Name, names, want)
		}
	}
	if list, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().List(ctx, metav1.ListOptions{}); err != nil || len(list.Items) != 0 {
		t.Errorf("after Reset, %d MachineConfigs (%v), want none", len(list.Items), err)
	}
	cv, err := cp.Config.ConfigV1().ClusterVersions().Get(ctx, framework.ClusterVersionName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the ClusterVersion was not created again: %v", err)
	}
	if cv.Status.Desired.Image != fixtures.ReleaseImage {
		t.Errorf("the ClusterVersion created again names %q, want %q", cv.Status.Desired.Image, fixtures.ReleaseImage)
	}
}
