package containerruntime_test

import (
	"slices"
	"testing"
	"time"

	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/containerruntime"
)

func TestStatus(t *testing.T) {
	now := metav1.NewTime(t0)
	later := metav1.NewTime(t0.Add(time.Minute))
	crc := ctrcfg("a", 0, nil, "worker")
	crc.Generation = 1

	st, changed := containerruntime.Status(crc, "", now)
	if !changed || st.ObservedGeneration != 1 || len(st.Conditions) != 1 || st.Conditions[0].Type != mcfgv1.ContainerRuntimeConfigSuccess ||
		st.Conditions[0].Status != "True" || st.Conditions[0].Message != "Success" || st.Conditions[0].Reason != "" {
		t.Fatalf("first status %+v (changed %v), want observedGeneration 1 and MCO's Success condition", st, changed)
	}
	crc.Status = st
	if again, changed := containerruntime.Status(crc, "", later); changed || !slices.Equal(again.Conditions, st.Conditions) {
		t.Errorf("the same outcome changes the status: %+v", again)
	}

	crc.Generation = 2
	st, changed = containerruntime.Status(crc, "Error: invalid PidsLimit 10", later)
	if !changed || st.ObservedGeneration != 2 || len(st.Conditions) != 2 || st.Conditions[1].Type != mcfgv1.ContainerRuntimeConfigFailure ||
		st.Conditions[1].Message != "Error: invalid PidsLimit 10" {
		t.Fatalf("failure status %+v", st)
	}
	crc.Status = st
	if _, changed := containerruntime.Status(crc, "Error: invalid PidsLimit 10", later); changed {
		t.Error("a failure repeated on a resync changes the status (MCO rewrites its time)")
	}

	// Alternating outcomes (MCO appends each: 3313 conditions were seen) keep the newest MaxConditions.
	for i := range 10 {
		msg := "Error: invalid PidsLimit 10"
		if i%2 == 0 {
			msg = "could not Create/Update MachineConfig: boom"
		}
		crc.Status, _ = containerruntime.Status(crc, msg, later)
	}
	if n := len(crc.Status.Conditions); n != containerruntime.MaxConditions {
		t.Errorf("%d conditions, want %d", n, containerruntime.MaxConditions)
	}
	if last := crc.Status.Conditions[len(crc.Status.Conditions)-1]; last.Message != "Error: invalid PidsLimit 10" {
		t.Errorf("last condition %+v", last)
	}
}

func TestFinalizers(t *testing.T) {
	crc := ctrcfg("a", 0, nil, "worker")
	crc.Finalizers = []string{"example.com/foreign", "99-master-generated-containerruntime"}
	got, changed := containerruntime.Finalizers(crc, []string{"99-worker-generated-containerruntime"})
	if want := []string{"example.com/foreign", "99-worker-generated-containerruntime"}; !changed || !slices.Equal(got, want) {
		t.Errorf("finalizers %v (changed %v), want %v: the pool no longer selected loses its, a foreign one stays", got, changed, want)
	}
	crc.Finalizers = got
	if _, changed := containerruntime.Finalizers(crc, []string{"99-worker-generated-containerruntime"}); changed {
		t.Error("unchanged finalizers are written again (MCO sends an empty patch)")
	}
	if got, _ := containerruntime.Finalizers(crc, nil); !slices.Equal(got, []string{"example.com/foreign"}) {
		t.Errorf("on deletion %v, want only the foreign finalizer left (MCO deletes a MachineConfig named after it)", got)
	}
}
