package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/openshift/registries-controller/pkg/cluster"
	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

func TestConnectReadsTheInputsTheControllerReadsOrNamesWhatItCannotList(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(fixtures.Insecure("lab.local")), fixtures.ITMS("tools", fixtures.Mirror("quay.io/tools", "m.local/tools")))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, stop, err := cluster.Connect(ctx, cp.RESTConfig)
	if err != nil {
		t.Fatal(err)
	}
	in := r.Inputs()
	stop()
	if got := in.Summary(); got != "1 ClusterVersion, 1 Image, 1 ImageTagMirrorSet, 2 MachineConfigPool" {
		t.Errorf("read %s", got)
	}
	if in.Get(inputs.ObjectRef{Kind: inputs.KindImageTagMirrorSet, Name: "tools"}) == nil || r.Pool("worker") == nil {
		t.Errorf("the objects are not found by name")
	}

	nobody := rest.CopyConfig(cp.RESTConfig)
	nobody.Impersonate = rest.ImpersonationConfig{UserName: "nobody"}
	_, _, err = cluster.Connect(ctx, nobody)
	if err == nil || !strings.Contains(err.Error(), "listing machineconfigs.machineconfiguration.openshift.io: ") || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("Connect as a user without permissions: %v", err)
	}
}

// The informers NewInformers builds decode MachineConfigs with their own MetaFactory (typeMeta, pkg/cluster):
// a MachineConfig of 1.4 MB comes through the list and a watch event byte for byte.
func TestTheInformersReadALargeMachineConfigIntactFromTheListAndTheWatch(t *testing.T) {
	cp.Reset(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	registries := func(host string) string {
		var b strings.Builder
		for i := 0; b.Len() < 1<<20; i++ {
			fmt.Fprintf(&b, "[[registry]]\nlocation = \"r%d.%s/team\"\n", i, host)
		}
		return b.String()
	}
	mcs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()
	mc, err := mcs.Create(ctx, fixtures.MachineConfig("99-large", "worker", fixtures.File("/etc/containers/registries.conf", registries("example.com"))), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	inf, err := cluster.NewInformers(cp.RESTConfig, 0)
	if err != nil {
		t.Fatal(err)
	}
	lister := inf.MachineConfig.Machineconfiguration().V1().MachineConfigs().Lister()
	stop := make(chan struct{})
	inf.Start(stop)
	defer inf.Shutdown()
	defer close(stop)
	cached := func(want *mcfgv1.MachineConfig) func() (bool, string) {
		return func() (bool, string) {
			got, err := lister.Get(want.Name)
			if err != nil || got.ResourceVersion != want.ResourceVersion {
				return false, fmt.Sprintf("the cache holds %v (%v), want resourceVersion %s", got != nil, err, want.ResourceVersion)
			}
			if !bytes.Equal(got.Spec.Config.Raw, want.Spec.Config.Raw) || got.Labels[mcfgv1.MachineConfigRoleLabelKey] != "worker" {
				return false, fmt.Sprintf("spec.config of %d bytes, want %d", len(got.Spec.Config.Raw), len(want.Spec.Config.Raw))
			}
			return true, ""
		}
	}
	framework.Eventually(t, 20*time.Second, "the listed MachineConfig in the cache", cached(mc))

	mc.Spec.Config.Raw = fixtures.MachineConfig(mc.Name, "worker", fixtures.File("/etc/containers/registries.conf", registries("changed.io"))).Spec.Config.Raw
	if mc, err = mcs.Update(ctx, mc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 20*time.Second, "the watched MachineConfig in the cache", cached(mc))
}
