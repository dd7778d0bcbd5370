package credentialprovider_test

import (
	"errors"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/openshift/registries-controller/pkg/credentialprovider"
)

// TestCondition holds the cases of MCO's TestWrapErrorWithCRIOCredentialProviderConfigCondition.
func TestCondition(t *testing.T) {
	cases := []struct {
		name                 string
		err                  error
		conditionType        string
		reason, format       string
		args                 []any
		wantType, wantReason string
		wantStatus           metav1.ConditionStatus
		wantMessage          string
	}{
		{name: "no error, no type", wantType: "MachineConfigRendered", wantStatus: "True", wantReason: "MachineConfigRenderingSucceeded", wantMessage: "Success"},
		{name: "partially applied", conditionType: "Validated", reason: "ConfigurationPartiallyApplied", format: "partially applied",
			wantType: "Validated", wantStatus: "False", wantReason: "ConfigurationPartiallyApplied", wantMessage: "partially applied"},
		{name: "validated", conditionType: "Validated", wantType: "Validated", wantStatus: "True", wantReason: "Succeeded", wantMessage: "Success"},
		{name: "error without message", err: errors.New("boom"), conditionType: "Validated",
			wantType: "Validated", wantStatus: "False", wantReason: "MachineConfigRenderingFailed", wantMessage: "Error: boom"},
		{name: "error with reason and format", err: errors.New("bad input"), conditionType: "MachineConfigRendered", reason: "ValidationFailed",
			format: "custom %s", args: []any{"message"},
			wantType: "MachineConfigRendered", wantStatus: "False", wantReason: "ValidationFailed", wantMessage: "custom message"},
	}
	for _, tc := range cases {
		got := credentialprovider.Condition(tc.err, tc.conditionType, tc.reason, tc.format, tc.args...)
		want := metav1.Condition{Type: tc.wantType, Status: tc.wantStatus, Reason: tc.wantReason, Message: tc.wantMessage}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: want %+v, got %+v", tc.name, want, got)
		}
	}
}

func TestConditionsAfterAFailure(t *testing.T) {
	failed := metav1.Condition{Type: "MachineConfigRendered", Status: "False", Reason: "MachineConfigRenderingFailed",
		Message: "could not Create/Update MachineConfig: machineconfigs.machineconfiguration.openshift.io \"97-worker-generated-credentialproviderconfig\" is forbidden", ObservedGeneration: 4}
	writeErr := errors.New(`machineconfigs.machineconfiguration.openshift.io "97-worker-generated-credentialproviderconfig" is forbidden`)

	// The render succeeded with a skipped entry, then the MachineConfig write failed: both conditions.
	got := credentialprovider.Conditions(&credentialprovider.Result{Skipped: []string{"*.gcr.io", "gcr.io"}}, writeErr, 4)
	want := []metav1.Condition{{Type: "Validated", Status: "False", Reason: "ConfigurationPartiallyApplied",
		Message:            "CRIOCredentialProviderConfig has one or multiple entries that overlap with the original credential provider config. Skip rendering entries: [*.gcr.io gcr.io].",
		ObservedGeneration: 4}, failed}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("write failed:\nwant %+v\ngot  %+v", want, got)
	}

	// The render failed: MCO writes no Validated, only the failure.
	got = credentialprovider.Conditions(nil, writeErr, 4)
	if !reflect.DeepEqual(got, []metav1.Condition{failed}) {
		t.Errorf("render failed:\nwant %+v\ngot  %+v", []metav1.Condition{failed}, got)
	}
}
