package credentialprovider

import (
	"fmt"

	configv1 "github.com/openshift/api/config/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition reasons and messages MCO writes besides the API's constants
// (configv1.ReasonConfigurationPartiallyApplied, configv1.ReasonMachineConfigRenderingSucceeded,
// configv1.ReasonMachineConfigRenderingFailed).
const (
	// ReasonSucceeded is the reason of a True condition of a type other than MachineConfigRendered.
	ReasonSucceeded = "Succeeded"
	// MessageSuccess is the message of a True condition.
	MessageSuccess = "Success"
	// SkippedMessageFormat is the message of Validated=False/ConfigurationPartiallyApplied; %v is the sorted
	// list of skipped entries as Go prints a []string: "[*.gcr.io gcr.io]".
	SkippedMessageFormat = "CRIOCredentialProviderConfig has one or multiple entries that overlap with the original credential provider config. Skip rendering entries: %v."
	// MachineConfigFailedFormat is the message of MachineConfigRendered=False; %v is the error. MCO's message is
	// always this one, whatever step failed, because the last step overwrites the others.
	MachineConfigFailedFormat = "could not Create/Update MachineConfig: %v"
)

// Condition builds one status condition as MCO's wrapErrorWithCRIOCredentialProviderConfigCondition does,
// without observedGeneration and lastTransitionTime (meta.SetStatusCondition sets the time):
//
//   - an empty conditionType means MachineConfigRendered;
//   - the message is fmt.Sprintf(format, args...), or, when format is empty, "Success" without an error and
//     "Error: <err>" with one;
//   - without an error the status is True, except Validated with reason ConfigurationPartiallyApplied, which
//     is False; an empty reason is MachineConfigRenderingSucceeded for MachineConfigRendered and Succeeded for
//     the other types;
//   - with an error the status is False and an empty reason is MachineConfigRenderingFailed.
//
// For example:
//
//	Condition(nil, "", "", "")                                   // MachineConfigRendered True MachineConfigRenderingSucceeded "Success"
//	Condition(nil, configv1.ConditionTypeValidated, "", "")      // Validated True Succeeded "Success"
//	Condition(errors.New("boom"), configv1.ConditionTypeValidated, "", "") // Validated False MachineConfigRenderingFailed "Error: boom"
func Condition(err error, conditionType, reason, format string, args ...any) metav1.Condition {
	if conditionType == "" {
		conditionType = configv1.ConditionTypeMachineConfigRendered
	}
	message := ""
	if format != "" {
		message = fmt.Sprintf(format, args...)
	}
	c := metav1.Condition{Type: conditionType, Reason: reason, Message: message}
	if err != nil {
		c.Status = metav1.ConditionFalse
		if c.Reason == "" {
			c.Reason = configv1.ReasonMachineConfigRenderingFailed
		}
		if c.Message == "" {
			c.Message = "Error: " + err.Error()
		}
		return c
	}
	c.Status = metav1.ConditionTrue
	if conditionType == configv1.ConditionTypeValidated && reason == configv1.ReasonConfigurationPartiallyApplied {
		c.Status = metav1.ConditionFalse
	}
	if c.Reason == "" {
		c.Reason = ReasonSucceeded
		if conditionType == configv1.ConditionTypeMachineConfigRendered {
			c.Reason = configv1.ReasonMachineConfigRenderingSucceeded
		}
	}
	if c.Message == "" {
		c.Message = MessageSuccess
	}
	return c
}

// Conditions returns the conditions MCO leaves on the object after handling one pool's MachineConfig, each
// with observedGeneration set to generation (the object's metadata.generation):
//
//   - when res is not nil (the render succeeded): Validated, True/Succeeded/"Success", or, when entries were
//     skipped, False/ConfigurationPartiallyApplied with SkippedMessageFormat naming them;
//   - then MachineConfigRendered: True/MachineConfigRenderingSucceeded/"Success" when err is nil, else
//     False/MachineConfigRenderingFailed with MachineConfigFailedFormat.
//
// err is the failure of the render or of writing the MachineConfig. When the render failed (res is nil),
// Validated is not returned: MCO leaves the previous one in place.
//
// For matchImages [gcr.io, *.gcr.io] on GCP:
//
//	Validated              False  ConfigurationPartiallyApplied    "CRIOCredentialProviderConfig has ... Skip rendering entries: [*.gcr.io gcr.io]."
//	MachineConfigRendered  True   MachineConfigRenderingSucceeded  "Success"
func Conditions(res *Result, err error, generation int64) []metav1.Condition {
	var out []metav1.Condition
	if res != nil {
		validated := Condition(nil, configv1.ConditionTypeValidated, "", "")
		if len(res.Skipped) > 0 {
			validated = Condition(nil, configv1.ConditionTypeValidated, configv1.ReasonConfigurationPartiallyApplied, SkippedMessageFormat, res.Skipped)
		}
		out = append(out, validated)
	}
	rendered := Condition(nil, configv1.ConditionTypeMachineConfigRendered, "", "")
	if err != nil {
		rendered = Condition(err, configv1.ConditionTypeMachineConfigRendered, "", MachineConfigFailedFormat, err)
	}
	out = append(out, rendered)
	for i := range out {
		out[i].ObservedGeneration = generation
	}
	return out
}
