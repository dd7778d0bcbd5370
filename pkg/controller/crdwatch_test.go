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
