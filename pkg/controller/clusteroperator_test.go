package controller

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	configfake "github.com/openshift/client-go/config/clientset/versioned/fake"
	"github.com/prometheus/client_golang/prometheus"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/openshift/registries-controller/pkg/inputs"
	"github.com/openshift/registries-controller/pkg/machineconfigs"
	"github.com/openshift/registries-controller/pkg/operatorstatus"
	"github.com/openshift/registries-controller/pkg/render"
	"github.com/openshift/registries-controller/pkg/rollout"
)

// The writer against a fake clientset: which requests it sends. Its behaviour against a real API server (the
// conditions' transitions, no writes while quiet) is tested in test/integration.

func newFakeOperatorStatus(t *testing.T) (*operatorStatus, *configfake.Clientset, *clocktesting.FakeClock) {
	t.Helper()
	client := configfake.NewClientset()
	clk := clocktesting.NewFakeClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	cfg := Config{Clock: clk, ClusterOperator: ClusterOperatorConfig{ReleaseVersion: "4.22.0", GracePeriod: time.Minute}}
	return newOperatorStatus(client.ConfigV1(), newMetrics(prometheus.NewRegistry()), cfg), client, clk
}

func unchanged() *syncResult {
	return &syncResult{outcome: OutcomeUnchanged, output: &render.Output{Set: machineconfigs.Set{MachineConfigs: []*machineconfigs.Desired{
		{Key: machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}},
		{Key: machineconfigs.Key{Pool: "master", Output: machineconfigs.Registries}},
	}}}}
}

// verbs lists the requests the fake received, as "verb resource[/subresource]", and forgets them.
func verbs(client *configfake.Clientset) []string {
	var out []string
	for _, a := range client.Actions() {
		s := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			s += "/" + a.GetSubresource()
		}
		out = append(out, s)
	}
	client.ClearActions()
	return out
}

func TestTheWriterCreatesTheObjectAndWritesOnlyWhatChanged(t *testing.T) {
	o, client, clk := newFakeOperatorStatus(t)
	logger, ctx := ktesting.NewTestContext(t)

	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got := verbs(client); len(got) != 0 {
		t.Errorf("before the first sync: %v, want no request", got)
	}

	o.syncDone(unchanged(), nil)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(client), []string{"get clusteroperators", "create clusteroperators", "update clusteroperators/status"}; !slices.Equal(got, want) {
		t.Errorf("first report: %v, want %v", got, want)
	}
	co, err := client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(co.Status.Conditions); got != "Available=True Progressing=False Degraded=False Upgradeable=True" {
		t.Errorf("conditions %s", got)
	}
	if len(co.Status.Versions) != 1 || co.Status.Versions[0].Version != "4.22.0" {
		t.Errorf("versions %+v", co.Status.Versions)
	}
	verbs(client)

	// The same state, again and again: nothing is sent, not even a read.
	for range 3 {
		o.syncDone(unchanged(), nil)
		clk.Step(time.Minute)
		if _, err := o.update(ctx, logger); err != nil {
			t.Fatal(err)
		}
	}
	if got := verbs(client); len(got) != 0 {
		t.Errorf("an unchanged state sent %v", got)
	}

	// A rollout: one read and one status update; its end, the same.
	o.rolloutState(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, rollout.State{Phase: rollout.Pending}, true)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	o.rolloutState(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, rollout.State{Phase: rollout.Live}, false)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(client), []string{"get clusteroperators", "update clusteroperators/status", "get clusteroperators", "update clusteroperators/status"}; !slices.Equal(got, want) {
		t.Errorf("a rollout: %v, want %v", got, want)
	}

	// Nothing is read again while nothing changes: the watch (Run) delivers another writer's change or a deletion.
	clk.Step(time.Hour)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got := verbs(client); len(got) != 0 {
		t.Errorf("an hour later with nothing changed: %v, want no request", got)
	}
	// Another writer's change, as the watch delivers it: read and written back.
	co, err = client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	co.Status.Conditions = nil
	if co, err = client.ConfigV1().ClusterOperators().UpdateStatus(ctx, co, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	o.observed(co)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(client), []string{"get clusteroperators", "update clusteroperators/status"}; !slices.Equal(got, want) {
		t.Errorf("another writer's change: %v, want %v", got, want)
	}
	// A deletion, as the watch delivers it: created again.
	if err := client.ConfigV1().ClusterOperators().Delete(ctx, operatorstatus.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	client.ClearActions()
	o.observed(nil)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(client), []string{"get clusteroperators", "create clusteroperators", "update clusteroperators/status"}; !slices.Equal(got, want) {
		t.Errorf("a deletion: %v, want %v", got, want)
	}
}

func TestTheWriterRetriesAConflictAgainstAFreshRead(t *testing.T) {
	o, client, _ := newFakeOperatorStatus(t)
	logger, ctx := ktesting.NewTestContext(t)
	conflicts := 1
	client.PrependReactor("update", "clusteroperators", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if conflicts > 0 {
			conflicts--
			return true, nil, apierrors.NewConflict(schema.GroupResource{Group: "config.openshift.io", Resource: "clusteroperators"}, operatorstatus.Name, nil)
		}
		return false, nil, nil
	})
	o.syncDone(unchanged(), nil)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	if got, want := verbs(client), []string{"get clusteroperators", "create clusteroperators", "update clusteroperators/status",
		"get clusteroperators", "update clusteroperators/status"}; !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

func TestTheWriterAsksToLookAgainWhenAGracePeriodEnds(t *testing.T) {
	o, client, clk := newFakeOperatorStatus(t)
	logger, ctx := ktesting.NewTestContext(t)
	o.syncDone(unchanged(), nil)
	invalid := &syncResult{outcome: OutcomeInvalid, invalid: &inputs.InvalidError{Problems: []inputs.Problem{{
		At: inputs.FieldRef{Object: inputs.ObjectRef{Kind: inputs.KindImageDigestMirrorSet, Name: "bad"}, Field: "spec"}, Message: "wrong"}}}}
	o.syncDone(invalid, nil)
	next, err := o.update(ctx, logger)
	if err != nil {
		t.Fatal(err)
	}
	if next != operatorPoll {
		t.Errorf("look again in %s, want %s (the readiness poll comes before the grace period's end)", next, operatorPoll)
	}
	clk.Step(time.Minute - 2*time.Second)
	if next, _ = o.update(ctx, logger); next != 2*time.Second {
		t.Errorf("look again in %s, want 2s: when the grace period ends", next)
	}
	clk.Step(2 * time.Second)
	verbs(client)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	co, _ := client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if got := summary(co.Status.Conditions); got != "Available=True Progressing=False Degraded=True(InvalidMirrorConfiguration) Upgradeable=False(InvalidMirrorConfiguration)" {
		t.Errorf("after the grace period: %s", got)
	}
	if c := co.Status.Conditions[2]; !c.LastTransitionTime.Time.Equal(clk.Now()) {
		t.Errorf("Degraded since %v, want %v", c.LastTransitionTime, clk.Now())
	}
}

func TestARolloutDegradedIsCountedPerPool(t *testing.T) {
	reg := prometheus.NewRegistry()
	o := newOperatorStatus(nil, newMetrics(reg), Config{Clock: clocktesting.NewFakeClock(time.Now())})
	o.rolloutState(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries}, rollout.State{Phase: rollout.Degraded, Message: "NodeDegraded: boom"}, true)
	o.rolloutState(machineconfigs.Key{Pool: "master", Output: machineconfigs.Registries}, rollout.State{Phase: rollout.Degraded, Message: "NodeDegraded: boom"}, false) // not ours
	got := map[string]float64{}
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == "registries_controller_rollout_degraded" {
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "pool" {
						got[l.GetValue()] = m.GetGauge().GetValue()
					}
				}
			}
		}
	}
	if got["worker"] != 1 || got["master"] != 0 || len(got) != 2 {
		t.Errorf("rollout_degraded %v, want worker 1, master 0", got)
	}
	if s := o.snapshot(); len(s.Rollouts) != 1 || s.Rollouts[0] != (operatorstatus.Rollout{Pool: "worker", Degraded: "NodeDegraded: boom"}) {
		t.Errorf("rollouts %+v", s.Rollouts)
	}
	o.keyGone(machineconfigs.Key{Pool: "worker", Output: machineconfigs.Registries})
	if s := o.snapshot(); len(s.Rollouts) != 0 {
		t.Errorf("a pool gone is still followed: %+v", s.Rollouts)
	}
}

