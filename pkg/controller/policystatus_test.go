package controller

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"

	"github.com/openshift/registries-controller/pkg/reasons"
	"github.com/openshift/registries-controller/test/fixtures"
	"github.com/openshift/registries-controller/test/framework"
)

// statusUpdates returns the resources of the status updates the controller sent.
func (s *fakeShell) statusUpdates() []string {
	var out []string
	for _, a := range s.status.Actions() {
		if a.GetVerb() == "update" && a.GetSubresource() == "status" {
			out = append(out, a.GetResource().Resource)
		}
	}
	return out
}

func (s *fakeShell) imagePolicy(t *testing.T, ctx context.Context, ns, name string) *configv1.ImagePolicy {
	t.Helper()
	ip, err := s.config.ConfigV1().ImagePolicies(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ip
}

// TestPendingConditionIsWrittenOnceAndClearedWhenResolved pins the fix of docs/semantics.md §9.9 D3: an
// ImagePolicy whose scope a ClusterImagePolicy covers gets Pending=True with reason ConflictScopes; the status
// update re-triggers a sync that writes nothing; the condition goes once the ClusterImagePolicy does, and other
// conditions are kept.
func TestPendingConditionIsWrittenOnceAndClearedWhenResolved(t *testing.T) {
	key := fixtures.PublicKey([]byte("-----BEGIN PUBLIC KEY-----\nK\n-----END PUBLIC KEY-----\n"))
	cip := fixtures.CIP("cluster-wide", key, "quay.io/team")
	ip := fixtures.IP("team-a", "own", key, "quay.io/team/app", "quay.io/other")
	ip.Generation = 3
	ip.Status.Conditions = []metav1.Condition{{Type: "SetByOthers", Status: metav1.ConditionTrue, Reason: "Kept", LastTransitionTime: metav1.Unix(5, 0)}}
	s := newFakeShell(t, []runtime.Object{cip, ip}, []runtime.Object{fixtures.Pool("worker", true)}, Config{})
	_, ctx := ktesting.NewTestContext(t)

	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := s.statusUpdates(); len(got) != 1 || got[0] != "imagepolicies" {
		t.Fatalf("status updates %v, want one of the ImagePolicy", got)
	}
	got := s.imagePolicy(t, ctx, "team-a", "own")
	if len(got.Status.Conditions) != 2 || got.Status.Conditions[0].Type != "SetByOthers" {
		t.Fatalf("conditions %+v: the other condition must be kept", got.Status.Conditions)
	}
	c := got.Status.Conditions[1]
	want := `has conflicting scope(s) ["quay.io/team/app"] that equal to or nest inside existing clusterimagepolicy, only policy from clusterimagepolicy scope(s) will be applied`
	if c.Type != "Pending" || c.Status != metav1.ConditionTrue || c.Reason != "ConflictScopes" || c.Message != want || c.ObservedGeneration != 3 {
		t.Errorf("condition %+v", c)
	}

	// The status update reaches the informer; the sync it triggers writes nothing.
	framework.Eventually(t, 5*time.Second, "the informer to see the ImagePolicy's 2 conditions", func() (bool, string) {
		o := s.cached(t, "ImagePolicy", "team-a/own").(*configv1.ImagePolicy)
		return len(o.Status.Conditions) == 2, fmt.Sprint(o.Status.Conditions)
	})
	s.status.ClearActions()
	s.mc.ClearActions()
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	if got := append(s.statusUpdates(), s.writes()...); len(got) != 0 {
		t.Errorf("a sync after the status update wrote %v", got)
	}

	// Without the ClusterImagePolicy the scope applies: the condition is removed, the other one kept.
	if err := s.config.ConfigV1().ClusterImagePolicies().Delete(ctx, "cluster-wide", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.Eventually(t, 5*time.Second, "the informer to see no ClusterImagePolicy", func() (bool, string) {
		n := len(s.ctrl.reader.Inputs().ClusterImagePolicies)
		return n == 0, fmt.Sprint(n)
	})
	if err := s.syncAndReport(ctx); err != nil {
		t.Fatal(err)
	}
	got = s.imagePolicy(t, ctx, "team-a", "own")
	if len(got.Status.Conditions) != 1 || got.Status.Conditions[0].Type != "SetByOthers" {
		t.Errorf("conditions %+v: Pending must be removed, the other kept", got.Status.Conditions)
	}
}

// TestInvalidPolicyGetsAConditionAndAWarning: a policy the CRD may accept but the render rejects is reported on
// the object as Pending=True, reason Invalid, and as a Warning event, while no MachineConfig is written.
func TestInvalidPolicyGetsAConditionAndAWarning(t *testing.T) {
	cip := fixtures.CIP("redhat", fixtures.PublicKey([]byte("k")), "registry.redhat.io")
	s := newFakeShell(t, []runtime.Object{cip}, nil, Config{})
	_, ctx := ktesting.NewTestContext(t)
	for range 2 {
		if err := s.syncAndReport(ctx); err != nil {
			t.Fatal(err)
		}
		framework.Eventually(t, 5*time.Second, "the informer to see the ClusterImagePolicy's condition", func() (bool, string) {
			o := s.cached(t, "ClusterImagePolicy", "redhat").(*configv1.ClusterImagePolicy)
			return len(o.Status.Conditions) == 1, fmt.Sprint(o.Status.Conditions)
		})
	}
	if got := s.writes(); len(got) != 0 {
		t.Errorf("wrote %v for invalid input", got)
	}
	if got := s.statusUpdates(); len(got) != 1 {
		t.Errorf("status updates %v, want exactly one", got)
	}
	o, err := s.config.ConfigV1().ClusterImagePolicies().Get(ctx, "redhat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := o.Status.Conditions[0]; c.Reason != "Invalid" || c.Status != metav1.ConditionTrue || !strings.Contains(c.Message, "registry.redhat.io.yaml already configures") {
		t.Errorf("condition %+v", c)
	}
	close(s.recorder.Events)
	var events []string
	for e := range s.recorder.Events {
		events = append(events, e)
	}
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning InvalidMirrorConfiguration") {
		t.Errorf("events %q, want one Warning", events)
	}
}

// TestAFailedStatusWriteOfAnInvalidSyncIsRetried: the status of an invalid object that the API server refused to
// update once is an error of the sync, so the queue retries it, and the next sync writes it.
func TestAFailedStatusWriteOfAnInvalidSyncIsRetried(t *testing.T) {
	cip := fixtures.CIP("redhat", fixtures.PublicKey([]byte("k")), "registry.redhat.io")
	s := newFakeShell(t, []runtime.Object{cip}, nil, Config{})
	failed := 0
	s.status.PrependReactor("update", "clusterimagepolicies", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failed == 0 {
			failed++
			return true, nil, apierrors.NewServiceUnavailable("etcd is restarting")
		}
		return false, nil, nil
	})
	_, ctx := ktesting.NewTestContext(t)
	res, err := s.ctrl.sync(ctx)
	if err == nil || !strings.Contains(err.Error(), "etcd is restarting") || res.outcome != OutcomeError || res.invalid == nil {
		t.Fatalf("first sync: outcome %s, error %v; want the status error returned, for a retry", res.outcome, err)
	}
	s.ctrl.status.report(ctx, res, err)
	res, err = s.ctrl.sync(ctx)
	if err != nil || res.outcome != OutcomeInvalid || len(res.statusWrites) != 1 {
		t.Fatalf("retry: outcome %s, status writes %v, error %v; want the condition written", res.outcome, res.statusWrites, err)
	}
	o, err := s.config.ConfigV1().ClusterImagePolicies().Get(ctx, "redhat", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Status.Conditions) != 1 || o.Status.Conditions[0].Reason != reasons.InvalidPolicy {
		t.Errorf("conditions %+v, want Pending=True/Invalid", o.Status.Conditions)
	}
	close(s.recorder.Events)
	var events []string
	for e := range s.recorder.Events {
		events = append(events, e)
	}
	if len(events) != 1 || !strings.HasPrefix(events[0], "Warning InvalidMirrorConfiguration") {
		t.Errorf("events %q: the failed sync must still tell the object, once", events)
	}
}
