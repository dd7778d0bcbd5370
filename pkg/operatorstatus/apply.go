package operatorstatus

import (
	"reflect"
	"time"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Apply returns have with the report's conditions, versions and related objects, and whether that differs from
// have. A condition keeps its lastTransitionTime unless its status changes (then it is now); conditions of other
// types, set by someone else, are kept in place; nil versions or related objects keep have's. have is not
// modified. Whether anything changed is judged without lastTransitionTime, so the caller writes only when what a
// person reads changes:
//
//	next, changed := Apply(co.Status, report, now)
//	if changed { co.Status = next; client.UpdateStatus(ctx, co, ...) }
func Apply(have configv1.ClusterOperatorStatus, r Report, now time.Time) (configv1.ClusterOperatorStatus, bool) {
	out := *have.DeepCopy()
	changed := false
	stamp := metav1.NewTime(now.UTC().Truncate(time.Second))
	for _, want := range r.Conditions {
		i := conditionIndex(out.Conditions, want.Type)
		if i < 0 {
			want.LastTransitionTime = stamp
			out.Conditions = append(out.Conditions, want)
			changed = true
			continue
		}
		old := out.Conditions[i]
		want.LastTransitionTime = old.LastTransitionTime
		if old.Status != want.Status || old.LastTransitionTime.IsZero() {
			want.LastTransitionTime = stamp
		}
		if old.Status != want.Status || old.Reason != want.Reason || old.Message != want.Message {
			changed = true
		}
		out.Conditions[i] = want
	}
	if r.Versions != nil && !reflect.DeepEqual(out.Versions, r.Versions) {
		out.Versions = append([]configv1.OperandVersion(nil), r.Versions...)
		changed = true
	}
	if r.RelatedObjects != nil && !reflect.DeepEqual(out.RelatedObjects, r.RelatedObjects) {
		out.RelatedObjects = append([]configv1.ObjectReference(nil), r.RelatedObjects...)
		changed = true
	}
	return out, changed
}

func conditionIndex(conds []configv1.ClusterOperatorStatusCondition, t configv1.ClusterStatusConditionType) int {
	for i := range conds {
		if conds[i].Type == t {
			return i
		}
	}
	return -1
}
