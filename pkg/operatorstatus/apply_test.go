package operatorstatus

import (
	"testing"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/reasons"
)

func cond(t configv1.ClusterStatusConditionType, status configv1.ConditionStatus, reason, msg string, ltt time.Time) configv1.ClusterOperatorStatusCondition {
	c := configv1.ClusterOperatorStatusCondition{Type: t, Status: status, Reason: reason, Message: msg}
	if !ltt.IsZero() {
		c.LastTransitionTime = metav1.NewTime(ltt)
	}
	return c
}

func TestApplyOnAnEmptyStatusSetsEverythingNow(t *testing.T) {
	now := t0.Add(1500 * time.Millisecond)
	r := Report{
		Conditions: []configv1.ClusterOperatorStatusCondition{cond(configv1.OperatorAvailable, configv1.ConditionTrue, reasons.AsExpected, "ok", time.Time{})},
		Versions:   []configv1.OperandVersion{{Name: "operator", Version: "4.22.0"}},
	}
	got, changed := Apply(configv1.ClusterOperatorStatus{}, r, now)
	if !changed {
		t.Error("not changed")
	}
	if len(got.Conditions) != 1 || !got.Conditions[0].LastTransitionTime.Time.Equal(t0.Add(time.Second)) {
		t.Errorf("conditions %+v, want Available with lastTransitionTime %v (to the second, as the API stores it)", got.Conditions, t0.Add(time.Second))
	}
	if len(got.Versions) != 1 || got.Versions[0].Version != "4.22.0" {
		t.Errorf("versions %+v", got.Versions)
	}
}

func TestApplyKeepsTheTransitionTimeUnlessTheStatusFlips(t *testing.T) {
	earlier, now := t0, t0.Add(time.Hour)
	have := configv1.ClusterOperatorStatus{Conditions: []configv1.ClusterOperatorStatusCondition{
		cond(configv1.OperatorAvailable, configv1.ConditionTrue, reasons.AsExpected, "ok", earlier),
		cond(configv1.OperatorDegraded, configv1.ConditionFalse, reasons.AsExpected, "fine", earlier),
		cond("EvaluationConditionsDetected", configv1.ConditionFalse, "NoData", "someone else's", earlier),
	}}
	same := Report{Conditions: []configv1.ClusterOperatorStatusCondition{
		cond(configv1.OperatorAvailable, configv1.ConditionTrue, reasons.AsExpected, "ok", time.Time{}),
		cond(configv1.OperatorDegraded, configv1.ConditionFalse, reasons.AsExpected, "fine", time.Time{}),
	}}
	got, changed := Apply(have, same, now)
	if changed {
		t.Errorf("the same conditions changed the status: %+v", got)
	}
	for _, c := range got.Conditions {
		if !c.LastTransitionTime.Time.Equal(earlier) {
			t.Errorf("%s: lastTransitionTime moved to %v", c.Type, c.LastTransitionTime)
		}
	}

	// A new message with the same status is a change, but not a transition.
	reworded := same
	reworded.Conditions = append([]configv1.ClusterOperatorStatusCondition(nil), same.Conditions...)
	reworded.Conditions[0].Message = "still ok"
	got, changed = Apply(have, reworded, now)
	if !changed || got.Conditions[0].Message != "still ok" || !got.Conditions[0].LastTransitionTime.Time.Equal(earlier) {
		t.Errorf("reworded: changed=%v %+v", changed, got.Conditions[0])
	}

	// A flip is a transition.
	flipped := Report{Conditions: []configv1.ClusterOperatorStatusCondition{
		cond(configv1.OperatorDegraded, configv1.ConditionTrue, reasons.SyncFailing, "broken", time.Time{}),
	}}
	got, changed = Apply(have, flipped, now)
	if !changed || got.Conditions[1].Status != configv1.ConditionTrue || !got.Conditions[1].LastTransitionTime.Time.Equal(now) {
		t.Errorf("flipped: changed=%v %+v", changed, got.Conditions[1])
	}
	if got.Conditions[2].Type != "EvaluationConditionsDetected" || got.Conditions[2].Message != "someone else's" {
		t.Errorf("another writer's condition was not kept in place: %+v", got.Conditions)
	}
	if have.Conditions[1].Status != configv1.ConditionFalse {
		t.Error("Apply modified its input")
	}
}

func TestApplyKeepsVersionsAndRelatedObjectsTheReportLeavesOut(t *testing.T) {
	have := configv1.ClusterOperatorStatus{
		Versions:       []configv1.OperandVersion{{Name: "operator", Version: "4.21.0"}},
		RelatedObjects: []configv1.ObjectReference{{Resource: "namespaces", Name: "openshift-registries-controller"}},
	}
	got, changed := Apply(have, Report{}, t0)
	if changed || len(got.Versions) != 1 || len(got.RelatedObjects) != 1 {
		t.Errorf("changed=%v %+v", changed, got)
	}
	got, changed = Apply(have, Report{Versions: []configv1.OperandVersion{{Name: "operator", Version: "4.22.0"}}}, t0)
	if !changed || got.Versions[0].Version != "4.22.0" || len(got.RelatedObjects) != 1 {
		t.Errorf("a new version: changed=%v %+v", changed, got)
	}
}
