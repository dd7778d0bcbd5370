package integration

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
	"github.com/openshift/registries-controller/test/mcosim"
)

// asWrittenBy rewrites the worker registries MachineConfig as MCO or an older build of this project wrote it: that
// build in the version annotation and a plain owner reference to the Image.
func asWrittenBy(t *testing.T, build string) {
	t.Helper()
	mcs := cp.MachineConfig.MachineconfigurationV1().MachineConfigs()
	mc, err := mcs.Get(context.Background(), workerMC, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mcs.Update(context.Background(), fixtures.WrittenBy(mc, build), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitTakenOver waits until the worker registries MachineConfig carries no version annotation and a controller
// reference to the Image.
func waitTakenOver(t *testing.T) {
	t.Helper()
	framework.Eventually(t, 30*time.Second, workerMC+" without the version annotation, controlled by the Image", func() (bool, string) {
		mc, err := cp.MachineConfig.MachineconfigurationV1().MachineConfigs().Get(context.Background(), workerMC, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		_, annotated := mc.Annotations[machineconfigs.VersionAnnotation]
		controlled := len(mc.OwnerReferences) == 1 && mc.OwnerReferences[0].Kind == "Image" && mc.OwnerReferences[0].Controller != nil && *mc.OwnerReferences[0].Controller
		return !annotated && controlled, fmt.Sprintf("annotations %v, owners %+v", mc.Annotations, mc.OwnerReferences)
	})
}

// Beside MCO's render controller (test/mcosim, which refuses a pool one of whose MachineConfigs names another build
// in the version annotation), the controller takes over the registries MachineConfig MCO wrote, and one an older
// build wrote, by a metadata-only update: the pool renders the same config, no node rolls.
func TestAMachineConfigMCOOrAnOlderBuildWroteIsTakenOverWithoutRollingANode(t *testing.T) {
	cp.Reset(t)
	apply(t, fixtures.Image(fixtures.Insecure("lab.local:5000")), fixtures.IDMS("a", fixtures.Mirror("quay.io/a", "m.local/a")))
	sim := startSim(t)
	first := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitRolledOut(t, "cluster", 1)
	rendered := statusConfig(t, framework.PoolWorker)
	first.stop()

	// MCO wrote it, with its own build: the pool renders as it did.
	asWrittenBy(t, mcosim.DefaultControllerVersion)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if got, err := sim.WaitUpdated(ctx, framework.PoolWorker); err != nil || got != rendered {
		t.Fatalf("MCO's own MachineConfig: the pool is on %s (%v), want %s", got, err, rendered)
	}
	second := startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitTakenOver(t)
	second.stop()
	if got, err := sim.WaitUpdated(ctx, framework.PoolWorker); err != nil || got != rendered {
		t.Errorf("after the takeover of MCO's MachineConfig the pool is on %s (%v), want %s: a node rolled", got, err, rendered)
	}

	// An older build of this project wrote it: MCO's render controller refuses the pool until the controller drops
	// the annotation, and then renders the same config again.
	asWrittenBy(t, "v0.1.0-older")
	_, err := sim.WaitUpdated(ctx, framework.PoolWorker)
	if !errors.Is(err, mcosim.ErrDegraded) {
		t.Fatalf("an older build's annotation: WaitUpdated %v, want the pool RenderDegraded", err)
	}
	startInProcess(t, cp.RESTConfig, fastSettle, 0)
	waitTakenOver(t)
	if got, err := sim.WaitUpdated(ctx, framework.PoolWorker); err != nil || got != rendered {
		t.Errorf("after the takeover of an older build's MachineConfig the pool is on %s (%v), want %s", got, err, rendered)
	}
	if got := statusConfig(t, framework.PoolWorker); got != rendered {
		t.Errorf("the pool is on %s, want %s: a node rolled", got, rendered)
	}
}
