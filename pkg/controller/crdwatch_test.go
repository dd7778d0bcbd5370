package controller

import (
	"slices"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheCRDsWatchedAreThoseOfEveryKindReadOrWritten(t *testing.T) {
	names := CRDNames()
	for _, want := range []string{"imagedigestmirrorsets.config.openshift.io", "imagecontentsourcepolicies.operator.openshift.io",
		"machineconfigs.machineconfiguration.openshift.io", "machineconfigpools.machineconfiguration.openshift.io"} {
		if !slices.Contains(names, want) {
			t.Errorf("CRDNames() = %v, lacks %s", names, want)
		}
	}
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("CRDNames() = %v, want sorted and without repeats", names)
	}
}

func TestTheWatchedObjectsAreCachedWithoutManagedFieldsOrAnnotations(t *testing.T) {
	co := &configv1.ClusterOperator{
		ObjectMeta: metav1.ObjectMeta{Name: "registries-controller", Annotations: map[string]string{"a": "b"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}}},
		Status: configv1.ClusterOperatorStatus{Conditions: []configv1.ClusterOperatorStatusCondition{{Type: "Available"}}},
	}
	out, err := dropMetadataUnread(co)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*configv1.ClusterOperator)
	if got.Annotations != nil || got.ManagedFields != nil {
		t.Errorf("kept annotations %v and managed fields %v", got.Annotations, got.ManagedFields)
	}
	if got.Name != "registries-controller" || len(got.Status.Conditions) != 1 {
		t.Errorf("lost what is read: %+v", got)
	}
}

// The CRD watches' first list is no change (it would cost every start 10 s of probes every second); an update
// that keeps the resourceVersion (a list again after a watch ended) is none either.
func TestACRDInItsWatchsFirstListIsNoChange(t *testing.T) {
	var changed int
	var listed []string
	h := crdEvents(func() { changed++ }, func(name string) { listed = append(listed, name) })
	crd := func(rv string) *metav1.PartialObjectMetadata {
		return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "imagetagmirrorsets.config.openshift.io", ResourceVersion: rv}}
	}
	h.OnAdd(crd("1"), true)
	if changed != 0 || !slices.Equal(listed, []string{"imagetagmirrorsets.config.openshift.io"}) {
		t.Errorf("first list: %d changes, listed %v; want none and the CRD", changed, listed)
	}
	h.OnUpdate(crd("1"), crd("1"))
	if changed != 0 {
		t.Errorf("an update with the same resourceVersion was a change")
	}
	h.OnUpdate(crd("1"), crd("2"))
	h.OnDelete(crd("2"))
	h.OnAdd(crd("3"), false)
	if changed != 3 || len(listed) != 1 {
		t.Errorf("an update, a delete and a later add: %d changes and %d more listed, want 3 and 0", changed, len(listed)-1)
	}
}