func TestAMachineConfigTooLargeDegradesAtOnceAndAnotherErrorOnlyAfterTheGracePeriod(t *testing.T) {
	o, client, clk := newFakeOperatorStatus(t)
	logger, ctx := ktesting.NewTestContext(t)
	o.syncDone(unchanged(), nil)
	tooLarge := &tooLargeError{Name: "99-worker-generated-registries", Bytes: 2_700_000, Err: apierrors.NewRequestEntityTooLargeError("limit is 3145728")}
	o.syncDone(&syncResult{outcome: OutcomeError}, fmt.Errorf("applying: %w", tooLarge))
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	co, _ := client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if got := summary(co.Status.Conditions); got != "Available=True Progressing=False Degraded=True(MachineConfigTooLarge) Upgradeable=False(MachineConfigTooLarge)" {
		t.Errorf("a MachineConfig too large: %s", got)
	}
	if msg := co.Status.Conditions[2].Message; !strings.HasPrefix(msg, `Cannot write MachineConfig "99-worker-generated-registries": MachineConfig 99-worker-generated-registries is 2700000 bytes`) {
		t.Errorf("Degraded message: %s", msg)
	}

	// Another failure replaces it, and waits out the grace period.
	o.syncDone(&syncResult{outcome: OutcomeError}, errors.New("update MachineConfig 99-worker-generated-registries: connection refused"))
	clk.Step(time.Second)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	co, _ = client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if got := summary(co.Status.Conditions); got != "Available=True Progressing=False Degraded=False Upgradeable=True" {
		t.Errorf("a failure within the grace period: %s", got)
	}
	clk.Step(time.Minute)
	if _, err := o.update(ctx, logger); err != nil {
		t.Fatal(err)
	}
	co, _ = client.ConfigV1().ClusterOperators().Get(ctx, operatorstatus.Name, metav1.GetOptions{})
	if got := summary(co.Status.Conditions); got != "Available=True Progressing=False Degraded=True(SyncFailing) Upgradeable=False(SyncFailing)" {
		t.Errorf("failing past the grace period: %s", got)
	}
}
