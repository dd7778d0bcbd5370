package controller

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	mcfgv1 "github.com/openshift/api/machineconfiguration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/registriesconf"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/test/fixtures"
)

// desired renders the master MachineConfig of one mirror.
func desired(t *testing.T, mirror string) *machineconfigs.Desired {
	t.Helper()
	in := &inputs.Inputs{ImageDigestMirrorSets: []*configv1.ImageDigestMirrorSet{fixtures.IDMS("a", fixtures.Mirror("quay.io/a", mirror))}}
	out, err := render.Render(in, render.Options{Checker: registriesconf.NewChecker()})
	if err != nil {
		t.Fatal(err)
	}
	return out.MachineConfigs[0]
}

// stored returns the master MachineConfig of one mirror as the API server holds it, with the given resourceVersion.
func stored(t *testing.T, mirror, resourceVersion string) *mcfgv1.MachineConfig {
	t.Helper()
	mc := desired(t, mirror).Object.DeepCopy()
	mc.ResourceVersion = resourceVersion
	return mc
}

func TestRevertsOfAnotherWritersChangesWaitLongerWhileItGoesOn(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	l := newRevertLimiter(time.Second, 8*time.Second, clock)
	want := desired(t, "m.local/a")
	ours := stored(t, "m.local/a", "1")
	l.wrote(nil, ours, want, false)

	theirs := func(rv string) *mcfgv1.MachineConfig {
		mc := stored(t, "other.local/a", rv)
		mc.ManagedFields = []metav1.ManagedFieldsEntry{
			{Manager: FieldManager, Time: &metav1.Time{Time: time.Unix(900, 0)}},
			{Manager: "kubectl-edit", Time: &metav1.Time{Time: time.Unix(999, 0)}},
		}
		return mc
	}
	// The first revert is immediate; then each waits twice as long, up to the maximum.
	rv := 2
	for i, wantWait := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second} {
		have := theirs(string(rune('0' + rv)))
		isRevert, wait := l.check(have, want)
		if !isRevert || wait != 0 {
			t.Fatalf("revert %d: check = %v, %v; want a revert due now", i+1, isRevert, wait)
		}
		r := l.wrote(have, stored(t, "m.local/a", string(rune('0'+rv+1))), want, true)
		if r == nil || r.count != i+1 || r.wait != wantWait || r.writer != "kubectl-edit" {
			t.Fatalf("revert %d: reported %+v, want count %d, wait %v, writer kubectl-edit", i+1, r, i+1, wantWait)
		}
		rv += 2
		clock.SetTime(clock.Now().Add(wantWait / 2))
		if _, wait := l.check(theirs(string(rune('0'+rv))), want); wait != wantWait/2 {
			t.Fatalf("halfway after revert %d: wait %v, want %v", i+1, wait, wantWait/2)
		}
		clock.SetTime(clock.Now().Add(wantWait / 2))
	}

	// Left alone for more than twice the current wait, the fight is over: the next revert is immediate, and
	// the one after waits the base again.
	clock.SetTime(clock.Now().Add(17 * time.Second))
	have := theirs("x")
	if isRevert, wait := l.check(have, want); !isRevert || wait != 0 {
		t.Fatalf("after the fight: check = %v, %v; want an immediate revert", isRevert, wait)
	}
	if r := l.wrote(have, stored(t, "m.local/a", "y"), want, true); r.count != 1 || r.wait != time.Second {
		t.Fatalf("after the fight: reported %+v, want a first revert", r)
	}
}

func TestAWriteForChangedInputsIsNeverHeldBack(t *testing.T) {
	clock := clocktesting.NewFakePassiveClock(time.Unix(1000, 0))
	l := newRevertLimiter(time.Second, time.Minute, clock)
	want := desired(t, "m.local/a")
	l.wrote(nil, stored(t, "m.local/a", "1"), want, false)
	have := stored(t, "other.local/a", "2")
	l.wrote(have, stored(t, "m.local/a", "3"), want, true) // a fight has started

	newWant := desired(t, "m2.local/a")
	if isRevert, wait := l.check(stored(t, "other.local/a", "4"), newWant); isRevert || wait != 0 {
		t.Errorf("inputs changed during a fight: check = %v, %v; want an ordinary write", isRevert, wait)
	}
	if isRevert, _ := l.check(stored(t, "m.local/a", "3"), want); isRevert {
		t.Errorf("the controller's own last write is not another writer's change")
	}
	if isRevert, _ := l.check(stored(t, "x.local/a", "1"), desired(t, "x.local/a")); isRevert {
		t.Errorf("a MachineConfig the controller never wrote cannot be reverted")
	}
}
