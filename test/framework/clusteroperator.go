package framework

import (
	"context"
	"testing"

	configv1 "github.com/openshift/api/config/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterOperator returns the ClusterOperator name (the controller's is "registries-controller"); nil when it does
// not exist. Any other error fails the test.
func (cp *ControlPlane) ClusterOperator(t testing.TB, name string) *configv1.ClusterOperator {
	t.Helper()
	co, err := cp.Config.ConfigV1().ClusterOperators().Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return co
}

// OperatorCondition returns co's status condition of type ct; when co is nil or has no such condition, a condition
// with only its type set (no status, reason or message).
func OperatorCondition(co *configv1.ClusterOperator, ct configv1.ClusterStatusConditionType) configv1.ClusterOperatorStatusCondition {
	if co != nil {
		for _, c := range co.Status.Conditions {
			if c.Type == ct {
				return c
			}
		}
	}
	return configv1.ClusterOperatorStatusCondition{Type: ct}
}
